//! Sort keys: `-k POS1[,POS2]` specs, their ordering options, and finding a key in a line.

/// How a key's text is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Kind {
    #[default]
    Text,
    Numeric,
    General,
    Human,
    Month,
    Version,
    Random,
}

/// Bytes a key comparison skips: `-d` keeps blanks and alphanumerics, `-i` printables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ignore {
    NonDictionary,
    NonPrinting,
}

/// The ordering options of a key (or the global ones).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Order {
    pub ignore: Option<Ignore>,
    pub fold: bool,
    pub reverse: bool,
    pub numeric: bool,
    pub general: bool,
    pub human: bool,
    pub month: bool,
    pub version: bool,
    pub random: bool,
}

impl Order {
    /// Applies one option letter; false when it is not one.
    pub fn set(&mut self, c: u8) -> bool {
        match c {
            b'd' => self.ignore = Some(Ignore::NonDictionary),
            b'i' => {
                if self.ignore.is_none() {
                    self.ignore = Some(Ignore::NonPrinting);
                }
            }
            b'f' => self.fold = true,
            b'r' => self.reverse = true,
            b'n' => self.numeric = true,
            b'g' => self.general = true,
            b'h' => self.human = true,
            b'M' => self.month = true,
            b'V' => self.version = true,
            b'R' => self.random = true,
            _ => return false,
        }
        true
    }

    pub fn kind(&self) -> Kind {
        if self.numeric {
            Kind::Numeric
        } else if self.general {
            Kind::General
        } else if self.human {
            Kind::Human
        } else if self.month {
            Kind::Month
        } else if self.version {
            Kind::Version
        } else if self.random {
            Kind::Random
        } else {
            Kind::Text
        }
    }

    pub fn is_empty(&self) -> bool {
        *self == Order::default()
    }

    /// The ordering options as GNU's messages list them, in its order; `b` (blanks) and
    /// `r` (reverse) are the caller's to say, for they mean different things per message.
    pub fn letters(&self, b: bool, r: bool) -> String {
        [
            (b, 'b'),
            (self.ignore == Some(Ignore::NonDictionary), 'd'),
            (self.fold, 'f'),
            (self.general, 'g'),
            (self.human, 'h'),
            (self.ignore == Some(Ignore::NonPrinting), 'i'),
            (self.month, 'M'),
            (self.numeric, 'n'),
            (self.random, 'R'),
            (r, 'r'),
            (self.version, 'V'),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|&(_, c)| c)
        .collect()
    }

    /// GNU's complaint when options of one key cannot go together: `-gn`, `-dM`...
    pub fn incompatible(&self) -> Option<String> {
        let numeric = [self.general, self.human, self.month, self.numeric]
            .iter()
            .filter(|&&b| b)
            .count();
        let others = self.ignore.is_some() || self.random || self.version;
        if numeric == 0 || (numeric == 1 && !others) {
            return None;
        }
        let s = self.letters(false, false);
        Some(format!("options '-{s}' are incompatible"))
    }
}

/// One key. Fields and characters count from 0 here; `echar == 0` ends the key at the end
/// of field `eword`, and `eword == None` at the end of the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Key {
    pub sword: usize,
    pub schar: usize,
    pub eword: Option<usize>,
    pub echar: usize,
    pub skip_start_blanks: bool,
    pub skip_end_blanks: bool,
    pub order: Order,
    /// Written as the obsolete `+POS1 [-POS2]` (which `--debug` warns about).
    pub obsolete: bool,
}

impl Key {
    /// Whether the key has no options of its own, so that it takes the global ones.
    pub fn has_no_options(&self) -> bool {
        self.order.is_empty() && !self.skip_start_blanks && !self.skip_end_blanks
    }
}

