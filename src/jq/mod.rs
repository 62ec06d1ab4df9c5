//! jq 1.7.1 on jaq-core: programs parsed with jq's grammar ([`parse`]), compiled with
//! jaq's compiler against our builtins ([`natives`] and `defs.jq`), and run over
//! [`Val`]s with a step budget ([`fuel`]). Compiled programs are kept in a small LRU
//! ([`Cache`]) because the same envelope runs the same filters again and again.
//!
//! Steps: one per call of a defined filter, one per value that `.[]` or `..` yields,
//! one per value of the counted generators (`range`, `limit`), and per element or 64
//! bytes in functions over collections; see the modules for details.

pub mod fuel;
pub mod json;
pub mod map;
pub mod num;
pub mod value;

mod format;
mod lex;
mod natives;
mod ops;
mod parse;
mod paths;
mod regex;
pub(crate) mod time;

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use jaq_core::compile::Undefined;
use jaq_core::data::{DataT, HasLut};
use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Error, Exn, ValX, Vars};

pub use value::Val;

/// The data types of our jq: [`Val`] values and the run's [`RunData`].
pub struct Jq;

impl DataT for Jq {
    type V<'a> = Val;
    type Data<'a> = &'a RunData<'a>;
}

/// A compiled program.
pub type Filter = jaq_core::Filter<Jq>;

/// Where `input` and `inputs` get their values.
pub trait Inputs {
    /// The next input, `Err` with jq's message when it cannot be read.
    fn next_input(&mut self) -> Option<Result<Val, String>>;
    /// Newlines read so far (`input_line_number`).
    fn line_number(&self) -> usize;
    /// The name of the file being read (`input_filename`).
    fn filename(&self) -> Val {
        Val::Null
    }
    /// Whether any input has been read yet.
    fn read_any(&self) -> bool {
        false
    }
    /// Writes the next input to `out` in `style` without building it (see
    /// [`json::Reader::copy_value`]): `None` when it cannot (read it with
    /// [`Inputs::next_input`] instead), `Some(false)` when the steps ran out reading it.
    fn copy_next(&mut self, _out: &mut Vec<u8>, _style: &json::Style) -> Option<bool> {
        None
    }
}

/// What natives can reach during a run.
pub struct RunData<'a> {
    lut: &'a jaq_core::Lut<Jq>,
    inputs: RefCell<&'a mut dyn Inputs>,
    pub filename: RefCell<Val>,
    /// what `debug`, `stderr` and `halt_error` wrote
    pub stderr: RefCell<Vec<u8>>,
    pub now: f64,
    pub regexes: &'a regex::Cache,
}

impl<'a> HasLut<'a, Jq> for &'a RunData<'a> {
    fn lut(&self) -> &'a jaq_core::Lut<Jq> {
        self.lut
    }
    fn enter(&self) -> bool {
        fuel::spend(1) && fuel::stack_ok()
    }
    fn pull(&self) -> bool {
        fuel::stack_ok()
    }
}

impl<'a> RunData<'a> {
    pub fn new(program: &'a Program, inputs: &'a mut dyn Inputs, now: f64) -> Self {
        RunData {
            lut: &program.filter.lut,
            inputs: RefCell::new(inputs),
            filename: RefCell::new(Val::Null),
            stderr: RefCell::new(Vec::new()),
            now,
            regexes: &program.regexes,
        }
    }

    fn next_input<'e>(&self) -> ValX<'e, Val> {
        let mut inputs = self.inputs.borrow_mut();
        let next = inputs.next_input();
        *self.filename.borrow_mut() = inputs.filename();
        match next {
            Some(Ok(v)) => Ok(v),
            Some(Err(msg)) => Err(Exn::from(Error::new(Val::str(msg)))),
            None => Err(Exn::from(Error::new(Val::from("break")))),
        }
    }

    /// Newlines read so far.
    pub fn line_number(&self) -> usize {
        self.inputs.borrow().line_number()
    }

    /// Whether any input has been read yet.
    pub fn read_any(&self) -> bool {
        self.inputs.borrow().read_any()
    }

    /// Pulls the next main input (the program's `.`), outside the filter.
    pub fn main_input(&self) -> Option<Result<Val, String>> {
        let mut inputs = self.inputs.borrow_mut();
        let next = inputs.next_input();
        *self.filename.borrow_mut() = inputs.filename();
        next
    }

    /// Writes the next main input straight to `out` (see [`Inputs::copy_next`]).
    pub fn copy_next(&self, out: &mut Vec<u8>, style: &json::Style) -> Option<bool> {
        let mut inputs = self.inputs.borrow_mut();
        let r = inputs.copy_next(out, style);
        if r.is_some() {
            *self.filename.borrow_mut() = inputs.filename();
        }
        r
    }

    /// Runs `filter` on `input`.
    pub fn run(
        &'a self,
        filter: &'a Filter,
        vars: &[Val],
        input: Val,
    ) -> impl Iterator<Item = ValX<'a, Val>> + 'a {
        let ctx = Ctx::<Jq>::new(self, Vars::new(vars.iter().cloned()));
        filter.id.run((ctx, input))
    }
}

