//! The builtins: well-known Unix tools as async functions of their arguments and a [`Ctx`].
//!
//! A builtin is a [`Run`]: it gets a [`Ctx`] (stdin as a stream, buffered stdout and
//! stderr and where they go, the step budget, the variables, the host's clock, parse
//! caches, the network) and its arguments as bytes, `args[0]` being the name it was called
//! by. It reads, writes, spends steps for its work, and returns its exit status. It runs
//! once, from start to end: where it reads an empty pipe, writes a full one or fetches a
//! URL ([`Ctx::open`], [`Ctx::http`]) it waits, and the other stages of its pipeline run
//! meanwhile (see [`crate::stream`]). It never panics and never touches a file system.
//!
//! To add a tool: `builtins/NAME.rs` with `pub async fn run`, one row in [`TABLE`] (kept
//! sorted), and its tests.

pub mod common;

mod b2sum;
mod base32;
mod base64;
mod basename;
mod basenc;
mod cat;
mod cryptname;
mod curl;
mod cut;
pub(crate) mod date;
mod dirname;
mod echo;
mod expand;
mod false_;
mod fold;
mod grep;
mod gunzip;
mod gzip;
mod head;
mod hmac;
mod jq;
mod lsjson;
mod md5sum;
mod paste;
mod printf;
mod rcat;
mod rev;
mod scrypt;
mod secretbox;
mod sed;
mod seq;
mod sha1sum;
mod sha224sum;
mod sha256sum;
mod sha384sum;
mod sha512sum;
mod sort;
mod tac;
mod tail;
mod tee;
mod test_;
mod tr;
mod true_;
mod uniq;
mod wc;
mod xargs;
mod yes;
mod zcat;

use std::any::{Any, TypeId};
use std::cell::{RefCell, RefMut};
use std::collections::HashMap;
use std::rc::Rc;

use crate::budget::Budget;
use crate::error::{Result, Status};
use crate::host::{Host, HttpRequest, HttpResponse, LocalFuture};
use crate::stream::{Out, Stdin, FLUSH_AT};

/// How a builtin is run: an async function, for a builtin waits where it reads a pipe,
/// writes a full one, or fetches a URL. It runs with these streams and output buffers of its
/// own, and flushes what it left in them at its end.
pub type Run = for<'a> fn(ToolIo<'a>, &'a [Vec<u8>]) -> LocalFuture<'a, Result<Status>>;

/// The [`Run`] of a tool module's `pub async fn run(ctx: &mut Ctx, args)`.
macro_rules! tool {
    ($module:ident) => {{
        fn run<'a>(io: ToolIo<'a>, args: &'a [Vec<u8>]) -> LocalFuture<'a, Result<Status>> {
            // The buffers and the context live in the box: whoever awaits a builtin holds
            // a pointer, not the tool's state (a pipeline moves its stages' futures).
            Box::pin(async move {
                let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
                let mut ctx = io.ctx(&mut stdout, &mut stderr);
                let status = $module::run(&mut ctx, args).await;
                ctx.finish(status).await
            })
        }
        run as Run
    }};
}

/// Every builtin by name, sorted by name (as `type` and the docs list them).
pub static TABLE: &[(&str, Run)] = &[
    ("[", tool!(test_)),
    ("b2sum", tool!(b2sum)),
    ("base32", tool!(base32)),
    ("base64", tool!(base64)),
    ("basename", tool!(basename)),
    ("basenc", tool!(basenc)),
    ("cat", tool!(cat)),
    ("cryptname", tool!(cryptname)),
    ("curl", tool!(curl)),
    ("cut", tool!(cut)),
    ("date", tool!(date)),
    ("dirname", tool!(dirname)),
    ("echo", tool!(echo)),
    ("egrep", tool!(grep)),
    ("expand", tool!(expand)),
    ("false", tool!(false_)),
    ("fgrep", tool!(grep)),
    ("fold", tool!(fold)),
    ("grep", tool!(grep)),
    ("gunzip", tool!(gunzip)),
    ("gzip", tool!(gzip)),
    ("head", tool!(head)),
    ("hmac", tool!(hmac)),
    ("jq", tool!(jq)),
    ("lsjson", tool!(lsjson)),
    ("md5sum", tool!(md5sum)),
    ("paste", tool!(paste)),
    ("printf", tool!(printf)),
    ("rcat", tool!(rcat)),
    ("rev", tool!(rev)),
    ("scrypt", tool!(scrypt)),
    ("secretbox", tool!(secretbox)),
    ("sed", tool!(sed)),
    ("seq", tool!(seq)),
    ("sha1sum", tool!(sha1sum)),
    ("sha224sum", tool!(sha224sum)),
    ("sha256sum", tool!(sha256sum)),
    ("sha384sum", tool!(sha384sum)),
    ("sha512sum", tool!(sha512sum)),
    ("sort", tool!(sort)),
    ("tac", tool!(tac)),
    ("tail", tool!(tail)),
    ("tee", tool!(tee)),
    ("test", tool!(test_)),
    ("tr", tool!(tr)),
    ("true", tool!(true_)),
    ("uniq", tool!(uniq)),
    ("wc", tool!(wc)),
    ("xargs", tool!(xargs)),
    ("yes", tool!(yes)),
    ("zcat", tool!(zcat)),
];