/// A count as `strtoumax` reads it (blanks, `+`, digits); too large is `usize::MAX`.
/// `None` when there are no digits. Gives the rest of the string too.
fn count(s: &[u8]) -> Option<(usize, &[u8])> {
    let mut i = s
        .iter()
        .take_while(|&&b| matches!(b, b' ' | b'\t'..=b'\r'))
        .count();
    if s.get(i) == Some(&b'+') {
        i += 1;
    }
    let digits = s[i..].iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let mut n: usize = 0;
    for &d in &s[i..i + digits] {
        n = n
            .checked_mul(10)
            .and_then(|v| v.checked_add(usize::from(d - b'0')))
            .unwrap_or(usize::MAX);
    }
    Some((n, &s[i + digits..]))
}

fn invalid_count(what: &str, rest: &[u8]) -> String {
    format!(
        "{what}: invalid count at start of {}",
        crate::builtins::common::quote::quote_str(rest)
    )
}

fn invalid_spec(what: &str, spec: &[u8]) -> String {
    format!(
        "{what}: invalid field specification {}",
        crate::builtins::common::quote::quote_str(spec)
    )
}

/// Reads option letters into `key`; `end` tells which position a `b` belongs to.
fn key_options<'a>(mut s: &'a [u8], key: &mut Key, end: bool) -> &'a [u8] {
    while let Some((&c, rest)) = s.split_first() {
        if c == b'b' {
            if end {
                key.skip_end_blanks = true;
            } else {
                key.skip_start_blanks = true;
            }
        } else if !key.order.set(c) {
            break;
        }
        s = rest;
    }
    s
}

/// Parses a `-k` argument, with GNU's messages.
pub fn parse_key(spec: &[u8]) -> Result<Key, String> {
    let mut key = Key::default();
    let (f, rest) =
        count(spec).ok_or_else(|| invalid_count("invalid number at field start", spec))?;
    if f == 0 {
        return Err(invalid_spec("field number is zero", spec));
    }
    key.sword = f - 1;
    let mut rest = rest;
    if let Some(after) = rest.strip_prefix(b".") {
        let (c, r) =
            count(after).ok_or_else(|| invalid_count("invalid number after '.'", after))?;
        if c == 0 {
            return Err(invalid_spec("character offset is zero", spec));
        }
        key.schar = c - 1;
        rest = r;
    }
    rest = key_options(rest, &mut key, false);
    if let Some(after) = rest.strip_prefix(b",") {
        let (f, r) =
            count(after).ok_or_else(|| invalid_count("invalid number after ','", after))?;
        if f == 0 {
            return Err(invalid_spec("field number is zero", spec));
        }
        key.eword = Some(f - 1);
        rest = r;
        if let Some(after) = rest.strip_prefix(b".") {
            let (c, r) =
                count(after).ok_or_else(|| invalid_count("invalid number after '.'", after))?;
            key.echar = c;
            rest = r;
        }
        rest = key_options(rest, &mut key, true);
    }
    if !rest.is_empty() {
        return Err(invalid_spec("stray character in field spec", spec));
    }
    Ok(key)
}

/// Turns the obsolete `+POS1 [-POS2]` into a key: fields and characters count from 0,
/// and `-F.C` ends after character C of field F+1 (or at the end of field F when C is 0).
pub fn parse_obsolete(pos1: &[u8], pos2: Option<&[u8]>) -> Result<Key, String> {
    let mut key = Key::default();
    let (f, rest) =
        count(pos1).ok_or_else(|| invalid_count("invalid number at field start", pos1))?;
    key.sword = f;
    let mut rest = rest;
    if let Some(after) = rest.strip_prefix(b".") {
        let (c, r) =
            count(after).ok_or_else(|| invalid_count("invalid number after '.'", after))?;
        key.schar = c;
        rest = r;
    }
    rest = key_options(rest, &mut key, false);
    if !rest.is_empty() {
        return Err(invalid_spec("stray character in field spec", pos1));
    }
    if let Some(p2) = pos2 {
        let (f, rest) = count(p2).ok_or_else(|| invalid_count("invalid number after '-'", p2))?;
        let mut rest = rest;
        let mut c = 0;
        if let Some(after) = rest.strip_prefix(b".") {
            let (cc, r) =
                count(after).ok_or_else(|| invalid_count("invalid number after '.'", after))?;
            c = cc;
            rest = r;
        }
        if c == 0 {
            // The end of field F (1-based), i.e. of the field before 0-based F; GNU
            // takes "-0" for the end of the first field.
            key.eword = Some(f.saturating_sub(1));
        } else {
            key.eword = Some(f);
            key.echar = c;
        }
        rest = key_options(rest, &mut key, true);
        if !rest.is_empty() {
            return Err(invalid_spec("stray character in field spec", p2));
        }
    }
    Ok(key)
}

