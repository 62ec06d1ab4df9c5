//! Selector lines (`$name = SELECTOR`): values picked out of a Request, all selectors of
//! an envelope in one pass over the body.
//!
//! How a selector is read:
//! - `?name` is a query parameter of the Request URL, whatever the body: the first
//!   occurrence, percent-decoded, `+` as a space. The name is compared as written.
//! - Anything else is read according to the body's kind:
//!   - JSON body: a jq path (`.a.b`, `.items[0].id`, `.["key"]`, `."key"`, `.a[-1]`,
//!     `.a[1:3]`, `.a?`). A string gives its text (as `jq -r`), null or a missing key
//!     gives the empty string, anything else its compact JSON (as `jq -c`).
//!   - HTML body: a CSS selector (lol_html's syntax), optionally followed by ` @attr`: the
//!     text content of the first matching element, or that element's attribute.
//!   - form body (urlencoded or multipart): a field name, the text as written; the first
//!     occurrence; a file field gives the file's bytes.
//!
//!   So `.price` is a jq path for a JSON body and a CSS class selector for an HTML body,
//!   and `title` is a form field for a form and an element for HTML.
//! - At save time ([`Selectors::compile`]) every selector must make sense in some
//!   reading: one that starts with `.` must be a jq path or a CSS selector; any other must
//!   be a CSS selector unless it is a plain field name (letters, digits, `_ - . [ ]`).
//!
//! The body's kind comes from its content type; a missing one, `application/octet-stream`
//! or `text/plain` is sniffed: `{` or `[` first (after white space) is JSON, `<` is HTML,
//! `name=value&…` is a form. No match, a body of another kind, or a body that does not
//! parse gives the empty string: never an error at Request time.

pub mod form;
mod html;
mod json;

pub use form::{parse_query, percent_decode};

use crate::envelope::Selector;
use crate::error::Error;

/// A compiled set of selectors, made once per envelope version (cache it in the caller).
#[derive(Debug)]
pub struct Selectors {
    items: Vec<Item>,
}

#[derive(Debug)]
struct Item {
    var: String,
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    Query(String),
    Body {
        jq: Option<json::Path>,
        css: Option<html::Css>,
        /// The field name, for form bodies.
        field: Option<String>,
    },
}

/// What a body is, by its content type or its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    Json,
    Html,
    Urlencoded,
    Multipart,
    Other,
}

fn is_plain_field(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"_-.[]".contains(&c))
}

impl Selectors {
    /// Checks every selector's syntax; `Err(Error::Syntax { line, column, message })`
    /// with the envelope line of the bad one.
    pub fn compile(selectors: &[Selector]) -> Result<Selectors, Error> {
        let mut items = Vec::with_capacity(selectors.len());
        for sel in selectors {
            let text = sel.selector.trim();
            let err = |offset: usize, message: String| Error::Syntax {
                line: sel.line,
                column: sel.column.saturating_add(offset as u32),
                message: format!("${}: {message}", sel.var),
            };
            let kind = if let Some(name) = text.strip_prefix('?') {
                if name.is_empty() {
                    return Err(err(0, "a query parameter selector is ?NAME".into()));
                }
                Kind::Query(name.to_string())
            } else if text.starts_with('.') {
                let jq = json::parse_path(text);
                let css = html::compile(text);
                match (jq, css) {
                    (Err((at, m)), Err(c)) => {
                        return Err(err(
                            at,
                            format!("not a jq path ({m}) nor a CSS selector ({c})"),
                        ))
                    }
                    (jq, css) => Kind::Body {
                        jq: jq.ok(),
                        css: css.ok(),
                        field: None,
                    },
                }
            } else {
                let css = html::compile(text);
                match css {
                    Err(m) if !is_plain_field(text) => {
                        return Err(err(0, format!("not a CSS selector: {m}")))
                    }
                    css => Kind::Body {
                        jq: None,
                        css: css.ok(),
                        field: Some(text.to_string()),
                    },
                }
            };
            items.push(Item {
                var: sel.var.clone(),
                kind,
            });
        }
        Ok(Selectors { items })
    }

    /// Whether there are no selectors.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Picks all values in one pass. `content_type` as sent (may be None), `query` the
    /// raw query string (no '?'). One pair per selector, in order; no match gives an
    /// empty value.
    pub fn select(
        &self,
        content_type: Option<&str>,
        body: &[u8],
        query: &str,
    ) -> Vec<(String, Vec<u8>)> {
        let mut out: Vec<Option<Vec<u8>>> = vec![None; self.items.len()];
        // Query parameters.
        let queries: Vec<&str> = self
            .items
            .iter()
            .filter_map(|it| match &it.kind {
                Kind::Query(name) => Some(name.as_str()),
                Kind::Body { .. } => None,
            })
            .collect();
        if !queries.is_empty() {
            let mut found = vec![None; queries.len()];
            form::urlencoded(query.as_bytes(), &queries, &mut found);
            let mut found = found.into_iter();
            for (it, slot) in self.items.iter().zip(out.iter_mut()) {
                if let Kind::Query(_) = it.kind {
                    *slot = found.next().flatten();
                }
            }
        }
        let has_body_selectors = self
            .items
            .iter()
            .any(|it| matches!(it.kind, Kind::Body { .. }));
        if has_body_selectors && !body.is_empty() {
            let (kind, params) = body_kind(content_type, body);
            self.select_body(kind, &params, body, &mut out);
        }
        self.items
            .iter()
            .zip(out)
            .map(|(it, v)| (it.var.clone(), v.unwrap_or_default()))
            .collect()
    }