/// Finds a builtin by the name a script calls it by.
pub fn lookup(name: &[u8]) -> Option<Run> {
    thread_local! {
        // Every command a script runs is looked up: one hash probe, where a binary search
        // of the table compared strings six times.
        static BY_NAME: rustc_hash::FxHashMap<&'static [u8], Run> =
            TABLE.iter().map(|&(name, run)| (name.as_bytes(), run)).collect();
    }
    BY_NAME.with(|m| m.get(name).copied())
}

/// The content of a file operand, read whole.
pub type Bytes = Vec<u8>;

/// The variables a builtin can read: `TZ` for `date`, the exported ones for jq's `$ENV`.
pub trait Vars {
    fn get(&self, name: &[u8]) -> Option<&[u8]>;
    /// The exported variables, as `env` would print them.
    fn exported(&self) -> Vec<(Vec<u8>, Vec<u8>)>;
}

/// A plain list of variables, all exported: for tests and for `mkfifo-sh`'s environment.
#[derive(Debug, Default, Clone)]
pub struct VarList(pub Vec<(Vec<u8>, Vec<u8>)>);

impl Vars for VarList {
    fn get(&self, name: &[u8]) -> Option<&[u8]> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_slice())
    }
    fn exported(&self) -> Vec<(Vec<u8>, Vec<u8>)> {
        self.0.clone()
    }
}

/// Caches that outlive one Request (the same envelope runs again and again): parsed
/// printf formats, compiled regexes, jq filters. Each tool keeps its own cache type here,
/// found by type, so tools do not share a central list.
#[derive(Default)]
pub struct Caches {
    by_type: RefCell<HashMap<TypeId, Box<dyn Any>>>,
}

impl Caches {
    /// The cache of type `T`, made empty on first use. The stages of a pipeline share the
    /// caches, so a tool takes what it needs (an `Rc` of a compiled program) and lets go
    /// before it waits.
    pub fn get<T: Default + 'static>(&self) -> RefMut<'_, T> {
        RefMut::map(self.by_type.borrow_mut(), |m| {
            m.entry(TypeId::of::<T>())
                .or_insert_with(|| Box::new(T::default()))
                .downcast_mut::<T>()
                .expect("the entry of a TypeId holds that type")
        })
    }
}

/// The network as builtins see it: each request counts against the Request's limit of
/// subrequests. The outer `Err` stops the script (the limit); the inner one is a transport
/// failure in curl's words.
pub trait Net {
    fn fetch(&self, request: HttpRequest) -> LocalFuture<'_, Result<Result<HttpResponse, String>>>;
    /// As `fetch`, with the body as a stream (see [`Host::fetch_stream`]).
    fn fetch_stream(
        &self,
        request: HttpRequest,
    ) -> LocalFuture<'_, Result<Result<(HttpResponse, Stdin), String>>> {
        Box::pin(async move { Ok(self.fetch(request).await?.map(HttpResponse::into_stream)) })
    }
    /// A Request to FIFO `name` at the sub-path `request.url` (see [`Host::fifo_request`]);
    /// `Ok(None)`: no such FIFO.
    fn fifo(
        &self,
        name: &str,
        request: HttpRequest,
    ) -> LocalFuture<'_, Result<Result<Option<HttpResponse>, String>>> {
        let _ = (name, request);
        Box::pin(async { Ok(Ok(None)) })
    }
}

/// No network at all.
pub struct NoNet;

impl Net for NoNet {
    fn fetch(&self, request: HttpRequest) -> LocalFuture<'_, Result<Result<HttpResponse, String>>> {
        Box::pin(async move { Ok(Err(format!("no network: {}", request.url))) })
    }
}