/// Where the key starts in `line`.
pub fn begin(line: &[u8], key: &Key, tab: Option<u8>, blank: &[bool; 256]) -> usize {
    let lim = line.len();
    let mut p = 0;
    let mut sword = key.sword;
    while p < lim && sword > 0 {
        sword -= 1;
        match tab {
            Some(t) => {
                while p < lim && line[p] != t {
                    p += 1;
                }
                if p < lim {
                    p += 1;
                }
            }
            None => {
                while p < lim && blank[usize::from(line[p])] {
                    p += 1;
                }
                while p < lim && !blank[usize::from(line[p])] {
                    p += 1;
                }
            }
        }
    }
    if key.skip_start_blanks {
        while p < lim && blank[usize::from(line[p])] {
            p += 1;
        }
    }
    p.saturating_add(key.schar).min(lim)
}

/// Where the key ends in `line` (exclusive).
pub fn end(line: &[u8], key: &Key, tab: Option<u8>, blank: &[bool; 256]) -> usize {
    let lim = line.len();
    let Some(eword) = key.eword else {
        return lim;
    };
    let echar = key.echar;
    let mut eword = if echar == 0 {
        eword.saturating_add(1)
    } else {
        eword
    };
    let mut p = 0;
    while p < lim && eword > 0 {
        eword -= 1;
        match tab {
            Some(t) => {
                while p < lim && line[p] != t {
                    p += 1;
                }
                if p < lim && (eword > 0 || echar > 0) {
                    p += 1;
                }
            }
            None => {
                while p < lim && blank[usize::from(line[p])] {
                    p += 1;
                }
                while p < lim && !blank[usize::from(line[p])] {
                    p += 1;
                }
            }
        }
    }
    if echar != 0 {
        if key.skip_end_blanks {
            while p < lim && blank[usize::from(line[p])] {
                p += 1;
            }
        }
        p = p.saturating_add(echar).min(lim);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blanks() -> [bool; 256] {
        let mut b = [false; 256];
        b[usize::from(b' ')] = true;
        b[usize::from(b'\t')] = true;
        b
    }

    fn key_of(spec: &str, line: &str, tab: Option<u8>) -> String {
        let k = parse_key(spec.as_bytes()).unwrap();
        let l = line.as_bytes();
        let (b, e) = (begin(l, &k, tab, &blanks()), end(l, &k, tab, &blanks()));
        String::from_utf8_lossy(&l[b..e.max(b)]).into_owned()
    }

    #[test]
    fn fields() {
        assert_eq!(key_of("2", "a  b c", None), "  b c");
        assert_eq!(key_of("2,2", "a  b c", None), "  b");
        assert_eq!(key_of("2b,2", "a  b c", None), "b");
        assert_eq!(key_of("1.2,1.3", "a b c d", None), " b");
        assert_eq!(key_of("2,2", "a:b:c", Some(b':')), "b");
        assert_eq!(key_of("2.2,3.1", "a:bc:de", Some(b':')), "c:d");
        assert_eq!(key_of("3", "a:b", Some(b':')), "");
    }

    #[test]
    fn errors() {
        assert_eq!(
            parse_key(b"0").unwrap_err(),
            "field number is zero: invalid field specification '0'"
        );
        assert_eq!(
            parse_key(b"2.,3").unwrap_err(),
            "invalid number after '.': invalid count at start of ',3'"
        );
        assert_eq!(
            parse_key(b"1n.1").unwrap_err(),
            "stray character in field spec: invalid field specification '1n.1'"
        );
        assert!(parse_key(b"1,1.0").is_ok());
    }
}
