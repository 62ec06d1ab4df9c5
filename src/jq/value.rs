//! jq's values: null, booleans, numbers (doubles or kept literals), strings, arrays and
//! objects (keys in insertion order), with jq 1.7.1's ordering and error texts.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::rc::Rc;

use super::num::{self, Lit};

/// Largest string a program may build, in bytes.
pub const MAX_STRING: usize = 16 << 20;
/// Most elements an array or object may have.
pub const MAX_ITEMS: usize = 1 << 21;

/// A jq value.
#[derive(Clone, Debug, Default)]
pub enum Val {
    #[default]
    Null,
    Bool(bool),
    /// A computed number (or a literal that prints the same).
    Num(f64),
    /// A number literal kept as written.
    Lit(Rc<Lit>),
    Str(Rc<String>),
    Arr(Arr),
    Obj(Obj),
}

/// An object key: a shared string that hashes and borrows as `str`. The same `Rc` as a
/// string value's, so that `{Path: ...}` and `from_entries` take their keys without a copy.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key(pub Rc<String>);

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (*self.0).hash(state)
    }
}

impl std::borrow::Borrow<str> for Key {
    fn borrow(&self) -> &str {
        self.0.as_str()
    }
}

impl From<&str> for Key {
    /// Short keys come from a small cache of the ones made last: objects of one shape
    /// (a listing's thousand `{"Key": ..., "Size": ...}`) then share their keys instead
    /// of allocating each.
    fn from(s: &str) -> Self {
        const SLOTS: usize = 64;
        thread_local! {
            static RECENT: std::cell::RefCell<[Option<Key>; SLOTS]> =
                const { std::cell::RefCell::new([const { None }; SLOTS]) };
        }
        if s.len() > 32 {
            return Key(Rc::new(s.to_owned()));
        }
        let slot = s.bytes().fold(s.len(), |h, b| {
            h.wrapping_mul(31).wrapping_add(usize::from(b))
        }) % SLOTS;
        RECENT.with(|recent| {
            let mut recent = recent.borrow_mut();
            match &recent[slot] {
                Some(k) if k.0.as_str() == s => k.clone(),
                _ => {
                    let k = Key(Rc::new(s.to_owned()));
                    recent[slot] = Some(k.clone());
                    k
                }
            }
        })
    }
}

impl Key {
    /// The key as a string value.
    pub fn to_val(&self) -> Val {
        Val::Str(self.0.clone())
    }
}

pub use super::map::Map;

/// A shared array. Dropping the last handle frees nested arrays without recursion.
#[derive(Clone, Debug, Default)]
pub struct Arr(pub Rc<Vec<Val>>);

/// A shared object. Dropping the last handle frees nested values without recursion.
#[derive(Clone, Debug, Default)]
pub struct Obj(pub Rc<Map>);

impl Deref for Arr {
    type Target = Vec<Val>;
    fn deref(&self) -> &Vec<Val> {
        &self.0
    }
}

impl Deref for Obj {
    type Target = Map;
    fn deref(&self) -> &Map {
        &self.0
    }
}

impl Arr {
    pub fn make_mut(&mut self) -> &mut Vec<Val> {
        Rc::make_mut(&mut self.0)
    }
    /// The elements, without copying when this is the only handle.
    pub fn into_vec(mut self) -> Vec<Val> {
        match Rc::get_mut(&mut self.0) {
            Some(v) => std::mem::take(v),
            None => (*self.0).clone(),
        }
    }
}

impl Obj {
    pub fn make_mut(&mut self) -> &mut Map {
        Rc::make_mut(&mut self.0)
    }
    pub fn into_map(mut self) -> Map {
        match Rc::get_mut(&mut self.0) {
            Some(m) => std::mem::take(m),
            None => (*self.0).clone(),
        }
    }
}

fn is_leaf(v: &Val) -> bool {
    !matches!(v, Val::Arr(_) | Val::Obj(_))
}

