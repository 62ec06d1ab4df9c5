//! Quoting as GNU tools do it in the C locale, the one place for it: `quote` for
//! arguments in messages (`head: invalid number of lines: 'a\'b'`), `quote_name` for
//! file names in messages (`cat: 'a b': No such file or directory`) and `shell_quote`
//! for `printf %q`; the last two are GNU's shell-escape style.

/// The C escape of a byte that is not printable ASCII: `\n`, or three octal digits.
fn c_escape(out: &mut Vec<u8>, b: u8) {
    let letter = match b {
        7 => b'a',
        8 => b'b',
        12 => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        11 => b'v',
        _ => 0,
    };
    out.push(b'\\');
    if letter != 0 {
        out.push(letter);
    } else {
        out.push(b'0' + (b >> 6));
        out.push(b'0' + ((b >> 3) & 7));
        out.push(b'0' + (b & 7));
    }
}

fn printable(b: u8) -> bool {
    (0x20..0x7f).contains(&b)
}

/// `'NAME'`, with backslash, quote and unprintable bytes escaped as in C.
pub fn quote(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() + 2);
    out.push(b'\'');
    for &b in s {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\'' => out.extend_from_slice(b"\\'"),
            _ if printable(b) => out.push(b),
            _ => c_escape(&mut out, b),
        }
    }
    out.push(b'\'');
    out
}

/// [`quote`] as a `String`, for messages built with `format!`.
pub fn quote_str(s: &[u8]) -> String {
    String::from_utf8_lossy(&quote(s)).into_owned()
}

/// Whether byte `b` at index `i` of a word of length `len` makes the shell need quotes
/// (`colon`: a `:` too, as in file names of messages).
fn needs_quotes(b: u8, i: usize, len: usize, colon: bool) -> bool {
    match b {
        b':' => colon,
        b' ' | b'!' | b'"' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b';' | b'<' | b'='
        | b'>' | b'?' | b'[' | b'\\' | b'^' | b'`' | b'|' => true,
        b'#' | b'~' => i == 0,
        b'{' | b'}' => len == 1,
        _ => !printable(b),
    }
}

/// Bytes that read the same inside double quotes as bare: with a single quote and only
/// these, the word goes in double quotes (`"it's"`).
fn double_quote_safe(b: u8, i: usize) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b' ' | b'\'' | b'%' | b'+' | b',' | b'-' | b'.' | b'/' | b':' | b'@' | b']' | b'_'
        )
        || (i == 0 && matches!(b, b'#' | b'~'))
}

/// `printf %q`: the word quoted so that a POSIX shell reads it back, in GNU's style
/// (bare when safe, `'...'`, `"..."` for a lone kind of quote, `$'\NNN'` for
/// unprintable bytes).
pub fn shell_quote(out: &mut Vec<u8>, s: &[u8]) {
    shell_escape(out, s, false, false);
}

/// A file name as GNU's messages show it (`quotef`): `printf %q`'s style, with a `:`
/// quoted too (`cat: 'a:b': No such file or directory`).
pub fn quote_name(name: &[u8]) -> String {
    let mut out = Vec::with_capacity(name.len() + 2);
    shell_escape(&mut out, name, true, false);
    String::from_utf8_lossy(&out).into_owned()
}

/// [`quote_name`] in quotes even when harmless (`quoteaf`: `head: cannot open 'x' for
/// reading`).
pub fn quote_name_always(name: &[u8]) -> String {
    let mut out = Vec::with_capacity(name.len() + 2);
    shell_escape(&mut out, name, true, true);
    String::from_utf8_lossy(&out).into_owned()
}

/// GNU's shell-escape style; `colon` quotes a `:` too, `always` quotes a harmless word.
fn shell_escape(out: &mut Vec<u8>, s: &[u8], colon: bool, always: bool) {
    if s.is_empty() {
        out.extend_from_slice(b"''");
        return;
    }
    if !always
        && !s
            .iter()
            .enumerate()
            .any(|(i, &b)| needs_quotes(b, i, s.len(), colon))
    {
        out.extend_from_slice(s);
        return;
    }
    if s.contains(&b'\'') && s.iter().enumerate().all(|(i, &b)| double_quote_safe(b, i)) {
        out.push(b'"');
        out.extend_from_slice(s);
        out.push(b'"');
        return;
    }
    // GNU measures a word that holds a single quote once before writing it, and the
    // second pass starts in the state the first ended in (inside `$'...'` or not): so a
    // word ending in an escape begins with `'''`. Reproduced as GNU prints it.
    let pending = s.contains(&b'\'') && single_quoted(&mut Vec::new(), s, false);
    single_quoted(out, s, pending);
}

