//! `sort --debug`: the warnings about questionable keys and options (stderr), and each
//! output line followed by an underline of what every key compared and of the whole line
//! (the last-resort comparison). Matches GNU sort in the C locale, worked out from its
//! behaviour.

use super::compare::{Config, KeyVal};
use super::keys::{self, Key, Kind, Order};
use crate::builtins::common::float;

/// What the warnings need besides the keys.
pub struct Setup<'a> {
    /// The keys as sorting uses them (after taking the global options).
    pub keys: &'a [Key],
    /// Whether the keys came from `-k` (or `+POS`), not from the global options alone.
    pub explicit: bool,
    pub global: Order,
    pub global_b: bool,
    pub tab: Option<u8>,
    /// `-s` or `-u`: no last-resort comparison.
    pub no_last_resort: bool,
}

fn is_numeric(k: Kind) -> bool {
    matches!(k, Kind::Numeric | Kind::General | Kind::Human)
}

/// The warnings `--debug` prints before sorting, each line prefixed with "sort: ".
pub fn warnings(s: &Setup) -> Vec<u8> {
    let mut w: Vec<String> = vec!["text ordering performed using simple byte comparison".into()];
    if s.explicit {
        for (i, key) in s.keys.iter().enumerate() {
            key_warnings(key, i + 1, s.tab, &mut w);
        }
    }
    // A numeric key over several fields reads their separator as part of a number.
    let spanning = |k: &Key| s.explicit && spans(k);
    let span_sep = |c: u8| s.tab == Some(c) && s.keys.iter().any(spanning);
    if span_sep(b'.') {
        w.push("field separator '.' is treated as a decimal point in numbers".into());
    } else {
        if span_sep(b'-') {
            w.push("field separator '-' is treated as a minus sign in numbers".into());
        } else if s.tab == Some(b'+')
            && s.keys
                .iter()
                .any(|k| spanning(k) && k.order.kind() == Kind::General)
        {
            w.push("field separator '+' is treated as a plus sign in numbers".into());
        }
        if s.keys.iter().any(|k| is_numeric(k.order.kind())) {
            // No "note" when the field separator is the decimal point itself.
            let note = if s.tab == Some(b'.') { "" } else { "note " };
            w.push(format!(
                "{note}numbers use '.' as a decimal point in this locale"
            ));
        }
    }
    if s.explicit {
        ignored_options(s, &mut w);
    }
    let mut out = Vec::new();
    for line in w {
        out.extend_from_slice(b"sort: ");
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }
    out
}

/// A numeric key that does not end in the field it starts in.
fn spans(key: &Key) -> bool {
    is_numeric(key.order.kind()) && key.eword.is_none_or(|e| e > key.sword)
}

fn key_warnings(key: &Key, n: usize, tab: Option<u8>, w: &mut Vec<String>) {
    if key.obsolete {
        let s = key.sword;
        let (old, new) = match key.eword {
            Some(e) => (
                format!("+{s} -{}", e.saturating_add(1)),
                format!("-k {},{}", s.saturating_add(1), e.saturating_add(1)),
            ),
            None => (format!("+{s}"), format!("-k {}", s.saturating_add(1))),
        };
        w.push(format!(
            "obsolescent key '{old}' used; consider '{new}' instead"
        ));
    }
    if key.eword.is_some_and(|e| e < key.sword) {
        w.push(format!("key {n} has zero width and will be ignored"));
        return;
    }
    let kind = key.order.kind();
    // Numbers and months skip their leading blanks by themselves.
    let implicit_skip = is_numeric(kind) || kind == Kind::Month;
    // `-k1.A,1.B`: offsets from the start of the line, where no field's blanks intrude.
    let line_offset = key.eword == Some(0) && key.echar != 0;
    // Blanks count at the start unless skipped (by `b`, or by the kind when the key
    // starts a field), and at the end when it is a character offset without `b`.
    let start_blanks = !key.skip_start_blanks && (!implicit_skip || key.schar != 0);
    let end_blanks = !key.skip_end_blanks && key.echar != 0;
    if tab.is_none() && !line_offset && (start_blanks || end_blanks) {
        w.push(format!(
            "leading blanks are significant in key {n}; consider also specifying 'b'"
        ));
    }
    if spans(key) {
        w.push(format!("key {n} is numeric and spans multiple fields"));
    }
}

