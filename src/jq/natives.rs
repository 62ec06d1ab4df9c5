//! The builtins of jq 1.7.1 that are written in Rust, with jq's error texts.
//!
//! Steps: generators spend one per value (`range`, `limit`), and functions over
//! collections one per element or per 64 bytes of string they handle.

use std::borrow::Cow;

use jaq_core::box_iter::{box_once, BoxIter};
use jaq_core::native::{bome, Filter};
use jaq_core::{Bind, Cv, Direct, Error, Exn, Native, ValR, ValT, ValX, ValXs};

use super::fuel;
use super::ops::{self, err, split};
use super::value::{cmp, Key, Val};
use super::{format, paths, regex, time, Jq, RunData};

type V = Val;
type Fun = Filter<Native<Jq>>;

fn v(n: usize) -> Box<[Bind]> {
    std::iter::repeat_n(Bind::Var(()), n).collect()
}

fn f1() -> Box<[Bind]> {
    Box::new([Bind::Fun(())])
}

fn vf() -> Box<[Bind]> {
    Box::new([Bind::Var(()), Bind::Fun(())])
}

fn once<'a>(r: ValR<V, V>) -> ValXs<'a, V> {
    bome(r)
}

fn spend(n: u64) -> ValR<(), V> {
    if fuel::spend(n) {
        Ok(())
    } else {
        Err(Error::abort())
    }
}

fn spend_bytes(n: usize) -> ValR<(), V> {
    if fuel::spend_bytes(n) {
        Ok(())
    } else {
        Err(Error::abort())
    }
}

fn need_num(v: &V) -> ValR<f64, V> {
    v.as_f64()
        .ok_or_else(|| Error::new(Val::str(format!("{} number required", v.kind_and_trunc()))))
}

fn data<'a>(cv: &Cv<'a, Jq>) -> &'a RunData<'a> {
    cv.0.data()
}

// The natives of these macros compute one value from their input and arguments, with no
// side effects: `.pure()` lets jaq-core call them in place (see docs/jq.md).

/// `def name: f(.)` over numbers.
macro_rules! math1 {
    ($name:expr, $f:expr) => {
        (
            $name,
            v(0),
            Native::new(|cv| {
                let f: fn(f64) -> f64 = $f;
                once(need_num(&cv.1).map(|x| Val::Num(f(x))))
            })
            .pure(),
        )
    };
}

macro_rules! math2 {
    ($name:expr, $f:expr) => {
        (
            $name,
            v(2),
            Native::new(|mut cv| {
                let b = cv.0.pop_var();
                let a = cv.0.pop_var();
                let f: fn(f64, f64) -> f64 = $f;
                once(need_num(&a).and_then(|a| need_num(&b).map(|b| Val::Num(f(a, b)))))
            })
            .pure(),
        )
    };
}

macro_rules! fun0 {
    ($name:expr, $f:expr) => {
        (
            $name,
            v(0),
            Native::new(|cv| {
                let f: fn(V) -> ValR<V, V> = $f;
                once(f(cv.1))
            })
            .direct(Direct::Input(|_, x| {
                let f: fn(V) -> ValR<V, V> = $f;
                f(x)
            })),
        )
    };
}

macro_rules! fun1 {
    ($name:expr, $f:expr) => {
        (
            $name,
            v(1),
            Native::new(|mut cv| {
                let a = cv.0.pop_var();
                let f: fn(V, V) -> ValR<V, V> = $f;
                once(f(cv.1, a))
            })
            .direct(Direct::InputArg(|_, x, a| {
                let f: fn(V, V) -> ValR<V, V> = $f;
                f(x, a)
            })),
        )
    };
}

/// A native `NAME(re; flags)` over the input string, with the run's compiled regexes: one
/// value (or error) of its input and arguments, so pure (the cache only saves work).
macro_rules! regex2 {
    ($name:expr, $f:expr) => {
        (
            $name,
            v(2),
            Native::new(|mut cv| {
                let flags = cv.0.pop_var();
                let re = cv.0.pop_var();
                let f: fn(&regex::Cache, V, &V, &V) -> ValR<V, V> = $f;
                once(f(data(&cv).regexes, cv.1, &re, &flags))
            })
            .pure(),
        )
    };
}

