//! JSON text in and out, the way jq 1.7.1 reads and writes it.
//!
//! The reader scans like jq's: anything that is not whitespace, a quote or one of
//! `[]{},:` builds a literal token (`true`, `nan`, numbers in decNumber's syntax), errors
//! name the line and column where jq notices them, and nesting stops at 256 levels. The
//! writer prints jq's number forms and escapes, indents by 0-7 spaces or a tab, and cuts
//! values nested deeper than 256 levels (`<skipped: too deep>`), as jq's dumper does.
//!
//! Steps: the caller spends them (one per 64 bytes read or written).

use std::rc::Rc;

use super::num;
use super::value::{Key, Map, Val, MAX_ITEMS, MAX_STRING};

/// Deepest nesting jq parses.
pub const MAX_PARSE_DEPTH: usize = 256;
/// Deepest nesting jq prints; deeper values print as `<skipped: too deep>`.
const MAX_PRINT_DEPTH: usize = 257;

/// A parse error: jq's message (without position) and where it was noticed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub msg: String,
    pub line: usize,
    pub col: usize,
    pub at_eof: bool,
}

impl ParseError {
    /// `MSG at line L, column C` (with `at EOF` when jq says so).
    pub fn text(&self) -> String {
        format!(
            "{}{} at line {}, column {}",
            self.msg,
            if self.at_eof { " at EOF" } else { "" },
            self.line,
            self.col
        )
    }
}

enum Frame {
    /// where the array's items start in the reader's item stack
    Arr(usize),
    /// where the object's entries start in the reader's entry stack, and the key
    /// waiting for its value
    Obj(usize, Option<Key>),
}

/// Where a [`Reader`] is in its text, kept between reads.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReaderState {
    pos: usize,
    line: usize,
    col: usize,
    lines: usize,
    failed: bool,
}

impl ReaderState {
    /// The state at the start of `data` (after a byte order mark).
    pub fn start(data: &[u8]) -> Self {
        Reader::new(data).detach()
    }

    /// Bytes consumed so far.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// The state, to resume later.
    pub fn detach(&self) -> ReaderState {
        ReaderState {
            pos: self.pos,
            line: self.line,
            col: self.col,
            lines: self.lines,
            failed: self.failed,
        }
    }

    /// Moves past raw input up to byte `pos`.
    pub fn skip_to(&mut self, pos: usize) {
        self.pos = pos;
    }

    /// Goes on reading `data` from here.
    pub fn resume(self, data: &[u8]) -> Reader<'_> {
        Reader {
            data,
            pos: self.pos,
            line: self.line,
            col: self.col,
            lines: self.lines,
            failed: self.failed,
            last_end: self.pos,
            key: None,
            items: Vec::new(),
            entries: Vec::new(),
        }
    }
}

/// A reader of a stream of JSON values.
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    line: usize,
    col: usize,
    /// newlines read so far (`input_line_number`)
    pub lines: usize,
    failed: bool,
    /// where the last value read ends
    pub last_end: usize,
    /// an object key just read, waiting for its `:`
    key: Option<Key>,
    /// the items and entries of the open containers, so that each container is
    /// allocated once, at its exact size, when it closes
    items: Vec<Val>,
    entries: Vec<(Key, Val)>,
}

/// How deep jq counts the open containers: an object whose key has been read up to
/// its `:` holds the key on jq's parser stack too.
fn parse_depth(stack: &[Frame]) -> usize {
    stack.len()
        + stack
            .iter()
            .filter(|f| matches!(f, Frame::Obj(_, Some(_))))
            .count()
}

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_structure(c: u8) -> bool {
    matches!(c, b'[' | b']' | b'{' | b'}' | b',' | b':')
}

/// A literal token's value, as jq's `check_literal` takes it.
pub fn literal(tok: &[u8]) -> Result<Val, &'static str> {
    match tok.first() {
        Some(b't') => {
            return if tok == b"true" {
                Ok(Val::Bool(true))
            } else {
                Err("Invalid literal")
            }
        }
        Some(b'f') => {
            return if tok == b"false" {
                Ok(Val::Bool(false))
            } else {
                Err("Invalid literal")
            }
        }
        Some(b'n') if tok.starts_with(b"nan") && tok[3..].iter().all(u8::is_ascii_digit) => {
            return Ok(Val::Num(f64::NAN));
        }
        // (jq takes a word for null only from its "nu"; any other is a number to read)
        Some(b'n') if tok.get(1) == Some(&b'u') => {
            return if tok == b"null" {
                Ok(Val::Null)
            } else {
                Err("Invalid literal")
            }
        }
        Some(b'\'') => return Err("Invalid string literal; expected \", but got '"),
        _ => {}
    }
    number(tok).ok_or("Invalid numeric literal")
}

