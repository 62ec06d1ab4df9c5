//! Byte streams between commands: bounded pipes, the standard input a command reads, the
//! place its output goes, and the scheduler that runs the stages of a pipeline together.
//!
//! Everything runs on one thread. A pipe holds at most [`PIPE_CAPACITY`] bytes before a
//! writer waits; a reader waits while it is empty and its writer is still there. Waiting
//! is an ordinary `Poll::Pending`: [`join_stages`] polls the stage whose turn it is, in a
//! fixed order, so a run is the same every time and the step count stays exact. When the
//! reader of a pipe has gone, a write is [`Error::BrokenPipe`] (SIGPIPE for a process).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use smallvec::SmallVec;

use crate::error::{Error, Result};
use crate::host::LocalFuture;

/// Bytes a pipe holds before its writer waits (Linux's default pipe size is 64 KiB too).
pub const PIPE_CAPACITY: usize = 64 * 1024;

/// A builtin hands its buffered output on once it holds this much (see `Ctx::flush_some`).
pub const FLUSH_AT: usize = 64 * 1024;

/// A source of bytes from outside the shell: the Request's body as the platform streams
/// it, the process's standard input. `Ok(None)` is the end. The future owns what it
/// needs (a handle on the stream), so it may outlive the call.
pub trait ByteStream {
    fn next_chunk(&mut self) -> LocalFuture<'static, Result<Option<Vec<u8>>, String>>;
}

/// A pipe between two commands: chunks in order, at most [`PIPE_CAPACITY`] bytes queued
/// (a single write may pass the bound once, so a writer never has to split its chunk).
/// The queue lives in the reading end's [`Stdin`], so a pipe is one allocation; a `Pipe`
/// is a handle on it, held by the writer (as [`Out::Pipe`]) and by whoever closes an end.
#[derive(Clone)]
pub struct Pipe(Rc<RefCell<StdinInner>>);

impl Default for Pipe {
    fn default() -> Self {
        Pipe::new()
    }
}

#[derive(Default)]
struct PipeInner {
    chunks: Chunks,
    queued: usize,
    writer_closed: bool,
    reader_closed: bool,
    reader_waiting: Option<Waker>,
    writer_waiting: Option<Waker>,
}

/// The chunks queued in a pipe. Most pipes of a script carry one chunk at a time, which
/// waits in `first` without a queue of its own.
#[derive(Default)]
struct Chunks {
    first: Option<Vec<u8>>,
    rest: VecDeque<Vec<u8>>,
}

impl Chunks {
    fn push_back(&mut self, chunk: Vec<u8>) {
        if self.first.is_none() {
            self.first = Some(chunk);
        } else {
            self.rest.push_back(chunk);
        }
    }

    fn pop_front(&mut self) -> Option<Vec<u8>> {
        let chunk = self.first.take()?;
        self.first = self.rest.pop_front();
        Some(chunk)
    }

    fn clear(&mut self) {
        self.first = None;
        self.rest.clear();
    }
}

impl Pipe {
    pub fn new() -> Pipe {
        Pipe(Rc::new(RefCell::new(StdinInner {
            pending: no_pending(),
            pos: 0,
            feed: Feed::Pipe(PipeInner::default()),
        })))
    }

    /// Runs `f` on the pipe's state (a pipe's feed is never replaced).
    fn with<T>(&self, f: impl FnOnce(&mut PipeInner) -> T) -> T {
        match &mut self.0.borrow_mut().feed {
            Feed::Pipe(p) => f(p),
            _ => unreachable!("a pipe's reader keeps its pipe"),
        }
    }

    /// Queues `chunk`, waiting while the pipe is full; `BrokenPipe` once the reader is gone.
    pub fn write(&self, chunk: Vec<u8>) -> impl Future<Output = Result<()>> + '_ {
        let mut chunk = Some(chunk);
        std::future::poll_fn(move |cx| {
            self.with(|p| {
                if p.reader_closed {
                    return Poll::Ready(Err(Error::BrokenPipe));
                }
                if p.queued >= PIPE_CAPACITY {
                    p.writer_waiting = Some(cx.waker().clone());
                    return Poll::Pending;
                }
                p.push(chunk.take().unwrap_or_default());
                Poll::Ready(Ok(()))
            })
        })
    }

    /// Queues `bytes` now, whatever the pipe holds: for the shell's own short messages.
    pub fn write_now(&self, bytes: &[u8]) -> Result<()> {
        self.with(|p| {
            if p.reader_closed {
                return Err(Error::BrokenPipe);
            }
            p.push(bytes.to_vec());
            Ok(())
        })
    }

    /// The writing end is done: the reader sees the end once the queue is empty.
    pub fn close_write(&self) {
        self.with(|p| {
            p.writer_closed = true;
            if let Some(w) = p.reader_waiting.take() {
                w.wake();
            }
        })
    }

    /// The reading end is done: what is queued is dropped and writers get `BrokenPipe`.
    pub fn close_read(&self) {
        self.with(PipeInner::close_read)
    }
}