/// The natives, by name and arity.
pub fn all() -> Vec<Fun> {
    let mut fs: Vec<Fun> = vec![
        (
            "empty",
            v(0),
            Native::new(|_| Box::new(std::iter::empty()))
                .with_paths(|_| Box::new(std::iter::empty())),
        ),
        // `null` as jq has it, a constant: no array to build and index, and in a path
        // expression it is a path only where the value there is null (`path(.a | null)`
        // is ["a"] on null; `1 | path(null)` is an error), as jq 1.7.1 has it.
        (
            "null",
            v(0),
            Native::new(|_| box_once(Ok(Val::Null)))
                .direct(Direct::Input(|_, _| Ok(Val::Null)))
                .with_paths(|cv| {
                    box_once(match cv.1 {
                        (Val::Null, path) => Ok((Val::Null, path)),
                        _ => Err(Exn::from(Error::path_expr(Val::Null))),
                    })
                })
                .with_update(|cv, f| match cv.1 {
                    Val::Null => f(Val::Null),
                    _ => box_once(Err(Exn::from(Error::path_expr(Val::Null)))),
                }),
        ),
        fun0!("length", length),
        fun0!("utf8bytelength", |v| match v {
            Val::Str(s) => Ok(Val::Num(s.len() as f64)),
            v => err(format!(
                "{} only strings have UTF-8 byte length",
                v.kind_and_trunc()
            )),
        }),
        fun0!("keys", |v| keys(v, true)),
        fun0!("keys_unsorted", |v| keys(v, false)),
        fun1!("has", has),
        fun1!("contains", |a, b| contains(&a, &b).map(Val::Bool)),
        fun0!("type", |v| Ok(Val::from(v.type_name()))),
        fun0!("tostring", |v| Ok(match v {
            Val::Str(_) => v,
            v => Val::str(v.to_json()),
        })),
        fun0!("tonumber", tonumber),
        fun0!("tojson", |v| {
            let s = v.to_json();
            spend_bytes(s.len())?;
            Ok(Val::str(s))
        }),
        fun0!("fromjson", |v| match v {
            Val::Str(s) => {
                spend_bytes(s.len())?;
                super::json::parse_one(&s)
                    .map_err(|e| Error::new(Val::str(format!("{e} (while parsing '{s}')"))))
            }
            v => err(format!("{} only strings can be parsed", v.kind_and_trunc())),
        }),
        fun0!("explode", |v| match v {
            Val::Str(s) => {
                spend_bytes(s.len())?;
                Ok(Val::arr(
                    s.chars()
                        .map(|c| Val::Num(f64::from(u32::from(c))))
                        .collect(),
                ))
            }
            _ => err("explode input must be a string"),
        }),
        fun0!("implode", implode),
        fun0!("ascii_downcase", |v| match &v {
            // (a text with nothing to change is kept, not copied)
            Val::Str(s) if !s.bytes().any(|b| b.is_ascii_uppercase()) => {
                spend_bytes(s.len())?;
                Ok(v)
            }
            Val::Str(s) => {
                spend_bytes(s.len())?;
                Ok(Val::str(s.to_ascii_lowercase()))
            }
            _ => err("explode input must be a string"),
        }),
        fun0!("ascii_upcase", |v| match &v {
            // (a text with nothing to change is kept, not copied)
            Val::Str(s) if !s.bytes().any(|b| b.is_ascii_lowercase()) => {
                spend_bytes(s.len())?;
                Ok(v)
            }
            Val::Str(s) => {
                spend_bytes(s.len())?;
                Ok(Val::str(s.to_ascii_uppercase()))
            }
            _ => err("explode input must be a string"),
        }),
        fun1!("join", join),
        fun0!("add", |v| {
            let items: Vec<V> = match v {
                Val::Arr(a) => a.into_vec(),
                Val::Obj(o) => o.into_map().into_iter().map(|(_, x)| x).collect(),
                v => return err(format!("Cannot iterate over {}", v.kind_and_trunc())),
            };
            spend(1 + items.len() as u64)?;
            let mut acc = Val::Null;
            for x in items {
                acc = super::ops::add(acc, x)?;
            }
            Ok(acc)
        }),
        fun0!("reverse", reverse),
        fun0!("sort", |v| match v {
            Val::Arr(a) => {
                spend(1 + a.len() as u64)?;
                let mut items = a.into_vec();
                items.sort_by(cmp);
                Ok(Val::arr(items))
            }
            v => err(format!(
                "{} cannot be sorted, as it is not an array",
                v.kind_and_trunc()
            )),
        }),
        fun1!("_sort_by", |v, keys| sort_by(v, keys)
            .map(|(items, _)| Val::arr(items))),
        fun1!("_group_by", group_by),
        fun1!("_min_by", |v, keys| min_max_by(v, keys, false)),
        fun1!("_max_by", |v, keys| min_max_by(v, keys, true)),
        fun1!("_flatten", |v, d| {
            let d = need_num(&d)?;
            flatten(v, d)
        }),
        fun1!("split", |v, sep| match (&v, &sep) {
            (Val::Str(s), Val::Str(p)) => split(s, p),
            _ => err("split input and separator must be strings"),
        }),
        fun1!("startswith", |v, p| match (&v, &p) {
            (Val::Str(s), Val::Str(p)) => Ok(Val::Bool(s.starts_with(p.as_str()))),
            _ => err("startswith() requires string inputs"),
        }),
        fun1!("endswith", |v, p| match (&v, &p) {
            (Val::Str(s), Val::Str(p)) => Ok(Val::Bool(s.ends_with(p.as_str()))),
            _ => err("endswith() requires string inputs"),
        }),
        // `def ltrimstr($x): if type == "string" and ($x | type) == "string" and
        // startswith($x) then .[($x | length):] else . end;`
        fun1!("ltrimstr", |v, p| match (&v, &p) {
            (Val::Str(s), Val::Str(p)) if s.starts_with(p.as_str()) => {
                Ok(Val::str(&s[p.len()..]))
            }
            _ => Ok(v),
        }),
        // `def rtrimstr($x): if type == "string" and ($x | type) == "string" and
        // endswith($x) and ($x | length) > 0 then .[:length - ($x | length)] else . end;`
        fun1!("rtrimstr", |v, p| match (&v, &p) {
            (Val::Str(s), Val::Str(p)) if !p.is_empty() && s.ends_with(p.as_str()) => {
                Ok(Val::str(&s[..s.len() - p.len()]))
            }
            _ => Ok(v),
        }),
        fun1!("_strindices", |v, p| match (&v, &p) {
            (Val::Str(s), Val::Str(p)) => {
                spend_bytes(s.len())?;
                if p.is_empty() {
                    return Ok(Val::arr(Vec::new()));
                }
                let mut out = Vec::new();
                let mut start = 0;
                // overlapping matches: one searcher for them all
                let finder = memchr::memmem::Finder::new(p.as_bytes());
                while let Some(i) = finder.find(&s.as_bytes()[start..]) {
                    out.push(Val::Num((start + i) as f64));
                    start += i + 1;
                    while !s.is_char_boundary(start) {
                        start += 1;
                    }
                }
                Ok(Val::arr(out))
            }
            _ => err(format!(
                "Cannot determine indices of {} in {}",
                p.kind_and_trunc(),
                v.kind_and_trunc()
            )),
        }),
        fun1!("delpaths", |v, ps| paths::del_paths(v, &ps)),
        (
            "setpath",
            v(2),
            Native::new(|mut cv| {
                let x = cv.0.pop_var();
                let p = cv.0.pop_var();
                once(match &p {
                    Val::Arr(p) => paths::set_path(cv.1, p, x),
                    _ => err("Path must be specified as an array"),
                })
            }),
        ),
        fun1!("bsearch", |v, t| match &v {
            Val::Arr(a) => {
                spend(1 + (a.len() as f64).log2() as u64)?;
                Ok(Val::Num(bsearch(a, &t)))
            }
            v => err(format!("{} cannot be searched from", v.kind_and_trunc())),
        }),
        fun1!("_error", |_, m| Err(Error::new(m))),
        fun0!("_nan", |_| Ok(Val::Num(f64::NAN))),
        fun0!("_infinite", |_| Ok(Val::Num(f64::INFINITY))),
        fun0!("_isnormal", |v| Ok(Val::Bool(need_num(&v)?.is_normal()))),
        fun0!("builtins", |_| Ok(Val::arr(
            BUILTINS.split(' ').map(Val::from).collect()
        ))),
        fun1!("format", |v, f| match &f {
            Val::Str(f) => format::apply(f, v),
            f => err(format!("{} is not a valid format", f.kind_and_trunc())),
        }),
        // `range/2` binds its arguments as a definition with `$` parameters does (the
        // first one outermost), so it is one (defs.jq) over this native.
        (
            "_range",
            v(2),
            Native::new(|mut cv| {
                let upto = cv.0.pop_var();
                let from = cv.0.pop_var();
                range(from, upto)
            }),
        ),
        (
            "path",
            f1(),
            Native::new(|mut cv| {
                let (f, fc) = cv.0.pop_fun();
                let cvp = (fc, (cv.1, Default::default()));
                Box::new(f.paths(cvp).map(|r| {
                    let (v, p) = r?;
                    if p.head().is_some_and(Val::is_path_marker) {
                        return Err(Exn::from(Error::path_expr(v)));
                    }
                    let mut items: Vec<V> = p.iter().cloned().collect();
                    items.reverse();
                    if !fuel::spend(1) {
                        return Err(Exn::from(Error::abort()));
                    }
                    Ok(Val::arr(items))
                }))
            }),
        ),
        (
            "_first",
            f1(),
            Native::new(|mut cv| {
                let (f, fc) = cv.0.pop_fun();
                Box::new(f.run((fc, cv.1)).next().into_iter())
            })
            .with_paths(|mut cv| {
                let (f, fc) = cv.0.pop_fun();
                Box::new(f.paths((fc, cv.1)).next().into_iter())
            }),
        ),
        (
            "_limit",
            vf(),
            Native::new(|mut cv| {
                let (f, fc) = cv.0.pop_fun();
                let n = cv.0.pop_var();
                limit(n, f.run((fc, cv.1)))
            })
            .with_paths(|mut cv| {
                let (f, fc) = cv.0.pop_fun();
                let n = cv.0.pop_var();
                limit(n, f.paths((fc, cv.1)))
            }),
        ),
        (
            "getpath",
            v(1),
            Native::new(|mut cv| {
                let p = cv.0.pop_var();
                once(match &p {
                    Val::Arr(p) => paths::get(&cv.1, p),
                    _ => err("Path must be specified as an array"),
                })
            })
            .with_paths(|mut cv| {
                let p = cv.0.pop_var();
                let (v, path) = cv.1;
                let Val::Arr(ps) = &p else {
                    return box_once(Err(Exn::from(Error::new(Val::str(
                        "Path must be specified as an array",
                    )))));
                };
                let got = match paths::get(&v, ps) {
                    Ok(x) => x,
                    Err(e) => return box_once(Err(Exn::from(e))),
                };
                let mut path = path;
                for k in ps.iter() {
                    path = path.cons(k.clone());
                }
                box_once(Ok((got, path)))
            }),
        ),
        (
            "input",
            v(0),
            Native::new(|cv| {
                let d = data(&cv);
                box_once(d.next_input())
            }),
        ),
        (
            "_input_line_number",
            v(0),
            Native::new(|cv| {
                let d = data(&cv);
                box_once(Ok(Val::Num(d.line_number() as f64)))
            }),
        ),
        (
            "input_filename",
            v(0),
            Native::new(|cv| {
                let d = data(&cv);
                box_once(Ok(d.filename.borrow().clone()))
            }),
        ),
        (
            "debug",
            v(0),
            Native::new(|cv| {
                let d = data(&cv);
                let mut e = d.stderr.borrow_mut();
                e.extend_from_slice(b"[\"DEBUG:\",");
                super::json::write_compact(&mut e, &cv.1);
                e.extend_from_slice(b"]\n");
                box_once(Ok(cv.1))
            }),
        ),
        (
            "stderr",
            v(0),
            Native::new(|cv| {
                let d = data(&cv);
                super::json::write_compact(&mut d.stderr.borrow_mut(), &cv.1);
                box_once(Ok(cv.1))
            }),
        ),
        ("halt", v(0), Native::new(|_| box_once(Err(Exn::halt(0))))),
        (
            "halt_error",
            v(1),
            Native::new(|mut cv| {
                let code = cv.0.pop_var();
                let d = data(&cv);
                let Some(c) = code.as_f64() else {
                    return once(err("halt_error/1: number required"));
                };
                let mut e = d.stderr.borrow_mut();
                match &cv.1 {
                    Val::Str(s) => e.extend_from_slice(s.as_bytes()),
                    // (jq halts on null without a word)
                    Val::Null => {}
                    v => {
                        super::json::write_compact(&mut e, v);
                        e.push(b'\n');
                    }
                }
                let c = c as i64;
                box_once(Err(Exn::halt((c & 0xff) as i32)))
            }),
        ),
        (
            "now",
            v(0),
            Native::new(|cv| box_once(Ok(Val::Num(data(&cv).now)))),
        ),
        (
            "_match_impl",
            v(3),
            Native::new(|mut cv| {
                let test = cv.0.pop_var();
                let flags = cv.0.pop_var();
                let re = cv.0.pop_var();
                let d = data(&cv);
                once(regex::match_impl(
                    d.regexes,
                    cv.1,
                    &re,
                    &flags,
                    test.is_true(),
                ))
            })
            // one value (or error) of its input and arguments; the regex cache only saves work
            .pure(),
        ),
        regex2!("_scan_impl", regex::scan_impl),
        regex2!("_split_impl", regex::split_impl),
        // `sub/3` binds its arguments as jq's definition with `$` parameters does (the
        // first one outermost), so it is one (defs.jq) over this native.
        (
            "_sub",
            Box::new([Bind::Var(()), Bind::Fun(()), Bind::Var(())]),
            Native::new(|mut cv| {
                let flags = cv.0.pop_var();
                let (f, fc) = cv.0.pop_fun();
                let re = cv.0.pop_var();
                let d = data(&cv);
                let run = |caps| f.run((fc.clone(), caps));
                match sub(d, cv.1, &re, &flags, run) {
                    Ok(outs) => Box::new(outs.into_iter().map(Ok)),
                    Err(e) => box_once(Err(e)),
                }
            })
            .with_paths(|mut cv| {
                // as a path, jq's definition fails where it iterates over the matches
                let flags = cv.0.pop_var();
                let _ = cv.0.pop_fun();
                let re = cv.0.pop_var();
                let d: &RunData = cv.0.data();
                let e = match regex::match_impl(d.regexes, cv.1 .0, &re, &flags, false) {
                    Ok(ms) => ms.invalid_path(None),
                    Err(e) => e,
                };
                box_once(Err(Exn::from(e)))
            }),
        ),
        fun1!("strftime", |v, f| time::strftime(&v, &f, false)),
        fun1!("strflocaltime", |v, f| time::strftime(&v, &f, true)),
        fun1!("strptime", |v, f| time::strptime(&v, &f)),
        fun0!("mktime", |v| time::mktime(&v)),
        fun0!("gmtime", |v| time::gmtime(&v)),
        fun0!("_localtime", |v| time::localtime(&v)),
        fun0!("frexp", |v| {
            let x = need_num(&v)?;
            let (m, e) = libm::frexp(x);
            Ok(Val::arr(vec![Val::Num(m), Val::Num(f64::from(e))]))
        }),
        fun0!("modf", |v| {
            let x = need_num(&v)?;
            let (f, i) = libm::modf(x);
            Ok(Val::arr(vec![Val::Num(f), Val::Num(i)]))
        }),
        fun0!("lgamma_r", |v| {
            let x = need_num(&v)?;
            let (l, s) = libm::lgamma_r(x);
            Ok(Val::arr(vec![Val::Num(l), Val::Num(f64::from(s))]))
        }),
        (
            "fma",
            v(3),
            Native::new(|mut cv| {
                let c = cv.0.pop_var();
                let b = cv.0.pop_var();
                let a = cv.0.pop_var();
                once((|| {
                    Ok(Val::Num(libm::fma(
                        need_num(&a)?,
                        need_num(&b)?,
                        need_num(&c)?,
                    )))
                })())
            }),
        ),
        (
            "ldexp",
            v(2),
            Native::new(|mut cv| {
                let b = cv.0.pop_var();
                let a = cv.0.pop_var();
                once((|| {
                    Ok(Val::Num(libm::ldexp(need_num(&a)?, need_num(&b)? as i32)))
                })())
            }),
        ),
        (
            "scalbln",
            v(2),
            Native::new(|mut cv| {
                let b = cv.0.pop_var();
                let a = cv.0.pop_var();
                once((|| {
                    Ok(Val::Num(libm::scalbn(need_num(&a)?, need_num(&b)? as i32)))
                })())
            }),
        ),
        (
            "jn",
            v(2),
            Native::new(|mut cv| {
                let b = cv.0.pop_var();
                let a = cv.0.pop_var();
                once((|| {
                    Ok(Val::Num(libm::jn(need_num(&a)? as i32, need_num(&b)?)))
                })())
            }),
        ),
        (
            "yn",
            v(2),
            Native::new(|mut cv| {
                let b = cv.0.pop_var();
                let a = cv.0.pop_var();
                once((|| {
                    Ok(Val::Num(libm::yn(need_num(&a)? as i32, need_num(&b)?)))
                })())
            }),
        ),
        math1!("floor", f64::floor),
        math1!("ceil", f64::ceil),
        math1!("round", libm::round),
        math1!("trunc", f64::trunc),
        math1!("rint", libm::rint),
        math1!("nearbyint", libm::rint),
        math1!("fabs", f64::abs),
        math1!("sqrt", f64::sqrt),
        math1!("cbrt", libm::cbrt),
        math1!("exp", libm::exp),
        math1!("exp2", libm::exp2),
        math1!("exp10", libm::exp10),
        math1!("expm1", libm::expm1),
        math1!("log", libm::log),
        math1!("log2", libm::log2),
        math1!("log10", libm::log10),
        math1!("log1p", libm::log1p),
        math1!("sin", libm::sin),
        math1!("cos", libm::cos),
        math1!("tan", libm::tan),
        math1!("asin", libm::asin),
        math1!("acos", libm::acos),
        math1!("atan", libm::atan),
        math1!("sinh", libm::sinh),
        math1!("cosh", libm::cosh),
        math1!("tanh", libm::tanh),
        math1!("asinh", libm::asinh),
        math1!("acosh", libm::acosh),
        math1!("atanh", libm::atanh),
        math1!("tgamma", libm::tgamma),
        math1!("lgamma", libm::lgamma),
        math1!("erf", libm::erf),
        math1!("erfc", libm::erfc),
        math1!("j0", libm::j0),
        math1!("j1", libm::j1),
        math1!("y0", libm::y0),
        math1!("y1", libm::y1),
        math2!("pow", libm::pow),
        math2!("atan2", libm::atan2),
        math2!("fmod", libm::fmod),
        math2!("hypot", libm::hypot),
        math2!("fmin", libm::fmin),
        math2!("fmax", libm::fmax),
        math2!("fdim", libm::fdim),
        math2!("copysign", libm::copysign),
        math2!("remainder", libm::remainder),
        math2!("nextafter", libm::nextafter),
    ];
    fs.extend(format::natives());
    fs
}