/// A number in decNumber's string syntax (sign, digits with an optional point, an
/// optional exponent; or Inf, Infinity, NaN in any case).
pub fn number(tok: &[u8]) -> Option<Val> {
    let s = std::str::from_utf8(tok).ok()?;
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if body.as_bytes().first().is_some_and(u8::is_ascii_digit) || body.starts_with('.') {
        return plain_number(s, body);
    }
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return Some(Val::Num(if neg {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }));
    }
    if lower == "nan"
        || (lower.starts_with("nan") && lower[3..].bytes().all(|c| c.is_ascii_digit()))
        || lower == "snan"
    {
        return Some(Val::Num(f64::NAN));
    }
    // Anything else that does not start with a digit or a point is no number.
    None
}

/// A number token that starts with a digit or a point.
fn plain_number(s: &str, body: &str) -> Option<Val> {
    let b = body.as_bytes();
    let mut i = 0;
    let mut digits = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    let text = s.strip_prefix('+').unwrap_or(s);
    Some(Val::from_literal(text))
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        // a byte order mark at the very start is skipped
        let pos = if data.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        Reader {
            data,
            pos,
            line: 1,
            col: 0,
            lines: 0,
            failed: false,
            last_end: 0,
            key: None,
            items: Vec::new(),
            entries: Vec::new(),
        }
    }

    /// Bytes consumed so far.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// The state, to resume later.
    pub fn detach(&self) -> ReaderState {
        ReaderState {
            pos: self.pos,
            line: self.line,
            col: self.col,
            lines: self.lines,
            failed: self.failed,
        }
    }

    fn err(&self, msg: impl Into<String>) -> ParseError {
        ParseError {
            msg: msg.into(),
            line: self.line,
            col: self.col,
            at_eof: false,
        }
    }

    fn eof_err(&self, msg: impl Into<String>) -> ParseError {
        ParseError {
            at_eof: true,
            ..self.err(msg)
        }
    }

    #[inline]
    fn advance(&mut self, c: u8) {
        self.pos += 1;
        if c == b'\n' {
            self.line += 1;
            self.col = 0;
            self.lines += 1;
        } else {
            self.col += 1;
        }
    }

    /// The next value, `None` at the end, or the error that ends the stream.
    pub fn next_value(&mut self) -> Option<Result<Val, ParseError>> {
        if self.failed {
            return None;
        }
        let r = self.parse();
        match &r {
            Some(Err(_)) => self.failed = true,
            Some(Ok(_)) => {}
            None => {}
        }
        r
    }

    /// One top-level value, the way jq's token machine reads it: a literal ends at the
    /// character after it, a string at its closing quote, and errors are reported once
    /// the character that reveals them has been read.
    fn parse(&mut self) -> Option<Result<Val, ParseError>> {
        let mut stack: Vec<Frame> = Vec::new();
        self.items.clear();
        self.entries.clear();
        let mut next: Option<Val> = None;
        let mut lit_start: Option<usize> = None;
        loop {
            let Some(&c) = self.data.get(self.pos) else {
                // the end: a literal still open ends here
                if let Some(start) = lit_start.take() {
                    let tok = &self.data[start..self.pos];
                    self.last_end = self.pos;
                    match literal(tok) {
                        Ok(v) => {
                            if next.is_some() {
                                return Some(
                                    Err(self.eof_err("Expected separator between values")),
                                );
                            }
                            next = Some(v);
                        }
                        Err(msg) => return Some(Err(self.eof_err(msg))),
                    }
                }
                if stack.is_empty() {
                    return next.map(Ok);
                }
                return Some(Err(self.eof_err("Unfinished JSON term")));
            };
            let is_lit = !(is_ws(c) || c == b'"' || is_structure(c));
            if is_lit {
                if lit_start.is_none() {
                    lit_start = Some(self.pos);
                }
                // the rest of the literal: no newline can be in it
                let rest = &self.data[self.pos..];
                let n = rest
                    .iter()
                    .position(|&d| is_ws(d) || d == b'"' || is_structure(d))
                    .unwrap_or(rest.len());
                self.pos += n;
                self.col += n;
                continue;
            }
            // the character ends a literal token, if one is open
            let tok = lit_start.take().map(|start| (start, self.pos));
            self.advance(c);
            if let Some((start, end)) = tok {
                self.last_end = end;
                let v = match literal(&self.data[start..end]) {
                    Ok(v) => v,
                    Err(msg) => return Some(Err(self.err(msg))),
                };
                if let Err(e) = self.value(&mut next, v) {
                    return Some(Err(e));
                }
                if stack.is_empty() && !is_ws(c) {
                    // jq hands the value over before it looks at this character
                    self.unadvance(c);
                    return next.map(Ok);
                }
            }
            if is_ws(c) {
                if stack.is_empty() && next.is_some() {
                    return next.map(Ok);
                }
                // skip a run of blanks (not newlines, which count lines)
                while let Some(&d) = self.data.get(self.pos) {
                    if d == b' ' || d == b'\t' || d == b'\r' {
                        self.pos += 1;
                        self.col += 1;
                    } else {
                        break;
                    }
                }
                continue;
            }
            if stack.is_empty() && next.is_some() {
                self.unadvance(c);
                return next.map(Ok);
            }
            if c == b'"' {
                let body = match self.string_body() {
                    Ok(b) => b,
                    Err(e) => return Some(Err(e)),
                };
                let text = match decode_string(body) {
                    Ok(t) => t,
                    Err(msg) => return Some(Err(self.err(msg))),
                };
                self.last_end = self.pos;
                let is_key = next.is_none() && matches!(stack.last(), Some(Frame::Obj(_, None)));
                let v = if is_key {
                    // an object key: kept aside, with a placeholder as the pending value
                    self.key = Some(Key::from(&*text));
                    Val::Null
                } else {
                    Val::Str(Rc::new(text.into_owned()))
                };
                if let Err(e) = self.value(&mut next, v) {
                    return Some(Err(e));
                }
                if stack.is_empty() {
                    return next.map(Ok);
                }
                continue;
            }
            if let Err(e) = self.token(c, &mut stack, &mut next) {
                return Some(Err(e));
            }
            self.last_end = self.pos;
            if stack.is_empty() && next.is_some() {
                return next.map(Ok);
            }
        }
    }

    /// Writes the next value to `out` in `style`'s layout without building it, when
    /// the reader would read it as an array or object without an error, a duplicate
    /// key or a size limit; then moves past it as [`Reader::next_value`] would. Returns
    /// false, with `out` and the reader as they were, for anything else. `style` must
    /// only set the layout (no sorted keys, colors or `-a`).
    pub fn copy_value(&mut self, out: &mut Vec<u8>, style: &Style) -> bool {
        let start = out.len();
        match self.copy(out, style) {
            Some(cur) => {
                self.pos = cur.pos;
                self.line = cur.line;
                self.col = cur.col;
                self.lines = cur.lines;
                self.last_end = cur.pos;
                true
            }
            None => {
                out.truncate(start);
                false
            }
        }
    }

    fn copy(&self, out: &mut Vec<u8>, style: &Style) -> Option<ReaderState> {
        /// What may come next.
        #[derive(PartialEq)]
        enum Want {
            /// a value, or the end of an empty array
            FirstItem,
            /// a value
            Item,
            /// a key, or the end of an empty object
            FirstKey,
            /// a key
            Key,
            /// the `:` after a key
            Colon,
            /// `,` or the end of the container
            Next,
        }
        struct Open {
            obj: bool,
            items: usize,
            keys: usize,
        }
        let data = self.data;
        let mut cur = self.detach();
        let mut stack: Vec<Open> = Vec::new();
        let mut keys: Vec<std::borrow::Cow<'a, str>> = Vec::new();
        let pretty = pretty(style);
        let mut want = Want::Item;
        // the objects in `stack`
        let mut objs = 0;
        loop {
            let c = *data.get(cur.pos)?;
            if is_ws(c) {
                cur.pos += 1;
                if c == b'\n' {
                    cur.line += 1;
                    cur.col = 0;
                    cur.lines += 1;
                } else {
                    cur.col += 1;
                }
                continue;
            }
            if stack.is_empty() && c != b'[' && c != b'{' {
                // a top-level scalar: the general reader ends those its own way
                return None;
            }
            let depth = stack.len();
            match c {
                b',' => {
                    if want != Want::Next {
                        return None;
                    }
                    want = if stack.last()?.obj {
                        Want::Key
                    } else {
                        Want::Item
                    };
                    out.push(b',');
                    cur.pos += 1;
                    cur.col += 1;
                }
                b':' => {
                    if want != Want::Colon {
                        return None;
                    }
                    out.push(b':');
                    if pretty {
                        out.push(b' ');
                    }
                    want = Want::Item;
                    cur.pos += 1;
                    cur.col += 1;
                }
                b']' | b'}' => {
                    let top = stack.pop()?;
                    if top.obj != (c == b'}') {
                        return None;
                    }
                    objs -= usize::from(top.obj);
                    match want {
                        Want::Next => {
                            if pretty {
                                newline(out, style, depth - 1);
                            }
                        }
                        Want::FirstItem | Want::FirstKey => {}
                        _ => return None,
                    }
                    if top.obj {
                        let ks = &keys[top.keys..];
                        let dup = if ks.len() <= 16 {
                            (1..ks.len()).any(|i| ks[..i].contains(&ks[i]))
                        } else {
                            let mut sorted: Vec<&str> = ks.iter().map(|k| &**k).collect();
                            sorted.sort_unstable();
                            sorted.windows(2).any(|w| w[0] == w[1])
                        };
                        if dup {
                            return None;
                        }
                        keys.truncate(top.keys);
                    }
                    out.push(c);
                    cur.pos += 1;
                    cur.col += 1;
                    if stack.is_empty() {
                        return Some(cur);
                    }
                    want = Want::Next;
                }
                _ => {
                    // a value (or a key)
                    let key = match want {
                        Want::Key | Want::FirstKey => true,
                        Want::Item | Want::FirstItem => false,
                        _ => return None,
                    };
                    if key && c != b'"' {
                        return None;
                    }
                    if let Some(top) = stack.last_mut() {
                        if key || !top.obj {
                            // huge containers are left to the general reader's limits
                            if top.items >= MAX_ITEMS - 1 {
                                return None;
                            }
                            top.items += 1;
                            if pretty {
                                newline(out, style, depth);
                            }
                        }
                    }
                    if c == b'[' || c == b'{' {
                        // every open object is waiting for a value here, its key on
                        // jq's parser stack (see `parse_depth`)
                        if depth + objs >= MAX_PARSE_DEPTH {
                            return None;
                        }
                        objs += usize::from(c == b'{');
                        stack.push(Open {
                            obj: c == b'{',
                            items: 0,
                            keys: keys.len(),
                        });
                        want = if c == b'{' {
                            Want::FirstKey
                        } else {
                            Want::FirstItem
                        };
                        out.push(c);
                        cur.pos += 1;
                        cur.col += 1;
                        continue;
                    }
                    if c == b'"' {
                        let body_start = cur.pos + 1;
                        let mut i = body_start;
                        loop {
                            let rest = data.get(i..)?;
                            match memchr::memchr2(b'"', b'\\', rest)? {
                                n if rest[n] == b'\\' => i += n + 2,
                                n => {
                                    i += n;
                                    break;
                                }
                            }
                        }
                        let body = &data[body_start..i];
                        if body.len() > MAX_STRING {
                            return None;
                        }
                        // a raw newline is an error, so the string is on one line
                        let text = decode_string(body).ok()?;
                        write_str(out, &text, false);
                        cur.pos = i + 1;
                        cur.col += body.len() + 2;
                        if key {
                            keys.push(text);
                            want = Want::Colon;
                        } else {
                            want = Want::Next;
                        }
                        continue;
                    }
                    // a literal: up to the next blank, quote or structural character
                    let rest = &data[cur.pos..];
                    let n = rest
                        .iter()
                        .position(|&d| is_ws(d) || d == b'"' || is_structure(d))?;
                    let v = literal(&rest[..n]).ok()?;
                    write_at(out, &v, style, depth);
                    cur.pos += n;
                    cur.col += n;
                    want = Want::Next;
                }
            }
        }
    }

    /// Steps back over `c` (not a newline) so that the next value starts with it.
    fn unadvance(&mut self, c: u8) {
        self.pos -= 1;
        if c != b'\n' {
            self.col = self.col.saturating_sub(1);
        }
    }

    fn value(&self, next: &mut Option<Val>, v: Val) -> Result<(), ParseError> {
        if next.is_some() {
            return Err(self.err("Expected separator between values"));
        }
        *next = Some(v);
        Ok(())
    }

    fn token(
        &mut self,
        c: u8,
        stack: &mut Vec<Frame>,
        next: &mut Option<Val>,
    ) -> Result<(), ParseError> {
        match c {
            b'[' | b'{' => {
                if next.is_some() {
                    return Err(self.err("Expected separator between values"));
                }
                if parse_depth(stack) >= MAX_PARSE_DEPTH {
                    return Err(self.err("Exceeds depth limit for parsing"));
                }
                stack.push(if c == b'[' {
                    Frame::Arr(self.items.len())
                } else {
                    Frame::Obj(self.entries.len(), None)
                });
            }
            b':' => {
                let Some(key) = next.take() else {
                    return Err(self.err("Expected string key before ':'"));
                };
                let pending = self.key.take();
                match stack.last_mut() {
                    Some(Frame::Obj(_, k @ None)) => match (pending, key) {
                        (Some(p), _) => *k = Some(p),
                        (None, Val::Str(s)) => *k = Some(Key(s)),
                        _ => return Err(self.err("Object keys must be strings")),
                    },
                    // (a key already read is on jq's stack, where it is no object)
                    _ => return Err(self.err("':' not as part of an object")),
                }
            }
            b',' => {
                let Some(v) = next.take() else {
                    return Err(self.err("Expected value before ','"));
                };
                match stack.last_mut() {
                    Some(Frame::Arr(start)) => {
                        if self.items.len() - *start >= MAX_ITEMS {
                            super::fuel::fail(super::fuel::Abort::Memory);
                            return Err(self.err("cannot allocate memory"));
                        }
                        self.items.push(v);
                    }
                    Some(Frame::Obj(_, k)) => match k.take() {
                        Some(k) => {
                            self.entries.push((k, v));
                        }
                        None => return Err(self.err("Objects must consist of key:value pairs")),
                    },
                    None => return Err(self.err("',' not as part of an object or array")),
                }
            }
            b']' => match stack.pop() {
                Some(Frame::Arr(start)) => {
                    match next.take() {
                        Some(v) => self.items.push(v),
                        None if self.items.len() > start => {
                            return Err(self.err("Expected another array element"));
                        }
                        None => {}
                    }
                    *next = Some(Val::arr(self.items.split_off(start)));
                }
                _ => return Err(self.err("Unmatched ']'")),
            },
            // (jq decides by the value pending first: one that is not a key's value is no
            // pair, whatever holds it; without one, only an object can close)
            _ => match (stack.pop(), next.take()) {
                (None, _) => return Err(self.err("Unmatched '}'")),
                (Some(Frame::Obj(start, Some(k))), Some(v)) => {
                    self.entries.push((k, v));
                    *next = Some(Val::obj(Map::from_vec(self.entries.split_off(start))));
                }
                (Some(_), Some(_)) => {
                    return Err(self.err("Objects must consist of key:value pairs"));
                }
                (Some(Frame::Obj(start, None)), None) if self.entries.len() > start => {
                    return Err(self.err("Expected another key-value pair"));
                }
                (Some(Frame::Obj(start, None)), None) => {
                    *next = Some(Val::obj(Map::from_vec(self.entries.split_off(start))));
                }
                (Some(_), None) => return Err(self.err("Unmatched '}'")),
            },
        }
        Ok(())
    }

    /// The bytes of a string after its opening quote, up to its closing quote (which is
    /// consumed). jq checks the string once the closing quote is read.
    fn string_body(&mut self) -> Result<&'a [u8], ParseError> {
        let start = self.pos;
        // find the closing quote: a backslash takes the next byte with it
        let mut i = start;
        loop {
            let rest = &self.data[i.min(self.data.len())..];
            match memchr::memchr2(b'"', b'\\', rest) {
                Some(n) if rest[n] == b'\\' && i + n + 2 <= self.data.len() => i += n + 2,
                Some(n) if rest[n] == b'"' => {
                    i += n;
                    break;
                }
                _ => {
                    while let Some(&c) = self.data.get(self.pos) {
                        self.advance(c);
                    }
                    return Err(self.eof_err("Unfinished string"));
                }
            }
        }
        let body = &self.data[start..i];
        // move past the string and its closing quote, counting lines and columns
        // (A string rarely holds a newline: one search finds that out for most.)
        let newlines = match memchr::memchr(b'\n', body) {
            Some(first) => memchr::memchr_iter(b'\n', &body[first..]).count(),
            None => 0,
        };
        if newlines > 0 {
            let last = body.iter().rposition(|&c| c == b'\n').unwrap_or(0);
            self.line += newlines;
            self.lines += newlines;
            self.col = body.len() - last;
        } else {
            self.col += body.len() + 1;
        }
        self.pos = i + 1;
        if body.len() > MAX_STRING {
            super::fuel::fail(super::fuel::Abort::Memory);
            return Err(self.err("cannot allocate memory"));
        }
        Ok(body)
    }
}