impl PipeInner {
    fn push(&mut self, chunk: Vec<u8>) {
        if !chunk.is_empty() {
            self.queued += chunk.len();
            self.chunks.push_back(chunk);
            if let Some(w) = self.reader_waiting.take() {
                w.wake();
            }
        }
    }

    fn poll_read(&mut self, cx: &mut Context<'_>) -> Poll<Option<Vec<u8>>> {
        if self.reader_closed {
            return Poll::Ready(None);
        }
        if let Some(chunk) = self.chunks.pop_front() {
            self.queued -= chunk.len();
            if let Some(w) = self.writer_waiting.take() {
                w.wake();
            }
            return Poll::Ready(Some(chunk));
        }
        if self.writer_closed {
            return Poll::Ready(None);
        }
        self.reader_waiting = Some(cx.waker().clone());
        Poll::Pending
    }

    fn close_read(&mut self) {
        self.reader_closed = true;
        self.chunks.clear();
        self.queued = 0;
        if let Some(w) = self.writer_waiting.take() {
            w.wake();
        }
    }
}

/// Where a command's standard input comes from.
enum Feed {
    /// Nothing more than what is pending.
    Done,
    /// The reading end of a pipe, which holds the pipe's queue.
    Pipe(PipeInner),
    Outside {
        stream: Box<dyn ByteStream>,
        next: Option<LocalFuture<'static, Result<Option<Vec<u8>>, String>>>,
    },
}

impl StdinInner {
    fn poll_feed(&mut self, cx: &mut Context<'_>) -> Poll<Result<Option<Vec<u8>>>> {
        let polled = match &mut self.feed {
            Feed::Done => Poll::Ready(Ok(None)),
            Feed::Pipe(p) => p.poll_read(cx).map(Ok),
            Feed::Outside { stream, next } => {
                let fut = next.get_or_insert_with(|| stream.next_chunk());
                match fut.as_mut().poll(cx) {
                    Poll::Pending => Poll::Pending,
                    Poll::Ready(r) => {
                        *next = None;
                        Poll::Ready(r.map_err(Error::Fatal))
                    }
                }
            }
        };
        // A pipe stays, for its writer to see the reader's state.
        if let (Poll::Ready(Ok(None)), Feed::Outside { .. }) = (&polled, &self.feed) {
            self.feed = Feed::Done;
        }
        polled
    }
}

/// Empty pending bytes, shared: a pipe's reader starts with them, so that each stage of a
/// pipeline costs no allocation for them.
fn no_pending() -> Rc<Vec<u8>> {
    thread_local! {
        static EMPTY: Rc<Vec<u8>> = Rc::default();
    }
    EMPTY.with(Rc::clone)
}

struct StdinInner {
    /// Bytes taken from the feed and not yet read.
    pending: Rc<Vec<u8>>,
    pos: usize,
    feed: Feed,
}

/// A command's standard input: a handle on a stream, shared by the commands that read it
/// one after another (`{ read line; cat; }`), so what one leaves the next one gets.
#[derive(Clone)]
pub struct Stdin(Rc<RefCell<StdinInner>>);

impl Default for Stdin {
    fn default() -> Self {
        Stdin::bytes(Vec::new())
    }
}

impl std::fmt::Debug for Stdin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stdin")
    }
}

impl Stdin {
    fn with(pending: Rc<Vec<u8>>, feed: Feed) -> Self {
        Stdin(Rc::new(RefCell::new(StdinInner {
            pending,
            pos: 0,
            feed,
        })))
    }

    /// Bytes known in full: a here-document, a buffered body, `/dev/null`.
    pub fn bytes(data: Vec<u8>) -> Self {
        Stdin::with(Rc::new(data), Feed::Done)
    }

    /// The reading end of a pipe.
    pub fn pipe(pipe: Pipe) -> Self {
        Stdin(pipe.0)
    }

    /// A stream from outside (the Request's body, a process's stdin).
    pub fn outside(stream: Box<dyn ByteStream>) -> Self {
        Stdin::with(no_pending(), Feed::Outside { stream, next: None })
    }