    fn select_body(
        &self,
        kind: BodyKind,
        params: &[(String, String)],
        body: &[u8],
        out: &mut [Option<Vec<u8>>],
    ) {
        let param = |name: &str| {
            params
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        match kind {
            BodyKind::Json => {
                let Some(doc) = json::Doc::parse(body) else {
                    return;
                };
                for (it, slot) in self.items.iter().zip(out.iter_mut()) {
                    if let Kind::Body { jq: Some(path), .. } = &it.kind {
                        *slot = doc.eval(path);
                    }
                }
            }
            BodyKind::Html => {
                let (idx, sels): (Vec<usize>, Vec<&html::Css>) = self
                    .items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, it)| match &it.kind {
                        Kind::Body { css: Some(c), .. } => Some((i, c)),
                        _ => None,
                    })
                    .unzip();
                if sels.is_empty() {
                    return;
                }
                let values = html::select(&sels, body, param("charset"));
                for (i, v) in idx.into_iter().zip(values) {
                    if let Some(slot) = out.get_mut(i) {
                        *slot = v;
                    }
                }
            }
            BodyKind::Urlencoded | BodyKind::Multipart => {
                let (idx, names): (Vec<usize>, Vec<&str>) = self
                    .items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, it)| match &it.kind {
                        Kind::Body { field: Some(f), .. } => Some((i, f.as_str())),
                        _ => None,
                    })
                    .unzip();
                if names.is_empty() {
                    return;
                }
                let mut found = vec![None; names.len()];
                if kind == BodyKind::Urlencoded {
                    form::urlencoded(body, &names, &mut found);
                } else if let Some(boundary) = param("boundary") {
                    form::multipart(body, boundary, &names, &mut found);
                }
                for (i, v) in idx.into_iter().zip(found) {
                    if let Some(slot) = out.get_mut(i) {
                        *slot = v;
                    }
                }
            }
            BodyKind::Other => {}
        }
    }
}

/// A content type's media type (`type/subtype`, lowercased, `""` when there is none) and
/// its parameters (names lowercased, values unquoted).
pub fn media_type(content_type: &str) -> (String, Vec<(String, String)>) {
    let (value, params) = form::parse_params(content_type.as_bytes());
    let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        lossy(&value).to_ascii_lowercase(),
        params
            .iter()
            .map(|(k, v)| (lossy(k).to_ascii_lowercase(), lossy(v)))
            .collect(),
    )
}

/// The kind of a body, and its content type's parameters.
pub fn body_kind(content_type: Option<&str>, body: &[u8]) -> (BodyKind, Vec<(String, String)>) {
    let (mt, params) = content_type.map(media_type).unwrap_or_default();
    let kind = match mt.as_str() {
        "" | "application/octet-stream" | "text/plain" => sniff(body),
        "application/json" | "text/json" | "application/x-json" => BodyKind::Json,
        "text/html" | "application/xhtml+xml" | "text/xml" | "application/xml" => BodyKind::Html,
        "application/x-www-form-urlencoded" => BodyKind::Urlencoded,
        "multipart/form-data" => BodyKind::Multipart,
        t if t.ends_with("+json") => BodyKind::Json,
        t if t.ends_with("+xml") => BodyKind::Html,
        _ => BodyKind::Other,
    };
    (kind, params)
}

/// The kind of a body without a telling content type, from its first bytes.
fn sniff(body: &[u8]) -> BodyKind {
    let b = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let start = b.iter().position(|c| !c.is_ascii_whitespace());
    match start.and_then(|i| b.get(i)) {
        Some(b'{' | b'[') => BodyKind::Json,
        Some(b'<') => BodyKind::Html,
        Some(_) if looks_urlencoded(b) => BodyKind::Urlencoded,
        _ => BodyKind::Other,
    }
}

/// `name=value&…`: printable ASCII without spaces (a final line break allowed), with a
/// `=` in the first pair after a non-empty name.
fn looks_urlencoded(b: &[u8]) -> bool {
    let b = b.trim_ascii_end();
    let first = b.split(|&c| c == b'&').next().unwrap_or_default();
    matches!(memchr::memchr(b'=', first), Some(eq) if eq > 0)
        && b.iter().all(|c| c.is_ascii_graphic())
}

#[cfg(test)]
mod tests;
