//! jq paths over a JSON body: the body is parsed once into a flat tape of nodes, every
//! path walks the tape, and the value prints as `jq -r` (strings) or `jq -c` (the rest)
//! of jq 1.7.1 would print it.
//!
//! The parser is strict RFC 8259 (jq also reads `nan`, leading zeros and several values
//! in a row; a body like that gives empty values here) with jq 1.7.1's depth limit, its
//! handling of surrogate escapes and its replacement of invalid UTF-8. Numbers keep
//! their literal text and print in jq 1.7.1's canonical decimal form (`1.0`, `1E+2`,
//! `100000000000000000001`), as jq does for numbers it has not computed with: numbers,
//! strings and bad UTF-8 go through the jq builtin's own reader and writer.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::jq;

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// `.name`, `."name"`, `.["name"]`
    Key(String),
    /// `.[n]`, negative from the end
    Index(i64),
    /// `.[from:to]`
    Slice(Option<i64>, Option<i64>),
}

/// A compiled jq path: `.` followed by steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path {
    pub steps: Vec<Step>,
}

/// A syntax error: the byte offset in the selector and a message.
pub type PathError = (usize, String);

/// Parses a jq path: `.`, `.a.b`, `.a[0]`, `.["k"]`, `."k"`, `.a[-1]`, `.a[1:3]`, `.a?`.
pub fn parse_path(text: &str) -> Result<Path, PathError> {
    let b = text.as_bytes();
    let mut steps = Vec::new();
    if b.first() != Some(&b'.') {
        return Err((0, "a jq path starts with '.'".into()));
    }
    // After the leading '.', a name, a string or a bracket may follow directly.
    let mut i = 1;
    let mut dot_pending = true;
    let mut after_dot = false;
    loop {
        if dot_pending {
            dot_pending = false;
            match b.get(i) {
                Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
                    let start = i;
                    while b
                        .get(i)
                        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                    {
                        i += 1;
                    }
                    steps.push(Step::Key(text[start..i].to_string()));
                    continue;
                }
                Some(b'"') => {
                    let (s, end) = parse_string(b, i)?;
                    steps.push(Step::Key(s));
                    i = end;
                    continue;
                }
                Some(b'[') => {
                    after_dot = i > 1;
                    continue;
                }
                Some(b'.') if i == 1 => {
                    return Err((0, "'..' picks many values; a selector picks one".into()))
                }
                // A lone '.' is the whole value; '.a.' is not.
                None if i == 1 => break,
                _ => {
                    return Err((
                        i,
                        "expected a name, a \"quoted name\" or [ after '.' (use .[\"key\"] for unusual keys)"
                            .into(),
                    ))
                }
            }
        }
        if !after_dot {
            i = skip_blank(b, i);
        }
        match b.get(i) {
            None => break,
            Some(b'.') => {
                i += 1;
                dot_pending = true;
            }
            Some(b'?') => i += 1,
            Some(b'[') => {
                let (step, end) = parse_bracket(b, i)?;
                // jq 1.7.1 has `.a.[0]` but no `.a.[1:2]`.
                if after_dot && matches!(step, Step::Slice(..)) {
                    return Err((
                        i,
                        "a slice [from:to] cannot follow '.' here (write .a[1:2])".into(),
                    ));
                }
                steps.push(step);
                i = end;
                after_dot = false;
            }
            Some(_) => {
                return Err((
                    i,
                    "a jq path here goes on with .name, [index], [\"key\"] or [from:to] only"
                        .into(),
                ))
            }
        }
    }
    Ok(Path { steps })
}

fn skip_blank(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|c| *c == b' ' || *c == b'\t') {
        i += 1;
    }
    i
}

/// `[ "key" ]`, `[ n ]`, `[ n : m ]`; `i` is at the '['. Returns the step and the offset
/// after the ']'.
fn parse_bracket(b: &[u8], open: usize) -> Result<(Step, usize), PathError> {
    let mut i = skip_blank(b, open + 1);
    if b.get(i) == Some(&b'"') {
        let (s, end) = parse_string(b, i)?;
        i = skip_blank(b, end);
        if b.get(i) != Some(&b']') {
            return Err((i, "expected ']'".into()));
        }
        return Ok((Step::Key(s), i + 1));
    }
    if b.get(i) == Some(&b']') {
        return Err((
            open,
            "'[]' picks every element; a selector picks one value".into(),
        ));
    }
    let (from, end) = parse_int(b, i)?;
    i = skip_blank(b, end);
    match b.get(i) {
        Some(b']') if from.is_some() => Ok((Step::Index(from.unwrap_or(0)), i + 1)),
        Some(b':') => {
            let (to, end) = parse_int(b, skip_blank(b, i + 1))?;
            let j = skip_blank(b, end);
            if b.get(j) != Some(&b']') {
                return Err((j, "expected ']'".into()));
            }
            if from.is_none() && to.is_none() {
                return Err((i, "a slice needs a start or an end: [from:to]".into()));
            }
            Ok((Step::Slice(from, to), j + 1))
        }
        _ if from.is_none() => Err((i, "expected an integer or a \"string\" in [ ]".into())),
        _ => Err((i, "expected ']' (indexes are integers)".into())),
    }
}

