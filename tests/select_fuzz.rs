//! Selectors never panic: random bytes, mutated bodies of every kind, random content
//! types and random selector texts, from a seeded generator (about 100k cases).

use mkfifo::envelope::{media_type, parse_query, Selector, Selectors};
use mkfifo::seeded::Rng;

const SEEDS: &[&str] = &[
    r#"{"a":{"b":[1,"x\u00e9\ud83d\ude00",{"c d":null}]},"n":-1.5e10,"s":"\\\"","a":[[],{}]}"#,
    r#"[{"id":1,"tags":["x","y"]},{"id":2.50,"tags":[]}]"#,
    "<!doctype html><html><head><title>T &amp; t</title><meta property=\"og:title\" content=\"x&lt;\"></head><body><div class=price><span>1</span></div><p>a<p>b<ul><li>x<li>y</ul><table><tr><td>1<td>2</table><a href=/n>n</a><script>if(a<b)</script><!-- c --><svg><title>s</title></svg><select><option>o<option>p</select></body></html>",
    "a=1&b=%E2%82%AC&c=x+y&a=2&d&=e&%zz=%",
    "--XX\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue\r\n--XX\r\nContent-Disposition: form-data; name=\"f\"; filename=\"f.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n\x00\x01\r\n--X\r\n--XX--\r\n",
];

const TYPES: &[&str] = &[
    "application/json",
    "application/json; charset=utf-8",
    "text/html",
    "text/html; charset=iso-8859-1",
    "text/html; charset=utf-16",
    "text/html; charset=bogus",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=XX",
    "multipart/form-data; boundary=\"XX\"",
    "multipart/form-data; boundary=",
    "multipart/form-data",
    "text/plain",
    "application/octet-stream",
    "application/ld+json",
    "application/rss+xml",
    "",
    ";;;",
    "text/html; charset=\"",
    "\u{0}/\u{ff}",
];

const SELECTORS: &[&str] = &[
    ".",
    ".a",
    ".a.b[1]",
    ".a.b[2][\"c d\"]",
    ".a[-1]",
    ".a[1:]",
    ".[0].tags[-1:]",
    ".n",
    ".s[0:1]",
    "title",
    "meta[property=\"og:title\"] @content",
    "div.price > span",
    "p",
    "li",
    "td",
    "option",
    "a @href",
    "svg title",
    "a",
    "f",
    "?a",
    "?b",
    ".price",
    "*",
    "li:nth-child(2)",
    ":not(p)",
];

fn mutate(rng: &mut Rng, body: &mut Vec<u8>) {
    for _ in 0..rng.below(4) {
        if body.is_empty() {
            body.push(rng.next_u64() as u8);
            continue;
        }
        let at = rng.below(body.len());
        match rng.below(5) {
            0 => body[at] = rng.next_u64() as u8,
            1 => {
                body.remove(at);
            }
            2 => body.insert(
                at,
                *b"{}[]\"\\<>/&;=%\r\n-:,".get(rng.below(18)).unwrap_or(&0),
            ),
            3 => body.truncate(at),
            _ => {
                let end = (at + rng.below(16)).min(body.len());
                let chunk = body[at..end].to_vec();
                let to = rng.below(body.len());
                body.splice(to..to, chunk);
            }
        }
    }
}

fn random_text(rng: &mut Rng) -> String {
    const ALPHABET: &[u8] = b".[]\"\\:?@ >+~*#=-_abc019()|,'$";
    let len = rng.below(12);
    let mut s: String = (0..len)
        .map(|_| ALPHABET[rng.below(ALPHABET.len())] as char)
        .collect();
    if rng.chance(10) {
        s.push('\u{e9}');
    }
    s
}

#[test]
fn never_panics() {
    let mut rng = Rng(0x0123_4567_89AB_CDEF);
    let cases = 100_000;
    let mut compiled = 0;
    for case in 0..cases {
        let mut body: Vec<u8> = if rng.chance(15) {
            (0..rng.below(200)).map(|_| rng.next_u64() as u8).collect()
        } else {
            SEEDS[rng.below(SEEDS.len())].as_bytes().to_vec()
        };
        mutate(&mut rng, &mut body);
        let ct = if rng.chance(10) {
            None
        } else {
            Some(TYPES[rng.below(TYPES.len())])
        };
        let n = 1 + rng.below(4);
        let list: Vec<Selector> = (0..n)
            .map(|i| Selector {
                var: format!("v{i}"),
                selector: if rng.chance(20) {
                    random_text(&mut rng)
                } else {
                    SELECTORS[rng.below(SELECTORS.len())].to_string()
                },
                line: 1,
                column: 1,
            })
            .collect();
        let query = String::from_utf8_lossy(&body[..body.len().min(40)]).into_owned();
        let Ok(sels) = Selectors::compile(&list) else {
            continue;
        };
        compiled += 1;
        let out = sels.select(ct, &body, &query);
        assert_eq!(out.len(), n, "case {case}");
        if case % 16 == 0 {
            let _ = parse_query(&query);
            let _ = media_type(&query);
        }
    }
    assert!(compiled > cases / 2);
}