/// The contents of a JSON string (between the quotes), decoded.
fn decode_string(b: &[u8]) -> Result<std::borrow::Cow<'_, str>, &'static str> {
    if memchr::memchr(b'\\', b).is_none() && !b.iter().any(|&c| c < 0x20) {
        return Ok(lossy(b));
    }
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    let hex4 = |at: usize| -> Option<u32> {
        let h = b.get(at..at + 4)?;
        let s = std::str::from_utf8(h).ok()?;
        if s.bytes().all(|c| c.is_ascii_hexdigit()) {
            u32::from_str_radix(s, 16).ok()
        } else {
            None
        }
    };
    while i < b.len() {
        let c = b[i];
        if c < 0x20 {
            return Err(
                "Invalid string: control characters from U+0000 through U+001F must be escaped",
            );
        }
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let e = b.get(i + 1).copied().unwrap_or(0);
        i += 2;
        match e {
            b'"' | b'\\' | b'/' => out.push(e),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'u' => {
                let cp = hex4(i).ok_or("Invalid \\uXXXX escape")?;
                i += 4;
                let ch = if (0xD800..0xDC00).contains(&cp) {
                    if b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u') {
                        let lo = hex4(i + 2).ok_or("Invalid \\uXXXX escape")?;
                        if !(0xDC00..0xE000).contains(&lo) {
                            return Err("Invalid \\uXXXX\\uXXXX surrogate pair escape");
                        }
                        i += 6;
                        char::from_u32(0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00))
                            .unwrap_or('\u{FFFD}')
                    } else {
                        return Err("Invalid \\uXXXX\\uXXXX surrogate pair escape");
                    }
                } else if (0xDC00..0xE000).contains(&cp) {
                    '\u{FFFD}'
                } else {
                    char::from_u32(cp).unwrap_or('\u{FFFD}')
                };
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
            _ => return Err("Invalid escape"),
        }
    }
    Ok(std::borrow::Cow::Owned(lossy_owned(out)))
}