/// An optional integer literal; saturates at i64's range (such an index is out of any
/// array anyway).
fn parse_int(b: &[u8], mut i: usize) -> Result<(Option<i64>, usize), PathError> {
    let neg = b.get(i) == Some(&b'-');
    if neg {
        i += 1;
    }
    let start = i;
    let mut v: i64 = 0;
    while let Some(c) = b.get(i).filter(|c| c.is_ascii_digit()) {
        v = v.saturating_mul(10).saturating_add(i64::from(c - b'0'));
        i += 1;
    }
    if i == start {
        if neg {
            return Err((i, "expected digits after '-'".into()));
        }
        return Ok((None, i));
    }
    Ok((Some(if neg { -v } else { v }), i))
}

/// A jq string literal without interpolation; `i` is at the opening quote.
fn parse_string(b: &[u8], open: usize) -> Result<(String, usize), PathError> {
    let mut out = Vec::new();
    let mut i = open + 1;
    loop {
        match b.get(i) {
            None => return Err((open, "unterminated string".into())),
            Some(b'"') => break,
            Some(b'\\') => {
                let c = b.get(i + 1).copied();
                i += 2;
                match c {
                    Some(b'"') => out.push(b'"'),
                    Some(b'\\') => out.push(b'\\'),
                    Some(b'/') => out.push(b'/'),
                    Some(b'b') => out.push(8),
                    Some(b'f') => out.push(12),
                    Some(b'n') => out.push(b'\n'),
                    Some(b'r') => out.push(b'\r'),
                    Some(b't') => out.push(b'\t'),
                    Some(b'u') => {
                        let Some(hi) = hex4(b, i) else {
                            return Err((i - 2, "invalid \\uXXXX escape".into()));
                        };
                        i += 4;
                        let mut cp = u32::from(hi);
                        if (0xD800..0xDC00).contains(&hi)
                            && b.get(i) == Some(&b'\\')
                            && b.get(i + 1) == Some(&b'u')
                        {
                            if let Some(lo) =
                                hex4(b, i + 2).filter(|lo| (0xDC00..0xE000).contains(lo))
                            {
                                cp = 0x10000 + ((cp - 0xD800) << 10) + (u32::from(lo) - 0xDC00);
                                i += 6;
                            }
                        }
                        push_char(&mut out, char::from_u32(cp).unwrap_or('\u{FFFD}'));
                    }
                    Some(b'(') => return Err((i - 2, "string interpolation is not a path".into())),
                    _ => return Err((i - 2, "invalid escape".into())),
                }
            }
            Some(&c) => {
                out.push(c);
                i += 1;
            }
        }
    }
    // The selector text is a &str and escapes produce valid UTF-8.
    Ok((String::from_utf8_lossy(&out).into_owned(), i + 1))
}

fn hex4(b: &[u8], i: usize) -> Option<u16> {
    let s = b.get(i..i.checked_add(4)?)?;
    let mut v: u16 = 0;
    for &c in s {
        v = (v << 4) | u16::from(hex_val(c)?);
    }
    Some(v)
}

fn hex_val(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

fn push_char(out: &mut Vec<u8>, c: char) {
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

// ---------------------------------------------------------------------------------------
// The tape.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Null,
    False,
    True,
    Num,
    Str,
    Arr,
    Obj,
}

/// A value of the document. Strings span their content inside the quotes, numbers their
/// token; a container's children (for an object: key, value, key, value…) follow it, and
/// `next` is the node after its whole subtree.
#[derive(Debug, Clone, Copy)]
struct Node {
    kind: Kind,
    /// For strings: whether the content has a backslash escape.
    esc: bool,
    start: u32,
    end: u32,
    next: u32,
}

/// A parsed JSON document.
pub struct Doc<'a> {
    src: &'a [u8],
    nodes: Vec<Node>,
}

