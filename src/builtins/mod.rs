//! The builtins: well-known Unix tools as plain functions of their arguments and an [`Io`].
//!
//! A builtin is a [`Run`]: it gets a [`Ctx`] (stdin, stdout, stderr, the step budget, the
//! variables, the host's clock, parse caches) and its arguments as bytes, `args[0]` being
//! the name it was called by. It writes its output, spends steps for its work, and returns
//! its exit status. It never panics, never touches a file system, and never waits on the
//! network: a file operand is opened with [`Ctx::open`], which may ask the shell to fetch
//! a URL first (see [`Error::Need`]).
//!
//! To add a tool: `builtins/NAME.rs` with `pub fn run`, one row in [`TABLE`] (kept sorted),
//! and its tests.

pub mod common;

mod b2sum;
mod base32;
mod base64;
mod basename;
mod basenc;
mod cat;
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
mod md5sum;
mod paste;
mod printf;
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
use std::collections::HashMap;
use std::ops::Deref;
use std::rc::Rc;

use crate::budget::Budget;
use crate::error::{Error, Resource, Result, Status};
use crate::host::{Host, HttpRequest, HttpResponse};

/// The signature of every builtin.
pub type Run = fn(&mut Ctx<'_>, &[Vec<u8>]) -> Result<Status>;

/// Every builtin by name, sorted by name for [`lookup`].
pub static TABLE: &[(&str, Run)] = &[
    ("[", test_::run),
    ("b2sum", b2sum::run),
    ("base32", base32::run),
    ("base64", base64::run),
    ("basename", basename::run),
    ("basenc", basenc::run),
    ("cat", cat::run),
    ("curl", curl::run),
    ("cut", cut::run),
    ("date", date::run),
    ("dirname", dirname::run),
    ("echo", echo::run),
    ("egrep", grep::run),
    ("expand", expand::run),
    ("false", false_::run),
    ("fgrep", grep::run),
    ("fold", fold::run),
    ("grep", grep::run),
    ("gunzip", gunzip::run),
    ("gzip", gzip::run),
    ("head", head::run),
    ("hmac", hmac::run),
    ("jq", jq::run),
    ("md5sum", md5sum::run),
    ("paste", paste::run),
    ("printf", printf::run),
    ("rev", rev::run),
    ("scrypt", scrypt::run),
    ("secretbox", secretbox::run),
    ("sed", sed::run),
    ("seq", seq::run),
    ("sha1sum", sha1sum::run),
    ("sha224sum", sha224sum::run),
    ("sha256sum", sha256sum::run),
    ("sha384sum", sha384sum::run),
    ("sha512sum", sha512sum::run),
    ("sort", sort::run),
    ("tac", tac::run),
    ("tail", tail::run),
    ("tee", tee::run),
    ("test", test_::run),
    ("tr", tr::run),
    ("true", true_::run),
    ("uniq", uniq::run),
    ("wc", wc::run),
    ("xargs", xargs::run),
    ("yes", yes::run),
    ("zcat", zcat::run),
];

/// Finds a builtin by the name a script calls it by.
pub fn lookup(name: &[u8]) -> Option<Run> {
    TABLE
        .binary_search_by(|(n, _)| n.as_bytes().cmp(name))
        .ok()
        .map(|i| TABLE[i].1)
}

/// The standard input of a command: bytes and how far they have been read.
///
/// Cloning is cheap (the bytes are shared), so the shell can keep a copy to run a
/// builtin again after serving its [`Error::Need`].
#[derive(Debug, Default, Clone)]
pub struct Input {
    data: Rc<Vec<u8>>,
    pos: usize,
}

impl Input {
    pub fn new(data: Vec<u8>) -> Self {
        Input {
            data: Rc::new(data),
            pos: 0,
        }
    }

    /// What has not been read yet.
    pub fn rest(&self) -> &[u8] {
        &self.data[self.pos..]
    }

    /// Reads everything that is left. Tools that read their input do this, as a GNU tool
    /// reading a pipe to its end would.
    pub fn read_all(&mut self) -> Vec<u8> {
        let pos = std::mem::take(&mut self.pos);
        match Rc::try_unwrap(std::mem::take(&mut self.data)) {
            Ok(mut all) => {
                if pos > 0 {
                    all.drain(..pos.min(all.len()));
                }
                all
            }
            Err(shared) => shared[pos.min(shared.len())..].to_vec(),
        }
    }

    /// Marks `n` more bytes as read (the shell's `read` takes one line at a time).
    pub fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.data.len());
    }

    pub fn position(&self) -> usize {
        self.pos
    }

    /// Goes back to an earlier [`position`](Self::position), if the data is still there.
    pub fn rewind(&mut self, pos: usize) {
        if pos <= self.data.len() {
            self.pos = pos;
        }
    }
}

/// Bytes that are either owned or shared with a cache (a fetched URL's body).
#[derive(Debug, Clone)]
pub enum Bytes {
    Owned(Vec<u8>),
    Shared(Rc<HttpResponse>),
}

impl Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Owned(v) => v,
            Bytes::Shared(r) => &r.body,
        }
    }
}

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
    by_type: HashMap<TypeId, Box<dyn Any>>,
}

impl Caches {
    /// The cache of type `T`, made empty on first use.
    pub fn get<T: Default + 'static>(&mut self) -> &mut T {
        self.by_type
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Box::new(T::default()))
            .downcast_mut::<T>()
            .expect("the entry of a TypeId holds that type")
    }
}