/// Everything a builtin works with.
///
/// Output is buffered in `stdout` and `stderr` as a C program's stdio buffers it, and
/// handed on to `out` and `err` when the tool flushes ([`Ctx::flush_some`] in its loop, or
/// at its end). A tool that reads its input as it comes and flushes as it goes streams; one
/// that reads everything first (`sort`, `tac`) simply does so.
pub struct Ctx<'a> {
    /// The streams and the shell's services.
    pub io: ToolIo<'a>,
    pub stdout: &'a mut Vec<u8>,
    pub stderr: &'a mut Vec<u8>,
}

/// A builtin's streams and the shell's services: a [`Ctx`] without its output buffers.
#[derive(Clone, Copy)]
pub struct ToolIo<'a> {
    pub stdin: &'a Stdin,
    pub out: &'a Out,
    pub err: &'a Out,
    pub budget: &'a Budget,
    pub vars: &'a dyn Vars,
    pub host: &'a dyn Host,
    pub caches: &'a Caches,
    pub net: &'a dyn Net,
}

impl<'a> ToolIo<'a> {
    /// The context of a builtin that buffers its output in `stdout` and `stderr`.
    pub fn ctx<'b>(self, stdout: &'b mut Vec<u8>, stderr: &'b mut Vec<u8>) -> Ctx<'b>
    where
        'a: 'b,
    {
        Ctx {
            io: self,
            stdout,
            stderr,
        }
    }
}

impl Ctx<'_> {
    /// A tool's end: flushes what it left buffered; its status, or the first error.
    async fn finish(&mut self, status: Result<Status>) -> Result<Status> {
        let flushed = self.flush().await;
        let status = status?;
        flushed?;
        Ok(status)
    }

    /// Opens a file operand and reads it whole: `-` and `/dev/stdin` are stdin,
    /// `/dev/null` is empty; `attachment:NAME` is an attachment of the mail being run;
    /// `NAME:path` is a file of FIFO NAME (a `GET` of `/NAME/path`, such as the S3
    /// backend answers); an `http://` or `https://` URL is fetched (a non-2xx answer is
    /// an error, as for `curl -f`); anything else does not exist, for there is no file
    /// system. The inner `Err` is the reason in GNU's words, for the tool to print in its
    /// own format (`cat: x: No such file or directory`).
    pub async fn open(&mut self, operand: &[u8]) -> Result<std::result::Result<Bytes, String>> {
        Ok(match self.open_stream(operand).await? {
            Ok(stream) => Ok(stream.read_all().await?),
            Err(reason) => Err(reason),
        })
    }

    /// Opens a file operand as a stream, to read as it comes (see [`Ctx::open`]).
    pub async fn open_stream(
        &mut self,
        operand: &[u8],
    ) -> Result<std::result::Result<Stdin, String>> {
        if operand == b"-" || operand == b"/dev/stdin" {
            return Ok(Ok(self.io.stdin.clone()));
        }
        if operand == b"/dev/null" {
            return Ok(Ok(Stdin::default()));
        }
        if let Some(name) = operand.strip_prefix(ATTACHMENT_PREFIX) {
            return Ok(
                match self.io.host.attachment(&String::from_utf8_lossy(name)) {
                    Some(bytes) => Ok(Stdin::bytes(bytes)),
                    None => Err("No such file or directory".into()),
                },
            );
        }
        if let Some(url) = as_url(operand) {
            return Ok(
                match self.io.net.fetch_stream(HttpRequest::get(url)).await? {
                    Err(reason) => Err(reason),
                    Ok((resp, body)) if (200..300).contains(&resp.status) => Ok(body),
                    Ok((resp, _)) => {
                        Err(format!("The requested URL returned error: {}", resp.status))
                    }
                },
            );
        }
        if let Some((name, path)) = as_fifo_path(operand) {
            let request = HttpRequest::get(fifo_sub_path(path));
            return Ok(match self.io.net.fifo(name, request).await? {
                Err(reason) => Err(reason),
                Ok(None) => Err("No such file or directory".into()),
                Ok(Some(resp)) if (200..300).contains(&resp.status) => Ok(Stdin::bytes(resp.body)),
                Ok(Some(resp)) if resp.status == 404 => Err("No such file or directory".into()),
                Ok(Some(resp)) => Err(format!("{name} answered {}", resp.status)),
            });
        }
        Ok(Err("No such file or directory".into()))
    }

    /// Performs an HTTP request (`curl`); the inner `Err` is a transport failure.
    pub async fn http(
        &mut self,
        request: HttpRequest,
    ) -> Result<std::result::Result<HttpResponse, String>> {
        self.io.net.fetch(request).await
    }

    /// Performs an HTTP request whose body is read as it comes (see [`Host::fetch_stream`]).
    pub async fn http_stream(
        &mut self,
        request: HttpRequest,
    ) -> Result<std::result::Result<(HttpResponse, Stdin), String>> {
        self.io.net.fetch_stream(request).await
    }

    /// Hands what is buffered on: stderr first, then stdout (a tool's stderr is
    /// unbuffered; its stdout goes out when the buffer is flushed). Waits for room in a
    /// pipe; `BrokenPipe` when its reader is gone.
    pub async fn flush(&mut self) -> Result<()> {
        if !self.stderr.is_empty() {
            let bytes = std::mem::take(self.stderr);
            self.io.err.write(bytes).await?;
        }
        if !self.stdout.is_empty() {
            let bytes = std::mem::take(self.stdout);
            self.io.out.write(bytes).await?;
        }
        Ok(())
    }

    /// Flushes once [`FLUSH_AT`] bytes of output are buffered: tools that stream call
    /// this in their loops, so output flows and memory stays bounded.
    #[inline]
    pub async fn flush_some(&mut self) -> Result<()> {
        if self.stdout.len() >= FLUSH_AT {
            self.flush().await?;
        }
        Ok(())
    }
}

