//! jq 1.7.1's operators and indexing on [`Val`], and jaq's [`ValT`] for it.
//!
//! Steps: iterating a value (`.[]`, `..`) spends one per element; building strings and
//! arrays spends one per 64 bytes or per element added.

use std::rc::Rc;

use jaq_core::box_iter::BoxIter;
use jaq_core::path::Opt;
use jaq_core::{Error, Exn, ValR, ValT, ValX};

use super::fuel::{self, Abort};
use super::value::{Arr, Key, Map, Obj, Val, MAX_ITEMS, MAX_STRING};

/// An error whose value is the message string.
pub fn err<T>(msg: impl Into<String>) -> ValR<T, Val> {
    Err(Error::new(Val::str(msg)))
}

/// The error that stops the run (steps, memory or stack).
pub fn abort<T>(why: Abort) -> ValR<T, Val> {
    fuel::fail(why);
    Err(Error::abort())
}

fn spend(n: u64) -> ValR<(), Val> {
    if fuel::spend(n) {
        Ok(())
    } else {
        Err(Error::abort())
    }
}

fn binop_err<T>(a: &Val, b: &Val, what: &str) -> ValR<T, Val> {
    err(format!(
        "{} and {} {what}",
        a.kind_and_trunc(),
        b.kind_and_trunc()
    ))
}

/// Checks the size of a string about to be built.
pub fn check_len(n: usize) -> ValR<(), Val> {
    if n > MAX_STRING {
        return abort(Abort::Memory);
    }
    Ok(())
}

fn check_items(n: usize) -> ValR<(), Val> {
    if n > MAX_ITEMS {
        return abort(Abort::Memory);
    }
    Ok(())
}

pub fn add(a: Val, b: Val) -> ValR<Val, Val> {
    match (a, b) {
        (Val::Null, b) => Ok(b),
        (a, Val::Null) => Ok(a),
        (a @ (Val::Num(_) | Val::Lit(_)), b @ (Val::Num(_) | Val::Lit(_))) => Ok(Val::Num(
            a.as_f64().unwrap_or(0.0) + b.as_f64().unwrap_or(0.0),
        )),
        (Val::Str(mut x), Val::Str(y)) => {
            check_len(x.len() + y.len())?;
            spend(1 + y.len() as u64 / 64)?;
            match Rc::get_mut(&mut x) {
                Some(owned) => owned.push_str(&y),
                None => {
                    // A shared string is copied once, at the length it grows to.
                    let mut sum = String::with_capacity(x.len() + y.len());
                    sum.push_str(&x);
                    sum.push_str(&y);
                    x = Rc::new(sum);
                }
            }
            Ok(Val::Str(x))
        }
        (Val::Arr(mut x), Val::Arr(y)) => {
            check_items(x.len() + y.len())?;
            spend(1 + y.len() as u64 / 16)?;
            if x.is_empty() {
                return Ok(Val::Arr(y));
            }
            x.make_mut().extend(y.iter().cloned());
            Ok(Val::Arr(x))
        }
        (Val::Obj(mut x), Val::Obj(y)) => {
            check_items(x.len() + y.len())?;
            spend(1 + y.len() as u64 / 16)?;
            if x.is_empty() {
                return Ok(Val::Obj(y));
            }
            let m = x.make_mut();
            for (k, v) in y.iter() {
                m.insert(k.clone(), v.clone());
            }
            Ok(Val::Obj(x))
        }
        (a, b) => binop_err(&a, &b, "cannot be added"),
    }
}

pub fn sub(a: Val, b: Val) -> ValR<Val, Val> {
    match (a, b) {
        (a @ (Val::Num(_) | Val::Lit(_)), b @ (Val::Num(_) | Val::Lit(_))) => Ok(Val::Num(
            a.as_f64().unwrap_or(0.0) - b.as_f64().unwrap_or(0.0),
        )),
        (Val::Arr(x), Val::Arr(y)) => {
            spend(1 + (x.len() as u64 * y.len() as u64) / 16)?;
            let v: Vec<Val> = x
                .iter()
                .filter(|e| !y.iter().any(|f| f == *e))
                .cloned()
                .collect();
            Ok(Val::arr(v))
        }
        (a, b) => binop_err(&a, &b, "cannot be subtracted"),
    }
}