/// jq 1.7.1 refuses to open an array or object when its parser stack holds this many
/// entries; an object on the stack counts once more while one of its values is read.
const MAX_DEPTH: u32 = 256;

fn ws(b: &[u8], mut i: usize) -> usize {
    while let Some(c) = b.get(i) {
        if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        } else {
            break;
        }
    }
    i
}

impl<'a> Doc<'a> {
    /// Parses a whole body that holds one JSON value; `None` when it is not valid JSON.
    pub fn parse(src: &'a [u8]) -> Option<Doc<'a>> {
        if u32::try_from(src.len()).is_err() {
            return None;
        }
        let mut doc = Doc {
            src,
            nodes: Vec::with_capacity(src.len() / 16 + 1),
        };
        doc.build()?;
        Some(doc)
    }

    fn push(&mut self, kind: Kind, start: usize, end: usize, esc: bool) -> usize {
        let at = self.nodes.len();
        // Bounds: the body is shorter than u32::MAX, and there are fewer nodes than bytes.
        self.nodes.push(Node {
            kind,
            esc,
            start: start as u32,
            end: end as u32,
            next: (at + 1) as u32,
        });
        at
    }

    fn build(&mut self) -> Option<()> {
        let b = self.src;
        let mut i = if b.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
        // Open containers: (node, is_object).
        let mut stack: Vec<(usize, bool)> = Vec::new();
        let mut depth: u32 = 0;
        'value: loop {
            i = ws(b, i);
            let c = *b.get(i)?;
            match c {
                b'{' | b'[' => {
                    if depth >= MAX_DEPTH {
                        return None;
                    }
                    depth += 1;
                    let obj = c == b'{';
                    let n = self.push(if obj { Kind::Obj } else { Kind::Arr }, i, i, false);
                    stack.push((n, obj));
                    i = ws(b, i + 1);
                    let close = if obj { b'}' } else { b']' };
                    if b.get(i) == Some(&close) {
                        i += 1;
                        self.close(&mut stack, i);
                        depth -= 1;
                    } else {
                        if obj {
                            i = self.key(i)?;
                            depth += 1;
                        }
                        continue 'value;
                    }
                }
                b'"' => {
                    let (end, esc) = scan_string(b, i + 1)?;
                    self.push(Kind::Str, i + 1, end, esc);
                    i = end + 1;
                }
                b't' | b'f' | b'n' => {
                    let (word, kind): (&[u8], Kind) = match c {
                        b't' => (b"true", Kind::True),
                        b'f' => (b"false", Kind::False),
                        _ => (b"null", Kind::Null),
                    };
                    if !b[i..].starts_with(word) {
                        return None;
                    }
                    self.push(kind, i, i + word.len(), false);
                    i += word.len();
                }
                _ => {
                    let end = scan_number(b, i)?;
                    self.push(Kind::Num, i, end, false);
                    i = end;
                }
            }
            // After a value: separators and closing brackets.
            loop {
                let Some(&(_, obj)) = stack.last() else {
                    return (ws(b, i) == b.len()).then_some(());
                };
                i = ws(b, i);
                if obj {
                    // The value of a key is done.
                    depth -= 1;
                }
                match b.get(i) {
                    Some(b',') => {
                        i += 1;
                        if obj {
                            i = self.key(ws(b, i))?;
                            depth += 1;
                        }
                        continue 'value;
                    }
                    Some(b'}') if obj => {}
                    Some(b']') if !obj => {}
                    _ => return None,
                }
                i += 1;
                self.close(&mut stack, i);
                depth -= 1;
            }
        }
    }

    fn close(&mut self, stack: &mut Vec<(usize, bool)>, end: usize) {
        if let Some((n, _)) = stack.pop() {
            let next = self.nodes.len() as u32;
            if let Some(node) = self.nodes.get_mut(n) {
                node.next = next;
                node.end = end as u32;
            }
        }
    }

    /// A key and its ':'; `i` is at the key's quote.
    fn key(&mut self, i: usize) -> Option<usize> {
        let b = self.src;
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let (end, esc) = scan_string(b, i + 1)?;
        self.push(Kind::Str, i + 1, end, esc);
        let j = ws(b, end + 1);
        (b.get(j) == Some(&b':')).then_some(j + 1)
    }

    fn node(&self, n: usize) -> Option<&Node> {
        self.nodes.get(n)
    }