/// The names `builtins` lists, in jq 1.7.1's order.
const BUILTINS: &str = "input_line_number/0 input_filename/0 now/0 localtime/0 gmtime/0 mktime/0 strflocaltime/1 strftime/1 strptime/1 stderr/0 debug/0 input/0 modulemeta/0 get_jq_origin/0 get_prog_origin/0 get_search_list/0 halt_error/1 halt/0 env/0 format/1 error/0 max/0 min/0 sort/0 nan/0 infinite/0 isnormal/0 isnan/0 isinfinite/0 type/0 utf8bytelength/0 length/0 contains/1 has/1 delpaths/1 getpath/1 setpath/2 implode/0 explode/0 split/1 rtrimstr/1 ltrimstr/1 endswith/1 startswith/1 keys_unsorted/0 keys/0 tostring/0 tonumber/0 fromjson/0 tojson/0 lgamma_r/0 modf/0 frexp/0 ldexp/2 trunc/0 significand/0 scalbln/2 scalb/2 round/0 rint/0 nexttoward/2 nextafter/2 nearbyint/0 logb/0 log1p/0 lgamma/0 gamma/0 fmod/2 fmin/2 fmax/2 fma/3 fdim/2 fabs/0 expm1/0 exp10/0 erfc/0 erf/0 drem/2 copysign/2 ceil/0 yn/2 jn/2 y1/0 y0/0 tgamma/0 tanh/0 tan/0 sqrt/0 sinh/0 sin/0 remainder/2 pow/2 log2/0 log10/0 log/0 j1/0 j0/0 hypot/2 floor/0 exp2/0 exp/0 cosh/0 cos/0 cbrt/0 atanh/0 atan2/2 atan/0 asinh/0 asin/0 acosh/0 acos/0 empty/0 not/0 path/1 range/2 halt_error/0 error/1 map/1 select/1 sort_by/1 group_by/1 unique/0 unique_by/1 max_by/1 min_by/1 add/0 del/1 abs/0 map_values/1 recurse/1 recurse/2 recurse/0 to_entries/0 from_entries/0 with_entries/1 reverse/0 indices/1 index/1 rindex/1 paths/0 paths/1 isfinite/0 arrays/0 objects/0 iterables/0 booleans/0 numbers/0 normals/0 finites/0 strings/0 nulls/0 values/0 scalars/0 join/1 flatten/1 flatten/0 range/1 fromdateiso8601/0 todateiso8601/0 fromdate/0 todate/0 match/2 match/1 test/2 test/1 capture/2 capture/1 scan/2 scan/1 splits/2 splits/1 split/2 sub/3 sub/2 gsub/3 gsub/2 while/2 until/2 limit/2 range/3 first/1 isempty/1 all/2 any/2 all/1 any/1 all/0 any/0 last/1 nth/2 first/0 last/0 nth/1 combinations/0 combinations/1 transpose/0 in/1 inside/1 repeat/1 inputs/0 ascii_downcase/0 ascii_upcase/0 truncate_stream/1 fromstream/1 tostream/0 bsearch/1 walk/1 pick/1 debug/1 INDEX/2 INDEX/1 JOIN/2 JOIN/3 JOIN/4 IN/1 IN/2 pow10/0 builtins/0";

