//! Selectors over real-world-shaped bodies. JSON expectations are what jq 1.7.1 prints
//! (`jq -r`, or `jq -c` for objects and arrays) for the same path and body.

use super::*;

const PUSH: &[u8] = include_bytes!("../../../tests/select/push.json");
const STRIPE: &[u8] = include_bytes!("../../../tests/select/stripe.json");

fn list(list: &[(&str, &str)]) -> Vec<Selector> {
    list.iter()
        .enumerate()
        .map(|(i, (var, sel))| Selector {
            var: var.to_string(),
            selector: sel.to_string(),
            line: i as u32 + 1,
            column: 7,
        })
        .collect()
}

fn pick(sels: &[&str], ct: Option<&str>, body: &[u8], query: &str) -> Vec<Vec<u8>> {
    let named: Vec<(String, &str)> = sels
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("v{i}"), *s))
        .collect();
    let pairs: Vec<(&str, &str)> = named.iter().map(|(n, s)| (n.as_str(), *s)).collect();
    let compiled = Selectors::compile(&list(&pairs)).unwrap();
    let out = compiled.select(ct, body, query);
    for ((var, _), (want, _)) in out.iter().zip(&named) {
        assert_eq!(var, want);
    }
    out.into_iter().map(|(_, v)| v).collect()
}

fn pick_str(sels: &[&str], ct: Option<&str>, body: &[u8], query: &str) -> Vec<String> {
    pick(sels, ct, body, query)
        .into_iter()
        .map(|v| String::from_utf8(v).unwrap())
        .collect()
}

#[test]
fn github_push() {
    let got = pick_str(
        &[
            ".repository.full_name",
            ".head_commit.message",
            ".commits[0].author.email",
            ".pusher.name",
            ".repository.description",
            ".repository.owner",
            ".repository.private",
            ".base_ref",
            ".repository.size",
            ".commits[0].modified",
            ".commits[-1].added[0]",
            ".commits[1]",
            ".missing.x",
            ".repository.topics",
            ".commits[0].modified[1:]",
            ".head_commit.message[0:3]",
            ".commits.x",
            ".ref[0]",
            "?token",
        ],
        Some("application/json"),
        PUSH,
        "token=s3cr%C3%A9t&token=2",
    );
    assert_eq!(
        got,
        vec![
            "octocat/Hello-World",
            "Fix ünïcödé handling 🎉\n\nCloses #42",
            "zoe@example.com",
            "Zoë O’Brien",
            "My first repo — \"quoted\"",
            r#"{"name":"octocat","email":"octocat@github.com","login":"octocat","id":1}"#,
            "false",
            "",
            "0.0",
            r#"["README.md","src/lib.rs"]"#,
            "src/a.rs",
            "",
            "",
            "[]",
            r#"["src/lib.rs"]"#,
            "Fix",
            "",
            "",
            "s3crét",
        ]
    );
}

#[test]
fn stripe_event() {
    let got = pick_str(
        &[
            ".data.object.amount",
            r#".data.object.metadata["order id"]"#,
            r#".data.object.metadata."order id""#,
            ".data.object.metadata.cart",
            ".data.object.metadata.note",
            ".data.object.application_fee_amount",
            ".data.object.charges.data[0].outcome",
            ".data.object.customer",
            ".type",
            ".data.object.metadata",
        ],
        // Stripe sends a charset parameter.
        Some("application/json; charset=utf-8"),
        STRIPE,
        "",
    );
    assert_eq!(
        got,
        vec![
            "2000",
            "A-1234",
            "A-1234",
            "[1,2]",
            "café\tbar",
            "1.50",
            r#"{"risk_score":32}"#,
            "",
            "payment_intent.succeeded",
            r#"{"order id":"A-1234","cart":"[1,2]","note":"café\tbar"}"#,
        ]
    );
}