/// Deep merge of objects (`*`).
fn merge(mut a: Obj, b: &Obj) -> ValR<Val, Val> {
    if !fuel::stack_ok() {
        return Err(Error::abort());
    }
    spend(1 + b.len() as u64 / 16)?;
    let m = a.make_mut();
    for (k, v) in b.iter() {
        match (m.get_mut(&k.0), v) {
            (Some(Val::Obj(old)), Val::Obj(new)) => {
                let old = std::mem::take(old);
                let merged = merge(old, new)?;
                m.insert(k.clone(), merged);
            }
            _ => {
                m.insert(k.clone(), v.clone());
            }
        }
    }
    Ok(Val::Obj(a))
}

fn repeat(s: &str, n: f64) -> ValR<Val, Val> {
    if n.is_nan() || n < 0.0 {
        return Ok(Val::Null);
    }
    let times = if n > i32::MAX as f64 {
        i32::MAX as usize
    } else {
        n as usize
    };
    let len = s.len().saturating_mul(times);
    check_len(len)?;
    fuel::spend_bytes(len)
        .then_some(())
        .ok_or_else(Error::abort)?;
    Ok(Val::str(s.repeat(times)))
}

pub fn mul(a: Val, b: Val) -> ValR<Val, Val> {
    match (a, b) {
        (a @ (Val::Num(_) | Val::Lit(_)), b @ (Val::Num(_) | Val::Lit(_))) => Ok(Val::Num(
            a.as_f64().unwrap_or(0.0) * b.as_f64().unwrap_or(0.0),
        )),
        (Val::Str(s), n @ (Val::Num(_) | Val::Lit(_)))
        | (n @ (Val::Num(_) | Val::Lit(_)), Val::Str(s)) => repeat(&s, n.as_f64().unwrap_or(0.0)),
        (Val::Obj(x), Val::Obj(y)) => merge(x, &y),
        (a, b) => binop_err(&a, &b, "cannot be multiplied"),
    }
}

pub fn div(a: Val, b: Val) -> ValR<Val, Val> {
    match (a, b) {
        (a @ (Val::Num(_) | Val::Lit(_)), b @ (Val::Num(_) | Val::Lit(_))) => {
            let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
            if y == 0.0 {
                return binop_err(&a, &b, "cannot be divided because the divisor is zero");
            }
            Ok(Val::Num(x / y))
        }
        (Val::Str(x), Val::Str(y)) => split(&x, &y),
        (a, b) => binop_err(&a, &b, "cannot be divided"),
    }
}

/// `"a,b" / ","`: jq splits on every occurrence; an empty separator splits into
/// characters, an empty string gives `[]`.
pub fn split(s: &str, sep: &str) -> ValR<Val, Val> {
    spend(1 + s.len() as u64 / 64)?;
    if s.is_empty() {
        return Ok(Val::arr(Vec::new()));
    }
    let parts: Vec<Val> = if sep.is_empty() {
        s.chars().map(|c| Val::str(c.to_string())).collect()
    } else {
        // A match of valid UTF-8 in valid UTF-8 starts and ends on character boundaries.
        let mut parts = Vec::new();
        let mut start = 0;
        let mut cut = |i: usize| {
            parts.push(Val::from(&s[start..i]));
            start = i + sep.len();
        };
        if s.len() > 1024 {
            // One searcher for all the matches of a long text.
            memchr::memmem::find_iter(s.as_bytes(), sep.as_bytes()).for_each(&mut cut);
        } else {
            let mut from = 0;
            while let Some(i) = find(&s.as_bytes()[from..], sep.as_bytes()) {
                cut(from + i);
                from += i + sep.len();
            }
        }
        parts.push(Val::from(&s[start..]));
        parts
    };
    Ok(Val::arr(parts))
}