fn length(v: V) -> ValR<V, V> {
    Ok(match &v {
        Val::Null => Val::Num(0.0),
        Val::Bool(_) => return err(format!("{} has no length", v.kind_and_trunc())),
        Val::Num(x) => Val::Num(x.abs()),
        Val::Lit(l) => Val::Num(l.f.abs()),
        Val::Str(s) => Val::Num(s.chars().count() as f64),
        Val::Arr(a) => Val::Num(a.len() as f64),
        Val::Obj(o) => Val::Num(o.len() as f64),
    })
}

fn keys(v: V, sorted: bool) -> ValR<V, V> {
    match &v {
        Val::Obj(o) => {
            spend(1 + o.len() as u64)?;
            let mut ks: Vec<&Key> = o.keys().collect();
            if sorted {
                ks.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            }
            Ok(Val::arr(ks.into_iter().map(Key::to_val).collect()))
        }
        Val::Arr(a) => {
            spend(1 + a.len() as u64)?;
            Ok(Val::arr((0..a.len()).map(|i| Val::Num(i as f64)).collect()))
        }
        v => err(format!("{} has no keys", v.kind_and_trunc())),
    }
}

fn has(v: V, k: V) -> ValR<V, V> {
    match (&v, &k) {
        (Val::Obj(o), Val::Str(s)) => Ok(Val::Bool(o.contains_key(s.as_str()))),
        (Val::Arr(a), Val::Num(_) | Val::Lit(_)) => {
            let i = k.as_f64().unwrap_or(-1.0);
            Ok(Val::Bool(i >= 0.0 && i < a.len() as f64))
        }
        (Val::Null, Val::Str(_) | Val::Num(_) | Val::Lit(_)) => Ok(Val::Bool(false)),
        _ => err(format!(
            "Cannot check whether {} has a {} key",
            v.type_name(),
            k.type_name()
        )),
    }
}