thread_local! {
    /// How many nested drops are running: past a depth, dropping goes on in a loop.
    static DROP_DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Nesting that is freed by recursion; deeper values are freed by a loop.
const DROP_RECURSION: u32 = 256;

/// Frees values: by plain recursion while shallow, else by a loop over a worklist, so
/// that values nested millions deep never overflow the stack.
fn free(items: Vec<Val>) {
    let deep = DROP_DEPTH.with(|d| {
        let n = d.get();
        d.set(n + 1);
        n >= DROP_RECURSION
    });
    if !deep {
        drop(items);
    } else {
        let mut stack: Vec<Val> = items.into_iter().filter(|x| !is_leaf(x)).collect();
        while let Some(v) = stack.pop() {
            match v {
                Val::Arr(mut a) => {
                    if let Some(items) = Rc::get_mut(&mut a.0) {
                        stack.extend(std::mem::take(items).into_iter().filter(|x| !is_leaf(x)));
                    }
                }
                Val::Obj(mut o) => {
                    if let Some(map) = Rc::get_mut(&mut o.0) {
                        stack.extend(
                            map.take_entries()
                                .into_iter()
                                .map(|(_, x)| x)
                                .filter(|x| !is_leaf(x)),
                        );
                    }
                }
                _ => {}
            }
        }
    }
    DROP_DEPTH.with(|d| d.set(d.get() - 1));
}

impl Drop for Arr {
    fn drop(&mut self) {
        if let Some(items) = Rc::get_mut(&mut self.0) {
            if items.iter().any(|x| !is_leaf(x)) {
                free(std::mem::take(items));
            }
        }
    }
}

impl Drop for Obj {
    fn drop(&mut self) {
        if let Some(map) = Rc::get_mut(&mut self.0) {
            if map.values().any(|x| !is_leaf(x)) {
                free(map.take_entries().into_iter().map(|(_, x)| x).collect());
            }
        }
    }
}

/// The kinds of values, in jq's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Null,
    False,
    True,
    Number,
    String,
    Array,
    Object,
}

impl Val {
    pub fn str(s: impl Into<String>) -> Val {
        Val::Str(Rc::new(s.into()))
    }

    pub fn arr(v: Vec<Val>) -> Val {
        Val::Arr(Arr(Rc::new(v)))
    }

    pub fn obj(m: Map) -> Val {
        Val::Obj(Obj(Rc::new(m)))
    }

    pub fn kind(&self) -> Kind {
        match self {
            Val::Null => Kind::Null,
            Val::Bool(false) => Kind::False,
            Val::Bool(true) => Kind::True,
            Val::Num(_) | Val::Lit(_) => Kind::Number,
            Val::Str(_) => Kind::String,
            Val::Arr(_) => Kind::Array,
            Val::Obj(_) => Kind::Object,
        }
    }

