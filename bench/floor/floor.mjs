// An empty Durable Object that echoes: one object per first path segment, as mkfifo has
// one per FIFO. It reads the whole body and sends it back (a body over 64 KiB: its
// length, so that a large body costs it a read, as mkfifo's selectors do, not a write
// back too), and stores nothing.
const ECHO_LIMIT = 64 * 1024;

export class Echo {
  async fetch(request) {
    const body = request.body ? await request.arrayBuffer() : new ArrayBuffer(0);
    const answer = body.byteLength > ECHO_LIMIT ? `${body.byteLength}\n` : body;
    return new Response(answer, { headers: { "Content-Type": "application/octet-stream" } });
  }
}

export default {
  fetch(request, env) {
    const name = new URL(request.url).pathname.split("/")[1] || "root";
    return env.ECHO.get(env.ECHO.idFromName(name)).fetch(request);
  },
};
