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

/// The whole filter's object lines (after the token line), the slow way's objects, and the
/// fast way's (or "null"), as JSON.
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
        jq("\"$page_defs\"'[objects_slow] | tojson'", page),
        jq("\"$page_defs\"'objects_fast | tojson'", page),
    )
}

/// The lsjson text of one page the two ways the envelope makes it: a page at a time
/// (page_lsjson_filter, in brackets as the route puts them), and from the page filter's
/// lines (lsjson_filter).
fn lsjson_ways(page: &str, prefix: &str) -> (String, String) {
    let by_page = jq(
        &format!("--arg prefix '{prefix}' \"$page_lsjson_filter\" | tail -n +2 | grep -v '^+$'"),
        page,
    );
    let by_page = if by_page.is_empty() {
        "[\n]\n".to_string()
    } else {
        format!("[\n{by_page}]\n")
    };
    let by_lines = jq(
        &format!(
            "\"$page_filter\" | tail -n +2 | jq -rs --arg prefix '{prefix}' --argjson recursive false \
             --arg now 2026-01-01T00:00:00.000000000Z \"$lsjson_filter\""
        ),
        page,
    );
    (by_page, by_lines)
}

#[test]
fn servers_pages_take_the_fast_way_and_agree_with_the_slow_one() {
    for style in [&GO, &AWS, &RCLONE] {
        let page = page(style, &KEYS);
        let (whole, slow, fast) = ways(&page);
        assert_eq!(fast, slow, "{page}");
        assert_eq!(keys(&whole), KEYS);
        assert!(
            whole.contains(&format!("\"ETag\":\"{:032x}\"", 7919)),
            "{whole}"
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
        assert_ne!(slow, "[]\n");
        assert_eq!(keys(&whole), KEYS);
    }
}

#[test]
fn an_empty_page_has_no_object_lines() {
    let page = page(&GO, &[]);
    let (whole, slow, fast) = ways(&page);
    assert_eq!(
        (whole.as_str(), slow.as_str(), fast.as_str()),
        ("", "[]\n", "[]\n")
    );
}

#[test]
fn a_page_at_a_time_lists_as_the_page_filters_lines_do() {
    let reordered = Style {
        after_etag: "<Owner><ID>1</ID></Owner>",
        ..AWS
    };
    // The page of a listing with delimiter /: no key holds a / after the prefix (those
    // are rolled up into the common prefixes), so a name is its key after the prefix. A
    // file and the directory photos share a name; photos-x.jpg is after photos/ in keys,
    // before it in names.
    let flat: Vec<String> = KEYS
        .iter()
        .map(|k| k.replace('/', "_"))
        .chain(["photos-x.jpg".into(), "photos".into()])
        .collect();
    let flat: Vec<&str> = flat.iter().map(String::as_str).collect();
    let numeric_page = page(&GO, &flat).replace('€', "&#x20AC;");
    for page in [
        page(&GO, &flat),
        page(&AWS, &flat),
        page(&RCLONE, &flat),
        page(&reordered, &flat),
        numeric_page,
        page(&GO, &[]),
    ] {
        let (by_page, by_lines) = lsjson_ways(&page, "");
        assert_eq!(by_page, by_lines, "{page}");
        assert!(by_lines.contains("\"Name\":\"photos\""), "{by_lines}");
    }
    let (by_page, _) = lsjson_ways(&page(&GO, &flat), "");
    let names: Vec<_> = by_page
        .split("\"Name\":\"")
        .skip(1)
        .map(|e| &e[..e.find('"').unwrap()])
        .filter(|n| n.starts_with("photos"))
        .collect();
    assert_eq!(
        names,
        ["photos", "photos", "photos-x.jpg", "photos_2026_a b.jpg"],
        "{by_page}"
    );
    assert!(
        by_page.contains(
            "\"Name\":\"photos\",\"Size\":10000,\"MimeType\":\"application/octet-stream\""
        ),
        "a file before the directory of its name: {by_page}"
    );
    // the directory's own key is left out, and names are cut after the prefix
    let page = page(&RCLONE, &["d/", "d/x \u{0026} y.json", "d/Z.TXT"])
        .replace("<Prefix>photos/</Prefix>", "<Prefix>d/sub/</Prefix>");
    let (by_page, by_lines) = lsjson_ways(&page, "d/");
    assert_eq!(by_page, by_lines);
    assert!(
        by_page.contains("\"Path\":\"x \\u0026 y.json\",\"Name\":\"x \\u0026 y.json\""),
        "{by_page}"
    );
    assert!(by_page.contains("\"MimeType\":\"text/plain; charset=utf-8\""));
    assert!(!by_page.contains("\"Path\":\"\""), "{by_page}");
}

#[test]
fn pages_of_one_listing_are_sorted_again_together() {
    // S3's order of keys is not lsjson's order of names: raw-x.jpg comes before the prefix
    // raw/ (- before /), but the directory raw before raw-x.jpg
    let first = "<ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>t1</NextContinuationToken>\
        <Contents><Key>d/a.jpg</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified><ETag>&#34;00&#34;</ETag><Size>1</Size></Contents>\
        <Contents><Key>d/raw-x.jpg</Key><LastModified>2026-01-01T00:00:00.12Z</LastModified><ETag>&#34;01&#34;</ETag><Size>2</Size></Contents>\
        </ListBucketResult>";
    let last = "<ListBucketResult><IsTruncated>false</IsTruncated>\
        <CommonPrefixes><Prefix>d/raw/</Prefix></CommonPrefixes>\
        <Contents><Key>d/z.txt</Key><LastModified>2026-01-01T00:00:00Z</LastModified><ETag>&#34;02&#34;</ETag><Size>3</Size></Contents>\
        </ListBucketResult>";
    let page_lines = |page: &str| jq("--arg prefix d/ \"$page_lsjson_filter\" | tail -n +2", page);
    let (first_lines, last_lines) = (page_lines(first), page_lines(last));
    assert!(first_lines.ends_with("\n+\n"), "{first_lines}");
    assert!(!last_lines.contains('+'), "{last_lines}");
    let merged = jq(
        "--arg prefix d/ \"$lsjson_merge_filter\"",
        &format!("{first_lines}{last_lines}"),
    );
    let objects = |page: &str| jq("\"$page_filter\" | tail -n +2", page);
    let by_lines = jq(
        "'split(\"\\n\") | map(select(. != \"\") | fromjson)' | jq -r --arg prefix d/ --argjson recursive false \
         --arg now 2026-01-01T00:00:00.000000000Z \"$lsjson_filter\"",
        &format!("{}{}", objects(first), objects(last)),
    );
    assert_eq!(merged, by_lines);
    let names: Vec<_> = merged
        .match_indices("\"Name\":")
        .map(|(i, _)| &merged[i + 8..i + 12])
        .collect();
    assert_eq!(names, ["a.jp", "raw\"", "raw-", "z.tx"], "{merged}");
}