    fn raw(&self, node: &Node) -> &'a [u8] {
        self.src
            .get(node.start as usize..node.end as usize)
            .unwrap_or_default()
    }

    /// The children of an array, or the keys and values of an object, in order.
    fn children(&self, n: usize) -> Children<'_, 'a> {
        let end = self.node(n).map_or(0, |x| x.next as usize);
        Children {
            doc: self,
            at: n + 1,
            end,
        }
    }

    fn decode(&self, node: &Node) -> Cow<'a, [u8]> {
        decode_string(self.raw(node), node.esc)
    }

    /// Whether a string node equals `key` once decoded.
    fn key_is(&self, node: &Node, key: &str) -> bool {
        let raw = self.raw(node);
        if !node.esc && raw.is_ascii() {
            raw == key.as_bytes()
        } else {
            *self.decode(node) == *key.as_bytes()
        }
    }

    /// Evaluates a path: `Some(bytes)` for a value, `None` for null, a missing key or an
    /// error (jq's "Cannot index …").
    pub fn eval(&self, path: &Path) -> Option<Vec<u8>> {
        let mut cur = Cur::Node(0);
        for step in &path.steps {
            cur = self.step(cur, step)?;
        }
        self.value(cur)
    }

    fn step(&self, cur: Cur, step: &Step) -> Option<Cur> {
        let kind = match cur {
            Cur::Null => return Some(Cur::Null),
            Cur::Node(n) => self.node(n)?.kind,
            Cur::Slice { .. } => Kind::Arr,
            Cur::Str(_) => Kind::Str,
        };
        match (step, kind) {
            (_, Kind::Null) => Some(Cur::Null),
            (Step::Key(k), Kind::Obj) => {
                let Cur::Node(n) = cur else { return None };
                let mut found = Cur::Null;
                let mut it = self.children(n);
                while let Some(key) = it.next() {
                    let value = it.next()?;
                    // jq keeps the last of duplicate keys.
                    if self.key_is(self.node(key)?, k) {
                        found = Cur::Node(value);
                    }
                }
                Some(found)
            }
            (Step::Index(i), Kind::Arr) => {
                let (n, from, to) = self.range(&cur)?;
                let len = to - from;
                let i = if *i < 0 {
                    i.saturating_add(len as i64)
                } else {
                    *i
                };
                match usize::try_from(i) {
                    Ok(i) if i < len => Some(self.nth(n, from + i).map_or(Cur::Null, Cur::Node)),
                    _ => Some(Cur::Null),
                }
            }
            (Step::Slice(a, z), Kind::Arr) => {
                let (n, from, to) = self.range(&cur)?;
                let (s, e) = slice_bounds(*a, *z, to - from);
                Some(Cur::Slice {
                    node: n,
                    from: from + s,
                    to: from + e,
                })
            }
            (Step::Slice(a, z), Kind::Str) => {
                let s = match cur {
                    Cur::Str(s) => s,
                    Cur::Node(n) => self.decode(self.node(n)?).into_owned(),
                    _ => return None,
                };
                // Decoded strings are valid UTF-8; slices count code points.
                let text = String::from_utf8_lossy(&s);
                let len = text.chars().count();
                let (s, e) = slice_bounds(*a, *z, len);
                Some(Cur::Str(
                    text.chars()
                        .skip(s)
                        .take(e - s)
                        .collect::<String>()
                        .into_bytes(),
                ))
            }
            _ => None,
        }
    }

    /// An array value as (node, first element, end element).
    fn range(&self, cur: &Cur) -> Option<(usize, usize, usize)> {
        match *cur {
            Cur::Node(n) => Some((n, 0, self.children(n).count())),
            Cur::Slice { node, from, to } => Some((node, from, to)),
            _ => None,
        }
    }

    fn nth(&self, n: usize, i: usize) -> Option<usize> {
        self.children(n).nth(i)
    }

    fn value(&self, cur: Cur) -> Option<Vec<u8>> {
        match cur {
            Cur::Null => None,
            Cur::Str(s) => Some(s),
            Cur::Node(n) => {
                let node = self.node(n)?;
                match node.kind {
                    Kind::Null => None,
                    Kind::Str => Some(self.decode(node).into_owned()),
                    _ => {
                        let mut out = Vec::new();
                        self.write(&mut out, Item::Node(n));
                        Some(out)
                    }
                }
            }
            Cur::Slice { .. } => {
                let mut out = Vec::new();
                self.write(&mut out, Item::from_cur(cur));
                Some(out)
            }
        }
    }

    /// Writes a value as `jq -c` does, without recursion.
    fn write(&self, out: &mut Vec<u8>, root: Item) {
        let mut stack: Vec<Frame> = Vec::new();
        let mut item = Some(root);
        loop {
            if let Some(it) = item.take() {
                match it {
                    Item::Node(n) => {
                        let Some(node) = self.node(n) else { return };
                        match node.kind {
                            Kind::Null => out.extend_from_slice(b"null"),
                            Kind::True => out.extend_from_slice(b"true"),
                            Kind::False => out.extend_from_slice(b"false"),
                            Kind::Num => write_number(out, self.raw(node)),
                            Kind::Str => write_str(out, &self.decode(node)),
                            Kind::Arr => {
                                out.push(b'[');
                                stack.push(Frame::Arr {
                                    at: n + 1,
                                    end: node.next as usize,
                                    left: usize::MAX,
                                    first: true,
                                });
                            }
                            Kind::Obj => {
                                out.push(b'{');
                                stack.push(Frame::Obj {
                                    entries: self.entries(n),
                                    pos: 0,
                                });
                            }
                        }
                    }
                    Item::Slice { node, from, to } => {
                        out.push(b'[');
                        stack.push(Frame::Arr {
                            at: self.nth(node, from).unwrap_or(usize::MAX),
                            end: self.node(node).map_or(0, |x| x.next as usize),
                            left: to.saturating_sub(from),
                            first: true,
                        });
                    }
                }
            }
            let Some(top) = stack.last_mut() else { return };
            match top {
                Frame::Arr {
                    at,
                    end,
                    left,
                    first,
                } => {
                    if *left == 0 || *at >= *end {
                        out.push(b']');
                        stack.pop();
                        continue;
                    }
                    if !*first {
                        out.push(b',');
                    }
                    *first = false;
                    let n = *at;
                    *at = self.node(n).map_or(usize::MAX, |x| x.next as usize);
                    *left = left.saturating_sub(1);
                    item = Some(Item::Node(n));
                }
                Frame::Obj { entries, pos } => {
                    let Some((key, value)) = entries.get(*pos) else {
                        out.push(b'}');
                        stack.pop();
                        continue;
                    };
                    if *pos > 0 {
                        out.push(b',');
                    }
                    *pos += 1;
                    write_str(out, key);
                    out.push(b':');
                    item = Some(Item::Node(*value));
                }
            }
        }
    }

    /// An object's entries in jq's order: first position of each key, last value.
    fn entries(&self, n: usize) -> Vec<(Cow<'a, [u8]>, usize)> {
        let mut entries: Vec<(Cow<'a, [u8]>, usize)> = Vec::new();
        let mut index: HashMap<Cow<'a, [u8]>, usize> = HashMap::new();
        let mut it = self.children(n);
        while let Some(k) = it.next() {
            let Some(v) = it.next() else { break };
            let Some(key) = self.node(k).map(|node| self.decode(node)) else {
                break;
            };
            if let Some(&at) = index.get(&key) {
                if let Some(e) = entries.get_mut(at) {
                    e.1 = v;
                }
            } else {
                index.insert(key.clone(), entries.len());
                entries.push((key, v));
            }
        }
        entries
    }
}