/// `b` as text, as `lossy` makes it, without a copy when it is valid UTF-8 already.
pub fn lossy_owned(b: Vec<u8>) -> String {
    String::from_utf8(b).unwrap_or_else(|e| lossy(e.as_bytes()).into_owned())
}

/// Raw text as `jq -Rs` slurps it: jq mends each line (with its newline) on its own, so
/// a sequence cut short by a newline takes the newline with it (`"\xe9\n"` is one U+FFFD).
pub fn lossy_lines(b: &[u8], out: &mut String) {
    match std::str::from_utf8(b) {
        Ok(s) => out.push_str(s),
        Err(_) => b
            .split_inclusive(|&c| c == b'\n')
            .for_each(|line| out.push_str(&lossy(line))),
    }
}

/// `b` as text, with each bad UTF-8 sequence replaced by one U+FFFD the way jq 1.7.1
/// does it: a lead byte claims as many bytes as it announces (or the rest of the text,
/// if fewer are left) unless a byte that is not a continuation byte comes first; an
/// overlong form, a surrogate or a code point past U+10FFFF is one bad sequence.
pub fn lossy(b: &[u8]) -> std::borrow::Cow<'_, str> {
    if let Ok(s) = std::str::from_utf8(b) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(b.len() + 8);
    let mut i = 0;
    while i < b.len() {
        let lead = b[i];
        if lead < 0x80 {
            out.push(char::from(lead));
            i += 1;
            continue;
        }
        let (len, bits, min) = match lead {
            0xC2..=0xDF => (2, 0x1F, 0x80),
            0xE0..=0xEF => (3, 0x0F, 0x800),
            0xF0..=0xF4 => (4, 0x07, 0x10000),
            // a stray continuation byte, or a byte that never starts a sequence
            _ => (1, 0, 0),
        };
        if len == 1 {
            out.push('\u{FFFD}');
            i += 1;
            continue;
        }
        if i + len > b.len() {
            out.push('\u{FFFD}');
            break;
        }
        let mut cp: u32 = u32::from(lead & bits);
        let mut used = len;
        let mut ok = true;
        for (k, &c) in b[i + 1..i + len].iter().enumerate() {
            if c & 0xC0 != 0x80 {
                ok = false;
                used = k + 1;
                break;
            }
            cp = (cp << 6) | u32::from(c & 0x3F);
        }
        let ch = if ok && cp >= min {
            char::from_u32(cp)
        } else {
            None
        };
        out.push(ch.unwrap_or('\u{FFFD}'));
        i += used;
    }
    std::borrow::Cow::Owned(out)
}

