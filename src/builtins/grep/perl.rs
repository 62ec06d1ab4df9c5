//! `grep -P`: Perl-compatible patterns over bytes, as GNU grep with PCRE2 reads them in the
//! C locale (no UTF mode: each byte is a character, classes and case folding are ASCII).
//! Patterns that regex-syntax reads run on a regex-automata meta regex; those that need a
//! backtracker (back-references, look-around, atomic groups, possessive quantifiers, `\K`)
//! run on fancy-regex in its bytes mode. Both are leftmost-first, as PCRE is.

use fancy_regex::{BytesMode, RegexBuilder};
use regex_automata::{meta, Input};
use regex_syntax::hir::{self, Hir};

use crate::budget::Budget;
use crate::error::Result;

/// fancy-regex's backtrack limits, tried in turn, and the steps a search spends when it
/// needs that tier: the backtracks the tier before used up (fancy-regex does not count
/// them for us). The last limit plays PCRE2's match limit: a catastrophic pattern ends
/// with GNU's error, and a pattern just below it pays for its work in steps.
const TIERS: [(usize, u64); 4] = [(256, 0), (4096, 256), (65_536, 4096), (1_000_000, 65_536)];

pub(super) enum Perl {
    Fast(meta::Regex),
    /// The same pattern built with each of the [`TIERS`] limits.
    Fancy(Vec<fancy_regex::Regex>),
}

/// A search that gave up (fancy-regex's backtrack limit or stack): GNU grep stops with
/// "exceeded PCRE's backtracking limit".
#[derive(Debug)]
pub(super) struct Exceeded;

impl Perl {
    pub(super) fn is_match(&self, text: &[u8], budget: &Budget) -> Result<Result<bool, Exceeded>> {
        match self {
            Perl::Fast(re) => Ok(Ok(re.is_match(Input::new(text)))),
            Perl::Fancy(tiers) => tiered(tiers, budget, |re| re.is_match(text)),
        }
    }

    /// The leftmost-first match at or after `pos`; look-behind sees the text before `pos`.
    pub(super) fn find_at(
        &self,
        text: &[u8],
        pos: usize,
        budget: &Budget,
    ) -> Result<Result<Option<(usize, usize)>, Exceeded>> {
        match self {
            Perl::Fast(re) => Ok(Ok(re
                .search(&Input::new(text).range(pos..))
                .map(|m| (m.start(), m.end())))),
            Perl::Fancy(tiers) => tiered(tiers, budget, |re| {
                re.find_from_pos(text, pos)
                    .map(|m| m.map(|m| (m.start(), m.end())))
            }),
        }
    }
}

/// Runs `search` with each tier's regex until one finishes within its limit.
fn tiered<T>(
    tiers: &[fancy_regex::Regex],
    budget: &Budget,
    search: impl Fn(&fancy_regex::Regex) -> fancy_regex::Result<T>,
) -> Result<Result<T, Exceeded>> {
    for (re, &(_, steps)) in tiers.iter().zip(&TIERS) {
        budget.spend(steps)?;
        if let Ok(found) = search(re) {
            return Ok(Ok(found));
        }
    }
    Ok(Err(Exceeded))
}