/// `attachment:NAME` names an attachment of the mail being run (see `mail::inbound`).
pub const ATTACHMENT_PREFIX: &[u8] = b"attachment:";

/// `NAME:path` names a file of FIFO NAME (the S3 backend's `s3:dir/a.json`): the FIFO's
/// name and the path, when `operand` is one.
pub fn as_fifo_path(operand: &[u8]) -> Option<(&str, &[u8])> {
    let colon = operand.iter().position(|&b| b == b':')?;
    let name = std::str::from_utf8(&operand[..colon]).ok()?;
    crate::names::is_fifo_name(name).then_some((name, &operand[colon + 1..]))
}

/// The sub-path of a FIFO's file: `/` and the path, each byte that is not unreserved in a
/// URL percent-encoded (the FIFO decodes it), `/` kept.
pub fn fifo_sub_path(path: &[u8]) -> String {
    let mut out = String::from("/");
    for &b in path.strip_prefix(b"/").unwrap_or(path) {
        if b.is_ascii_alphanumeric() || b"-_.~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `operand` as a URL when it is one that `cat URL` fetches.
pub fn as_url(operand: &[u8]) -> Option<&str> {
    let s = std::str::from_utf8(operand).ok()?;
    (s.starts_with("http://") || s.starts_with("https://")).then_some(s)
}

/// Runs builtins directly, without the shell: for unit tests of a tool.
pub mod testing {
    use super::*;
    use crate::host::FixedHost;

    /// What one run of a builtin gave.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Ran {
        pub status: Status,
        pub stdout: Vec<u8>,
        pub stderr: Vec<u8>,
        pub steps: u64,
    }

    impl Ran {
        pub fn stdout_str(&self) -> String {
            String::from_utf8_lossy(&self.stdout).into_owned()
        }
        pub fn stderr_str(&self) -> String {
            String::from_utf8_lossy(&self.stderr).into_owned()
        }
    }

    /// Runs builtin `args[0]` with `stdin`, a large budget, a fixed clock and no variables.
    pub fn run(args: &[&str], stdin: &[u8]) -> Result<Ran> {
        run_with(args, stdin, &VarList::default(), &Budget::default())
    }

    /// Like [`run`], with variables and a budget of the caller's.
    pub fn run_with(args: &[&str], stdin: &[u8], vars: &dyn Vars, budget: &Budget) -> Result<Ran> {
        let argv: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        let host = FixedHost::default();
        let mut session = Session::new(&host);
        let before = budget.used();
        let status = session.run_vars(&argv, stdin.to_vec(), vars, budget)?;
        Ok(Ran {
            status,
            stdout: session.stdout,
            stderr: session.stderr,
            steps: budget.used() - before,
        })
    }

    /// Like [`run`], with stdin coming in chunks of `chunk` bytes, as through a pipe: a
    /// tool that streams must give the same output and spend the same steps.
    pub fn run_chunked(args: &[&str], stdin: &[u8], chunk: usize) -> Result<Ran> {
        let argv: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        let host = FixedHost::default();
        let mut session = Session::new(&host);
        let budget = Budget::default();
        let chunks: Vec<Vec<u8>> = stdin.chunks(chunk.max(1)).map(<[u8]>::to_vec).collect();
        let input = Stdin::outside(Box::new(Chunks(chunks.into())));
        let status = session.run_on(&argv, input, &VarList::default(), &budget)?;
        Ok(Ran {
            status,
            stdout: session.stdout,
            stderr: session.stderr,
            steps: budget.used(),
        })
    }

    /// A stream that gives its chunks one by one.
    struct Chunks(std::collections::VecDeque<Vec<u8>>);

    impl crate::stream::ByteStream for Chunks {
        fn next_chunk(
            &mut self,
        ) -> LocalFuture<'static, std::result::Result<Option<Vec<u8>>, String>> {
            let next = self.0.pop_front();
            Box::pin(async move { Ok(next) })
        }
    }

    /// What a [`Session`] answers a tool's HTTP requests with.
    pub type Answer = Box<dyn Fn(&HttpRequest) -> std::result::Result<HttpResponse, String>>;

    /// Answers from a function, and keeps the requests asked.
    struct Canned<'s> {
        answer: &'s Option<Answer>,
        asked: &'s RefCell<Vec<HttpRequest>>,
    }

    impl Net for Canned<'_> {
        fn fetch(
            &self,
            request: HttpRequest,
        ) -> LocalFuture<'_, Result<std::result::Result<HttpResponse, String>>> {
            self.asked.borrow_mut().push(request.clone());
            let answer = match self.answer {
                Some(f) => f(&request),
                None => Err(format!("no network in tests: {}", request.url)),
            };
            Box::pin(async move { Ok(answer) })
        }
    }

    /// Builtins run one after another as a long-lived instance runs them: the parse
    /// caches and the output buffers stay from run to run (for benchmarks, probes, and
    /// tests of tools that fetch).
    pub struct Session<'h> {
        pub host: &'h dyn Host,
        pub caches: Caches,
        /// Answers HTTP requests; `None`: there is no network.
        pub answer: Option<Answer>,
        /// The requests the tools made, in order.
        pub requests: RefCell<Vec<HttpRequest>>,
        /// The last run's output.
        pub stdout: Vec<u8>,
        pub stderr: Vec<u8>,
    }

    impl<'h> Session<'h> {
        pub fn new(host: &'h dyn Host) -> Self {
            Session {
                host,
                caches: Caches::default(),
                answer: None,
                requests: RefCell::default(),
                stdout: Vec::new(),
                stderr: Vec::new(),
            }
        }

        /// Runs builtin `argv[0]` on `stdin` without variables.
        pub fn run(&mut self, argv: &[Vec<u8>], stdin: Vec<u8>, budget: &Budget) -> Result<Status> {
            self.run_vars(argv, stdin, &VarList::default(), budget)
        }

        /// Runs builtin `argv[0]` on `stdin` with `vars`.
        pub fn run_vars(
            &mut self,
            argv: &[Vec<u8>],
            stdin: Vec<u8>,
            vars: &dyn Vars,
            budget: &Budget,
        ) -> Result<Status> {
            self.run_on(argv, Stdin::bytes(stdin), vars, budget)
        }

        /// Runs builtin `argv[0]` reading the stream `input`.
        pub fn run_on(
            &mut self,
            argv: &[Vec<u8>],
            input: Stdin,
            vars: &dyn Vars,
            budget: &Budget,
        ) -> Result<Status> {
            let name = argv.first().map(Vec::as_slice).unwrap_or_default();
            let tool = lookup(name).ok_or_else(|| {
                crate::error::Error::Fatal(format!(
                    "{}: not a builtin",
                    String::from_utf8_lossy(name)
                ))
            })?;
            let out = Out::Buffer(Rc::new(RefCell::new(std::mem::take(&mut self.stdout))));
            let err = Out::Buffer(Rc::new(RefCell::new(std::mem::take(&mut self.stderr))));
            out.take();
            err.take();
            let net = Canned {
                answer: &self.answer,
                asked: &self.requests,
            };
            let io = ToolIo {
                stdin: &input,
                out: &out,
                err: &err,
                budget,
                vars,
                host: self.host,
                caches: &self.caches,
                net: &net,
            };
            let r = crate::stream::block_on(tool(io, argv));
            self.stdout = out.take();
            self.stderr = err.take();
            r
        }
    }
}