/// Parses one JSON text (for `fromjson`, `--argjson`, `tonumber`): exactly one value.
pub fn parse_one(text: &str) -> Result<Val, String> {
    // (a short integer, as `tonumber` of a listing's sizes: what the reader gives, without one)
    if Val::is_short_integer(text) {
        return Ok(Val::from_literal(text));
    }
    let mut r = Reader::new(text.as_bytes());
    let v = match r.next_value() {
        None => return Err("Expected JSON value".into()),
        Some(Err(e)) => return Err(e.text()),
        Some(Ok(v)) => v,
    };
    match r.next_value() {
        None => Ok(v),
        Some(Err(e)) => Err(e.text()),
        Some(Ok(_)) => Err("Unexpected extra JSON values".into()),
    }
}

/// How to print values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// spaces per level (0: compact), or a tab when `tab`
    pub indent: usize,
    pub tab: bool,
    pub sort_keys: bool,
    pub ascii: bool,
    pub color: bool,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            indent: 2,
            tab: false,
            sort_keys: false,
            ascii: false,
            color: false,
        }
    }
}

/// Compact JSON, as `tojson` makes it.
pub fn write_compact(out: &mut Vec<u8>, v: &Val) {
    let style = Style {
        indent: 0,
        ..Style::default()
    };
    write(out, v, &style);
}