/// Compiles one `-P` pattern with `-i`, `-w`, `-x`; the error is PCRE2's message as GNU
/// grep prints it.
pub(super) fn compile(
    pattern: &[u8],
    icase: bool,
    word: bool,
    line: bool,
) -> std::result::Result<Perl, String> {
    let text = translate(pattern)?;
    fixed_lookbehinds(&text, icase)?;
    // regex-syntax reads `a++` as `(a+)+`: possessive quantifiers need the backtracker.
    let fast_err = if possessive(&text)? {
        None
    } else {
        match fast(&text, icase, word, line) {
            Ok(re) => return Ok(Perl::Fast(re)),
            Err(e) => e,
        }
    };
    // GNU grep wraps the pattern the same way for -x and -w.
    let wrapped = if line {
        format!("^(?:{text})$")
    } else if word {
        format!("(?<!\\w)(?:{text})(?!\\w)")
    } else {
        text.clone()
    };
    let built: std::result::Result<Vec<_>, _> = TIERS
        .iter()
        .map(|&(limit, _)| {
            RegexBuilder::new(&wrapped)
                .bytes_mode(BytesMode::Ascii)
                .case_insensitive(icase)
                .backtrack_limit(limit)
                .build()
        })
        .collect();
    match built {
        Ok(tiers) => Ok(Perl::Fancy(tiers)),
        Err(e) => {
            // Judge the pattern alone, so that the wrapping does not show in the message.
            let own = match RegexBuilder::new(&text)
                .bytes_mode(BytesMode::Ascii)
                .build()
            {
                Err(own) => own,
                Ok(_) => e,
            };
            Err(fast_err
                .or_else(|| fancy_message(&own))
                .map(str::to_string)
                .unwrap_or_else(|| own.to_string()))
        }
    }
}

/// The regex-syntax reading of a pattern, when it has one; else PCRE2's words for its
/// error, when regex-syntax tells it apart.
fn fast(
    text: &str,
    icase: bool,
    word: bool,
    line: bool,
) -> std::result::Result<meta::Regex, Option<&'static str>> {
    let h = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .case_insensitive(icase)
        .build()
        .parse(text)
        .map_err(|e| syntax_message(&e))?;
    let h = if line {
        Hir::concat(vec![
            Hir::look(hir::Look::Start),
            h,
            Hir::look(hir::Look::End),
        ])
    } else if word {
        Hir::concat(vec![
            Hir::look(hir::Look::WordStartHalfAscii),
            h,
            Hir::look(hir::Look::WordEndHalfAscii),
        ])
    } else {
        h
    };
    meta::Builder::new()
        .configure(meta::Config::new().utf8_empty(false))
        .build_from_hir(&h)
        .map_err(|_| None)
}

/// PCRE2's words for the pattern errors regex-syntax tells apart.
fn syntax_message(e: &regex_syntax::Error) -> Option<&'static str> {
    use regex_syntax::ast::ErrorKind as K;
    let regex_syntax::Error::Parse(e) = e else {
        return None;
    };
    Some(match e.kind() {
        K::GroupUnclosed => "missing closing parenthesis",
        K::GroupUnopened => "unmatched closing parenthesis",
        K::ClassUnclosed => "missing terminating ] for character class",
        K::ClassRangeInvalid => "range out of order in character class",
        K::RepetitionCountInvalid => "numbers out of order in {} quantifier",
        K::RepetitionMissing => "quantifier does not follow a repeatable item",
        K::EscapeUnexpectedEof => "\\ at end of pattern",
        K::FlagUnrecognized | K::FlagDanglingNegation | K::FlagUnexpectedEof => {
            "unrecognized character after (? or (?-"
        }
        _ => return None,
    })
}

/// PCRE2's words for fancy-regex's errors.
fn fancy_message(e: &fancy_regex::Error) -> Option<&'static str> {
    use fancy_regex::{CompileError as C, Error as E, ParseError as P};
    Some(match e {
        E::ParseError(_, P::UnclosedOpenParen) => "missing closing parenthesis",
        E::ParseError(_, P::TrailingBackslash) => "\\ at end of pattern",
        E::ParseError(_, P::InvalidClass) => "missing terminating ] for character class",
        E::ParseError(_, P::InvalidRepeat | P::TargetNotRepeatable) => {
            "quantifier does not follow a repeatable item"
        }
        E::ParseError(_, P::UnknownFlag(_)) => "unrecognized character after (? or (?-",
        E::ParseError(_, P::InvalidBackref | P::InvalidGroupNameBackref(_)) => {
            "reference to non-existent subpattern"
        }
        E::CompileError(c) => match **c {
            C::LookBehindNotConst | C::VariableLookBehindRequiresFeature => {
                "lookbehind assertion is not fixed length"
            }
            C::InvalidBackref(_) | C::InvalidGroupNameBackref(_) | C::NamedBackrefOnly => {
                "reference to non-existent subpattern"
            }
            _ => return None,
        },
        _ => return None,
    })
}