/// Where `needle` (not empty) first occurs in `hay`. Short texts, as jq programs cut
/// them (fields, names, a line), are scanned for the needle's first byte: setting up
/// `str::find`'s or memmem's searcher costs more than such a scan.
pub fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if hay.len() > 1024 {
        return memchr::memmem::find(hay, needle);
    }
    let (&first, rest) = needle.split_first()?;
    let last_start = hay.len().checked_sub(needle.len())?;
    memchr::memchr_iter(first, &hay[..=last_start]).find(|&i| hay[i + 1..].starts_with(rest))
}

/// jq's double-to-integer for `%`: saturating at the ends of `i64`.
fn dtoi(x: f64) -> i64 {
    if x < i64::MIN as f64 {
        i64::MIN
    } else if -x < i64::MIN as f64 {
        i64::MAX
    } else {
        x as i64
    }
}

pub fn rem(a: Val, b: Val) -> ValR<Val, Val> {
    match (a, b) {
        (a @ (Val::Num(_) | Val::Lit(_)), b @ (Val::Num(_) | Val::Lit(_))) => {
            let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
            if x.is_nan() || y.is_nan() {
                return Ok(Val::Num(f64::NAN));
            }
            let bi = dtoi(y);
            if bi == 0 {
                return binop_err(
                    &a,
                    &b,
                    "cannot be divided (remainder) because the divisor is zero",
                );
            }
            let r = if bi == -1 { 0 } else { dtoi(x) % bi };
            Ok(Val::Num(r as f64))
        }
        (a, b) => binop_err(&a, &b, "cannot be divided (remainder)"),
    }
}

pub fn neg(a: Val) -> ValR<Val, Val> {
    match a {
        Val::Num(x) => Ok(Val::Num(-x)),
        Val::Lit(l) => Ok(Val::Num(-l.f)),
        a => err(format!("{} cannot be negated", a.kind_and_trunc())),
    }
}

/// An array index as jq takes it: the number truncated toward zero (jq casts it to an
/// int), counted from the end when negative; `None` when out of range (or NaN).
pub fn array_index(len: usize, i: f64) -> Option<usize> {
    if i.is_nan() {
        return None;
    }
    let i = i.trunc();
    let i = if i < 0.0 { i + len as f64 } else { i };
    if i < 0.0 || i >= len as f64 {
        None
    } else {
        Some(i as usize)
    }
}

/// jq's text for indexing `v` with `k` failing.
pub fn index_err(v: &Val, k: &Val) -> String {
    match k {
        Val::Str(s) => format!("Cannot index {} with string \"{}\"", v.type_name(), s),
        _ => format!("Cannot index {} with {}", v.type_name(), k.type_name()),
    }
}

/// `.[k]`.
pub fn index(v: &Val, k: &Val) -> ValR<Val, Val> {
    match (v, k) {
        (Val::Obj(o), Val::Str(s)) => Ok(o.get(s.as_str()).cloned().unwrap_or(Val::Null)),
        (Val::Arr(a), Val::Num(_) | Val::Lit(_)) => {
            let i = k.as_f64().unwrap_or(0.0);
            Ok(array_index(a.len(), i).map_or(Val::Null, |i| a[i].clone()))
        }
        (Val::Null, Val::Str(_) | Val::Num(_) | Val::Lit(_) | Val::Null) => Ok(Val::Null),
        (Val::Null, Val::Obj(o)) if is_slice_obj(o) => Ok(Val::Null),
        (Val::Arr(a), Val::Arr(b)) => Ok(indices_of(a, b)),
        (Val::Arr(_) | Val::Str(_), Val::Obj(o)) if is_slice_obj(o) => {
            let (from, to) = (o.get("start").cloned(), o.get("end").cloned());
            slice(v, from.as_ref(), to.as_ref())
        }
        _ => err(index_err(v, k)),
    }
}