/// The global options no key uses: every key has options of its own.
fn ignored_options(s: &Setup, w: &mut Vec<String>) {
    let mut g = s.global;
    let (mut sb, mut eb) = (s.global_b, s.global_b);
    for k in s.keys {
        let o = &k.order;
        sb &= !k.skip_start_blanks;
        eb &= !k.skip_end_blanks;
        if o.ignore.is_some() && o.ignore == g.ignore {
            g.ignore = None;
        }
        g.fold &= !o.fold;
        g.general &= !o.general;
        g.human &= !o.human;
        g.month &= !o.month;
        g.numeric &= !o.numeric;
        g.random &= !o.random;
        g.version &= !o.version;
        g.reverse &= !o.reverse;
    }
    let letters = g.letters(sb || eb, g.reverse && s.no_last_resort);
    match letters.len() {
        0 => {}
        1 => w.push(format!("option '-{letters}' is ignored")),
        _ => w.push(format!("options '-{letters}' are ignored")),
    }
    if g.reverse && !s.no_last_resort {
        w.push("option '-r' only applies to last-resort comparison".into());
    }
}

/// The columns a byte takes in an underline: control characters none, a tab (shown
/// as `>`) one, everything else one.
fn width(s: &[u8]) -> usize {
    s.iter()
        .filter(|&&b| b == b'\t' || (b >= 0x20 && b != 0x7f))
        .count()
}

/// The part of a key that its comparison used: numbers and months without their leading
/// blanks and without what follows them. `None` when nothing matched, at the given offset.
fn extent(line: &[u8], key: &Key, kv: &KeyVal, cfg: &Config) -> (usize, Option<usize>) {
    let blank = &cfg.blank;
    let kind = key.order.kind();
    let lim = keys::end(line, key, cfg.tab, blank);
    // A key from the start of the line skips its blanks (`b`) only up to its end; others
    // have skipped them already.
    let at_line_start = key.sword == 0 && key.schar == 0;
    let mut s = if at_line_start { 0 } else { kv.start as usize };
    if is_numeric(kind) || kind == Kind::Month || (at_line_start && key.skip_start_blanks) {
        // A key that ends before it starts matches nothing, but GNU still skips the
        // blanks at its start, past its end.
        let limit = if lim < s { line.len() } else { lim };
        while s < limit && blank[usize::from(line[s])] {
            s += 1;
        }
    }
    let k = if s < lim { &line[s..lim] } else { &[][..] };
    let len = match kind {
        Kind::Numeric => number_len(k),
        Kind::Human => number_len(k).map(|n| {
            let unit = k.get(n).is_some_and(|c| b"KMGTPEZYk".contains(c));
            n + usize::from(unit)
        }),
        Kind::General => Some(float::strtold(k).end).filter(|&n| n > 0),
        Kind::Month => (super::compare::month(k, blank) != 0).then_some(3),
        Kind::Text | Kind::Version | Kind::Random => Some(k.len()).filter(|&n| n > 0),
    };
    (s, len)
}

/// The length of a `-n` number at the start of `k`: `-`, digits, `.` and digits, with
/// at least one digit.
fn number_len(k: &[u8]) -> Option<usize> {
    let mut i = usize::from(k.first() == Some(&b'-'));
    let int = k[i..].iter().take_while(|b| b.is_ascii_digit()).count();
    i += int;
    let mut frac = 0;
    if k.get(i) == Some(&b'.') {
        frac = k[i + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
        if int > 0 || frac > 0 {
            i += 1 + frac;
        }
    }
    (int + frac > 0).then_some(i)
}

/// One underline: blanks up to the key, then `_` under it, or where it would start a
/// caret saying that nothing matched.
fn underline(out: &mut Vec<u8>, line: &[u8], start: usize, len: Option<usize>) {
    out.resize(out.len() + width(&line[..start]), b' ');
    match len {
        Some(n) if width(&line[start..start + n]) > 0 => {
            out.resize(out.len() + width(&line[start..start + n]), b'_');
        }
        _ => out.extend_from_slice(b"^ no match for key"),
    }
    out.push(b'\n');
}

/// Writes one output line as `--debug` shows it: tabs as `>`, a newline whatever the
/// line terminator, then the underlines of its keys (when there are keys of their own)
/// and of the whole line (unless `-s`/`-u` leave it out while keys exist).
pub fn annotate(out: &mut Vec<u8>, line: &[u8], kv: &[KeyVal], cfg: &Config, show_keys: bool) {
    out.extend(line.iter().map(|&b| if b == b'\t' { b'>' } else { b }));
    out.push(b'\n');
    if show_keys {
        for (key, v) in cfg.keys.iter().zip(kv) {
            let (s, len) = extent(line, key, v, cfg);
            underline(out, line, s, len);
        }
    }
    if !show_keys || cfg.last_resort {
        underline(out, line, 0, Some(line.len()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(number_len(b"-1.5e3"), Some(4));
        assert_eq!(number_len(b"1."), Some(2));
        assert_eq!(number_len(b".5"), Some(2));
        assert_eq!(number_len(b"-."), None);
        assert_eq!(number_len(b"+2"), None);
        assert_eq!(number_len(b""), None);
        assert_eq!(width(b"a\x01\tb\x80\n"), 4);
    }
}
