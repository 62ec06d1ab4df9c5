//! Unit tests of `date`, with expected outputs from GNU date 9.1 (clock frozen at the epoch
//! where the answer depends on it, as `testing::run` has it).

use crate::budget::Budget;
use crate::builtins::testing::{run, run_with, Ran};
use crate::builtins::VarList;

fn date(args: &[&str]) -> Ran {
    let mut argv = vec!["date"];
    argv.extend_from_slice(args);
    run(&argv, b"").unwrap()
}

fn date_tz(tz: &str, args: &[&str]) -> Ran {
    let mut argv = vec!["date"];
    argv.extend_from_slice(args);
    let vars = VarList(vec![(b"TZ".to_vec(), tz.as_bytes().to_vec())]);
    run_with(&argv, b"", &vars, &Budget::default()).unwrap()
}

fn out(r: &Ran) -> &str {
    std::str::from_utf8(&r.stdout).unwrap()
}

#[test]
fn now_and_default_format() {
    assert_eq!(out(&date(&[])), "Thu Jan  1 00:00:00 UTC 1970\n");
    assert_eq!(
        out(&date_tz("Europe/Berlin", &[])),
        "Thu Jan  1 01:00:00 CET 1970\n"
    );
    assert_eq!(out(&date(&["-u", "+%s %N"])), "0 000000000\n");
}

#[test]
fn relative_to_now() {
    let f = "+%F %T %Z";
    assert_eq!(
        out(&date(&["-d", "tomorrow", f])),
        "1970-01-02 00:00:00 UTC\n"
    );
    assert_eq!(
        out(&date(&["-d", "next friday", f])),
        "1970-01-02 00:00:00 UTC\n"
    );
    assert_eq!(out(&date(&["-d", "3pm", f])), "1970-01-01 15:00:00 UTC\n");
    assert_eq!(
        out(&date(&["-d", "last month", f])),
        "1969-12-01 00:00:00 UTC\n"
    );
    let r = date(&["-d", "noon"]);
    assert_eq!(r.status, 1);
    assert_eq!(r.stderr_str(), "date: invalid date 'noon'\n");
}

#[test]
fn input_formats() {
    let f = "+%F %T.%N %z";
    for (s, want) in [
        (
            "2026-11-30T01:02:03+01:00",
            "2026-11-30 00:02:03.000000000 +0000",
        ),
        (
            "2026-11-30 01:02:03.123456789 +0100",
            "2026-11-30 00:02:03.123456789 +0000",
        ),
        (
            "Mon, 30 Nov 2026 02:25:00 -0500",
            "2026-11-30 07:25:00.000000000 +0000",
        ),
        (
            "Mon Nov 30 02:25:00 UTC 2026",
            "2026-11-30 02:25:00.000000000 +0000",
        ),
        ("@-1.5", "1969-12-31 23:59:58.500000000 +0000"),
        ("30-Nov-26 3:30 p.m.", "2026-11-30 15:30:00.000000000 +0000"),
        (
            "11/30/2026 12:00 +1 day",
            "2026-12-01 11:00:00.000000000 +0000",
        ),
        ("2026-01-31 1 month", "2026-03-03 00:00:00.000000000 +0000"),
        (
            "TZ=\"Asia/Tokyo\" 2026-11-30 12:00",
            "2026-11-30 03:00:00.000000000 +0000",
        ),
        (
            "2026-11-30 12:00 EST DST",
            "2026-11-30 16:00:00.000000000 +0000",
        ),
    ] {
        assert_eq!(out(&date(&["-d", s, f])), format!("{want}\n"), "{s}");
    }
    for bad in [
        "2026-02-29",
        "24:00",
        "1 day, 2 hours",
        "2026-11-30T12",
        "J",
    ] {
        assert_eq!(date(&["-d", bad]).status, 1, "{bad}");
    }
}

#[test]
fn time_zones() {
    let f = "+%F %T %z %Z";
    let berlin = |d: &str| out(&date_tz("Europe/Berlin", &["-d", d, f])).to_string();
    assert_eq!(berlin("2026-03-29 02:30"), "");
    assert_eq!(
        berlin("2026-10-25 02:30"),
        "2026-10-25 02:30:00 +0100 CET\n"
    );
    assert_eq!(
        berlin("2026-10-25 02:30 CEST"),
        "2026-10-25 02:30:00 +0200 CEST\n"
    );
    assert_eq!(
        berlin("2026-03-28 02:30 +1 day"),
        "2026-03-29 04:30:00 +0200 CEST\n"
    );
    for (tz, want) in [
        ("EST5EDT,M3.2.0,M11.1.0", "2026-07-01 12:00:00 -0400 EDT\n"),
        ("<+03>-3", "2026-07-01 12:00:00 +0300 +03\n"),
        ("Foo/Bar", "2026-07-01 12:00:00 +0000 Foo\n"),
        (":Europe/Berlin", "2026-07-01 12:00:00 +0200 CEST\n"),
    ] {
        assert_eq!(
            out(&date_tz(tz, &["-d", "2026-07-01 12:00", f])),
            want,
            "{tz}"
        );
    }
}

