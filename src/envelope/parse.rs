//! Parsing an envelope. Errors carry the line and column, so a bad envelope is refused
//! when it is saved, never when a Request arrives.
//!
//! ```text
//! # a comment
//! To: https://api.example.com/movies/$id     header: Name: value (value is a template)
//!   continued                                 folded: a line starting with blank space
//! $id = .movie.id                             selector: $name = SELECTOR
//! greeting=hello                              assignment: name=WORD
//!                                             the first blank line ends the header block
//! jq '{title: .movie.title}'                  the script
//! ```
//! A text that starts with a blank line has no headers; an empty text has neither.

use crate::error::Error;

/// A parsed envelope. Lines count from 1.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Envelope {
    pub headers: Vec<Header>,
    pub selectors: Vec<Selector>,
    pub assignments: Vec<Assignment>,
    /// The script after the blank line (may be empty).
    pub script: String,
    /// The line the script starts on, for messages about it.
    pub script_line: u32,
}

/// `Name: value`: a routing header or a header of the outgoing request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub name: String,
    /// The value as written (folded lines joined by one space): a template.
    pub value: String,
    pub line: u32,
}

/// `$name = SELECTOR`: a value picked out of the Request's body or query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    pub var: String,
    pub selector: String,
    pub line: u32,
    /// The column where the selector text starts, so that a selector's own syntax errors
    /// point into the line.
    pub column: u32,
}

/// `name=WORD`: a variable set before the script runs; the word is a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    pub name: String,
    pub word: String,
    pub line: u32,
}

impl Envelope {
    /// The value of the first header named `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value.as_str())
    }

    /// True when the envelope does nothing: the FIFO answers the body back.
    pub fn is_empty(&self) -> bool {
        self.headers.is_empty()
            && self.selectors.is_empty()
            && self.assignments.is_empty()
            && self.script.trim().is_empty()
    }
}

fn syntax(line: u32, column: u32, message: impl Into<String>) -> Error {
    Error::Syntax {
        line,
        column,
        message: message.into(),
    }
}

/// Whether `name` can be a shell variable's name.
pub fn is_var_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Parses an envelope's text.
pub fn parse(text: &str) -> Result<Envelope, Error> {
    let mut env = Envelope::default();
    let mut lines = text
        .split('\n')
        .enumerate()
        .map(|(i, l)| ((i + 1) as u32, l.strip_suffix('\r').unwrap_or(l)));
    let mut script_start = None;
    // The header being read, which folded lines continue.
    let mut open_header: Option<Header> = None;
    for (n, line) in lines.by_ref() {
        if line.trim().is_empty() {
            script_start = Some(n + 1);
            break;
        }
        if line.starts_with([' ', '\t']) {
            match open_header.as_mut() {
                Some(h) => {
                    h.value.push(' ');
                    h.value.push_str(line.trim());
                    continue;
                }
                None => return Err(syntax(n, 1, "a folded line must continue a header")),
            }
        }
        if let Some(h) = open_header.take() {
            env.headers.push(h);
        }
        if line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix('$') {
            env.selectors.push(parse_selector(n, rest)?);
        } else if let Some(h) = parse_header(n, line)? {
            open_header = Some(h);
        } else if let Some(a) = parse_assignment(n, line)? {
            env.assignments.push(a);
        } else {
            return Err(syntax(
                n,
                1,
                "expected 'Name: value', '$name = selector' or 'name=value' (the script goes after a blank line)",
            ));
        }
    }
    if let Some(h) = open_header.take() {
        env.headers.push(h);
    }
    if let Some(start) = script_start {
        let rest: Vec<&str> = lines.map(|(_, l)| l).collect();
        env.script = rest.join("\n");
        env.script_line = start;
    }
    Ok(env)
}

fn parse_selector(n: u32, rest: &str) -> Result<Selector, Error> {
    let Some((var, selector)) = rest.split_once('=') else {
        return Err(syntax(n, 1, "a selector line is '$name = SELECTOR'"));
    };
    let var = var.trim();
    if !is_var_name(var) {
        return Err(syntax(n, 2, format!("'{var}' is not a variable name")));
    }
    let eq = rest.find('=').unwrap_or(0);
    let lead = selector.len() - selector.trim_start().len();
    // `rest` starts after the `$` of column 1.
    let column = (eq + lead + 3) as u32;
    let selector = selector.trim();
    if selector.is_empty() {
        let column = (rest.find('=').unwrap_or(0) + 2) as u32;
        return Err(syntax(
            n,
            column,
            format!("the selector of ${var} is empty"),
        ));
    }
    Ok(Selector {
        var: var.to_string(),
        selector: selector.to_string(),
        line: n,
        column,
    })
}