/// Writes `v` in `style`.
pub fn write(out: &mut Vec<u8>, v: &Val, style: &Style) {
    write_at(out, v, style, 0);
}

const COL_NULL: &[u8] = b"\x1b[0;90m";
const COL_FALSE: &[u8] = b"\x1b[0;39m";
const COL_TRUE: &[u8] = b"\x1b[0;39m";
const COL_NUM: &[u8] = b"\x1b[0;39m";
const COL_STR: &[u8] = b"\x1b[0;32m";
const COL_ARR: &[u8] = b"\x1b[1;39m";
const COL_OBJ: &[u8] = b"\x1b[1;39m";
const COL_KEY: &[u8] = b"\x1b[1;34m";
const COL_RESET: &[u8] = b"\x1b[0m";

fn newline(out: &mut Vec<u8>, style: &Style, depth: usize) {
    out.push(b'\n');
    if style.tab {
        out.extend(std::iter::repeat_n(b'\t', depth));
    } else {
        out.extend(std::iter::repeat_n(b' ', depth * style.indent));
    }
}

fn pretty(style: &Style) -> bool {
    style.tab || style.indent > 0
}

fn write_at(out: &mut Vec<u8>, v: &Val, style: &Style, depth: usize) {
    if depth > MAX_PRINT_DEPTH - 1 {
        out.extend_from_slice(b"<skipped: too deep>");
        return;
    }
    let color = |out: &mut Vec<u8>, c: &[u8]| {
        if style.color {
            out.extend_from_slice(c)
        }
    };
    match v {
        Val::Null => {
            color(out, COL_NULL);
            out.extend_from_slice(b"null");
            color(out, COL_RESET);
        }
        Val::Bool(b) => {
            color(out, if *b { COL_TRUE } else { COL_FALSE });
            out.extend_from_slice(if *b { b"true" } else { b"false" });
            color(out, COL_RESET);
        }
        Val::Num(x) => {
            color(out, COL_NUM);
            num::write_f64(out, *x);
            color(out, COL_RESET);
        }
        Val::Lit(l) => {
            color(out, COL_NUM);
            if l.f.is_nan() {
                out.extend_from_slice(b"null");
            } else {
                out.extend_from_slice(l.text.as_bytes());
            }
            color(out, COL_RESET);
        }
        Val::Str(s) => {
            color(out, COL_STR);
            write_str(out, s, style.ascii);
            color(out, COL_RESET);
        }
        Val::Arr(a) => {
            color(out, COL_ARR);
            out.push(b'[');
            if a.is_empty() {
                out.push(b']');
                color(out, COL_RESET);
                return;
            }
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    color(out, COL_ARR);
                    out.push(b',');
                }
                if pretty(style) {
                    newline(out, style, depth + 1);
                }
                write_at(out, x, style, depth + 1);
            }
            color(out, COL_ARR);
            if pretty(style) {
                newline(out, style, depth);
            }
            color(out, COL_ARR);
            out.push(b']');
            color(out, COL_RESET);
        }
        Val::Obj(o) => {
            color(out, COL_OBJ);
            out.push(b'{');
            if o.is_empty() {
                out.push(b'}');
                color(out, COL_RESET);
                return;
            }
            let mut entries: Vec<(&Key, &Val)> = o.iter().collect();
            if style.sort_keys {
                entries.sort_by(|a, b| a.0 .0.as_bytes().cmp(b.0 .0.as_bytes()));
            }
            for (i, (k, x)) in entries.into_iter().enumerate() {
                if i > 0 {
                    color(out, COL_OBJ);
                    out.push(b',');
                }
                if pretty(style) {
                    newline(out, style, depth + 1);
                }
                color(out, COL_RESET);
                color(out, COL_KEY);
                write_str(out, &k.0, style.ascii);
                color(out, COL_RESET);
                color(out, COL_OBJ);
                out.push(b':');
                if pretty(style) {
                    out.push(b' ');
                }
                color(out, COL_RESET);
                write_at(out, x, style, depth + 1);
            }
            color(out, COL_OBJ);
            if pretty(style) {
                newline(out, style, depth);
            }
            color(out, COL_OBJ);
            out.push(b'}');
            color(out, COL_RESET);
        }
    }
}