/// jq's `contains`.
pub fn contains(a: &V, b: &V) -> ValR<bool, V> {
    contains_at(a, b, true)
}

fn contains_at(a: &V, b: &V, top: bool) -> ValR<bool, V> {
    if !fuel::stack_ok() {
        return Err(Error::abort());
    }
    match (a, b) {
        (Val::Obj(x), Val::Obj(y)) => {
            for (k, bv) in y.iter() {
                match x.get(&k.0) {
                    Some(av) => {
                        if !contains_at(av, bv, false)? {
                            return Ok(false);
                        }
                    }
                    None => return Ok(false),
                }
            }
            Ok(true)
        }
        (Val::Arr(x), Val::Arr(y)) => {
            spend(1 + (x.len() * y.len()) as u64 / 16)?;
            for bv in y.iter() {
                let mut found = false;
                for av in x.iter() {
                    if contains_at(av, bv, false)? {
                        found = true;
                        break;
                    }
                }
                if !found {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        (Val::Str(x), Val::Str(y)) => {
            spend_bytes(x.len())?;
            Ok(y.is_empty() || ops::find(x.as_bytes(), y.as_bytes()).is_some())
        }
        _ if a.type_name() == b.type_name() => Ok(a == b),
        _ if !top => Ok(false),
        _ => err(format!(
            "{} and {} cannot have their containment checked",
            a.kind_and_trunc(),
            b.kind_and_trunc()
        )),
    }
}

fn tonumber(v: V) -> ValR<V, V> {
    match &v {
        Val::Num(_) | Val::Lit(_) => Ok(v),
        Val::Str(s) => match super::json::parse_one(s) {
            Ok(n @ (Val::Num(_) | Val::Lit(_))) => Ok(n),
            Ok(_) => err(format!(
                "{} cannot be parsed as a number",
                v.kind_and_trunc()
            )),
            Err(e) => err(format!("{e} (while parsing '{s}')")),
        },
        _ => err(format!(
            "{} cannot be parsed as a number",
            v.kind_and_trunc()
        )),
    }
}

fn implode(v: V) -> ValR<V, V> {
    let Val::Arr(a) = v else {
        return err("implode input must be an array");
    };
    spend(1 + a.len() as u64 / 16)?;
    let mut s = String::with_capacity(a.len());
    for x in a.iter() {
        let Some(f) = x.as_f64() else {
            return err(format!(
                "{} can't be imploded, unicode codepoint needs to be numeric",
                x.kind_and_trunc()
            ));
        };
        if f.is_nan() {
            return err(format!(
                "{} can't be imploded, unicode codepoint needs to be numeric",
                x.kind_and_trunc()
            ));
        }
        let c = if f < 0.0 || f > u32::MAX as f64 {
            '\u{FFFD}'
        } else {
            char::from_u32(f as u32).unwrap_or('\u{FFFD}')
        };
        s.push(c);
    }
    Ok(Val::str(s))
}

fn reverse(v: V) -> ValR<V, V> {
    match v {
        Val::Arr(a) => {
            spend(1 + a.len() as u64 / 16)?;
            let mut items = a.into_vec();
            items.reverse();
            Ok(Val::arr(items))
        }
        Val::Null => Ok(Val::arr(Vec::new())),
        Val::Obj(o) if o.is_empty() => Ok(Val::arr(Vec::new())),
        Val::Str(s) if s.is_empty() => Ok(Val::arr(Vec::new())),
        v => err(format!("Cannot index {} with number", v.type_name())),
    }
}

/// Sorts `v` by `keys` (stably), giving the items and their keys.
fn sort_by(v: V, keys: V) -> ValR<(Vec<V>, Vec<V>), V> {
    let (Val::Arr(a), Val::Arr(k)) = (&v, &keys) else {
        return err(format!(
            "{} cannot be sorted, as it is not an array",
            v.kind_and_trunc()
        ));
    };
    spend(1 + a.len() as u64)?;
    let mut pairs: Vec<(V, V)> = k.iter().cloned().zip(a.iter().cloned()).collect();
    pairs.sort_by(|x, y| cmp(&x.0, &y.0));
    let (ks, items) = pairs.into_iter().unzip();
    Ok((items, ks))
}

fn group_by(v: V, keys: V) -> ValR<V, V> {
    let (items, ks) = sort_by(v, keys)?;
    let mut groups: Vec<V> = Vec::new();
    let mut cur: Vec<V> = Vec::new();
    let mut last: Option<&V> = None;
    for (x, k) in items.into_iter().zip(ks.iter()) {
        if let Some(l) = last {
            if cmp(l, k).is_ne() {
                groups.push(Val::arr(std::mem::take(&mut cur)));
            }
        }
        cur.push(x);
        last = Some(k);
    }
    if !cur.is_empty() {
        groups.push(Val::arr(cur));
    }
    Ok(Val::arr(groups))
}

fn min_max_by(v: V, keys: V, max: bool) -> ValR<V, V> {
    let (Val::Arr(a), Val::Arr(k)) = (&v, &keys) else {
        return err(format!("Cannot index {} with number", v.type_name()));
    };
    spend(1 + a.len() as u64)?;
    let mut best: Option<usize> = None;
    for i in 0..a.len().min(k.len()) {
        best = match best {
            None => Some(i),
            Some(b) => {
                let o = cmp(&k[i], &k[b]);
                if (max && o.is_ge()) || (!max && o.is_lt()) {
                    Some(i)
                } else {
                    Some(b)
                }
            }
        };
    }
    Ok(best.map_or(Val::Null, |i| a[i].clone()))
}

fn flatten(v: V, depth: f64) -> ValR<V, V> {
    fn go(out: &mut Vec<V>, v: &V, depth: f64) -> ValR<(), V> {
        if !fuel::stack_ok() || !fuel::spend(1) {
            return Err(Error::abort());
        }
        match v {
            Val::Arr(a) => {
                for x in a.iter() {
                    match x {
                        Val::Arr(_) if depth > 0.0 => go(out, x, depth - 1.0)?,
                        x => out.push(x.clone()),
                    }
                }
                Ok(())
            }
            Val::Obj(o) => {
                for x in o.values() {
                    match x {
                        Val::Arr(_) if depth > 0.0 => go(out, x, depth - 1.0)?,
                        x => out.push(x.clone()),
                    }
                }
                Ok(())
            }
            v => Err(Error::new(Val::str(format!(
                "Cannot iterate over {}",
                v.kind_and_trunc()
            )))),
        }
    }
    let mut out = Vec::new();
    go(&mut out, &v, depth)?;
    Ok(Val::arr(out))
}

fn range<'a>(from: V, upto: V) -> ValXs<'a, V> {
    let (Some(a), Some(b)) = (from.as_f64(), upto.as_f64()) else {
        return once(err("Range bounds must be numeric"));
    };
    let mut x = a;
    let first = from;
    let mut started = false;
    Box::new(std::iter::from_fn(move || {
        if x >= b || x.is_nan() {
            return None;
        }
        if !fuel::spend(1) {
            x = f64::NAN;
            return Some(Err(Exn::from(Error::abort())));
        }
        let out = if !started { first.clone() } else { Val::Num(x) };
        started = true;
        x += 1.0;
        Some(Ok(out))
    }))
}

fn limit<'a, T: 'a>(n: V, mut it: BoxIter<'a, ValX<'a, T, V>>) -> BoxIter<'a, ValX<'a, T, V>> {
    let Some(n) = n.as_f64() else {
        return Box::new(std::iter::once(Err(Exn::from(Error::new(Val::str(
            "Invalid limit: number required",
        ))))));
    };
    if n <= 0.0 {
        return if n < 0.0 {
            it
        } else {
            Box::new(std::iter::empty())
        };
    }
    let mut left = n.ceil();
    Box::new(std::iter::from_fn(move || {
        if left <= 0.0 {
            return None;
        }
        left -= 1.0;
        it.next()
    }))
}

/// jq 1.7.1's `bsearch`, step for step (it answers the same on unsorted arrays).
fn bsearch(a: &[V], t: &V) -> f64 {
    let n = a.len() as i64;
    if n == 0 {
        return -1.0;
    }
    if n == 1 {
        return if &a[0] == t {
            0.0
        } else if cmp(t, &a[0]).is_lt() {
            -1.0
        } else {
            -2.0
        };
    }
    let (mut start, mut end, mut ans): (i64, i64, Option<i64>) = (0, n - 1, None);
    while start <= end {
        if ans.is_some() {
            end = -1;
            continue;
        }
        let mid = (start + end).div_euclid(2);
        let m = &a[mid as usize];
        if m == t {
            ans = Some(mid);
        } else if start == end {
            end = -1;
        } else if cmp(m, t).is_lt() {
            start = mid + 1;
        } else {
            end = mid - 1;
        }
    }
    match ans {
        Some(i) => i as f64,
        None => {
            let at = a.get(start as usize).cloned().unwrap_or(Val::Null);
            if cmp(&at, t).is_lt() {
                (-2 - start) as f64
            } else {
                (-1 - start) as f64
            }
        }
    }
}

/// jq 1.7.1's `join`: null joins as "", booleans and numbers as JSON, strings as
/// themselves; anything else fails as the string addition in jq's definition does.
fn join(v: V, sep: V) -> ValR<V, V> {
    let items: Vec<V> = match v {
        Val::Arr(a) => a.into_vec(),
        Val::Obj(o) => o.into_map().into_iter().map(|(_, x)| x).collect(),
        v => return err(format!("Cannot iterate over {}", v.kind_and_trunc())),
    };
    spend(1 + items.len() as u64)?;
    // A string separator and no arrays or objects (whose sum with a string is an error,
    // the one below gives): the text in one buffer rather than a sum per item.
    if let Val::Str(sep) = &sep {
        if !items.iter().any(|x| matches!(x, Val::Arr(_) | Val::Obj(_))) {
            let texts: Vec<Cow<str>> = items
                .iter()
                .map(|x| match x {
                    Val::Str(s) => Cow::Borrowed(s.as_str()),
                    Val::Null => Cow::Borrowed(""),
                    x => Cow::Owned(x.to_json()),
                })
                .collect();
            let size = texts.iter().map(|t| t.len()).sum::<usize>()
                + sep.len() * texts.len().saturating_sub(1);
            ops::check_len(size)?;
            spend(size as u64 / 64)?;
            let mut out = String::with_capacity(size);
            for (i, t) in texts.iter().enumerate() {
                if i > 0 {
                    out.push_str(sep);
                }
                out.push_str(t);
            }
            return Ok(Val::str(out));
        }
    }
    let mut acc: Option<V> = None;
    for x in items {
        let left = match acc.take() {
            None => Val::str(""),
            Some(a) => super::ops::add(a, sep.clone())?,
        };
        let piece = match x {
            Val::Null => Val::str(""),
            x @ (Val::Bool(_) | Val::Num(_) | Val::Lit(_)) => Val::str(x.to_json()),
            x => x,
        };
        acc = Some(super::ops::add(left, piece)?);
    }
    Ok(acc.filter(Val::is_true).unwrap_or_else(|| Val::str("")))
}

/// jq 1.7.1's `sub($re; str; $flags)`, computed as its definition does:
///
/// ```jq
/// . as $in | (reduce match($re; $flags) as $edit ({result: [], previous: 0};
///     $in[.previous:($edit | .offset)] as $gap
///     | [$edit | [.captures[] | select(.name != null) | {(.name): .string}] | add + {}
///        | str] as $inserts
///     | reduce range(0; $inserts | length) as $ix (.; .result[$ix] += $gap + $inserts[$ix])
///     | .previous = ($edit | .offset + .length))
///   | .result[] + $in[.previous:]) // $in
/// ```
///
/// `str` runs once per match on the object of named captures; output `i` joins the gaps
/// with the `i`-th output of `str` for every match.
fn sub<'a>(
    d: &RunData,
    input: V,
    re: &V,
    flags: &V,
    mut run: impl FnMut(V) -> ValXs<'a, V>,
) -> Result<Vec<V>, Exn<'a, V>> {
    let matches = regex::sub_matches(d.regexes, &input, re, flags)?;
    let Val::Str(s) = &input else {
        return Ok(vec![input]);
    };
    let mut result: Vec<V> = Vec::new();
    // the end of the last match, in bytes (jq: .previous, in code points)
    let mut previous = 0usize;
    for (start, end, named) in matches {
        let gap = Val::from(&s[previous..start]);
        let inserts = run(named).collect::<Result<Vec<V>, _>>()?;
        for (ix, ins) in inserts.into_iter().enumerate() {
            let part = super::ops::add(gap.clone(), ins)?;
            match result.get_mut(ix) {
                Some(r) => *r = super::ops::add(std::mem::take(r), part)?,
                None => result.push(part),
            }
        }
        previous = end;
    }
    let tail = Val::from(&s[previous..]);
    let mut outs = Vec::with_capacity(result.len());
    for r in result {
        let r = super::ops::add(r, tail.clone())?;
        if r.is_true() {
            outs.push(r);
        }
    }
    if outs.is_empty() {
        outs.push(input);
    }
    Ok(outs)
}