#[test]
fn formats() {
    let d = ["-d", "@1000000000.05"];
    let fmt = |f: &str| {
        let mut a = d.to_vec();
        a.push(f);
        out(&date(&a)).to_string()
    };
    assert_eq!(
        fmt("+%10a|%010a|%-10a|%^10A|%#a"),
        "       Sun|0000000Sun|Sun|    SUNDAY|SUN\n"
    );
    assert_eq!(
        fmt("+%N|%3N|%-3N|%_N|%:z|%::z|%:::z"),
        "050000000|050|05|05       |+00:00|+00:00:00|+00\n"
    );
    assert_eq!(
        fmt("+%12%x|%_:%X|%6K|%4Od|%Q"),
        "         %1209/09/01|%_:01:46:40|   %6K|  09|%Q\n"
    );
    assert_eq!(
        fmt("+%G-W%V-%u %j %U %W %C %y %q %s"),
        "2001-W36-7 252 36 36 20 01 3 1000000000\n"
    );
    assert_eq!(
        out(&date(&["-d", "@253402300800", "+%F|%Y|%+5Y|%c"])),
        "+10000-01-01|10000|+10000|Sat Jan  1 00:00:00 10000\n"
    );
}

#[test]
fn output_options() {
    let d = ["-d", "2026-11-30 02:25:00.123456789"];
    let with = |o: &str| {
        let mut a = d.to_vec();
        a.push(o);
        out(&date_tz("Asia/Kolkata", &a)).to_string()
    };
    assert_eq!(with("-R"), "Mon, 30 Nov 2026 02:25:00 +0530\n");
    assert_eq!(with("-Ins"), "2026-11-30T02:25:00,123456789+05:30\n");
    assert_eq!(with("-Ih"), "2026-11-30T02+05:30\n");
    assert_eq!(with("--rfc-3339=seconds"), "2026-11-30 02:25:00+05:30\n");
    let r = date(&["-R", "-I"]);
    assert_eq!(
        (r.status, r.stderr_str()),
        (1, "date: multiple output formats specified\n".into())
    );
}

#[test]
fn dates_from_stdin() {
    let r = run(&["date", "-f", "-", "+%s"], b"@5\njunk\n2026-01-01\n").unwrap();
    assert_eq!(r.status, 1);
    assert_eq!(out(&r), "5\n1767225600\n");
    assert_eq!(r.stderr_str(), "date: invalid date 'junk'\n");
}

#[test]
fn never_sets_the_clock() {
    let r = date(&["-s", "2020-01-01"]);
    assert_eq!(r.status, 1);
    let r = date(&["1130"]);
    assert_eq!(r.status, 1);
}

#[test]
fn steps_are_spent() {
    let budget = Budget::new(3);
    let r = run_with(&["date", "-d", "@0"], b"", &VarList::default(), &budget);
    assert!(r.is_err());
}

/// A small deterministic generator for the no-panic tests.
use crate::seeded::Rng;

#[test]
fn no_panic_on_odd_input() {
    let pieces = [
        "@",
        "-",
        "+",
        ":",
        ".",
        ",",
        "/",
        "(",
        ")",
        " ",
        "T",
        "9223372036854775807",
        "99999999999999999999",
        "2147483647",
        "0",
        "1",
        "12",
        "2026",
        "99999",
        "-1",
        "am",
        "pm",
        "jan",
        "sept",
        "monday",
        "next",
        "last",
        "ago",
        "hence",
        "day",
        "fortnight",
        "year",
        "sec",
        "UTC",
        "EST",
        "DST",
        "Z",
        "J",
        "CET",
        "TZ=\"",
        "\"",
        "\\",
        "\u{e9}",
        "\u{ff}",
        "tomorrow",
        "third",
        "1.5",
        "-0.000000001",
        "2026-02-31",
        "24:00",
    ];
    let zones = [
        "UTC",
        "Europe/Berlin",
        "Pacific/Chatham",
        "EST5EDT,M3.2.0,M11.1.0",
        "Foo",
    ];
    let formats = [
        "+%c",
        "+%99N",
        "+%-:z",
        "+%:::::z",
        "+%^#Ec%OY",
        "+%+99Y",
        "+%_-0^#G%g%V",
        "+%",
        "+%%%",
        "+%10",
        "+%s%C%y",
        "+%3:z",
        "+%#Z%^P",
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..3000 {
        let n = 1 + rng.next_u64() % 8;
        let s: String = (0..n)
            .map(|_| rng.pick(&pieces))
            .collect::<Vec<_>>()
            .join(" ");
        let tz = rng.pick(&zones);
        let f = rng.pick(&formats);
        let r = date_tz(tz, &["-d", &s, f]);
        assert!(r.status == 0 || r.status == 1, "{s:?}");
    }
    for e in [
        "@9223372036854775807",
        "@-9223372036854775808",
        "@67767976233316800",
    ] {
        let r = date(&["-d", e, "+%F %T %z %c"]);
        assert!(r.status == 0 || r.status == 1);
    }
}