/// Whether `c` is written as it is in a string (without `-a`).
#[inline]
fn is_plain(c: u8) -> bool {
    c >= 0x20 && c != b'"' && c != b'\\' && c != 0x7f
}

/// The length of the start of `b` that needs no escapes (without `-a`), looked at 8 bytes
/// at a time without a branch per byte (most strings need no escape at all).
fn plain_prefix(b: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Whether a byte of `w` is below 0x20, or `"`, `\\` or DEL: the classic tests for a
    // zero byte and a byte below n (n <= 128), exact as a whole.
    let special = |w: u64| {
        let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
        let below = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
        let quote = zero(w ^ (ONES * u64::from(b'"')));
        let backslash = zero(w ^ (ONES * u64::from(b'\\')));
        below | quote | backslash | zero(w ^ (ONES * 0x7f)) != 0
    };
    let mut n = 0;
    for w in b.chunks_exact(8) {
        if special(u64::from_le_bytes(w.try_into().unwrap_or_default())) {
            break;
        }
        n += 8;
    }
    let rest = &b[n..];
    if rest.len() < 8 {
        // the last bytes, in a word padded with plain ones
        let mut last = [b'a'; 8];
        last[..rest.len()].copy_from_slice(rest);
        if !special(u64::from_le_bytes(last)) {
            return b.len();
        }
    }
    n + rest
        .iter()
        .position(|&c| !is_plain(c))
        .unwrap_or(rest.len())
}

