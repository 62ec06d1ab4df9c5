//! The s3 envelope's page filter (ListObjectsV2 XML to JSON lines) on pages written the
//! ways S3 servers write them: its fast way (one scan of the page) must give what the slow
//! way (element by element) gives, and each key must come back as it was before escaping.

use mkfifo::host::FixedHost;
use mkfifo::shell::{Job, Shell};

/// The envelope's definitions: its script up to the dispatch on the method.
fn prelude() -> String {
    let envelope = include_str!("../envelopes/s3");
    let start = envelope
        .find("\nTo: -\n")
        .expect("the envelope answers the caller")
        + 7;
    let end = envelope
        .find("\ncase \"$REQUEST_METHOD\" in")
        .expect("a dispatch");
    format!(
        "S3_ENDPOINT=http://127.0.0.1:9 S3_BUCKET=bkt S3_ACCESS_KEY_ID=k S3_SECRET_ACCESS_KEY=s\n{}\n",
        &envelope[start..end]
    )
}

/// The output of `jq -Rr FILTER` (FILTER a shell word) over the page.
fn jq(filter: &str, page: &str) -> String {
    let job = Job {
        script: format!("{}\njq -Rrs {filter}\n", prelude()).into_bytes(),
        arg0: b"sh".to_vec(),
        stdin: page.as_bytes().to_vec(),
        budget: 10_000_000_000,
        ..Job::default()
    };
    let out = pollster::block_on(Shell::new().run(&FixedHost::default(), job));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

struct Style {
    /// the escapes of & < > " ' newline tab carriage return, in that order
    escapes: [&'static str; 8],
    quote: &'static str,
    /// between Key and Size: checksums (AWS), or another element order
    after_etag: &'static str,
    /// between elements: nothing, or an indentation
    space: &'static str,
}

const GO: Style = Style {
    escapes: [
        "&amp;", "&lt;", "&gt;", "&#34;", "&#39;", "&#xA;", "&#x9;", "&#xD;",
    ],
    quote: "&#34;",
    after_etag: "",
    space: "",
};
const AWS: Style = Style {
    escapes: [
        "&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#10;", "&#9;", "&#13;",
    ],
    quote: "&quot;",
    after_etag:
        "<ChecksumAlgorithm>CRC64NVME</ChecksumAlgorithm><ChecksumType>FULL_OBJECT</ChecksumType>",
    space: "",
};
/// `rclone serve s3`: indented, the ETag without quotes
const RCLONE: Style = Style {
    quote: "",
    space: "\n    ",
    ..GO
};

fn escape(key: &str, style: &Style) -> String {
    let mut out = String::new();
    for c in key.chars() {
        match "&<>\"'\n\t\r".find(c) {
            Some(i) => out.push_str(style.escapes[i]),
            None => out.push(c),
        }
    }
    out
}

const KEYS: [&str; 9] = [
    "photos/2026/a b.jpg",
    "dir/ümlaut €.txt",
    "odd/100% + #1.txt",
    "q/\"quoted\" & 'single'.md",
    "x/<tag>.html",
    "multi\nline\tand\rreturn",
    "back\\slash/emoji 😀",
    "&amp; literally",
    "end/",
];

fn page(style: &Style, keys: &[&str]) -> String {
    let s = style.space;
    let mut page = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult>");
    page += &format!("{s}<Name>bkt</Name>{s}<Prefix></Prefix>{s}<IsTruncated>false</IsTruncated>");
    for (i, key) in keys.iter().enumerate() {
        let q = style.quote;
        page += &format!(
            "{s}<Contents>{s}<Key>{}</Key>{s}<LastModified>2026-01-0{}T00:00:00.000Z</LastModified>{s}<ETag>{q}{:032x}{q}</ETag>{s}{}<Size>{}</Size>{s}<StorageClass>STANDARD</StorageClass>{s}</Contents>",
            escape(key, style),
            i % 9 + 1,
            i * 7919,
            style.after_etag,
            i * 1000,
        );
    }
    page += &format!(
        "{s}<CommonPrefixes><Prefix>photos/</Prefix></CommonPrefixes>{s}</ListBucketResult>"
    );
    page
}

/// The keys of the object lines, read back from their JSON.
fn keys(lines: &str) -> Vec<String> {
    lines
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter_map(|v| v.get("Key").map(|k| k.as_str().unwrap().to_string()))
        .collect()
}

/// The whole filter's object lines (after the token line), the slow way's, and the fast
/// way's (or "null").
fn ways(page: &str) -> (String, String, String) {
    let whole = jq("\"$page_filter\"", page);
    let objects: String = whole
        .lines()
        .skip(1)
        .filter(|l| l.contains("\"Key\""))
        .map(|l| format!("{l}\n"))
        .collect();
    (
        objects,
        jq("\"$page_defs\"'objects_slow'", page),
        jq("\"$page_defs\"'objects_fast // \"null\"'", page),
    )
}

#[test]
fn servers_pages_take_the_fast_way_and_agree_with_the_slow_one() {
    for style in [&GO, &AWS, &RCLONE] {
        let page = page(style, &KEYS);
        let (whole, slow, fast) = ways(&page);
        assert_eq!(fast.trim_end(), slow.trim_end(), "{page}");
        assert_eq!(whole, slow);
        assert_eq!(keys(&slow), KEYS);
        assert!(
            slow.contains(&format!("\"ETag\":\"{:032x}\"", 7919)),
            "{slow}"
        );
    }
}

#[test]
fn other_shapes_take_the_slow_way() {
    let reordered = Style {
        after_etag: "<Owner><ID>1</ID></Owner>",
        ..AWS
    };
    let odd_etag = Style {
        quote: "&#39;",
        ..RCLONE
    };
    // a character reference no server writes for it
    let numeric_page = page(&GO, &KEYS).replace('€', "&#x20AC;");
    for page in [
        page(&reordered, &KEYS),
        page(&odd_etag, &KEYS),
        numeric_page,
    ] {
        let (whole, slow, fast) = ways(&page);
        assert_eq!(fast, "null\n", "{page}");
        assert_eq!(whole, slow);
        assert_eq!(keys(&slow), KEYS);
    }
}

#[test]
fn an_empty_page_has_no_object_lines() {
    let page = page(&GO, &[]);
    let (whole, slow, fast) = ways(&page);
    assert_eq!(
        (whole.as_str(), slow.as_str(), fast.as_str()),
        ("", "", "\n")
    );
}