/// What a path has reached so far.
enum Cur {
    Null,
    Node(usize),
    /// Elements `from..to` of array `node`.
    Slice {
        node: usize,
        from: usize,
        to: usize,
    },
    /// A slice of a string, decoded.
    Str(Vec<u8>),
}

enum Item {
    Node(usize),
    Slice { node: usize, from: usize, to: usize },
}

impl Item {
    fn from_cur(cur: Cur) -> Item {
        match cur {
            Cur::Slice { node, from, to } => Item::Slice { node, from, to },
            Cur::Node(n) => Item::Node(n),
            _ => Item::Node(usize::MAX),
        }
    }
}

enum Frame<'a> {
    /// The next child to write, the node after the array, and how many children are
    /// left to write (usize::MAX: all of them).
    Arr {
        at: usize,
        end: usize,
        left: usize,
        first: bool,
    },
    Obj {
        entries: Vec<(Cow<'a, [u8]>, usize)>,
        pos: usize,
    },
}

struct Children<'d, 'a> {
    doc: &'d Doc<'a>,
    at: usize,
    end: usize,
}

impl Iterator for Children<'_, '_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        if self.at >= self.end {
            return None;
        }
        let n = self.at;
        self.at = self.doc.node(n)?.next as usize;
        Some(n)
    }
}