/// The pattern as regex-syntax and fancy-regex read it: ASCII text where each byte above
/// 127 is written `\xHH` (that byte, in bytes mode), `\Q...\E` becomes escaped literals,
/// and PCRE's `\h`, `\H`, `\v`, `\V` (which those crates read otherwise) are spelled out
/// as PCRE2 reads them without UTF.
fn translate(p: &[u8]) -> std::result::Result<String, String> {
    const H: &str = r"\t \xA0";
    const V: &str = r"\n\x0B\f\r\x85";
    let mut out = String::with_capacity(p.len() + 8);
    let mut class = false;
    let mut i = 0;
    while let Some(&c) = p.get(i) {
        i += 1;
        match c {
            b'\\' => {
                let Some(&n) = p.get(i) else {
                    out.push('\\');
                    break;
                };
                i += 1;
                match n {
                    b'h' | b'v' => {
                        let set = if n == b'h' { H } else { V };
                        if class {
                            out.push_str(set);
                        } else {
                            out.push_str(&format!("[{set}]"));
                        }
                    }
                    b'H' | b'V' if !class => {
                        let set = if n == b'H' { H } else { V };
                        out.push_str(&format!("[^{set}]"));
                    }
                    b'Q' => {
                        // Literal up to `\E` or the end.
                        while let Some(&q) = p.get(i) {
                            if q == b'\\' && p.get(i + 1) == Some(&b'E') {
                                i += 2;
                                break;
                            }
                            i += 1;
                            literal(&mut out, q);
                        }
                    }
                    b'E' => {}
                    // One code unit: without UTF, any byte.
                    b'C' if !class => out.push_str("(?s:.)"),
                    // PCRE's `\x` takes up to two hex digits, none being NUL.
                    b'x' if p.get(i) != Some(&b'{') => {
                        let hexes = p[i..]
                            .iter()
                            .take(2)
                            .take_while(|c| c.is_ascii_hexdigit())
                            .count();
                        let v = p[i..i + hexes].iter().fold(0u8, |a, &c| {
                            a.wrapping_mul(16)
                                .wrapping_add(char::from(c).to_digit(16).unwrap_or(0) as u8)
                        });
                        hex(&mut out, v);
                        i += hexes;
                    }
                    n if n >= 0x80 => hex(&mut out, n),
                    n => {
                        out.push('\\');
                        out.push(char::from(n));
                    }
                }
            }
            b'[' if !class => {
                class = true;
                out.push('[');
                if p.get(i) == Some(&b'^') {
                    out.push('^');
                    i += 1;
                }
                // A `]` first is a member.
                if p.get(i) == Some(&b']') {
                    out.push_str("\\]");
                    i += 1;
                }
            }
            b'[' if matches!(p.get(i), Some(b':' | b'.' | b'=')) => {
                // A POSIX class `[:name:]` inside a class.
                let kind = p[i];
                let body = &p[i + 1..];
                let close = body.windows(2).position(|w| w == [kind, b']']);
                if let Some(end) = close {
                    if kind != b':' {
                        return Err("POSIX collating elements are not supported".into());
                    }
                    let name = &body[..end];
                    let name = name.strip_prefix(b"^").unwrap_or(name);
                    if !POSIX_CLASSES.contains(&name) {
                        return Err("unknown POSIX class name".into());
                    }
                    out.push('[');
                    for &q in &p[i..i + 1 + end + 2] {
                        push_byte(&mut out, q);
                    }
                    i += 1 + end + 2;
                } else {
                    out.push('[');
                }
            }
            b'{' if !class => {
                // PCRE2 refuses an interval whose numbers are out of order.
                let rest = &p[i..];
                let digits = |s: &[u8]| s.iter().take_while(|c| c.is_ascii_digit()).count();
                let m = digits(rest);
                if m > 0 && rest.get(m) == Some(&b',') {
                    let n = digits(&rest[m + 1..]);
                    if n > 0 && rest.get(m + 1 + n) == Some(&b'}') {
                        let num = |s: &[u8]| {
                            s.iter().fold(0u64, |a, &c| {
                                a.saturating_mul(10).saturating_add(u64::from(c - b'0'))
                            })
                        };
                        if num(&rest[..m]) > num(&rest[m + 1..m + 1 + n]) {
                            return Err("numbers out of order in {} quantifier".into());
                        }
                    }
                }
                out.push('{');
            }
            b']' if class => {
                class = false;
                out.push(']');
            }
            c => push_byte(&mut out, c),
        }
    }
    Ok(out)
}

