//! The shell end to end: scripts run through `Shell::run` with a fixed host.

use mkfifo::host::FixedHost;
use mkfifo::shell::{Job, Outcome, Shell, STEP_LIMIT_STATUS};
use mkfifo::Error;

fn run_with(shell: &mut Shell, script: &str, stdin: &str, budget: u64) -> Outcome {
    let job = Job {
        script: script.as_bytes().to_vec(),
        arg0: b"sh".to_vec(),
        stdin: stdin.as_bytes().to_vec(),
        budget,
        max_subrequests: 10,
        ..Job::default()
    };
    pollster::block_on(shell.run(&FixedHost::default(), job))
}

fn run(script: &str) -> Outcome {
    run_with(&mut Shell::new(), script, "", 1_000_000)
}

fn out(script: &str) -> String {
    let o = run(script);
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn quoting_and_expansions() {
    assert_eq!(
        out(r#"x='a  b'; printf '[%s]' $x "$x"; printf '\n'"#),
        "[a][b][a  b]\n"
    );
    assert_eq!(
        out(r#"printf '%s\n' "a\"b" 'c\d' e\ f"#),
        "a\"b\nc\\d\ne f\n"
    );
    assert_eq!(
        out(r#"set -- a 'b c'; printf '<%s>' "$@"; printf '<%s>' $@; printf '<%s>' "$*""#),
        "<a><b c><a><b><c><a b c>"
    );
    assert_eq!(out(r#"set --; printf '<%s>' "$@" x"#), "<x>");
    assert_eq!(
        out(r#"x=abcabc; echo ${x#*b} ${x##*b} ${x%b*} ${x%%b*} ${#x}"#),
        "cabc c abca a 6\n"
    );
    assert_eq!(
        out(r#"echo ${u:-d} ${u-e} ${u:+f}x "${u:=g}" $u"#),
        "d e x g g\n"
    );
    assert_eq!(
        out(r#"x=hello; echo ${x/l/L} ${x//l/L} ${x:1:3} ${x^^}"#),
        "heLlo heLLo ell HELLO\n"
    );
    assert_eq!(out("echo a\\\nb"), "ab\n");
    assert_eq!(out("echo $'a\\tb'"), "a\tb\n");
}

#[test]
fn field_splitting() {
    assert_eq!(out(r#"IFS=:; x='a::b:'; set -- $x; echo $#"#), "3\n");
    assert_eq!(out(r#"IFS=' :'; x=' :b'; set -- $x; echo $#"#), "2\n");
    assert_eq!(out(r#"IFS=; x='a b'; set -- $x; echo $#"#), "1\n");
    assert_eq!(out(r#"x='  a  '; set -- $x; echo $#"#), "1\n");
}

#[test]
fn control_flow() {
    assert_eq!(out("for i in 1 2 3; do if case $i in 2) true;; *) false;; esac; then continue; fi; echo $i; done"), "1\n3\n");
    assert_eq!(
        out("i=0; while case $i in 3) false;; esac; do i=$((i+1)); done; echo $i"),
        "3\n"
    );
    assert_eq!(
        out("i=0; until case $i in 3) true;; *) false;; esac; do i=$((i+1)); done; echo $i"),
        "3\n"
    );
    assert_eq!(
        out("case x.txt in *.md) echo md;; *.txt|*.text) echo txt;; esac"),
        "txt\n"
    );
    assert_eq!(out("f() { return 4; }; f; echo $?"), "4\n");
    assert_eq!(
        out("true && echo a || echo b; false && echo c || echo d"),
        "a\nd\n"
    );
    assert_eq!(out("! false; echo $?"), "0\n");
    assert_eq!(
        out("for i in 1 2; do for j in 1 2; do break 2; done; done; echo $i$j"),
        "11\n"
    );
}

#[test]
fn subshells_do_not_leak() {
    assert_eq!(
        out("x=1; (x=2; f() { :; }); echo $x; command -v f || echo none"),
        "1\nnone\n"
    );
    assert_eq!(out("x=1; echo $(x=2; echo $x) $x"), "2 1\n");
    assert_eq!(out("echo a | read v; echo \"[$v]\""), "[]\n");
    assert_eq!(out("x=1; echo a | x=2; echo $x"), "1\n");
}

#[test]
fn read_and_heredocs() {
    let o = run_with(
        &mut Shell::new(),
        "read a b; read c; echo \"$b|$a|$c\"",
        "1 2 3\nx\n",
        10_000,
    );
    assert_eq!(o.stdout, b"2 3|1|x\n");
    assert_eq!(out("x=v; cat <<EOF\n$x \\$x\nEOF"), "v $x\n");
    assert_eq!(out("cat <<'EOF'\n$x\nEOF"), "$x\n");
    assert_eq!(out("cat <<-EOF\n\t\ta\n\tEOF"), "a\n");
    assert_eq!(
        out("while read l; do echo \"<$l>\"; done <<EOF\na\nb\nEOF"),
        "<a>\n<b>\n"
    );
}

#[test]
fn statuses_and_errors() {
    let o = run("nosuchcmd");
    assert_eq!(o.status, 127);
    assert_eq!(o.stderr, b"sh: line 1: nosuchcmd: command not found\n");
    let o = run("echo a\nif; then");
    assert_eq!(o.status, 2);
    assert_eq!(o.stdout, b"a\n");
    assert!(matches!(o.error, Some(Error::Syntax { line: 2, .. })));
    let o = run("echo $((1/0)); echo after");
    assert_eq!((o.status, o.stdout.as_slice()), (1, &b""[..]));
    let o = run("echo x > file; echo $?");
    assert_eq!(o.stdout, b"1\n");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("file: cannot open: there is no file system")
    );
    assert_eq!(run("exit 300").status, 44);
    assert_eq!(run("set -e; false; echo no").status, 1);
    assert_eq!(run("set -e; false || true; echo yes").stdout, b"yes\n");
    assert_eq!(run("set -u; echo $nope").status, 127);
}

/// Runs `f` on a thread with a stack like wasm's (about 1 MiB) in an optimized build; a
/// debug build's frames are many times larger.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let stack = if cfg!(debug_assertions) {
        256 << 20
    } else {
        1 << 20
    };
    std::thread::Builder::new()
        .stack_size(stack)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn bad_input_never_panics() {
    on_small_stack(bad_input);
}

fn bad_input() {
    let scripts = [
        "echo 'abc",
        "echo \"abc",
        "echo $(",
        "echo $((",
        "echo ${",
        "echo ${x",
        "echo `",
        "(",
        ")",
        "{",
        "}",
        "if",
        "then",
        "fi",
        "case",
        "case x in",
        "case x in a)",
        "for",
        "for 1 in",
        "while",
        "do",
        "done",
        ";;",
        "|",
        "&&",
        "a |",
        "a &&",
        "f() ",
        "f() {",
        "${x:?}",
        "$((1/0))",
        "$((1%0))",
        "$((-))",
        "$((08))",
        "$((0x))",
        "$(((((((",
        "<<EOF",
        "cat <<",
        ">",
        "2>&",
        "x=$(",
        "echo ${#",
        "echo ${x/",
        "echo ${x:",
        "$'\\",
        "echo \\",
        "\\",
        "'",
        "\"",
        "`",
        "break 0",
        "shift -1",
        "read -n",
        "set -o nope",
        "exit x",
        "return",
        "local x",
        "f() { f; }; f",
        "eval 'if'",
        "sh -c 'exit 3'; echo $?",
        "${x:-${y:-${z",
        "echo $((1 ? : 2))",
        "echo $((2**-1))",
        "echo ${x:1:-5}",
        "x=abc; echo ${x:5:-1}",
        "echo ${x: -9999999999999999999}",
    ];
    let mut shell = Shell::new();
    for s in scripts {
        let o = run_with(&mut shell, s, "", 100_000);
        assert!(o.status >= 0, "{s}");
    }
    // Deep nesting is refused or run, never a stack overflow.
    for (open, close) in [
        ("(", ")"),
        ("{ ", "; }"),
        ("$(", ")"),
        ("\"$(", ")\""),
        ("${x:-", "}"),
        ("$((", "))"),
    ] {
        let s = format!("{}echo{}", open.repeat(5000), close.repeat(5000));
        let o = run_with(&mut shell, &s, "", 100_000);
        assert_ne!(o.status, 0, "{open}");
    }
}

#[test]
fn steps_are_exact() {
    let scripts = [
        "echo a",
        "x=1; y=2; echo $x $y | cat",
        "for i in 1 2 3; do echo $i; done",
        "f() { echo $1; }; f a; f b",
        "i=0; while case $i in 5) false;; esac; do i=$((i+1)); done",
        "echo $(echo a) $(echo b)",
        "(echo a; echo b) | cat",
        "case a in a) echo yes;; esac",
    ];
    let mut shell = Shell::new();
    for s in scripts {
        let full = run_with(&mut shell, s, "", 1_000_000);
        assert_eq!(full.status, 0, "{s}");
        let n = full.steps;
        assert!(n > 0);
        let exact = run_with(&mut shell, s, "", n);
        assert_eq!(
            (exact.status, exact.error, exact.steps),
            (0, None, n),
            "{s} with {n}"
        );
        let short = run_with(&mut shell, s, "", n - 1);
        assert_eq!(short.status, STEP_LIMIT_STATUS, "{s} with {}", n - 1);
        assert_eq!(short.error, Some(Error::StepLimit { limit: n - 1 }));
    }
    let n = run("echo a").steps;
    assert_eq!(n, 1 + 1);
}

#[test]
fn runaways_stop() {
    on_small_stack(runaways);
}

fn runaways() {
    for s in [
        "while true; do :; done",
        "while :; do echo x; done | cat",
        "until false; do :; done",
    ] {
        let o = run_with(&mut Shell::new(), s, "", 100_000);
        assert_eq!(o.status, STEP_LIMIT_STATUS, "{s}");
        assert_eq!(o.error, Some(Error::StepLimit { limit: 100_000 }));
        assert_eq!(o.stderr, b"sh: step limit of 100000 steps exceeded\n");
    }
    // Recursion hits the depth limit first, and never the end of the stack.
    let o = run_with(&mut Shell::new(), "f() { f; }; f", "", 100_000);
    assert_eq!(o.status, 1);
    assert!(matches!(o.error, Some(Error::Fatal(_))));
    let o = run_with(&mut Shell::new(), "f() { echo $(f); }; f", "", 100_000);
    assert!(matches!(o.error, Some(Error::Fatal(_))));
}

/// The depth limit leaves room on a small stack (wasm's is about 1 MiB).
#[test]
fn recursion_fits_a_small_stack() {
    let (status, used) = on_small_stack(|| {
        let mut shell = Shell::new();
        let s = "f() { x=$(f); }; f; g() { ( g ); }; g";
        let status = run_with(&mut shell, s, "", 1_000_000).status;
        let s = "f() { if true; then while true; do { case x in x) f;; esac; }; done; fi; }; f";
        run_with(&mut shell, s, "", 1_000_000);
        (status, shell.last_stack_use())
    });
    assert_eq!(status, 1);
    eprintln!(
        "stack at the depth limit: {used} bytes, {} per level",
        used / 200
    );
}

#[test]
fn parse_cache_and_expand() {
    let mut shell = Shell::new();
    for _ in 0..3 {
        run_with(&mut shell, "echo cached", "", 1000);
    }
    let (scripts, _) = shell.cache_stats();
    let (hits, misses) = (scripts.hits, scripts.misses);
    assert_eq!((hits, misses), (2, 1));
    assert!(shell.check(b"echo ok").is_ok());
    assert!(matches!(shell.check(b"echo 'x"), Err(Error::Syntax { .. })));
    let budget = mkfifo::Budget::new(1000);
    let vars = vec![(b"id".to_vec(), b"42".to_vec())];
    let got = pollster::block_on(shell.expand(
        &FixedHost::default(),
        b"https://x/$id/${none:-d}/$(cat)/\\$\"",
        &vars,
        b"body\n",
        &budget,
    ));
    assert_eq!(got.unwrap(), b"https://x/42/d/body/$\"");
    assert!(budget.used() > 0);
}

/// Runs each script and checks its stdout and status against the answers given for it
/// (what `dash` and `bash --posix` print; either, where they differ).
fn assert_each_one_of(cases: &[(&str, &[(&str, i32)])]) {
    for (script, expected) in cases {
        let o = run(script);
        let got = (String::from_utf8_lossy(&o.stdout).into_owned(), o.status);
        assert!(
            expected
                .iter()
                .any(|(out, status)| got == (out.to_string(), *status)),
            "{script}: got {got:?}, want one of {expected:?}"
        );
    }
}

/// POSIX shell features, each script with what `dash` and `bash --posix` print (stdout
/// and status; where the two differ, either is right).
#[test]
fn posix_features_as_dash_and_bash_posix() {
    let cases: &[(&str, &[(&str, i32)])] = &[
        (
            "exec 3>&1; echo three >&3; exec 4>&3 >/dev/null; echo hidden; echo four >&4; exec >&4; echo back",
            &[("three\nfour\nback\n", 0)],
        ),
        (
            "{ echo out; echo err >&2; } 3>&1 1>/dev/null 2>&3",
            &[("err\n", 0)],
        ),
        (
            "exec 5>&1; exec 5>&-; echo x >&5; echo status=$?",
            &[("status=2\n", 0), ("status=1\n", 0)],
        ),
        (
            "echo one 1<&2 2>/dev/null; echo $?",
            &[("0\n", 0)],
        ),
        (
            ": 7>&7; echo same=$?",
            &[("same=0\n", 0)],
        ),
        (
            "f() { echo in-f >&6; }; exec 6>&1; f",
            &[("in-f\n", 0)],
        ),
        (
            "read v <<EOF2\nhello\nEOF2\necho $v; exec 3<<EOF3\nfrom three\nEOF3\nread w <&3; echo $w",
            &[("hello\nfrom three\n", 0)],
        ),
        (
            "(exec 3>&1); echo sub >&3; echo after=$?",
            &[("after=2\n", 0), ("after=1\n", 0)],
        ),
        (
            "x=$(exec 3>&1; echo inner >&3); echo \"[$x]\"",
            &[("[inner]\n", 0)],
        ),
        (
            "set -o errexit; set -o | grep errexit; set +o | grep errexit",
            &[("errexit         on\nset -o errexit\n", 0), ("errexit        	on\nset -o errexit\n", 0)],
        ),
        (
            "set -eu; echo $-; set +eu; echo $-",
            &[("ue\n\n", 0), ("ehuBc\nhBc\n", 0)],
        ),
        (
            "sh -o errexit -c 'false; echo not'; echo status=$?",
            &[("status=1\n", 0)],
        ),
        (
            "echo 1; set -n; echo 2",
            &[("1\n", 0)],
        ),
        (
            "set -v -x; case $- in *v*x*|*x*v*) echo both;; esac; set +vx",
            &[("both\n", 0)],
        ),
        (
            "set - a b; echo \"$#:$*\"; set +; echo \"$#\"; set x - y; echo \"$#:$2\"",
            &[("2:a b\n2\n3:-\n", 0)],
        ),
        (
            "set -o bogus; echo not reached",
            &[("", 2)],
        ),
        (
            "echo $OPTIND; while getopts ab:c o -a -b val -c rest; do echo \"$o:${OPTARG-}\"; done; echo $OPTIND",
            &[("1\na:\nb:val\nc:\n5\n", 0)],
        ),
        (
            "set -- -x y; getopts x o; echo $o $OPTIND; set --; getopts x o; echo $? $OPTIND",
            &[("x 2\n1 1\n", 0)],
        ),
        (
            "set -- $(seq 12); echo ${#} ${##} ${###} ${##1} ${###1} ${#?}",
            &[("12 2 12 2 2 1\n", 0)],
        ),
        (
            "echo ${%}; echo not reached",
            &[("", 2), ("", 127)],
        ),
        (
            "if false; then echo ${%}; fi; echo fine",
            &[("fine\n", 0)],
        ),
        (
            "echo $\\\n?",
            &[("0\n", 0)],
        ),
        (
            "HOME=/h; echo ~ ~/a \"~\" ~x a~; x=~/b:~/c; echo $x",
            &[("/h /h/a ~ ~x a~\n/h/b:/h/c\n", 0)],
        ),
        (
            "HOME='a b'; set -- ~; echo $#",
            &[("1\n", 0)],
        ),
        (
            "v='a b  c'; export e=$v; readonly r=$v; printf '[%s]' \"$e\" \"$r\"; echo",
            &[("[a b  c][a b  c]\n", 0)],
        ),
        (
            "v='a b'; f() { local l=$v; echo \"$l\"; }; f",
            &[("a b\n", 0)],
        ),
        (
            "set -e; { false && true; }; echo survived; if false; then :; fi; echo too",
            &[("survived\ntoo\n", 0)],
        ),
        (
            "set -e; (false); echo not reached",
            &[("", 1)],
        ),
        (
            "set -e; f() { false && true; }; f; echo not reached",
            &[("", 1)],
        ),
        (
            "eval 'echo >'; echo not reached",
            &[("", 2)],
        ),
        (
            "eval() { echo func; }; echo not reached",
            &[("", 2)],
        ),
        (
            "a.b() { :; }; echo not reached",
            &[("", 2)],
        ),
        (
            "x=1 : ; echo $x",
            &[("1\n", 0)],
        ),
        (
            "f() { local x=1; local x; echo $x; }; f",
            &[("1\n", 0)],
        ),
        (
            "set -- \"\" \"\"; IFS=; echo \"[${*-m}][${*:-m}][${*:+p}]\"",
            &[("[][m][]\n", 0)],
        ),
        (
            "printf 'a\\0b' > /dev/null; x=$(printf 'a\\0b'); echo ${#x}",
            &[("2\n", 0)],
        ),
        (
            "unset x; FOO=bar exec 2>&1; echo FOO=$FOO",
            &[("FOO=bar\n", 0)],
        ),
        (
            "(exec >/dev/null); echo hi1; x=$(exec >&2; echo e); echo \"hi2 [$x]\"; sh -c \"exec >/dev/null\"; echo hi3; y=$(exec 2>&1; echo z >&2); echo \"[$y]\"",
            &[("hi1\nhi2 []\nhi3\n[z]\n", 0)],
        ),
    ];
    assert_each_one_of(cases);
}

/// `trap`, `umask`, `LINENO`, `times`: what `dash` and `bash --posix` print (either, where
/// they differ).
#[test]
fn traps_umask_lineno_as_dash_and_bash_posix() {
    let cases: &[(&str, &[(&str, i32)])] = &[
        (
            "trap 'echo bye $?' EXIT; echo body; false",
            &[("body\nbye 1\n", 1)],
        ),
        (
            "trap 'echo bye' 0; trap - EXIT; echo body",
            &[("body\n", 0)],
        ),
        (
            "(trap 'echo sub' EXIT; echo in); echo out",
            &[("in\nsub\nout\n", 0)],
        ),
        (
            "trap 'echo first' EXIT; trap 'echo second' EXIT; exit 3",
            &[("second\n", 3)],
        ),
        (
            "trap 'echo x' INT; trap 'echo y' EXIT; trap",
            &[("trap -- 'echo y' EXIT\ntrap -- 'echo x' INT\ny\n", 0)],
        ),
        (
            "sh -c 'trap \"echo inner\" EXIT; exit 4'; echo $?",
            &[("inner\n4\n", 0)],
        ),
        (
            "umask 077; umask; umask -S; umask 022; umask u=rwx,g=rx,o=; umask; umask a-w; umask",
            &[("0077\nu=rwx,g=,o=\n0027\n0227\n", 0)],
        ),
        ("echo $LINENO; echo $LINENO", &[("\n\n", 0), ("1\n1\n", 0)]),
        ("times >/dev/null; echo $?", &[("0\n", 0)]),
    ];
    assert_each_one_of(cases);
}

/// `set -x` writes what `bash --posix` writes: PS4 expanded, assignments, words quoted.
#[test]
fn xtrace_as_bash_posix() {
    let o = run(r#"set -x; x="a b"; y=1 echo hi; PS4="+\$LINENO: "; echo "$x""#);
    assert_eq!(o.stdout, b"hi\na b\n");
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "+ x='a b'\n+ y=1\n+ echo hi\n+ PS4='+$LINENO: '\n+1: echo 'a b'\n"
    );
}

/// `set -o` and `set +o` list every option as bash lists them.
#[test]
fn option_listings_as_bash() {
    assert_eq!(out("set -e; set -o"), "allexport      \toff\nbraceexpand    \ton\nemacs          \toff\nerrexit        \ton\nerrtrace       \toff\nfunctrace      \toff\nhashall        \ton\nhistexpand     \toff\nhistory        \toff\nignoreeof      \toff\ninteractive-comments\ton\nkeyword        \toff\nmonitor        \toff\nnoclobber      \toff\nnoexec         \toff\nnoglob         \toff\nnolog          \toff\nnotify         \toff\nnounset        \toff\nonecmd         \toff\nphysical       \toff\npipefail       \toff\nposix          \toff\nprivileged     \toff\nverbose        \toff\nvi             \toff\nxtrace         \toff\n");
    assert_eq!(out("set -u; set +o"), "set +o allexport\nset -o braceexpand\nset +o emacs\nset +o errexit\nset +o errtrace\nset +o functrace\nset -o hashall\nset +o histexpand\nset +o history\nset +o ignoreeof\nset -o interactive-comments\nset +o keyword\nset +o monitor\nset +o noclobber\nset +o noexec\nset +o noglob\nset +o nolog\nset +o notify\nset -o nounset\nset +o onecmd\nset +o physical\nset +o pipefail\nset +o posix\nset +o privileged\nset +o verbose\nset +o vi\nset +o xtrace\n");
}
