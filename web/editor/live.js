// The live log's WebSocket (messages: src/live.rs): says hello with the newest entry id
// it has, takes what it missed and each new entry, pings to stay open, and reconnects
// with growing pauses when the connection drops.
const PING = '{"type":"ping"}';
const PING_EVERY_MS = 30_000;

export function connectLive(fifo, { onEntries, onState, newestId }) {
  let socket = null;
  let pause = 500;
  let pinger = null;
  let stopped = false;

  const open = () => {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    socket = new WebSocket(`${scheme}//${location.host}/_/api/fifos/${fifo}/live`);
    onState("connecting");
    socket.addEventListener("open", () => {
      pause = 500;
      const after = newestId();
      socket.send(JSON.stringify(after == null ? { type: "hello" } : { type: "hello", after }));
      pinger = setInterval(() => socket.readyState === WebSocket.OPEN && socket.send(PING), PING_EVERY_MS);
      onState("live");
    });
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "entries") onEntries(message.entries, message.more);
      else if (message.type === "entry") onEntries([message.entry], false);
      else if (message.type === "deleted") {
        stopped = true;
        onState("deleted");
      } else if (message.type === "error") console.warn("live log:", message.message);
    });
    socket.addEventListener("close", () => {
      clearInterval(pinger);
      if (stopped) return;
      onState("offline");
      setTimeout(open, pause);
      pause = Math.min(pause * 2, 10_000);
    });
  };
  open();
  return {
    // For tests and for a person: drop the connection now (it comes back by itself).
    drop: () => socket && socket.close(),
  };
}
