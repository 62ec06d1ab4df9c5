//! Form bodies and query strings: `application/x-www-form-urlencoded` pairs (also the
//! URL's query) and `multipart/form-data` parts (RFC 7578), each read in one pass for all
//! the names wanted.

use memchr::memmem;

/// Percent-decodes `s`, with `+` as a space (the form encoding). A `%` not followed by two
/// hex digits stays as it is.
pub fn percent_decode(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        match c {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = |k: usize| s.get(i + k).and_then(|&h| (h as char).to_digit(16));
                if let (Some(h), Some(l)) = (hex(1), hex(2)) {
                    // Two hex digits make a byte.
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                out.push(b'%');
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

/// The `name=value` pairs of a query string or urlencoded body, split on `&`, without
/// empty pairs; a pair without `=` has an empty value.
fn pairs(s: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    s.split(|&c| c == b'&')
        .filter(|p| !p.is_empty())
        .map(|p| match memchr::memchr(b'=', p) {
            Some(eq) => (&p[..eq], &p[eq + 1..]),
            None => (p, &p[p.len()..]),
        })
}

/// A query string's parameters, percent-decoded (`+` is a space), in order; bytes that are
/// not UTF-8 become U+FFFD.
pub fn parse_query(query: &str) -> Vec<(String, String)> {
    pairs(query.as_bytes())
        .map(|(k, v)| {
            (
                String::from_utf8_lossy(&percent_decode(k)).into_owned(),
                String::from_utf8_lossy(&percent_decode(v)).into_owned(),
            )
        })
        .collect()
}

/// For each wanted name, the value of its first occurrence in urlencoded `s`, decoded.
/// `out[i]` is set for `names[i]`; names already set are not looked for.
pub fn urlencoded(s: &[u8], names: &[&str], out: &mut [Option<Vec<u8>>]) {
    let mut left = out.iter().filter(|o| o.is_none()).count();
    if left == 0 {
        return;
    }
    for (k, v) in pairs(s) {
        // Most keys need no decoding; compare raw first.
        let plain = !k.iter().any(|&c| c == b'%' || c == b'+');
        let decoded;
        let key: &[u8] = if plain {
            k
        } else {
            decoded = percent_decode(k);
            &decoded
        };
        for (name, slot) in names.iter().zip(out.iter_mut()) {
            if slot.is_none() && name.as_bytes() == key {
                *slot = Some(percent_decode(v));
                left -= 1;
            }
        }
        if left == 0 {
            return;
        }
    }
}

/// For each wanted name, the content of the first part of multipart `body` whose
/// Content-Disposition names it (a file field gives the file's bytes). Parts must be
/// closed by the next delimiter; lines end with CRLF, or with LF alone when the first
/// delimiter line does.
pub fn multipart(body: &[u8], boundary: &str, names: &[&str], out: &mut [Option<Vec<u8>>]) {
    if boundary.is_empty() || boundary.len() > 200 {
        return;
    }
    let mut left = out.iter().filter(|o| o.is_none()).count();
    if left == 0 {
        return;
    }
    let mut dash = Vec::with_capacity(boundary.len() + 4);
    dash.extend_from_slice(b"--");
    dash.extend_from_slice(boundary.as_bytes());
    // The first delimiter: at the start, or after a line break that ends the preamble.
    let first = if body.starts_with(&dash) {
        0
    } else {
        match memmem::find(body, &[b"\n", dash.as_slice()].concat()) {
            Some(at) => at + 1,
            None => return,
        }
    };
    let mut i = first + dash.len();
    // The line break style, from the first delimiter line.
    let after = skip_padding(body, i);
    let crlf = match body.get(after..) {
        Some(rest) if rest.starts_with(b"\r\n") => true,
        Some(rest) if rest.starts_with(b"\n") => false,
        _ => return,
    };
    let nl: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    let delimiter = [nl, dash.as_slice()].concat();
    let finder = memmem::Finder::new(&delimiter);
    loop {
        // `i` is just after a delimiter: `--` closes, else padding and a line break.
        if body.get(i..i + 2) == Some(b"--") {
            return;
        }
        i = skip_padding(body, i);
        if !body.get(i..).is_some_and(|r| r.starts_with(nl)) {
            return;
        }
        i += nl.len();
        // Headers up to an empty line.
        let Some(rest) = body.get(i..) else { return };
        let (headers_end, content_start) = if rest.starts_with(nl) {
            (i, i + nl.len())
        } else {
            let blank = [nl, nl].concat();
            match memmem::find(rest, &blank) {
                Some(at) => (i + at, i + at + blank.len()),
                None => return,
            }
        };
        let Some(content) = body.get(content_start..) else {
            return;
        };
        let Some(len) = finder.find(content) else {
            return;
        };
        let name = body.get(i..headers_end).and_then(disposition_name);
        if let Some(name) = name {
            for (want, slot) in names.iter().zip(out.iter_mut()) {
                if slot.is_none() && want.as_bytes() == name.as_slice() {
                    *slot = Some(content[..len].to_vec());
                    left -= 1;
                }
            }
            if left == 0 {
                return;
            }
        }
        i = content_start + len + delimiter.len();
    }
}

fn skip_padding(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    i
}

/// The `name` parameter of a part's `Content-Disposition: form-data` header.
fn disposition_name(headers: &[u8]) -> Option<Vec<u8>> {
    // Unfold: a line that starts with blank space continues the one before.
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for line in headers.split(|&c| c == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        match (line.first(), lines.last_mut()) {
            (Some(b' ' | b'\t'), Some(last)) => last.extend_from_slice(line),
            _ => lines.push(line.to_vec()),
        }
    }
    for line in lines {
        let Some(colon) = memchr::memchr(b':', &line) else {
            continue;
        };
        if !line[..colon]
            .trim_ascii()
            .eq_ignore_ascii_case(b"content-disposition")
        {
            continue;
        }
        let (_, params) = parse_params(&line[colon + 1..]);
        return params
            .into_iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(b"name"))
            .map(|(_, v)| v);
    }
    None
}

/// `value; name=token; name="quoted \" string"`: the first value and the parameters
/// (names as written, values unquoted).
#[allow(clippy::type_complexity)]
pub(super) fn parse_params(s: &[u8]) -> (Vec<u8>, Vec<(Vec<u8>, Vec<u8>)>) {
    let mut i = 0;
    let end = memchr::memchr(b';', s).unwrap_or(s.len());
    let value = s[..end].trim_ascii().to_vec();
    i += end;
    let mut params = Vec::new();
    while i < s.len() {
        // At a ';'.
        i += 1;
        let name_end = s[i..]
            .iter()
            .position(|&c| c == b'=' || c == b';')
            .map_or(s.len(), |p| i + p);
        let name = s[i..name_end].trim_ascii().to_vec();
        i = name_end;
        if s.get(i) != Some(&b'=') {
            if !name.is_empty() {
                params.push((name, Vec::new()));
            }
            continue;
        }
        i += 1;
        while matches!(s.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        let mut v = Vec::new();
        if s.get(i) == Some(&b'"') {
            i += 1;
            while let Some(&c) = s.get(i) {
                i += 1;
                match c {
                    b'"' => break,
                    b'\\' => {
                        if let Some(&n) = s.get(i) {
                            v.push(n);
                            i += 1;
                        }
                    }
                    _ => v.push(c),
                }
            }
            // Skip anything up to the next ';'.
            i = memchr::memchr(b';', &s[i.min(s.len())..]).map_or(s.len(), |p| i + p);
        } else {
            let e = memchr::memchr(b';', &s[i..]).map_or(s.len(), |p| i + p);
            v.extend_from_slice(s[i..e].trim_ascii());
            i = e;
        }
        params.push((name, v));
    }
    (value, params)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(body: &[u8], names: &[&str]) -> Vec<Option<Vec<u8>>> {
        let mut out = vec![None; names.len()];
        urlencoded(body, names, &mut out);
        out
    }

    #[test]
    fn urlencoded_pairs() {
        let body = b"name=J%C3%B6rg+M%20x&price=%E2%82%AC5&name=second&flag&empty=&bad=%zz%4";
        let out = get(body, &["name", "price", "flag", "empty", "bad", "missing"]);
        assert_eq!(out[0].as_deref(), Some("Jörg M x".as_bytes()));
        assert_eq!(out[1].as_deref(), Some("€5".as_bytes()));
        assert_eq!(out[2].as_deref(), Some(&b""[..]));
        assert_eq!(out[3].as_deref(), Some(&b""[..]));
        assert_eq!(out[4].as_deref(), Some(&b"%zz%4"[..]));
        assert_eq!(out[5], None);
        // Encoded keys and bytes that are not UTF-8.
        let out = get(b"a%5Bb%5D=1&c+d=%FF", &["a[b]", "c d"]);
        assert_eq!(out[0].as_deref(), Some(&b"1"[..]));
        assert_eq!(out[1].as_deref(), Some(&b"\xff"[..]));
    }

    #[test]
    fn query() {
        assert_eq!(
            parse_query("q=a+b&x=%E2%82%AC&&y&q=2&z=%FF"),
            vec![
                ("q".into(), "a b".into()),
                ("x".into(), "€".into()),
                ("y".into(), String::new()),
                ("q".into(), "2".into()),
                ("z".into(), "\u{FFFD}".into()),
            ]
        );
        assert!(parse_query("").is_empty());
    }

    #[test]
    fn params() {
        let (v, p) = parse_params(br#" form-data; name="a \"q\" b"; filename=x.bin ;flag"#);
        assert_eq!(v, b"form-data");
        assert_eq!(
            p,
            vec![
                (b"name".to_vec(), br#"a "q" b"#.to_vec()),
                (b"filename".to_vec(), b"x.bin".to_vec()),
                (b"flag".to_vec(), b"".to_vec()),
            ]
        );
    }

    fn parts(body: &[u8], boundary: &str, names: &[&str]) -> Vec<Option<Vec<u8>>> {
        let mut out = vec![None; names.len()];
        multipart(body, boundary, names, &mut out);
        out
    }

    #[test]
    fn multipart_fields_and_files() {
        let file: &[u8] = b"\x89PNG\r\n\x1a\n\x00\xff\r\n--not-the-boundary\r\nend";
        let mut body = Vec::new();
        body.extend_from_slice(b"preamble text\r\n--XyZ \r\n");
        body.extend_from_slice(b"Content-Disposition: form-data; name=\"title\"\r\n\r\n");
        body.extend_from_slice("Hello, wörld\r\nline 2".as_bytes());
        body.extend_from_slice(b"\r\n--XyZ\r\n");
        body.extend_from_slice(
            b"content-disposition: form-data; name=\"upload\"; filename=\"a \\\"b\\\".png\"\r\n",
        );
        body.extend_from_slice(b"Content-Type: image/png\r\n\r\n");
        body.extend_from_slice(file);
        body.extend_from_slice(b"\r\n--XyZ\r\n");
        body.extend_from_slice(b"Content-Disposition: form-data;\r\n name=\"q\\\"uote\"\r\n\r\n");
        body.extend_from_slice(b"folded");
        body.extend_from_slice(b"\r\n--XyZ\r\n");
        body.extend_from_slice(b"Content-Disposition: form-data; name=\"title\"\r\n\r\nsecond");
        body.extend_from_slice(b"\r\n--XyZ--\r\nepilogue");
        let out = parts(&body, "XyZ", &["title", "upload", "q\"uote", "nope"]);
        assert_eq!(out[0].as_deref(), Some("Hello, wörld\r\nline 2".as_bytes()));
        assert_eq!(out[1].as_deref(), Some(file));
        assert_eq!(out[2].as_deref(), Some(&b"folded"[..]));
        assert_eq!(out[3], None);
    }

    #[test]
    fn multipart_lf_empty_and_broken() {
        let body = b"--b\nContent-Disposition: form-data; name=a\n\nx\n--b\nContent-Disposition: form-data; name=e\n\n\n--b--\n";
        let out = parts(body, "b", &["a", "e"]);
        assert_eq!(out[0].as_deref(), Some(&b"x"[..]));
        assert_eq!(out[1].as_deref(), Some(&b""[..]));
        // A part without its closing delimiter does not count.
        let body = b"--b\r\nContent-Disposition: form-data; name=a\r\n\r\nunfinished";
        assert_eq!(parts(body, "b", &["a"]), vec![None]);
        // No headers at all.
        let body = b"--b\r\n\r\nx\r\n--b--";
        assert_eq!(parts(body, "b", &["a"]), vec![None]);
        assert_eq!(parts(b"", "b", &["a"]), vec![None]);
        assert_eq!(parts(b"--b", "b", &["a"]), vec![None]);
        assert_eq!(parts(b"--b--", "", &["a"]), vec![None]);
    }
}