/// Whether the pattern has a possessive quantifier (`a++`, `a*+`, `a?+`, `a{2}+`); a
/// quantifier after a quantifier (`a**`) is PCRE2's error.
fn possessive(text: &str) -> std::result::Result<bool, String> {
    let b = text.as_bytes();
    let (mut class, mut after_quantifier, mut found) = (false, false, false);
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let mut quantifier = false;
        match c {
            b'\\' => i += 1,
            b'[' if !class => {
                class = true;
                if b.get(i + 1) == Some(&b'^') {
                    i += 1;
                }
                if b.get(i + 1) == Some(&b']') {
                    i += 1;
                }
            }
            b']' if class => class = false,
            _ if class => {}
            b'+' if after_quantifier => found = true,
            b'*' if after_quantifier => {
                return Err("quantifier does not follow a repeatable item".into())
            }
            b'?' if after_quantifier => {}
            b'?' if i > 0 && b[i - 1] == b'(' => {}
            b'*' | b'+' | b'?' => quantifier = true,
            b'}' => {
                quantifier = b[..i].iter().rposition(|&c| c == b'{').is_some_and(|o| {
                    let inner = &b[o + 1..i];
                    !inner.is_empty()
                        && inner[0].is_ascii_digit()
                        && inner.iter().all(|c| c.is_ascii_digit() || *c == b',')
                        && inner.iter().filter(|&&c| c == b',').count() <= 1
                })
            }
            _ => {}
        }
        after_quantifier = quantifier;
        i += 1;
    }
    Ok(found)
}

const POSIX_CLASSES: &[&[u8]] = &[
    b"alnum", b"alpha", b"ascii", b"blank", b"cntrl", b"digit", b"graph", b"lower", b"print",
    b"punct", b"space", b"upper", b"word", b"xdigit",
];