/// A compile error in jq's words, with the line it refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    pub msg: String,
    /// byte offset in the program (`usize::MAX` when it refers to no place)
    pub pos: usize,
}

const DEFS: &str = include_str!("defs.jq");
const MAIN: &str = "_mkfifo_main";

/// Compiles `code` with global variables `globals` (names with `$`).
pub fn compile(code: &str, globals: &[String]) -> Result<Filter, Vec<CompileError>> {
    let arena = Arena::default();
    let prelude = parse::Parser::defs(DEFS, &arena).map_err(|e| {
        vec![CompileError {
            msg: format!("in the builtins: {}", e.msg),
            pos: usize::MAX,
        }]
    })?;
    let prog = parse::Parser::program(code, &arena).map_err(|e| {
        let mut errs = vec![CompileError {
            msg: e.msg,
            pos: e.pos,
        }];
        if let Some((msg, pos)) = e.extra {
            errs.push(CompileError { msg, pos });
        }
        errs
    })?;
    let main = jaq_core::load::parse::Def {
        name: MAIN,
        args: Vec::new(),
        body: prog.body,
    };
    let loader = Loader::new(prelude.into_iter().chain(std::iter::once(main)));
    let modules = loader
        .load(
            &arena,
            File {
                code: MAIN,
                path: (),
            },
        )
        .map_err(|_| {
            vec![CompileError {
                msg: "internal error: cannot load the program".into(),
                pos: usize::MAX,
            }]
        })?;
    let globals: Vec<&str> = globals.iter().map(String::as_str).collect();
    let compiler = Compiler::<_, Jq>::default()
        .with_funs(natives::all())
        .with_global_vars(globals.iter().copied());
    compiler.compile(modules).map_err(|errs| {
        let mut out = Vec::new();
        for (_file, list) in errs {
            for (name, undef) in list {
                let pos = offset_in(code, name);
                let msg = match undef {
                    Undefined::Filter(arity) => format!("{name}/{arity} is not defined"),
                    Undefined::Var => format!("{name} is not defined"),
                    Undefined::Label => {
                        format!("$*label-{} is not defined", name.trim_start_matches('$'))
                    }
                    Undefined::Mod => format!("module not found: {name}"),
                    _ => format!("{name} is not defined"),
                };
                out.push(CompileError { msg, pos });
            }
        }
        out
    })
}

fn offset_in(code: &str, part: &str) -> usize {
    let (c, p) = (code.as_ptr() as usize, part.as_ptr() as usize);
    if p >= c && p <= c + code.len() {
        p - c
    } else {
        usize::MAX
    }
}

/// A compiled program with the regexes its runs compiled: an envelope's filter runs
/// again and again with the same patterns, which then are compiled (and their lazy
/// DFAs filled) once.
pub struct Program {
    pub filter: Filter,
    pub regexes: regex::Cache,
}

/// A program and the names of its global variables.
type CacheKey = (String, Vec<String>);

/// Compiled programs, most recently used last.
#[derive(Default)]
pub struct Cache {
    entries: VecDeque<(CacheKey, Rc<Program>)>,
}

/// How many compiled programs the cache keeps.
const CACHE_SIZE: usize = 32;

impl Cache {
    /// The compiled `code`, from the cache or compiled now.
    pub fn get(
        &mut self,
        code: &str,
        globals: &[String],
    ) -> Result<Rc<Program>, Vec<CompileError>> {
        if let Some(i) = self
            .entries
            .iter()
            .position(|((c, g), _)| c == code && g.as_slice() == globals)
        {
            let e = self.entries.remove(i).expect("the index was found");
            let f = e.1.clone();
            self.entries.push_back(e);
            return Ok(f);
        }
        let f = Rc::new(Program {
            filter: compile(code, globals)?,
            regexes: regex::Cache::default(),
        });
        if self.entries.len() >= CACHE_SIZE {
            self.entries.pop_front();
        }
        self.entries
            .push_back(((code.to_owned(), globals.to_vec()), f.clone()));
        Ok(f)
    }
}

/// What an error from a run is, as the command line reports it.
pub enum Failure {
    /// a jq error value (message or any value)
    Error(Val),
    /// `halt` or `halt_error` with this exit code
    Halt(i32),
    /// a resource limit
    Abort(fuel::Abort),
}

/// Sorts out an exception that reached the top.
pub fn failure(e: Exn<'_, Val>) -> Failure {
    if e.is_abort() {
        return Failure::Abort(fuel::aborted().unwrap_or(fuel::Abort::Steps));
    }
    match e.get_err() {
        Ok(err) => Failure::Error(err_value(err)),
        Err(e) => match e.get_halt() {
            Ok(code) => Failure::Halt(code),
            Err(_) => Failure::Error(Val::from("break")),
        },
    }
}

fn err_value(e: Error<Val>) -> Val {
    e.into_val()
}

/// A counter shared with an [`Inputs`] for `input_line_number`.
pub type LineCounter = Rc<Cell<usize>>;