    /// jq's name of the value's type.
    pub fn type_name(&self) -> &'static str {
        match self {
            Val::Null => "null",
            Val::Bool(_) => "boolean",
            Val::Num(_) | Val::Lit(_) => "number",
            Val::Str(_) => "string",
            Val::Arr(_) => "array",
            Val::Obj(_) => "object",
        }
    }

    /// The number as a double.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Val::Num(x) => Some(*x),
            Val::Lit(l) => Some(l.f),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn is_true(&self) -> bool {
        !matches!(self, Val::Null | Val::Bool(false))
    }

    /// A number from a double.
    pub fn num(x: f64) -> Val {
        Val::Num(x)
    }

    /// Whether `text` is a short integer in JSON's syntax (`-`, then 1 to 15 digits, no
    /// leading zero): a number exact in an `f64`, read without float parsing.
    pub fn is_short_integer(text: &str) -> bool {
        let b = text.as_bytes();
        let digits = b.strip_prefix(b"-").unwrap_or(b);
        !digits.is_empty()
            && digits.len() <= 15
            && digits.iter().all(u8::is_ascii_digit)
            && (digits[0] != b'0' || digits.len() == 1)
    }

    /// A number from literal text (program constant or JSON input).
    pub fn from_literal(text: &str) -> Val {
        // short integers: no float parsing needed
        let b = text.as_bytes();
        if Val::is_short_integer(text) {
            let digits = b.strip_prefix(b"-").unwrap_or(b);
            let n = digits
                .iter()
                .fold(0i64, |n, d| n * 10 + i64::from(d - b'0'));
            return Val::Num(if b.len() > digits.len() {
                -(n as f64)
            } else {
                n as f64
            });
        }
        let f = match text.parse::<f64>() {
            Ok(f) => f,
            Err(_) => return Val::Num(f64::NAN),
        };
        if simple_int(text) || simple_decimal(text, f) {
            return Val::Num(f);
        }
        match num::canonical(text) {
            Some(canon) => {
                // at most 15 significant digits: no other such literal has the same
                // double, so comparing doubles is exact
                let digits = canon
                    .bytes()
                    .take_while(|b| *b != b'E')
                    .filter(u8::is_ascii_digit)
                    .skip_while(|b| *b == b'0')
                    .count();
                if digits <= 15 && num::f64_string(f) == canon {
                    Val::Num(f)
                } else {
                    Val::Lit(Rc::new(Lit {
                        f,
                        text: canon.into_boxed_str(),
                    }))
                }
            }
            None => Val::Num(f),
        }
    }

    /// Compact JSON text, as `tojson` makes it.
    pub fn to_json(&self) -> String {
        // Written into a buffer kept for the next call, then copied once at its size: a
        // new buffer would be reallocated at each doubling (five times for a small object).
        thread_local! {
            static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        SCRATCH.with(|scratch| {
            let mut out = scratch.borrow_mut();
            out.clear();
            super::json::write_compact(&mut out, self);
            let text = String::from(std::str::from_utf8(&out).unwrap_or_default());
            if out.capacity() > 1 << 16 {
                // a large value's buffer is not kept
                *out = Vec::new();
            }
            text
        })
    }

    /// The value as jq quotes it in error messages: compact JSON, cut to 11 bytes and
    /// `...` when longer than 14.
    pub fn trunc(&self) -> String {
        let mut out = Vec::new();
        super::json::write_compact(&mut out, self);
        trunc_bytes(out)
    }

    /// Compact JSON cut to fit a buffer of `size` bytes, as jq's messages do.
    pub fn trunc_to(&self, size: usize) -> String {
        let mut out = Vec::new();
        super::json::write_compact(&mut out, self);
        if out.len() > size - 1 {
            out.truncate(size - 4);
            out.extend_from_slice(b"...");
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    /// `TYPE (VALUE)`, as in jq's type errors.
    pub fn kind_and_trunc(&self) -> String {
        format!("{} ({})", self.type_name(), self.trunc())
    }
}

/// Cuts a dump the way jq's 15-byte error buffer does.
pub fn trunc_bytes(mut out: Vec<u8>) -> String {
    if out.len() > 14 {
        out.truncate(11);
        out.extend_from_slice(b"...");
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// An integer of at most 15 digits without fraction or exponent: its double prints the
/// same as the literal, so it needs no literal kept.
fn simple_int(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = b.strip_prefix(b"-").unwrap_or(b);
    !digits.is_empty()
        && digits.len() <= 15
        && digits.iter().all(u8::is_ascii_digit)
        && (digits[0] != b'0' || digits.len() == 1)
}

/// A decimal like `12.75`: at most 15 significant digits, no trailing zero, no exponent,
/// and in the range where jq prints doubles in plain notation. Its double prints the
/// same (15 digits always read back), so it needs no literal kept.
fn simple_decimal(text: &str, f: f64) -> bool {
    let b = text.as_bytes();
    let digits = b.strip_prefix(b"-").unwrap_or(b);
    let Some(dot) = digits.iter().position(|&c| c == b'.') else {
        return false;
    };
    let (int, frac) = (&digits[..dot], &digits[dot + 1..]);
    if int.is_empty()
        || frac.is_empty()
        || frac.last() == Some(&b'0')
        || (int[0] == b'0' && int.len() > 1)
        || !int.iter().chain(frac).all(u8::is_ascii_digit)
    {
        return false;
    }
    let sig = if int == b"0" {
        frac.iter().skip_while(|&&c| c == b'0').count()
    } else {
        int.len() + frac.len()
    };
    sig <= 15 && f.abs() >= 1e-4 && f.abs() < 1e15
}

/// Compares two numbers: exactly when both are literals, else as doubles, with NaN
/// below every number (jq 1.7.1).
fn cmp_num(a: &Val, b: &Val) -> Ordering {
    if let (Val::Lit(x), Val::Lit(y)) = (a, b) {
        if let Some(o) = num::cmp_lit(&x.text, &y.text) {
            return o;
        }
    }
    let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
    if x.is_nan() {
        Ordering::Less
    } else if y.is_nan() {
        Ordering::Greater
    } else {
        x.partial_cmp(&y).unwrap_or(Ordering::Equal)
    }
}

/// jq's total order of values. Deep values are compared with an eye on the stack.
pub fn cmp(a: &Val, b: &Val) -> Ordering {
    let (ka, kb) = (a.kind(), b.kind());
    if ka != kb {
        return ka.cmp(&kb);
    }
    match (a, b) {
        (Val::Num(_) | Val::Lit(_), _) => cmp_num(a, b),
        (Val::Str(x), Val::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Val::Arr(x), Val::Arr(y)) => {
            if !super::fuel::stack_ok() {
                return Ordering::Equal;
            }
            for (p, q) in x.iter().zip(y.iter()) {
                let o = cmp(p, q);
                if o.is_ne() {
                    return o;
                }
            }
            x.len().cmp(&y.len())
        }
        (Val::Obj(x), Val::Obj(y)) => {
            if !super::fuel::stack_ok() {
                return Ordering::Equal;
            }
            let mut kx: Vec<&Key> = x.keys().collect();
            let mut ky: Vec<&Key> = y.keys().collect();
            kx.sort_unstable();
            ky.sort_unstable();
            let o = kx
                .iter()
                .map(|k| k.0.as_bytes())
                .cmp(ky.iter().map(|k| k.0.as_bytes()));
            if o.is_ne() {
                return o;
            }
            for k in kx {
                if let (Some(p), Some(q)) = (x.get(&k.0), y.get(&k.0)) {
                    let o = cmp(p, q);
                    if o.is_ne() {
                        return o;
                    }
                }
            }
            Ordering::Equal
        }
        _ => Ordering::Equal,
    }
}

/// jq's equality: the order's `Equal`, so `nan != nan`.
pub fn equal(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Str(x), Val::Str(y)) => x == y,
        (Val::Num(x), Val::Num(y)) => x == y,
        (Val::Arr(x), Val::Arr(y)) => {
            if Rc::ptr_eq(&x.0, &y.0) && x.iter().all(|v| v.as_f64().is_none_or(|f| !f.is_nan())) {
                return true;
            }
            if x.len() != y.len() || !super::fuel::stack_ok() {
                return false;
            }
            x.iter().zip(y.iter()).all(|(p, q)| equal(p, q))
        }
        (Val::Obj(x), Val::Obj(y)) => {
            if x.len() != y.len() || !super::fuel::stack_ok() {
                return false;
            }
            x.iter()
                .all(|(k, v)| y.get(&k.0).is_some_and(|w| equal(v, w)))
        }
        _ => cmp(a, b).is_eq() && !matches!((a.as_f64(), b.as_f64()), (Some(x), _) if x.is_nan()),
    }
}

impl PartialEq for Val {
    fn eq(&self, other: &Val) -> bool {
        equal(self, other)
    }
}

impl PartialOrd for Val {
    fn partial_cmp(&self, other: &Val) -> Option<Ordering> {
        Some(cmp(self, other))
    }
    fn lt(&self, other: &Val) -> bool {
        cmp(self, other).is_lt()
    }
    fn le(&self, other: &Val) -> bool {
        cmp(self, other).is_le()
    }
    fn gt(&self, other: &Val) -> bool {
        cmp(self, other).is_gt()
    }
    fn ge(&self, other: &Val) -> bool {
        cmp(self, other).is_ge()
    }
}

impl fmt::Display for Val {
    /// How jaq shows a value inside its own error texts: jq's truncated form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.trunc_to(30))
    }
}

impl From<bool> for Val {
    fn from(b: bool) -> Val {
        Val::Bool(b)
    }
}

impl From<isize> for Val {
    fn from(n: isize) -> Val {
        if (n.unsigned_abs() as u64) <= (1u64 << 53) {
            Val::Num(n as f64)
        } else {
            Val::from_literal(&n.to_string())
        }
    }
}

impl From<usize> for Val {
    fn from(n: usize) -> Val {
        Val::Num(n as f64)
    }
}

impl From<f64> for Val {
    fn from(x: f64) -> Val {
        Val::Num(x)
    }
}

impl From<String> for Val {
    fn from(s: String) -> Val {
        Val::Str(Rc::new(s))
    }
}

impl From<&str> for Val {
    fn from(s: &str) -> Val {
        Val::Str(Rc::new(s.to_owned()))
    }
}

impl FromIterator<Val> for Val {
    fn from_iter<I: IntoIterator<Item = Val>>(iter: I) -> Val {
        let mut v = Vec::new();
        for x in iter {
            if v.len() >= MAX_ITEMS {
                super::fuel::fail(super::fuel::Abort::Memory);
                break;
            }
            v.push(x);
        }
        Val::arr(v)
    }
}