/// A JSON string with jq's escapes: `"` `\` and the C0 controls (`\b \t \n \f \r`, else
/// `\u00XX`) and DEL as `\u007f`; with `ascii`, every non-ASCII character as `\uXXXX`.
pub fn write_str(out: &mut Vec<u8>, s: &str, ascii: bool) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let b = s.as_bytes();
    // most strings need no escape at all, and the others start with a run that does not
    let plain = if ascii { 0 } else { plain_prefix(b) };
    out.reserve(b.len() + 2);
    out.push(b'"');
    let mut start = 0;
    for (i, &c) in b.iter().enumerate().skip(plain) {
        let esc: &[u8] = match c {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\t' => b"\\t",
            b'\r' => b"\\r",
            8 => b"\\b",
            12 => b"\\f",
            0..=0x1f | 0x7f => b"",
            0x80.. if ascii => b"",
            _ => continue,
        };
        out.extend_from_slice(&b[start..i]);
        start = i + 1;
        if !esc.is_empty() {
            out.extend_from_slice(esc);
        } else if c < 0x80 {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[(c >> 4) as usize]);
            out.push(HEX[(c & 15) as usize]);
        } else {
            // the lead byte of a non-ASCII char: escape the whole char
            if c & 0xC0 == 0x80 {
                // a continuation byte: already written with its lead
                continue;
            }
            let ch = s[i..].chars().next().unwrap_or('\u{FFFD}');
            let mut units = [0u16; 2];
            for u in ch.encode_utf16(&mut units) {
                out.extend_from_slice(b"\\u");
                for shift in [12, 8, 4, 0] {
                    out.push(HEX[((*u >> shift) & 15) as usize]);
                }
            }
        }
    }
    out.extend_from_slice(&b[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::write_str;

    /// jq's escapes one character at a time: what the word-at-a-time scan must agree with.
    fn escaped_by_char(s: &str) -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                '\0'..='\u{1f}' | '\u{7f}' => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    #[test]
    fn every_ascii_byte_at_every_place_of_short_strings() {
        for len in 1..=20 {
            for at in 0..len {
                for c in 0u8..128 {
                    for fill in ["a", "é"] {
                        let mut s: Vec<String> = vec![fill.to_string(); len];
                        s[at] = char::from(c).to_string();
                        let s = s.concat();
                        let mut out = Vec::new();
                        write_str(&mut out, &s, false);
                        assert_eq!(
                            String::from_utf8(out).unwrap(),
                            escaped_by_char(&s),
                            "{s:?}"
                        );
                    }
                }
            }
        }
    }
}