    /// The next bytes, as many as are at hand; `None` at the end.
    pub fn read(&self) -> impl Future<Output = Result<Option<Vec<u8>>>> + '_ {
        std::future::poll_fn(move |cx| self.poll_read(cx))
    }

    fn poll_read(&self, cx: &mut Context<'_>) -> Poll<Result<Option<Vec<u8>>>> {
        let mut s = self.0.borrow_mut();
        if s.pos < s.pending.len() {
            let pos = std::mem::take(&mut s.pos);
            let data = std::mem::take(&mut s.pending);
            let chunk = match Rc::try_unwrap(data) {
                Ok(mut v) => {
                    v.drain(..pos);
                    v
                }
                Err(shared) => shared[pos..].to_vec(),
            };
            return Poll::Ready(Ok(Some(chunk)));
        }
        s.poll_feed(cx)
    }

    /// Takes the next chunk of the feed into the pending bytes; `false` at the end.
    pub fn fill_more(&self) -> impl Future<Output = Result<bool>> + '_ {
        std::future::poll_fn(move |cx| {
            let mut s = self.0.borrow_mut();
            match s.poll_feed(cx) {
                Poll::Pending => Poll::Pending,
                Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
                Poll::Ready(Ok(None)) => Poll::Ready(Ok(false)),
                Poll::Ready(Ok(Some(chunk))) => {
                    let rest = &s.pending[s.pos..];
                    let joined = if rest.is_empty() {
                        chunk
                    } else {
                        let mut v = Vec::with_capacity(rest.len() + chunk.len());
                        v.extend_from_slice(rest);
                        v.extend_from_slice(&chunk);
                        v
                    };
                    s.pending = Rc::new(joined);
                    s.pos = 0;
                    Poll::Ready(Ok(true))
                }
            }
        })
    }

    /// Calls `f` with the pending bytes (those taken from the feed and not yet read);
    /// `f` says how many of them it used.
    pub fn take_pending<T>(&self, f: impl FnOnce(&[u8]) -> (usize, T)) -> T {
        let mut s = self.0.borrow_mut();
        let (used, value) = f(&s.pending[s.pos..]);
        s.pos += used;
        value
    }

    /// Everything that is left, to the end of the stream.
    pub async fn read_all(&self) -> Result<Vec<u8>> {
        let mut all = Vec::new();
        while let Some(chunk) = self.read().await? {
            if all.is_empty() {
                all = chunk;
            } else {
                all.extend_from_slice(&chunk);
            }
        }
        Ok(all)
    }

    /// Puts bytes back in front of the stream: the `read` builtin takes one line and
    /// leaves the rest for the next command, as a shell reading a pipe byte by byte does.
    pub fn unread(&self, bytes: Vec<u8>) {
        if bytes.is_empty() {
            return;
        }
        let mut s = self.0.borrow_mut();
        let rest = &s.pending[s.pos..];
        let data = if rest.is_empty() {
            bytes
        } else {
            let mut v = bytes;
            v.extend_from_slice(rest);
            v
        };
        s.pending = Rc::new(data);
        s.pos = 0;
    }

    /// Closes the reading end of a pipe feed: its writer gets `BrokenPipe`.
    pub fn close(&self) {
        let mut s = self.0.borrow_mut();
        match &mut s.feed {
            Feed::Pipe(p) => p.close_read(),
            feed => *feed = Feed::Done,
        }
        s.pending = no_pending();
        s.pos = 0;
    }
}

/// Where a command's output goes.
#[derive(Clone, Default)]
pub enum Out {
    /// `/dev/null`.
    #[default]
    Null,
    /// Kept whole: a command substitution, stderr, a script's collected output.
    Buffer(Rc<RefCell<Vec<u8>>>),
    /// The writing end of a pipe.
    Pipe(Pipe),
}

impl std::fmt::Debug for Out {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Out::Null => "Out::Null",
            Out::Buffer(_) => "Out::Buffer",
            Out::Pipe(_) => "Out::Pipe",
        })
    }
}

impl Out {
    pub fn buffer() -> Out {
        Out::Buffer(Rc::default())
    }

    /// Hands `chunk` on, waiting for room in a pipe.
    pub async fn write(&self, chunk: Vec<u8>) -> Result<()> {
        match self {
            Out::Null => Ok(()),
            Out::Buffer(b) => {
                let mut b = b.borrow_mut();
                if b.is_empty() {
                    *b = chunk;
                } else {
                    b.extend_from_slice(&chunk);
                }
                Ok(())
            }
            Out::Pipe(p) => p.write(chunk).await,
        }
    }