/// Writes `s` in single quotes, with `$'...'` for unprintable bytes; returns whether it
/// ended inside `$'...'`.
fn single_quoted(out: &mut Vec<u8>, s: &[u8], mut pending: bool) -> bool {
    out.push(b'\'');
    for &b in s {
        if b == b'\'' {
            out.extend_from_slice(b"'\\''");
            pending = false;
        } else if printable(b) {
            if pending {
                out.extend_from_slice(b"''");
                pending = false;
            }
            out.push(b);
        } else {
            if !pending {
                out.extend_from_slice(b"'$'");
                pending = true;
            }
            c_escape(out, b);
        }
    }
    out.push(b'\'');
    pending
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        shell_quote(&mut out, s);
        out
    }

    // Expected values from GNU printf %q and GNU messages in the C locale.
    #[test]
    fn shell_style() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"", b"''"),
            (b"a", b"a"),
            (b"a b", b"'a b'"),
            (b"it's", b"\"it's\""),
            (b"a\"b", b"'a\"b'"),
            (b"a\nb", b"'a'$'\\n''b'"),
            (b"\xe9", b"''$'\\351'"),
            (b"~a", b"'~a'"),
            (b"a~", b"a~"),
            (b"{a}", b"{a}"),
            (b"{", b"'{'"),
            (b"it's $x", b"'it'\\''s $x'"),
            (b"it's\n", b"'''it'\\''s'$'\\n'"),
            (b"'\\", b"''\\''\\'"),
            (b"'\x01", b"''\\'''$'\\001'"),
            (b"\x01'", b"''$'\\001'\\'''"),
            (b"\x01\x02", b"''$'\\001\\002'"),
            (b"a b\n", b"'a b'$'\\n'"),
            (b"\\'", b"'\\'\\'''"),
            (b"~'", b"\"~'\""),
            (b"'~", b"''\\''~'"),
            (
                b"\x07\x08\x0c\r\x0b\x1b\x7f",
                b"''$'\\a\\b\\f\\r\\v\\033\\177'",
            ),
            (b"\x01a'\x01", b"'\\001''a'\\'''$'\\001'"),
            (b"a'b\x01c'\x01", b"'''a'\\''b'$'\\001''c'\\'''$'\\001'"),
            (b" '\x01", b"''' '\\'''$'\\001'"),
        ];
        for (input, want) in cases {
            assert_eq!(
                String::from_utf8_lossy(&q(input)),
                String::from_utf8_lossy(want),
                "{input:?}"
            );
        }
    }

    #[test]
    fn file_name_style() {
        // GNU cat's messages for these names, in the C locale.
        assert_eq!(quote_name(b"a=b"), "'a=b'");
        assert_eq!(quote_name(b"a:b"), "'a:b'");
        assert_eq!(quote_name(b"x,y"), "x,y");
        assert_eq!(quote_name(b"a b"), "'a b'");
        assert_eq!(quote_name(b"it's"), "\"it's\"");
        assert_eq!(quote_name(b"a'b$"), r"'a'\''b$'");
        assert_eq!(quote_name(b"x\ny\xff"), r"'x'$'\n''y'$'\377'");
        assert_eq!(quote_name(b"a'\nb"), r"'a'\'''$'\n''b'");
    }

    #[test]
    fn message_style() {
        assert_eq!(quote(b"a\nb"), b"'a\\nb'");
        assert_eq!(quote(b"it's"), b"'it\\'s'");
        assert_eq!(quote(b"a\"b"), b"'a\"b'");
        assert_eq!(quote(b"\xe91"), b"'\\3511'");
        assert_eq!(quote(b"a\\b"), b"'a\\\\b'");
        assert_eq!(quote(b"\x1b"), b"'\\033'");
    }
}