fn is_slice_obj(o: &Obj) -> bool {
    o.len() == 2 && o.contains_key("start") && o.contains_key("end")
}

/// `indices` of a sub-array (`.[[1,2]]`).
pub fn indices_of(a: &[Val], b: &[Val]) -> Val {
    if b.is_empty() {
        return Val::Null;
    }
    let mut out = Vec::new();
    if a.len() >= b.len() {
        for i in 0..=(a.len() - b.len()) {
            if a[i..i + b.len()].iter().zip(b).all(|(x, y)| x == y) {
                out.push(Val::Num(i as f64));
            }
        }
    }
    Val::arr(out)
}

/// Slice bounds as jq computes them: start floored, end ceiled, negatives from the
/// end, both clamped.
pub fn slice_bounds(len: usize, from: Option<&Val>, to: Option<&Val>) -> ValR<(usize, usize), Val> {
    let num = |v: Option<&Val>, dflt: f64| -> ValR<f64, Val> {
        match v {
            None | Some(Val::Null) => Ok(dflt),
            Some(v @ (Val::Num(_) | Val::Lit(_))) => {
                let f = v.as_f64().unwrap_or(0.0);
                Ok(if f.is_nan() { dflt } else { f })
            }
            Some(_) => err("Array/string slice indices must be integers"),
        }
    };
    let len_f = len as f64;
    let mut s = num(from, 0.0)?;
    let mut e = num(to, len_f)?;
    if s < 0.0 {
        s += len_f;
    }
    if e < 0.0 {
        e += len_f;
    }
    let s = s.floor().clamp(0.0, len_f);
    let e = e.ceil().clamp(0.0, len_f);
    let (s, e) = (s as usize, e as usize);
    Ok((s, e.max(s)))
}

/// `.[from:to]` on arrays, strings (by code points) and null.
pub fn slice(v: &Val, from: Option<&Val>, to: Option<&Val>) -> ValR<Val, Val> {
    match v {
        Val::Null => Ok(Val::Null),
        Val::Arr(a) => {
            let (s, e) = slice_bounds(a.len(), from, to)?;
            if s == 0 && e == a.len() {
                return Ok(v.clone());
            }
            Ok(Val::arr(a[s..e].to_vec()))
        }
        Val::Str(st) if st.is_ascii() => {
            // Code points are bytes.
            let (s, e) = slice_bounds(st.len(), from, to)?;
            if s == 0 && e == st.len() {
                return Ok(v.clone());
            }
            Ok(Val::str(&st[s..e]))
        }
        Val::Str(st) => {
            let n = st.chars().count();
            let (s, e) = slice_bounds(n, from, to)?;
            let mut it = st
                .char_indices()
                .map(|(i, _)| i)
                .chain(std::iter::once(st.len()));
            let bs = it.nth(s).unwrap_or(st.len());
            let be = if e > s {
                it.nth(e - s - 1).unwrap_or(st.len())
            } else {
                bs
            };
            Ok(Val::str(&st[bs..be]))
        }
        _ => err(format!("Cannot index {} with object", v.type_name())),
    }
}

fn iter_err(v: &Val) -> Error<Val> {
    Error::new(Val::str(format!(
        "Cannot iterate over {}",
        v.kind_and_trunc()
    )))
}

/// A counted iterator over elements: one step each.
fn counted<I: Iterator<Item = ValR<T, Val>> + 'static, T: 'static>(
    it: I,
) -> BoxIter<'static, ValR<T, Val>> {
    Box::new(it.map(|x| {
        if fuel::spend(1) {
            x
        } else {
            Err(Error::abort())
        }
    }))
}