/// jq 1.7.1's slice bounds over `len` elements, for integer bounds.
fn slice_bounds(from: Option<i64>, to: Option<i64>, len: usize) -> (usize, usize) {
    let len_i = i64::try_from(len).unwrap_or(i64::MAX);
    let fix = |v: i64| if v < 0 { v.saturating_add(len_i) } else { v };
    let s = from.map_or(0, fix).clamp(0, len_i);
    let e = to.map_or(len_i, fix).clamp(0, len_i).max(s);
    (s as usize, e as usize)
}

/// The end of a string's content (the offset of its closing quote) and whether it has an
/// escape; `i` is just after the opening quote. `None` for what jq refuses: control
/// characters, bad escapes, a high surrogate escape without its low half.
fn scan_string(b: &[u8], mut i: usize) -> Option<(usize, bool)> {
    let mut esc = false;
    loop {
        let rest = b.get(i..)?;
        let j = i + memchr::memchr2(b'"', b'\\', rest)?;
        if b.get(i..j)?.iter().any(|&c| c < 0x20) {
            return None;
        }
        if b.get(j) == Some(&b'"') {
            return Some((j, esc));
        }
        esc = true;
        match b.get(j + 1)? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i = j + 2,
            b'u' => {
                let cp = hex4(b, j + 2)?;
                i = j + 6;
                if (0xD800..0xDC00).contains(&cp) {
                    if b.get(i) != Some(&b'\\') || b.get(i + 1) != Some(&b'u') {
                        return None;
                    }
                    let lo = hex4(b, i + 2)?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return None;
                    }
                    i += 6;
                }
            }
            _ => return None,
        }
    }
}

/// RFC 8259's number grammar; the offset after the number.
fn scan_number(b: &[u8], mut i: usize) -> Option<usize> {
    let digits = |b: &[u8], mut i: usize| {
        let s = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        (i > s).then_some(i)
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(b, i)?,
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        i = digits(b, i + 1)?;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        i = digits(b, i)?;
    }
    Some(i)
}

/// A string's content decoded as jq decodes it: escapes resolved (a lone low surrogate
/// becomes U+FFFD), then invalid UTF-8 replaced the way jq 1.7.1 does.
fn decode_string(raw: &[u8], esc: bool) -> Cow<'_, [u8]> {
    let unescaped: Cow<'_, [u8]> = if esc {
        let mut out = Vec::with_capacity(raw.len());
        let mut i = 0;
        while i < raw.len() {
            let Some(j) = memchr::memchr(b'\\', &raw[i..]).map(|j| i + j) else {
                out.extend_from_slice(&raw[i..]);
                break;
            };
            out.extend_from_slice(&raw[i..j]);
            let c = raw.get(j + 1).copied().unwrap_or(b'\\');
            i = j + 2;
            match c {
                b'b' => out.push(8),
                b'f' => out.push(12),
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                b't' => out.push(b'\t'),
                b'u' => {
                    let hi = hex4(raw, i).unwrap_or(0xFFFD);
                    i += 4;
                    let mut cp = u32::from(hi);
                    if (0xD800..0xDC00).contains(&hi) {
                        // The scanner has checked that the low half follows.
                        let lo = hex4(raw, i + 2).unwrap_or(0xDC00);
                        cp = 0x10000
                            + ((cp - 0xD800) << 10)
                            + (u32::from(lo).wrapping_sub(0xDC00) & 0x3FF);
                        i += 6;
                    }
                    push_char(&mut out, char::from_u32(cp).unwrap_or('\u{FFFD}'));
                }
                other => out.push(other),
            }
        }
        Cow::Owned(out)
    } else {
        Cow::Borrowed(raw)
    };
    if std::str::from_utf8(&unescaped).is_ok() {
        return unescaped;
    }
    Cow::Owned(jq::json::lossy(&unescaped).into_owned().into_bytes())
}

/// A decoded string (valid UTF-8) as jq writes it.
fn write_str(out: &mut Vec<u8>, s: &[u8]) {
    jq::json::write_str(out, &jq::json::lossy(s), false);
}

/// A number token as `jq -c` prints it: jq's own reading of the literal, then its writer.
fn write_number(out: &mut Vec<u8>, tok: &[u8]) {
    // Scanned tokens are RFC 8259 numbers, which jq's reader always takes.
    if let Some(v) = jq::json::number(tok) {
        jq::json::write_compact(out, &v);
    }
}