/// `Name: value`, where a name is RFC 5322's printable ASCII without `:`; `None` when
/// the line has no such form.
fn parse_header(n: u32, line: &str) -> Result<Option<Header>, Error> {
    let Some(colon) = line.find(':') else {
        return Ok(None);
    };
    let name = &line[..colon];
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_graphic() && b != b'=') {
        return Ok(None);
    }
    let _ = n;
    Ok(Some(Header {
        name: name.to_string(),
        value: line[colon + 1..].trim().to_string(),
        line: n,
    }))
}

fn parse_assignment(n: u32, line: &str) -> Result<Option<Assignment>, Error> {
    let Some((name, word)) = line.split_once('=') else {
        return Ok(None);
    };
    if !is_var_name(name) {
        return Ok(None);
    }
    Ok(Some(Assignment {
        name: name.to_string(),
        word: word.to_string(),
        line: n,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_envelope() {
        let text = "# relay\nTo: https://api.example.com/movies/$id\nmethod: PUT\nX-Long: a\n  b\n$id = .movie.id\n$title=.movie.title\ngreeting=hello $id\n\njq '{t: .movie.title}'\n";
        let env = parse(text).unwrap();
        assert_eq!(env.header("to"), Some("https://api.example.com/movies/$id"));
        assert_eq!(env.header("Method"), Some("PUT"));
        assert_eq!(env.header("x-long"), Some("a b"));
        assert_eq!(
            env.selectors[0],
            Selector {
                var: "id".into(),
                selector: ".movie.id".into(),
                line: 6,
                column: 7
            }
        );
        assert_eq!(env.selectors[1].selector, ".movie.title");
        assert_eq!(env.selectors[1].column, 8);
        assert_eq!(
            env.assignments[0],
            Assignment {
                name: "greeting".into(),
                word: "hello $id".into(),
                line: 8
            }
        );
        assert_eq!(env.script, "jq '{t: .movie.title}'\n");
        assert_eq!(env.script_line, 10);
    }

    #[test]
    fn empty_and_script_only() {
        assert!(parse("").unwrap().is_empty());
        let env = parse("\ncat\n").unwrap();
        assert!(env.headers.is_empty());
        assert_eq!(env.script, "cat\n");
        assert_eq!(
            parse("To: -\r\n\r\necho hi\r\n").unwrap().header("to"),
            Some("-")
        );
    }

    #[test]
    fn errors_have_places() {
        let err = |t: &str| match parse(t) {
            Err(Error::Syntax { line, column, .. }) => (line, column),
            other => panic!("{other:?}"),
        };
        assert_eq!(err("To: x\njq .a\n"), (2, 1));
        assert_eq!(err("  folded\n"), (1, 1));
        assert_eq!(err("$1x = .a\n"), (1, 2));
        assert_eq!(err("$x =   \n"), (1, 4));
        assert_eq!(err("To: a\n$ = .a"), (2, 2));
    }
}

#[cfg(test)]
mod fuzz {
    use super::*;
    use crate::seeded::Rng;
    use crate::shell::Shell;

    const PIECES: &[&str] = &[
        "To: ",
        "-",
        "https://x.test/$id",
        "\n",
        "\n\n",
        " ",
        "\t",
        "$id = ",
        ".a.b",
        "?q",
        "h1 @href",
        "a=b",
        "# c\n",
        ":",
        "=",
        "$",
        "$(",
        ")",
        "${",
        "}",
        "'",
        "\"",
        "\\",
        "Reply-To: -\n",
        "\r\n",
        "cat | jq .a\n",
        "if true; then\n",
        "é",
        "\u{0}",
    ];

    #[test]
    fn envelopes_never_panic() {
        let mut rng = Rng(0x9e3779b97f4a7c15);
        let mut shell = Shell::new();
        for _ in 0..20_000 {
            let mut text = String::new();
            for _ in 0..rng.below(24) {
                text.push_str(PIECES[rng.below(PIECES.len())]);
            }
            if let Ok(env) = parse(&text) {
                // Whatever parses, the full check (selectors, script) must not panic either.
                let _ = crate::envelope::compile(&text, &mut shell);
                assert!(env.headers.iter().all(|h| !h.name.is_empty()));
            }
        }
    }
}