fn opt_err<'a>(opt: Opt, v: Val, e: Error<Val>) -> ValX<'a, Val> {
    match opt {
        Opt::Optional => Ok(v),
        Opt::Essential => Err(Exn::from(e)),
    }
}

const MARKER_TEXT: &str = "\0path";

thread_local! {
    static PATH_MARKER: Val = Val::Lit(Rc::new(super::num::Lit {
        f: f64::NAN,
        text: MARKER_TEXT.into(),
    }));
}

impl ValT for Val {
    fn null() -> Self {
        Val::Null
    }

    fn path_marker() -> Self {
        PATH_MARKER.with(Clone::clone)
    }

    fn is_path_marker(&self) -> bool {
        matches!(self, Val::Lit(l) if &*l.text == MARKER_TEXT)
    }

    fn invalid_path(self, key: Option<&Self>) -> Error<Self> {
        let what = match key {
            Some(k) => format!("access element {} of", k.trunc_to(15)),
            None => "iterate through".to_string(),
        };
        Error::new(Val::str(format!(
            "Invalid path expression near attempt to {what} {}",
            self.trunc_to(30)
        )))
    }

    fn from_num(n: &str) -> ValR<Self> {
        Ok(Val::from_literal(n))
    }

    fn from_map<I: IntoIterator<Item = (Self, Self)>>(iter: I) -> ValR<Self> {
        let mut m = Map::default();
        for (k, v) in iter {
            match k {
                Val::Str(s) => {
                    m.insert(Key(s), v);
                }
                k => {
                    return err(format!("Cannot use {} as object key", k.kind_and_trunc()));
                }
            }
        }
        Ok(Val::obj(m))
    }

    /// One map of the entries' number, each key pushed without a search, with the steps
    /// and limits of adding them one by one (`add_entry`).
    fn from_new_entries<I: ExactSizeIterator<Item = (Self, Self)>>(iter: I) -> ValR<Self> {
        let n = iter.len();
        check_items(n)?;
        spend(n.saturating_sub(1) as u64)?;
        let mut m = Map::with_capacity(n);
        for (k, v) in iter {
            match k {
                Val::Str(s) => m.insert_new(Key(s), v),
                k => return err(format!("Cannot use {} as object key", k.kind_and_trunc())),
            }
        }
        Ok(Val::obj(m))
    }

    fn from_shared_str(s: &Rc<String>) -> Self {
        Val::Str(s.clone())
    }

    /// The entry goes into the object itself (in place when it is owned once), with the
    /// steps and checks of adding an object of one entry.
    fn add_entry(self, k: Self, v: Self) -> ValR<Self> {
        match (self, k) {
            (Val::Obj(mut x), Val::Str(k)) => {
                check_items(x.len() + 1)?;
                spend(1)?;
                x.make_mut().insert(Key(k), v);
                Ok(Val::Obj(x))
            }
            (x, k) => add(x, Self::from_map([(k, v)])?),
        }
    }