/// PCRE2 wants each alternative of a look-behind to have one length; fancy-regex would
/// take any. An alternative that regex-syntax cannot read is left to fancy-regex.
fn fixed_lookbehinds(text: &str, icase: bool) -> std::result::Result<(), String> {
    let b = text.as_bytes();
    let mut class = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'[' if !class => {
                class = true;
                if b.get(i + 1) == Some(&b'^') {
                    i += 1;
                }
            }
            b']' if class => class = false,
            b'(' if !class && (b[i..].starts_with(b"(?<=") || b[i..].starts_with(b"(?<!")) => {
                let body = group_body(&b[i + 4..]);
                for alt in top_level_alternatives(body) {
                    let Ok(alt) = std::str::from_utf8(alt) else {
                        continue;
                    };
                    let parsed = regex_syntax::ParserBuilder::new()
                        .unicode(false)
                        .utf8(false)
                        .case_insensitive(icase)
                        .build()
                        .parse(alt);
                    if let Ok(h) = parsed {
                        let p = h.properties();
                        if p.minimum_len() != p.maximum_len() {
                            return Err("lookbehind assertion is not fixed length".into());
                        }
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// The text of a group up to its closing parenthesis (or the end).
fn group_body(b: &[u8]) -> &[u8] {
    let (mut depth, mut class, mut i) = (0usize, false, 0);
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'[' if !class => class = true,
            b']' if class => class = false,
            b'(' if !class => depth += 1,
            b')' if !class => {
                if depth == 0 {
                    return &b[..i];
                }
                depth -= 1;
            }
            _ => {}
        }
        i += 1;
    }
    b
}

/// A group's body split at its top-level `|`.
fn top_level_alternatives(b: &[u8]) -> Vec<&[u8]> {
    let (mut depth, mut class, mut i, mut from) = (0usize, false, 0, 0);
    let mut alts = Vec::new();
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'[' if !class => class = true,
            b']' if class => class = false,
            b'(' if !class => depth += 1,
            b')' if !class => depth = depth.saturating_sub(1),
            b'|' if !class && depth == 0 => {
                alts.push(&b[from..i]);
                from = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    alts.push(&b[from..]);
    alts
}

fn push_byte(out: &mut String, c: u8) {
    if c.is_ascii() {
        out.push(char::from(c));
    } else {
        hex(out, c);
    }
}

fn hex(out: &mut String, c: u8) {
    out.push_str(&format!("\\x{c:02X}"));
}

/// A byte that matches itself, escaped where the syntax would read it otherwise.
fn literal(out: &mut String, c: u8) {
    if c.is_ascii_alphanumeric() || c == b'_' {
        out.push(char::from(c));
    } else if c.is_ascii_graphic() {
        out.push('\\');
        out.push(char::from(c));
    } else {
        hex(out, c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translation() {
        let translate = |p: &[u8]| super::translate(p).unwrap();
        assert_eq!(translate(b"a\xe9\\\xff"), r"a\xE9\xFF");
        assert_eq!(translate(b"[]\xe9]"), r"[\]\xE9]");
        assert_eq!(translate(b"\\Qa.b\\E+"), r"a\.b+");
        assert_eq!(translate(b"\\h[\\v]"), r"[\t \xA0][\n\x0B\f\r\x85]");
        assert_eq!(translate(b"[[:alpha:]\\]]x"), r"[[:alpha:]\]]x");
        assert_eq!(translate(b"\\"), "\\");
        assert_eq!(translate(b"a\\Cb"), "a(?s:.)b");
        assert_eq!(translate(b"\\xzz\\xA\\x41"), r"\x00zz\x0A\x41");
    }

    #[test]
    fn engines() {
        let fancy = |p: &[u8]| matches!(compile(p, false, false, false), Ok(Perl::Fancy(_)));
        assert!(!fancy(b"a\\d+"));
        assert!(fancy(b"(a)\\1"));
        assert!(fancy(b"a(?=b)"));
        assert!(fancy(b"(?<!x)a"));
        assert!(fancy(b"(?>a+)b"));
        assert!(fancy(b"a++b"));
        assert!(fancy(b"x\\Ky"));
        assert!(fancy(b"(?<=ab|c)d"));
    }

    #[test]
    fn pcre_errors() {
        let err = |p: &[u8]| compile(p, false, false, false).err();
        let no_fixed = Some("lookbehind assertion is not fixed length".to_string());
        assert_eq!(err(b"(?<=a+)b"), no_fixed);
        assert_eq!(err(b"(?<!a|bc?)b"), no_fixed);
        assert_eq!(
            err(b"a{2,1}"),
            Some("numbers out of order in {} quantifier".to_string())
        );
        assert_eq!(
            err(b"[[:foo:]]"),
            Some("unknown POSIX class name".to_string())
        );
        assert_eq!(err(b"(a"), Some("missing closing parenthesis".to_string()));
    }
}