    /// Writes `bytes` at once, even past a pipe's bound: the shell's own short messages.
    pub fn write_now(&self, bytes: &[u8]) -> Result<()> {
        match self {
            Out::Null => Ok(()),
            Out::Buffer(b) => {
                b.borrow_mut().extend_from_slice(bytes);
                Ok(())
            }
            Out::Pipe(p) => p.write_now(bytes),
        }
    }

    /// The bytes of a buffer, taken out of it.
    pub fn take(&self) -> Vec<u8> {
        match self {
            Out::Buffer(b) => std::mem::take(&mut *b.borrow_mut()),
            _ => Vec::new(),
        }
    }
}

/// The waker of a pipeline's stages: notes that one of them can go on, and wakes whoever
/// polls the whole pipeline.
#[derive(Default)]
struct PassWaker {
    woke: AtomicBool,
    outer: Mutex<Option<Waker>>,
}

impl Wake for PassWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.woke.store(true, Ordering::Relaxed);
        if let Ok(outer) = self.outer.lock() {
            if let Some(w) = &*outer {
                w.wake_by_ref();
            }
        }
    }
}

thread_local! {
    /// Pass wakers that no one holds any more, for the next pipelines: a script runs many
    /// short pipelines, and an allocation for each costs as much as a short stage's work.
    static IDLE_PASS_WAKERS: RefCell<Vec<Arc<PassWaker>>> = const { RefCell::new(Vec::new()) };
}

/// The most idle pass wakers kept: one per level of pipelines run inside a pipeline's stage.
const IDLE_PASS_WAKERS_KEPT: usize = 8;

/// The results of a pipeline's stages, in order.
pub type StageResults<T> = SmallVec<[T; 5]>;

/// Runs `stages` together and gives each one's result, in order. The stages are polled in
/// passes from left to right, each once a pass, and passes go on while a stage woke
/// another (a writer filled a pipe, a reader emptied one); so a writer fills its pipe
/// before its reader runs, and the order of work is the same on every run, whatever the
/// pipeline's length. The stages lie side by side in the caller's future (a stage's own
/// state is boxed or borrowed, so a stage is small and `Unpin`).
pub async fn join_stages<F: Future + Unpin>(
    stages: impl IntoIterator<Item = F>,
) -> StageResults<F::Output> {
    let mut all = Stages(stages.into_iter().map(Stage::Running).collect());
    let pass = IDLE_PASS_WAKERS
        .with(|idle| idle.borrow_mut().pop())
        .unwrap_or_default();
    let waker = Waker::from(pass.clone());
    let results = std::future::poll_fn(|cx| {
        if let Ok(mut w) = pass.outer.lock() {
            match &*w {
                Some(old) if old.will_wake(cx.waker()) => {}
                _ => *w = Some(cx.waker().clone()),
            }
        }
        loop {
            pass.woke.store(false, Ordering::Relaxed);
            if all.poll_pass(&mut Context::from_waker(&waker)) {
                return Poll::Ready(all.take_results());
            }
            if !pass.woke.load(Ordering::Relaxed) {
                return Poll::Pending;
            }
        }
    })
    .await;
    drop(waker);
    // A clone still held somewhere (a host's pending callback) keeps this waker to itself.
    if Arc::strong_count(&pass) == 1 {
        if let Ok(mut w) = pass.outer.lock() {
            *w = None;
        }
        IDLE_PASS_WAKERS.with(|idle| {
            let mut idle = idle.borrow_mut();
            if idle.len() < IDLE_PASS_WAKERS_KEPT {
                idle.push(pass);
            }
        });
    }
    results
}

enum Stage<F: Future> {
    Running(F),
    Ended(F::Output),
    Taken,
}

struct Stages<F: Future>(SmallVec<[Stage<F>; 5]>);

impl<F: Future + Unpin> Stages<F> {
    /// Polls each stage still running once, from left to right; whether all have ended.
    fn poll_pass(&mut self, cx: &mut Context<'_>) -> bool {
        let mut all_ended = true;
        for stage in &mut self.0 {
            if let Stage::Running(f) = stage {
                match Pin::new(f).poll(cx) {
                    Poll::Ready(v) => *stage = Stage::Ended(v),
                    Poll::Pending => all_ended = false,
                }
            }
        }
        all_ended
    }

    fn take_results(&mut self) -> StageResults<F::Output> {
        self.0
            .iter_mut()
            .filter_map(|s| match std::mem::replace(s, Stage::Taken) {
                Stage::Ended(v) => Some(v),
                _ => None,
            })
            .collect()
    }
}

/// Runs `fut` to its end on this thread, for callers with nothing else to do meanwhile
/// (tests, benchmarks, `mkfifo-sh`): a future that waits on nothing outside is polled
/// again at once; one that waits on the outside world is polled until it is ready.
pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
    }
}