    fn key_values(self) -> BoxIter<'static, ValR<(Self, Self), Self>> {
        match self {
            Val::Arr(a) => {
                let n = a.len();
                counted((0..n).map(move |i| Ok((Val::Num(i as f64), a[i].clone()))))
            }
            Val::Obj(o) => {
                let n = o.len();
                counted((0..n).map(move |i| {
                    let (k, v) = o
                        .get_index(i)
                        .map(|(k, v)| (k.0.clone(), v.clone()))
                        .unwrap_or_default();
                    Ok((Val::Str(k), v))
                }))
            }
            v => Box::new(std::iter::once(Err(iter_err(&v)))),
        }
    }

    fn values(self) -> Box<dyn Iterator<Item = ValR<Self>>> {
        match self {
            Val::Arr(a) => {
                let n = a.len();
                counted((0..n).map(move |i| Ok(a[i].clone())))
            }
            Val::Obj(o) => {
                let n = o.len();
                counted(
                    (0..n).map(move |i| {
                        Ok(o.get_index(i).map(|(_, v)| v.clone()).unwrap_or_default())
                    }),
                )
            }
            v => Box::new(std::iter::once(Err(iter_err(&v)))),
        }
    }

    fn index(self, k: &Self) -> ValR<Self> {
        index(&self, k)
    }

    fn range(self, r: jaq_core::val::Range<&Self>) -> ValR<Self> {
        slice(&self, r.start, r.end)
    }

    fn map_values<'a, I: Iterator<Item = ValX<'a, Self>>>(
        self,
        opt: Opt,
        f: impl Fn(Self) -> I,
    ) -> ValX<'a, Self> {
        match self {
            Val::Arr(a) => {
                let mut out = Vec::with_capacity(a.len());
                for x in a.into_vec() {
                    if let Some(y) = f(x).next() {
                        out.push(y?);
                    }
                }
                Ok(Val::arr(out))
            }
            Val::Obj(o) => {
                let mut out = Map::default();
                for (k, x) in o.into_map() {
                    if let Some(y) = f(x).next() {
                        out.insert(k, y?);
                    }
                }
                Ok(Val::obj(out))
            }
            v => {
                let e = iter_err(&v);
                opt_err(opt, v, e)
            }
        }
    }

    fn map_index<'a, I: Iterator<Item = ValX<'a, Self>>>(
        self,
        k: &Self,
        opt: Opt,
        f: impl Fn(Self) -> I,
    ) -> ValX<'a, Self> {
        let old = match index(&self, k) {
            Ok(old) => old,
            Err(e) => return opt_err(opt, self, e),
        };
        match f(old).next() {
            Some(y) => Ok(super::paths::set(self, k, y?)?),
            None => Ok(super::paths::del_keys(self, std::slice::from_ref(k))?),
        }
    }

    fn map_range<'a, I: Iterator<Item = ValX<'a, Self>>>(
        self,
        r: jaq_core::val::Range<&Self>,
        opt: Opt,
        f: impl Fn(Self) -> I,
    ) -> ValX<'a, Self> {
        let old = match slice(&self, r.start, r.end) {
            Ok(old) => old,
            Err(e) => return opt_err(opt, self, e),
        };
        let k = range_key(r.start.cloned(), r.end.cloned());
        match f(old).next() {
            Some(y) => Ok(super::paths::set(self, &k, y?)?),
            None => Ok(super::paths::del_keys(self, std::slice::from_ref(&k))?),
        }
    }

    fn as_bool(&self) -> bool {
        self.is_true()
    }

    fn into_string(self) -> Self {
        match self {
            Val::Str(_) => self,
            v => Val::str(v.to_json()),
        }
    }
}

/// The path component of a slice: `{"start": s, "end": e}`.
pub fn range_key(from: Option<Val>, to: Option<Val>) -> Val {
    let mut m = Map::default();
    m.insert(Key::from("start"), from.unwrap_or(Val::Null));
    m.insert(Key::from("end"), to.unwrap_or(Val::Null));
    Val::obj(m)
}

impl From<jaq_core::val::Range<Val>> for Val {
    fn from(r: jaq_core::val::Range<Val>) -> Val {
        range_key(r.start, r.end)
    }
}

macro_rules! binop {
    ($tr:ident, $m:ident, $f:ident) => {
        impl std::ops::$tr for Val {
            type Output = ValR<Val>;
            fn $m(self, rhs: Val) -> ValR<Val> {
                $f(self, rhs)
            }
        }
    };
}
binop!(Add, add, add);
binop!(Sub, sub, sub);
binop!(Mul, mul, mul);
binop!(Div, div, div);
binop!(Rem, rem, rem);

impl std::ops::Neg for Val {
    type Output = ValR<Val>;
    fn neg(self) -> ValR<Val> {
        neg(self)
    }
}

/// Keeps `Arr` and `Obj` in use for other modules' pattern matches.
pub fn _types(_: &Arr, _: &Obj) {}