/// What the shell has fetched for builtins during this Request: a response, or the reason
/// there is none.
pub type Resources = HashMap<Resource, std::result::Result<Rc<HttpResponse>, String>>;

/// Everything a builtin works with.
pub struct Ctx<'a> {
    pub stdin: &'a mut Input,
    pub stdout: &'a mut Vec<u8>,
    pub stderr: &'a mut Vec<u8>,
    pub budget: &'a mut Budget,
    pub vars: &'a dyn Vars,
    pub host: &'a dyn Host,
    pub caches: &'a mut Caches,
    pub resources: &'a Resources,
}

impl Ctx<'_> {
    /// Opens a file operand: `-` and `/dev/stdin` are stdin, `/dev/null` is empty;
    /// `attachment:NAME` is an attachment of the mail being run; an `http://` or `https://` URL is fetched (a
    /// non-2xx answer is an error, as for `curl -f`); anything else does not exist, for
    /// there is no file system. The inner `Err` is the reason in GNU's words, for the tool
    /// to print in its own format (`cat: x: No such file or directory`).
    pub fn open(&mut self, operand: &[u8]) -> Result<std::result::Result<Bytes, String>> {
        if operand == b"-" || operand == b"/dev/stdin" {
            return Ok(Ok(Bytes::Owned(self.stdin.read_all())));
        }
        if operand == b"/dev/null" {
            return Ok(Ok(Bytes::Owned(Vec::new())));
        }
        if let Some(name) = operand.strip_prefix(ATTACHMENT_PREFIX) {
            let resource = Resource::Attachment(String::from_utf8_lossy(name).into_owned());
            return match self.resources.get(&resource) {
                None => Err(Error::Need(resource)),
                Some(Ok(file)) => Ok(Ok(Bytes::Shared(file.clone()))),
                Some(Err(reason)) => Ok(Err(reason.clone())),
            };
        }
        if let Some(url) = as_url(operand) {
            let resource = Resource::Http(HttpRequest::get(url));
            return match self.resources.get(&resource) {
                None => Err(Error::Need(resource)),
                Some(Err(reason)) => Ok(Err(reason.clone())),
                Some(Ok(resp)) if (200..300).contains(&resp.status) => {
                    Ok(Ok(Bytes::Shared(resp.clone())))
                }
                Some(Ok(resp)) => Ok(Err(format!(
                    "The requested URL returned error: {}",
                    resp.status
                ))),
            };
        }
        Ok(Err("No such file or directory".into()))
    }

    /// The answer to an HTTP request the shell has made for this builtin, or
    /// [`Error::Need`] so that it makes it (`curl`).
    pub fn http(
        &self,
        request: HttpRequest,
    ) -> Result<std::result::Result<Rc<HttpResponse>, String>> {
        let resource = Resource::Http(request);
        match self.resources.get(&resource) {
            None => Err(Error::Need(resource)),
            Some(answer) => Ok(answer.clone()),
        }
    }
}

/// `attachment:NAME` names an attachment of the mail being run (see `mail::inbound`).
pub const ATTACHMENT_PREFIX: &[u8] = b"attachment:";

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
        run_with(args, stdin, &VarList::default(), &mut Budget::default())
    }

    /// Like [`run`], with variables and a budget of the caller's.
    pub fn run_with(
        args: &[&str],
        stdin: &[u8],
        vars: &dyn Vars,
        budget: &mut Budget,
    ) -> Result<Ran> {
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

    /// Builtins run one after another as a long-lived instance runs them: the parse
    /// caches, the fetched resources and the output buffers stay from run to run (for
    /// benchmarks, probes, and tests that answer a tool's requests and run it again).
    pub struct Session<'h> {
        pub host: &'h dyn Host,
        pub caches: Caches,
        pub resources: Resources,
        /// The last run's output.
        pub stdout: Vec<u8>,
        pub stderr: Vec<u8>,
    }

    impl<'h> Session<'h> {
        pub fn new(host: &'h dyn Host) -> Self {
            Session {
                host,
                caches: Caches::default(),
                resources: Resources::new(),
                stdout: Vec::new(),
                stderr: Vec::new(),
            }
        }

        /// Runs builtin `argv[0]` on `stdin` without variables.
        pub fn run(
            &mut self,
            argv: &[Vec<u8>],
            stdin: Vec<u8>,
            budget: &mut Budget,
        ) -> Result<Status> {
            self.run_vars(argv, stdin, &VarList::default(), budget)
        }

        /// Runs builtin `argv[0]` on `stdin` with `vars`.
        pub fn run_vars(
            &mut self,
            argv: &[Vec<u8>],
            stdin: Vec<u8>,
            vars: &dyn Vars,
            budget: &mut Budget,
        ) -> Result<Status> {
            let name = argv.first().map(Vec::as_slice).unwrap_or_default();
            let tool = lookup(name).ok_or_else(|| {
                Error::Fatal(format!("{}: not a builtin", String::from_utf8_lossy(name)))
            })?;
            self.stdout.clear();
            self.stderr.clear();
            let mut input = Input::new(stdin);
            let mut ctx = Ctx {
                stdin: &mut input,
                stdout: &mut self.stdout,
                stderr: &mut self.stderr,
                budget,
                vars,
                host: self.host,
                caches: &mut self.caches,
                resources: &self.resources,
            };
            tool(&mut ctx, argv)
        }
    }
}