#[test]
fn json_edge_cases() {
    let j = |sel: &str, body: &str| {
        pick_str(&[sel], Some("application/json"), body.as_bytes(), "").remove(0)
    };
    // Values jq 1.7.1 printed for these bodies.
    assert_eq!(j(".", r#""top""#), "top");
    assert_eq!(
        j(".", r#" {"b":1,"a":[1E2,-0.0,1e1000]} "#),
        r#"{"b":1,"a":[1E+2,-0.0,1E+1000]}"#
    );
    assert_eq!(j(".a", r#"{"a":1,"b":2,"a":3}"#), "3");
    assert_eq!(j(".", r#"{"a":1,"b":2,"a":3}"#), r#"{"a":3,"b":2}"#);
    assert_eq!(
        j(".a", r#"{"a":"\u007f\u001f\ud83d\ude00\udc00"}"#),
        "\u{7f}\u{1f}😀\u{FFFD}"
    );
    assert_eq!(j(".", r#"["\u007f\n\"\\/"]"#), r#"["\u007f\n\"\\/"]"#);
    assert_eq!(j(".a", r#"{"a":0.00001}"#), "0.00001");
    assert_eq!(j(".a", r#"{"a":1e-7}"#), "1E-7");
    assert_eq!(j(".a", r#"{"a":123.456e-10}"#), "1.23456E-8");
    assert_eq!(
        j(".a", r#"{"a":100000000000000000001}"#),
        "100000000000000000001"
    );
    assert_eq!(j(".a", r#"{"a":true}"#), "true");
    assert_eq!(j(".[-1]", "[1,2,3]"), "3");
    assert_eq!(j(".[5]", "[1,2,3]"), "");
    assert_eq!(j(".[-2:]", "[1,2,3]"), "[2,3]");
    assert_eq!(j(".[1:][0]", "[1,2,3]"), "2");
    assert_eq!(j(".[1:][-1:]", "[1,2,3]"), "[3]");
    assert_eq!(j(".[:-1]", r#""héllo""#), "héll");
    // Not JSON, or not the whole body: empty.
    for bad in [
        r#"{"a":1"#,
        r#"{"a":01}"#,
        r#"{"a":nan}"#,
        r#"{"a":1} {"a":2}"#,
        "{\"a\":\"x\ty\"}",
        r#"{"a":"\ud800"}"#,
        r#"{"a":"\x"}"#,
        r#"{'a':1}"#,
        "",
    ] {
        assert_eq!(j(".a", bad), "", "{bad}");
    }
    // jq's depth limit: 256 arrays, or 128 objects with their keys.
    let deep = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
    assert_eq!(j(".", &deep(256)).len(), 513);
    assert_eq!(j(".", &deep(257)), "");
    let deep_obj = |n: usize| format!("{}1{}", r#"{"a":"#.repeat(n), "}".repeat(n));
    assert_eq!(j(".", &deep_obj(128)).len(), 128 * 6 + 1);
    assert_eq!(j(".", &deep_obj(129)), "");
    // Invalid UTF-8 in strings, replaced as jq does.
    let raw = |body: &[u8]| pick(&["."], Some("application/json"), body, "").remove(0);
    assert_eq!(
        raw(b"\"\xed\xa0\x80|\xc0\x80|\xe2x\""),
        "\u{FFFD}|\u{FFFD}\u{FFFD}|\u{FFFD}".as_bytes()
    );
    assert_eq!(raw(b"\xef\xbb\xbf[1]"), b"[1]");
}

const PAGE: &str = r#"<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Dune: Part Two (2024) &ndash; Tickets</title>
  <meta property="og:title" content="Dune: Part Two &amp; more">
  <meta name="description" content='Book "now"'>
  <link rel="canonical" href="https://cinema.example/dune-2">
</head>
<body>
  <header><h1 class="title">  Dune:
    <em>Part Two</em>
  </h1></header>
  <main>
    <div class="product" data-sku="D2-IMAX">
      <div class="price"><span class="currency">€</span><span class="amount">14.50</span></div>
      <div class="price sale"><span>€</span><span class="amount">9.99</span></div>
    </div>
    <ul id="showtimes"><li>18:00</li><li class="sold-out">20:30</li><li>22:45</li></ul>
    <nav><a href="/page/1">Previous</a> <a class="next" href="/page/3?sort=time&amp;dir=asc">Next &rarr;</a></nav>
  </main>
</body>
</html>"#;

#[test]
fn html_page() {
    let got = pick_str(
        &[
            "title",
            r#"meta[property="og:title"] @content"#,
            "meta[name=description] @content",
            "div.price > span.amount",
            ".sale .amount",
            "a.next @href",
            "a.next",
            "h1",
            "li.sold-out",
            "#showtimes li:nth-child(3)",
            "div.product @data-sku",
            "link[rel=canonical]@href",
            "h2",
            "?page",
        ],
        Some("text/html; charset=UTF-8"),
        PAGE.as_bytes(),
        "page=2",
    );
    assert_eq!(
        got,
        vec![
            "Dune: Part Two (2024) – Tickets",
            "Dune: Part Two & more",
            "Book \"now\"",
            "14.50",
            "9.99",
            "/page/3?sort=time&dir=asc",
            "Next →",
            "Dune:\n    Part Two",
            "20:30",
            "22:45",
            "D2-IMAX",
            "https://cinema.example/dune-2",
            "",
            "2",
        ]
    );
}

#[test]
fn html_charset() {
    let body = b"<p>caf\xe9</p>";
    assert_eq!(
        pick_str(&["p"], Some("text/html; charset=iso-8859-1"), body, ""),
        vec!["café"]
    );
    let body = b"<meta charset=windows-1252><p>\x80</p>";
    assert_eq!(pick_str(&["p"], Some("text/html"), body, ""), vec!["€"]);
}

#[test]
fn multipart_form() {
    let png: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\r\n--boundary\r\n\xff\xfe";
    let mut body = Vec::new();
    body.extend_from_slice(b"--------------------------d74496d66958873e\r\n");
    body.extend_from_slice(b"Content-Disposition: form-data; name=\"title\"\r\n\r\n");
    body.extend_from_slice("Ünïcode title\r\nsecond line".as_bytes());
    body.extend_from_slice(b"\r\n--------------------------d74496d66958873e\r\n");
    body.extend_from_slice(
        b"Content-Disposition: form-data; name=\"poster\"; filename=\"dune 2.png\"\r\nContent-Type: image/png\r\n\r\n",
    );
    body.extend_from_slice(png);
    body.extend_from_slice(b"\r\n--------------------------d74496d66958873e\r\n");
    body.extend_from_slice(b"Content-Disposition: form-data; name=\"tags[]\"\r\n\r\nscifi");
    body.extend_from_slice(b"\r\n--------------------------d74496d66958873e\r\n");
    body.extend_from_slice(b"Content-Disposition: form-data; name=\"tags[]\"\r\n\r\nimax");
    body.extend_from_slice(b"\r\n--------------------------d74496d66958873e--\r\n");
    let ct = "multipart/form-data; boundary=\"------------------------d74496d66958873e\"";
    let got = pick(
        &["title", "poster", "tags[]", "h1", ".title", "?x"],
        Some(ct),
        &body,
        "x=%2B1",
    );
    assert_eq!(got[0], "Ünïcode title\r\nsecond line".as_bytes());
    assert_eq!(got[1], png);
    assert_eq!(got[2], b"scifi");
    // `h1` as a field name does not exist; `.title` is not a field name.
    assert_eq!(got[3], b"");
    assert_eq!(got[4], b"");
    assert_eq!(got[5], b"+1");
    // No boundary: nothing.
    assert_eq!(
        pick(&["title"], Some("multipart/form-data"), &body, "")[0],
        b""
    );
}

#[test]
fn urlencoded_form() {
    let body = b"name=Jo+Smith&city=S%C3%A3o%20Paulo&price=%E2%82%AC5&name=other&note=a%2Bb%26c%3Dd&empty=&raw=%FF%00";
    let got = pick(
        &[
            "name", "city", "price", "note", "empty", "raw", "missing", "?name",
        ],
        Some("application/x-www-form-urlencoded"),
        body,
        "name=q+1",
    );
    let want: Vec<&[u8]> = vec![
        b"Jo Smith",
        "São Paulo".as_bytes(),
        "€5".as_bytes(),
        b"a+b&c=d",
        b"",
        b"\xff\x00",
        b"",
        b"q 1",
    ];
    assert_eq!(got, want);
}

#[test]
fn sniffing() {
    let s = |ct: Option<&str>, body: &str| pick_str(&[".a", "a", "p"], ct, body.as_bytes(), "");
    assert_eq!(s(None, r#" {"a":"j"}"#), vec!["j", "", ""]);
    assert_eq!(s(Some("text/plain"), "a=f&b=2\n"), vec!["", "f", ""]);
    // `.a` is a class selector for HTML.
    assert_eq!(
        s(Some("application/octet-stream"), "<p class=a>h</p>"),
        vec!["h", "", "h"]
    );
    assert_eq!(
        s(Some("application/vnd.api+json"), r#"{"a":1}"#),
        vec!["1", "", ""]
    );
    // A declared type is not second-guessed.
    assert_eq!(s(Some("text/csv"), r#"{"a":1}"#), vec!["", "", ""]);
    assert_eq!(s(Some("application/json"), "a=1"), vec!["", "", ""]);
    assert_eq!(s(None, "a = 1"), vec!["", "", ""]);
    assert_eq!(s(None, ""), vec!["", "", ""]);
}

#[test]
fn media_types() {
    assert_eq!(
        media_type("Multipart/Form-Data; Boundary=\"a b\\\"c\"; charset=utf-8"),
        (
            "multipart/form-data".to_string(),
            vec![
                ("boundary".to_string(), "a b\"c".to_string()),
                ("charset".to_string(), "utf-8".to_string())
            ]
        )
    );
    assert_eq!(media_type(""), (String::new(), vec![]));
    assert_eq!(media_type("text/html;"), ("text/html".to_string(), vec![]));
}

#[test]
fn compile_errors() {
    let err = |sel: &str| match Selectors::compile(&list(&[("x", sel)])) {
        Err(Error::Syntax {
            line,
            column,
            message,
        }) => (line, column, message),
        other => panic!("{sel}: {other:?}"),
    };
    assert_eq!(err(".a[").0, 1);
    assert_eq!(err(".a[").1, 7 + 3);
    assert_eq!(err(".a.b[\"x\"").1, 7 + 8);
    assert!(
        err(".a[]").2.contains("picks every element"),
        "{:?}",
        err(".a[]")
    );
    assert!(err("..").2.contains("many values"));
    assert!(err(".a | .b").2.starts_with("$x: not a jq path"));
    assert!(err(".a >").2.contains("nor a CSS selector"));
    assert!(err("?").2.contains("?NAME"));
    assert!(err("li:last-child").2.contains("not a CSS selector"));
    assert!(err("a + b").2.contains("not a CSS selector"));
    assert!(err("div >").2.contains("not a CSS selector"));
    for ok in [
        ".a",
        ".",
        ".a.b[0][\"c d\"].\"e\"[-1]?",
        ".a [0]",
        ".price",
        ".price > span",
        "title",
        "tags[]",
        "user[name]",
        "li:first-child",
        "a.next @href",
        "?q",
        "?a b",
        "first-name",
    ] {
        assert!(Selectors::compile(&list(&[("x", ok)])).is_ok(), "{ok}");
    }
}

#[test]
fn selectors_can_be_shared() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Selectors>();
}

#[test]
fn large_bodies() {
    // 256 KiB of JSON: the values come from anywhere in it.
    let mut json = String::from(r#"{"items":["#);
    let mut n = 0;
    while json.len() < 256 * 1024 {
        if n > 0 {
            json.push(',');
        }
        json.push_str(&format!(
            r#"{{"id":{n},"name":"item \"{n}\" é","tags":["a","b"]}}"#
        ));
        n += 1;
    }
    json.push_str(r#"],"last":true}"#);
    let got = pick_str(
        &[
            ".items[1000].name",
            ".items[-1].id",
            ".last",
            ".items[5].tags",
        ],
        Some("application/json"),
        json.as_bytes(),
        "",
    );
    assert_eq!(
        got,
        vec![
            "item \"1000\" é".to_string(),
            (n - 1).to_string(),
            "true".into(),
            r#"["a","b"]"#.into()
        ]
    );
    // 256 KiB of HTML with the match at the end.
    let mut html = String::from("<html><body><ul>");
    let mut i = 0;
    while html.len() < 256 * 1024 {
        html.push_str(&format!(
            "<li class=item><a href=\"/{i}\">Item {i}</a><p>text<p>more</li>\n"
        ));
        i += 1;
    }
    html.push_str("<li class=\"item last\"><a href=/end>The &amp; end</a></ul></body></html>");
    let got = pick_str(
        &["li.last a", "li.last a @href", "li.item a", "p"],
        Some("text/html"),
        html.as_bytes(),
        "",
    );
    assert_eq!(got, vec!["The & end", "/end", "Item 0", "text"]);
}

fn html_values(sels: &[&str], html: &str) -> Vec<String> {
    pick(sels, Some("text/html"), html.as_bytes(), "")
        .into_iter()
        .map(|v| String::from_utf8(v).unwrap())
        .collect()
}

#[test]
fn html_omitted_end_tags() {
    let one = |sel: &str, html: &str| html_values(&[sel], html).remove(0);
    let cases: &[(&str, &str, &str)] = &[
        ("p", "<p>a<p>b", "a"),
        ("p", "<p>a<div>b</div>", "a"),
        ("p", "<p>a<span>b</span><ul><li>c</ul>", "ab"),
        ("p", "<div><p>x</div>y", "x"),
        ("div", "<div><p>x</div>y", "x"),
        ("p", "<section><div><p>x<b>y</section>z", "xy"),
        ("li", "<ul><li>a<li>b</ul>", "a"),
        ("li", "<ol><li>a<ol><li>b<li>c</ol>d<li>e</ol>", "abcd"),
        ("li", "<ul><li>a<ul><li>b</ul><li>c</ul>", "ab"),
        ("li", "<ul><li>a</ul>b", "a"),
        ("td", "<table><tr><td>1<td>2</table>", "1"),
        (
            "td",
            "<table><tr><td>1<table><tr><td>2<td>3</table>4<td>5</table>",
            "1234",
        ),
        ("td", "<table><tr><td>1<th>2</table>", "1"),
        ("th", "<table><tr><th>1<tr><td>2</table>", "1"),
        ("tr", "<table><tr><td>1<td>2<tr><td>3</table>", "12"),
        (
            "tr",
            "<table><tr><td>1<table><tr><td>2</table><tbody><tr><td>3</table>",
            "12",
        ),
        ("dt", "<dl><dt>k<dd>v</dl>", "k"),
        ("dd", "<dl><dd>v<dl><dt>k<dd>w</dl>x<dt>y</dl>", "vkwx"),
        (
            "option",
            "<select><option>a<optgroup><option>b</select>",
            "a",
        ),
        ("ul li", "<ul><li>a<li>b</ul>", "a"),
        ("li, td", "<table><tr><td>1<td>2</table><ul><li>a</ul>", "1"),
        ("li:nth-child(2)", "<ul><li>a</li><li>b<li>c</ul>", "b"),
        ("[title=\"a,b\"]", "<p title=\"a,b\">x<p>y", "x"),
        ("p:not(.x)", "<p class=x>a<p>b<p>c", "b"),
    ];
    for (sel, html, want) in cases {
        assert_eq!(one(sel, html), *want, "{sel} over {html}");
    }
    // Two values, one ending where the other starts.
    assert_eq!(
        html_values(&["p", "div", "li"], "<p>a<div>b<ul><li>c<li>d</ul></div>"),
        vec!["a", "bcd", "c"]
    );
}

#[test]
fn html_entities_across_chunks() {
    // lol_html hands long text over in pieces; entities are decoded across the seams.
    for (charset, pad) in [("utf-8", "é"), ("windows-1252", "x")] {
        let mut text = String::new();
        let mut want = String::new();
        for i in 0..800 {
            text.push_str(&"ab".repeat(i % 7));
            text.push_str(pad);
            text.push_str(["&amp;", "&euro;", "&#x20AC;", "&notit;", "&lt"][i % 5]);
            want.push_str(&"ab".repeat(i % 7));
            want.push_str(pad);
            want.push_str(["&", "€", "€", "¬it;", "<"][i % 5]);
        }
        let html = format!("<div><p>{text}</div>");
        let body = match charset {
            "utf-8" => html.into_bytes(),
            _ => html.replace('€', "&euro;").into_bytes(),
        };
        let ct = format!("text/html; charset={charset}");
        let got = pick(&["p"], Some(&ct), &body, "");
        assert_eq!(
            String::from_utf8(got[0].clone()).unwrap(),
            want,
            "{charset}"
        );
    }
}

/// Number literals as jq 1.7.1 prints them (`jq -c .a`), from a table it made.
#[test]
fn numbers_print_like_jq() {
    let table = include_str!("../../../tests/select/numbers.tsv");
    let mut rows = 0;
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let (lit, want) = line.split_once('\t').unwrap();
        let body = format!("{{\"a\":{lit},\"b\":[{lit},{lit}]}}");
        let got = pick_str(&[".a", ".b"], None, body.as_bytes(), "");
        assert_eq!(got[0], want, "{lit}");
        assert_eq!(got[1], format!("[{want},{want}]"), "{lit}");
        // jq's own reader and writer print the same.
        let v = crate::jq::json::parse_one(lit).unwrap();
        assert_eq!(v.to_json(), want, "jq: {lit}");
        rows += 1;
    }
    assert!(rows > 100);
}
