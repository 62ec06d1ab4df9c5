//! `grep`, `egrep`, `fgrep`: GNU grep 3.8 in the C locale over stdin and `ctx.open`
//! operands. Spends one step per line read, one per 64 bytes searched and one per match,
//! plus what the regex engine spends.

use std::rc::Rc;

mod perl;

use std::cell::Cell;

use crate::builtins::common::args::{long, Arg, Spec};

use crate::budget::Budget;
use crate::builtins::common::regex::{parse, shift_groups, Dialect, Look, Node, Regex, Syntax};
use crate::builtins::Ctx;
use crate::error::{Result, Status};

const SPEC: Spec = Spec {
    short: "0123456789A:B:C:D:EFGHIJLPTUVX:Zabcd:e:f:hilm:noqrsuvwxyz",
    long: &[
        long("after-context", Arg::Required, Some('A')),
        long("basic-regexp", Arg::No, Some('G')),
        long("before-context", Arg::Required, Some('B')),
        long("binary-files", Arg::Required, None),
        long("byte-offset", Arg::No, Some('b')),
        long("binary", Arg::No, Some('U')),
        long("color", Arg::Optional, None),
        long("colour", Arg::Optional, None),
        long("context", Arg::Required, Some('C')),
        long("count", Arg::No, Some('c')),
        long("devices", Arg::Required, Some('D')),
        long("directories", Arg::Required, Some('d')),
        long("exclude", Arg::Required, None),
        long("exclude-from", Arg::Required, None),
        long("exclude-dir", Arg::Required, None),
        long("extended-regexp", Arg::No, Some('E')),
        long("file", Arg::Required, Some('f')),
        long("files-with-matches", Arg::No, Some('l')),
        long("files-without-match", Arg::No, Some('L')),
        long("fixed-strings", Arg::No, Some('F')),
        long("group-separator", Arg::Required, None),
        long("help", Arg::No, None),
        long("include", Arg::Required, None),
        long("ignore-case", Arg::No, Some('i')),
        long("no-ignore-case", Arg::No, None),
        long("no-group-separator", Arg::No, None),
        long("initial-tab", Arg::No, Some('T')),
        long("label", Arg::Required, None),
        long("line-buffered", Arg::No, None),
        long("line-number", Arg::No, Some('n')),
        long("line-regexp", Arg::No, Some('x')),
        long("max-count", Arg::Required, Some('m')),
        long("no-filename", Arg::No, Some('h')),
        long("no-messages", Arg::No, Some('s')),
        long("null", Arg::No, Some('Z')),
        long("null-data", Arg::No, Some('z')),
        long("only-matching", Arg::No, Some('o')),
        long("perl-regexp", Arg::No, Some('P')),
        long("quiet", Arg::No, Some('q')),
        long("recursive", Arg::No, Some('r')),
        long("dereference-recursive", Arg::No, Some('R')),
        long("regexp", Arg::Required, Some('e')),
        long("invert-match", Arg::No, Some('v')),
        long("silent", Arg::No, Some('q')),
        long("text", Arg::No, Some('a')),
        long("version", Arg::No, Some('V')),
        long("with-filename", Arg::No, Some('H')),
        long("word-regexp", Arg::No, Some('w')),
    ],
    stop_at_operand: false,
};

const TRY: &str =
    "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n";

const VERSION: &str = "grep (GNU grep) 3.8
Copyright (C) 2022 Free Software Foundation, Inc.
License GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.
This is free software: you are free to change and redistribute it.
There is NO WARRANTY, to the extent permitted by law.

Written by Mike Haertel and others; see
<https://git.sv.gnu.org/cgit/grep.git/tree/AUTHORS>.
";

const HELP: &str = "Usage: grep [OPTION]... PATTERNS [FILE]...
Search for PATTERNS in each FILE.
Example: grep -i 'hello world' menu.h main.c
PATTERNS can contain multiple patterns separated by newlines.

Pattern selection and interpretation:
  -E, --extended-regexp     PATTERNS are extended regular expressions
  -F, --fixed-strings       PATTERNS are strings
  -G, --basic-regexp        PATTERNS are basic regular expressions
  -P, --perl-regexp         PATTERNS are Perl regular expressions
  -e, --regexp=PATTERNS     use PATTERNS for matching
  -f, --file=FILE           take PATTERNS from FILE
  -i, --ignore-case         ignore case distinctions in patterns and data
      --no-ignore-case      do not ignore case distinctions (default)
  -w, --word-regexp         match only whole words
  -x, --line-regexp         match only whole lines
  -z, --null-data           a data line ends in 0 byte, not newline

Miscellaneous:
  -s, --no-messages         suppress error messages
  -v, --invert-match        select non-matching lines
  -V, --version             display version information and exit
      --help                display this help text and exit

Output control:
  -m, --max-count=NUM       stop after NUM selected lines
  -b, --byte-offset         print the byte offset with output lines
  -n, --line-number         print line number with output lines
      --line-buffered       flush output on every line
  -H, --with-filename       print file name with output lines
  -h, --no-filename         suppress the file name prefix on output
      --label=LABEL         use LABEL as the standard input file name prefix
  -o, --only-matching       show only nonempty parts of lines that match
  -q, --quiet, --silent     suppress all normal output
      --binary-files=TYPE   assume that binary files are TYPE;
                            TYPE is 'binary', 'text', or 'without-match'
  -a, --text                equivalent to --binary-files=text
  -I                        equivalent to --binary-files=without-match
  -d, --directories=ACTION  how to handle directories;
                            ACTION is 'read', 'recurse', or 'skip'
  -D, --devices=ACTION      how to handle devices, FIFOs and sockets;
                            ACTION is 'read' or 'skip'
  -r, --recursive           like --directories=recurse
  -R, --dereference-recursive  likewise, but follow all symlinks
      --include=GLOB        search only files that match GLOB (a file pattern)
      --exclude=GLOB        skip files that match GLOB
      --exclude-from=FILE   skip files that match any file pattern from FILE
      --exclude-dir=GLOB    skip directories that match GLOB
  -L, --files-without-match  print only names of FILEs with no selected lines
  -l, --files-with-matches  print only names of FILEs with selected lines
  -c, --count               print only a count of selected lines per FILE
  -T, --initial-tab         make tabs line up (if needed)
  -Z, --null                print 0 byte after FILE name

Context control:
  -B, --before-context=NUM  print NUM lines of leading context
  -A, --after-context=NUM   print NUM lines of trailing context
  -C, --context=NUM         print NUM lines of output context
  -NUM                      same as --context=NUM
      --group-separator=SEP  print SEP on line between matches with context
      --no-group-separator  do not print separator for matches with context
      --color[=WHEN],
      --colour[=WHEN]       use markers to highlight the matching strings;
                            WHEN is 'always', 'never', or 'auto'
  -U, --binary              do not strip CR characters at EOL (MSDOS/Windows)

When FILE is '-', read standard input.  With no FILE, read '.' if
recursive, '-' otherwise.  With fewer than two FILEs, assume -h.
Exit status is 0 if any line is selected, 1 otherwise;
if any error occurs and -q is not given, the exit status is 2.

Report bugs to: bug-grep@gnu.org
GNU grep home page: <https://www.gnu.org/software/grep/>
General help using GNU software: <https://www.gnu.org/gethelp/>
";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Matcher {
    Basic,
    Extended,
    Fixed,
    Perl,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Binary {
    Report,
    Text,
    WithoutMatch,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ListFiles {
    None,
    Matching,
    NonMatching,
}

struct Opts {
    invert: bool,
    count: bool,
    list: ListFiles,
    only: bool,
    quiet: bool,
    no_messages: bool,
    line_numbers: bool,
    byte_offset: bool,
    with_filename: Option<bool>,
    label: Vec<u8>,
    max_count: Option<u64>,
    after: usize,
    before: usize,
    eol: u8,
    null_after_name: bool,
    initial_tab: bool,
    binary: Binary,
    group_separator: Option<Vec<u8>>,
    /// A context option was given (even `-A0`): groups get separators.
    context_given: bool,
    /// `--color=always`: GNU's default GREP_COLORS escapes around names, numbers,
    /// separators and matches.
    color: bool,
}

/// GNU grep's default GREP_COLORS: matches, file names, line and byte numbers,
/// separators.
const COLOR_MATCH: &[u8] = b"01;31";
const COLOR_NAME: &[u8] = b"35";
const COLOR_NUMBER: &[u8] = b"32";
const COLOR_SEPARATOR: &[u8] = b"36";

/// `text`, inside SGR escapes of `code` when coloring.
fn paint(buf: &mut Vec<u8>, color: bool, code: &[u8], text: &[u8]) {
    if color {
        buf.extend_from_slice(b"\x1b[");
        buf.extend_from_slice(code);
        buf.extend_from_slice(b"m\x1b[K");
        buf.extend_from_slice(text);
        buf.extend_from_slice(b"\x1b[m\x1b[K");
    } else {
        buf.extend_from_slice(text);
    }
}

/// `--color=WHEN`: on, off, or GNU's message for a bad WHEN (which shows the help).
fn color_arg(when: Option<&[u8]>) -> Option<bool> {
    match when {
        None => Some(false),
        Some(b"always" | b"yes" | b"force") => Some(true),
        Some(b"never" | b"no" | b"none" | b"auto" | b"tty" | b"if-tty") => Some(false),
        Some(_) => None,
    }
}

/// A compiled pattern set: GNU syntax (leftmost-longest) or `-P` (leftmost-first).
#[derive(Clone)]
enum Compiled {
    Gnu(Rc<Regex>),
    Perl(Rc<perl::Perl>),
}

struct Search {
    re: Compiled,
    /// No pattern at all (`-f /dev/null`): nothing matches.
    empty: bool,
    /// A `-P` search gave up (its backtracking limit): GNU grep stops there.
    exceeded: Cell<bool>,
}

impl Search {
    fn new(re: Compiled) -> Search {
        Search {
            re,
            empty: false,
            exceeded: Cell::new(false),
        }
    }

    fn is_match(&self, text: &[u8], budget: &Budget) -> Result<bool> {
        if self.empty {
            return Ok(false);
        }
        match &self.re {
            Compiled::Gnu(re) => re.is_match(text, budget),
            Compiled::Perl(re) => {
                budget.spend_bytes(text.len())?;
                Ok(re.is_match(text, budget)?.unwrap_or_else(|_| {
                    self.exceeded.set(true);
                    false
                }))
            }
        }
    }

    fn find_at(&self, text: &[u8], pos: usize, budget: &Budget) -> Result<Option<(usize, usize)>> {
        if self.empty {
            return Ok(None);
        }
        match &self.re {
            Compiled::Gnu(re) => re.find_at(text, pos, budget),
            Compiled::Perl(re) => {
                let m = re.find_at(text, pos, budget)?.unwrap_or_else(|_| {
                    self.exceeded.set(true);
                    None
                });
                let end = m.map_or(text.len(), |m| m.1).max(pos);
                budget.spend(1 + (end - pos) as u64 / crate::budget::BYTES_PER_STEP)?;
                Ok(m)
            }
        }
    }
}

/// Compiled pattern sets, by patterns and options.
#[derive(Default)]
struct SearchCache {
    entries: Vec<CachedSearch>,
}

/// Patterns, matcher, -i, -w, -x, the compiled set, and the warnings GNU prints each
/// time it compiles them.
type CachedSearch = (Vec<Vec<u8>>, u8, bool, bool, bool, Compiled, Vec<String>);

const SEARCH_CACHE: usize = 32;

fn context_arg(ctx: &mut Ctx<'_>, v: &[u8]) -> std::result::Result<usize, Status> {
    let s = String::from_utf8_lossy(v);
    match s.parse::<u64>() {
        Ok(n) => Ok(n.min(usize::MAX as u64) as usize),
        Err(_) => {
            let big = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            if big {
                return Ok(usize::MAX);
            }
            ctx.stderr.extend_from_slice(
                format!("grep: {s}: invalid context length argument\n").as_bytes(),
            );
            Err(2)
        }
    }
}

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let name = args.first().map(|a| a.as_slice()).unwrap_or(b"grep");
    let mut matcher: Option<Matcher> = match name {
        b"egrep" => Some(Matcher::Extended),
        b"fgrep" => Some(Matcher::Fixed),
        _ => None,
    };
    let parsed = match SPEC.parse(args.get(1..).unwrap_or(&[])) {
        Ok(p) => p,
        Err(msg) => {
            ctx.stderr
                .extend_from_slice(format!("grep: {msg}\n{TRY}").as_bytes());
            return Ok(2);
        }
    };
    let mut o = Opts {
        invert: false,
        count: false,
        list: ListFiles::None,
        only: false,
        quiet: false,
        no_messages: false,
        line_numbers: false,
        byte_offset: false,
        with_filename: None,
        label: b"(standard input)".to_vec(),
        max_count: None,
        after: 0,
        before: 0,
        eol: b'\n',
        null_after_name: false,
        initial_tab: false,
        binary: Binary::Report,
        group_separator: Some(b"--".to_vec()),
        context_given: false,
        color: false,
    };
    let mut icase = false;
    let mut word = false;
    let mut line = false;
    let mut patterns: Option<Vec<Vec<u8>>> = None;
    let mut after: Option<usize> = None;
    let mut before: Option<usize> = None;
    let mut context: Option<usize> = None;
    let mut digits: Option<usize> = None;
    let mut last_was_digit = false;
    for opt in &parsed.opts {
        let key = opt.key;
        let is_digit = key.len() == 1 && key.as_bytes()[0].is_ascii_digit();
        if is_digit {
            let d = usize::from(key.as_bytes()[0] - b'0');
            let prev = if last_was_digit {
                digits.unwrap_or(0)
            } else {
                0
            };
            digits = Some(prev.saturating_mul(10).saturating_add(d));
            context = digits;
            last_was_digit = true;
            continue;
        }
        last_was_digit = false;
        let m = |which: Matcher, cur: &mut Option<Matcher>| -> bool {
            if cur.is_some_and(|c| c != which) {
                return false;
            }
            *cur = Some(which);
            true
        };
        let ok = match key {
            "E" => m(Matcher::Extended, &mut matcher),
            "F" => m(Matcher::Fixed, &mut matcher),
            "G" => m(Matcher::Basic, &mut matcher),
            "P" => m(Matcher::Perl, &mut matcher),
            _ => true,
        };
        if !ok {
            ctx.stderr
                .extend_from_slice(b"grep: conflicting matchers specified\n");
            return Ok(2);
        }
        match key {
            "e" => {
                let list = patterns.get_or_insert_with(Vec::new);
                list.extend(opt.value().split(|&b| b == b'\n').map(|p| p.to_vec()));
            }
            "f" => {
                let fname = opt.value().to_vec();
                match ctx.open(&fname).await? {
                    Ok(bytes) => {
                        let list = patterns.get_or_insert_with(Vec::new);
                        let mut text: &[u8] = &bytes;
                        if text.last() == Some(&b'\n') {
                            text = &text[..text.len() - 1];
                        }
                        if !bytes.is_empty() {
                            list.extend(text.split(|&b| b == b'\n').map(|p| p.to_vec()));
                        }
                    }
                    Err(reason) => {
                        ctx.stderr.extend_from_slice(
                            format!("grep: {}: {reason}\n", String::from_utf8_lossy(&fname))
                                .as_bytes(),
                        );
                        return Ok(2);
                    }
                }
            }
            "i" | "y" => icase = true,
            "no-ignore-case" => icase = false,
            "w" => word = true,
            "x" => line = true,
            "v" => o.invert = true,
            "c" => o.count = true,
            "l" => o.list = ListFiles::Matching,
            "L" => o.list = ListFiles::NonMatching,
            "o" => o.only = true,
            "q" => o.quiet = true,
            "s" => o.no_messages = true,
            "n" => o.line_numbers = true,
            "b" => o.byte_offset = true,
            "H" => o.with_filename = Some(true),
            "h" => o.with_filename = Some(false),
            "label" => o.label = opt.value().to_vec(),
            "Z" => o.null_after_name = true,
            "z" => o.eol = 0,
            "T" => o.initial_tab = true,
            "group-separator" => o.group_separator = Some(opt.value().to_vec()),
            "no-group-separator" => o.group_separator = None,
            "color" | "colour" => match color_arg(opt.value.as_deref()) {
                Some(on) => o.color = on,
                // GNU shows the help for a WHEN it does not know.
                None => {
                    ctx.stdout.extend_from_slice(HELP.as_bytes());
                    return Ok(0);
                }
            },
            "X" => {
                let which = match opt.value() {
                    b"grep" => Matcher::Basic,
                    b"egrep" => Matcher::Extended,
                    b"fgrep" => Matcher::Fixed,
                    b"perl" => Matcher::Perl,
                    other => {
                        ctx.stderr.extend_from_slice(
                            format!("grep: invalid matcher {}\n", String::from_utf8_lossy(other))
                                .as_bytes(),
                        );
                        return Ok(2);
                    }
                };
                if !m(which, &mut matcher) {
                    ctx.stderr
                        .extend_from_slice(b"grep: conflicting matchers specified\n");
                    return Ok(2);
                }
            }
            "a" => o.binary = Binary::Text,
            "I" => o.binary = Binary::WithoutMatch,
            "binary-files" => {
                o.binary = match opt.value() {
                    b"binary" => Binary::Report,
                    b"text" => Binary::Text,
                    b"without-match" => Binary::WithoutMatch,
                    _ => {
                        ctx.stderr
                            .extend_from_slice(b"grep: unknown binary-files type\n");
                        return Ok(2);
                    }
                }
            }
            "m" => {
                let s = String::from_utf8_lossy(opt.value());
                match s.trim().parse::<i64>() {
                    Ok(n) if n < 0 => o.max_count = None,
                    Ok(n) => o.max_count = Some(n as u64),
                    Err(_) => {
                        if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
                            o.max_count = None;
                        } else {
                            ctx.stderr.extend_from_slice(b"grep: invalid max count\n");
                            return Ok(2);
                        }
                    }
                }
            }
            "A" => match context_arg(ctx, opt.value()) {
                Ok(n) => after = Some(n),
                Err(s) => return Ok(s),
            },
            "B" => match context_arg(ctx, opt.value()) {
                Ok(n) => before = Some(n),
                Err(s) => return Ok(s),
            },
            "C" => match context_arg(ctx, opt.value()) {
                Ok(n) => context = Some(n),
                Err(s) => return Ok(s),
            },
            "help" => {
                ctx.stdout.extend_from_slice(HELP.as_bytes());
                return Ok(0);
            }
            "V" => {
                ctx.stdout.extend_from_slice(VERSION.as_bytes());
                return Ok(0);
            }
            _ => {}
        }
    }
    o.after = after.or(context).unwrap_or(0);
    o.before = before.or(context).unwrap_or(0);
    o.context_given = after.is_some() || before.is_some() || context.is_some();
    if o.list != ListFiles::None || o.quiet {
        o.count = false;
    }
    let mut operands = parsed.operands.clone();
    let patterns = match patterns {
        Some(p) => p,
        None => {
            if operands.is_empty() {
                ctx.stderr.extend_from_slice(TRY.as_bytes());
                return Ok(2);
            }
            let p = operands.remove(0);
            p.split(|&b| b == b'\n').map(|x| x.to_vec()).collect()
        }
    };
    let matcher = matcher.unwrap_or(Matcher::Basic);
    // GNU drops repeated patterns.
    let mut patterns = patterns;
    {
        let mut seen = std::collections::HashSet::new();
        patterns.retain(|p| seen.insert(p.clone()));
    }
    // GNU does not even read the input when nothing can be selected: -m0, or no
    // pattern at all (`-f /dev/null`) without -v.
    let nothing = o.max_count == Some(0) || (patterns.is_empty() && !o.invert);
    if nothing && o.list != ListFiles::NonMatching {
        return Ok(1);
    }
    if matcher == Matcher::Perl && patterns.len() > 1 {
        ctx.stderr
            .extend_from_slice(b"grep: the -P option only supports a single pattern\n");
        return Ok(2);
    }
    let search = match compile(ctx, &patterns, matcher, icase, word, line) {
        Ok(s) => s,
        Err(status) => return Ok(status),
    };
    if operands.is_empty() {
        operands.push(b"-".to_vec());
    }
    let show_names = o.with_filename.unwrap_or(operands.len() > 1);
    let mut any = false;
    let mut error = false;
    for operand in &operands {
        let data = match ctx.open(operand).await? {
            Ok(d) => d,
            Err(reason) => {
                if !o.no_messages {
                    ctx.stderr.extend_from_slice(
                        format!("grep: {}: {reason}\n", String::from_utf8_lossy(operand))
                            .as_bytes(),
                    );
                }
                error = true;
                continue;
            }
        };
        let fname: Vec<u8> = if operand == b"-" {
            o.label.clone()
        } else {
            operand.clone()
        };
        let found = grep_one(ctx, &o, &search, &data, &fname, show_names)?;
        if search.exceeded.get() {
            // GNU grep stops at once, whatever the other files.
            ctx.stderr.extend_from_slice(
                format!(
                    "grep: {}: exceeded PCRE's backtracking limit\n",
                    String::from_utf8_lossy(&fname)
                )
                .as_bytes(),
            );
            return Ok(2);
        }
        if found {
            any = true;
            if o.quiet {
                return Ok(0);
            }
        }
    }
    Ok(if error && !(o.quiet && any) {
        2
    } else if any {
        0
    } else {
        1
    })
}

/// Compiles the patterns into one regex (GNU grep's syntax), or reports the error.
fn compile(
    ctx: &mut Ctx<'_>,
    patterns: &[Vec<u8>],
    matcher: Matcher,
    icase: bool,
    word: bool,
    line: bool,
) -> std::result::Result<Search, Status> {
    if patterns.is_empty() {
        let re = Regex::from_node(&Node::Empty, 0, false, false, false).map_err(|_| 2)?;
        return Ok(Search {
            re: Compiled::Gnu(Rc::new(re)),
            empty: true,
            exceeded: Cell::new(false),
        });
    }
    let kind = match matcher {
        Matcher::Basic => 0u8,
        Matcher::Extended => 1,
        Matcher::Fixed => 2,
        Matcher::Perl => 3,
    };
    let cached = ctx
        .io
        .caches
        .get::<SearchCache>()
        .entries
        .iter()
        .find(|e| e.0 == patterns && e.1 == kind && e.2 == icase && e.3 == word && e.4 == line)
        .map(|e| (e.5.clone(), e.6.clone()));
    if let Some((re, warnings)) = cached {
        print_warnings(ctx, &warnings);
        return Ok(Search::new(re));
    }
    if matcher == Matcher::Perl {
        let pattern = patterns.first().map_or(&[][..], |p| p.as_slice());
        let re = match perl::compile(pattern, icase, word, line) {
            Ok(re) => Compiled::Perl(Rc::new(re)),
            Err(msg) => {
                ctx.stderr
                    .extend_from_slice(format!("grep: {msg}\n").as_bytes());
                return Err(2);
            }
        };
        remember(ctx, patterns, kind, icase, word, line, &re, Vec::new());
        return Ok(Search::new(re));
    }
    let mut branches = Vec::with_capacity(patterns.len());
    let mut groups = 0;
    let mut backrefs = false;
    let mut warnings: Vec<String> = Vec::new();
    // GNU reports the error of each bad pattern, not only the first.
    let mut bad = false;
    for p in patterns {
        let (mut node, g, b) = match matcher {
            Matcher::Fixed => (
                Node::Concat(p.iter().map(|&c| parse::literal(c, icase)).collect()),
                0,
                false,
            ),
            _ => {
                let syntax = Syntax {
                    extended: matcher == Matcher::Extended,
                    icase,
                    dialect: Dialect::Grep,
                };
                match parse::parse(p, syntax) {
                    Ok(parsed) => {
                        for w in parsed.warnings {
                            if !warnings.contains(&w) {
                                warnings.push(w);
                            }
                        }
                        (parsed.node, parsed.groups, parsed.has_backrefs)
                    }
                    Err(e) => {
                        ctx.stderr
                            .extend_from_slice(format!("grep: {}\n", e.message()).as_bytes());
                        bad = true;
                        continue;
                    }
                }
            }
        };
        shift_groups(&mut node, groups);
        groups += g;
        backrefs |= b;
        if line {
            node = Node::Concat(vec![
                Node::Look(Look::BufStart),
                node,
                Node::Look(Look::BufEnd),
            ]);
        } else if word {
            node = Node::Concat(vec![
                Node::Look(Look::NotAfterWord),
                node,
                Node::Look(Look::NotBeforeWord),
            ]);
        }
        branches.push(node);
    }
    if bad {
        return Err(2);
    }
    print_warnings(ctx, &warnings);
    let node = if branches.len() == 1 {
        branches.pop().unwrap_or(Node::Empty)
    } else {
        Node::Alt(branches)
    };
    let re = match Regex::from_node(&node, groups, backrefs, icase, false) {
        Ok(r) => Compiled::Gnu(Rc::new(r)),
        Err(e) => {
            ctx.stderr
                .extend_from_slice(format!("grep: {}\n", e.message()).as_bytes());
            return Err(2);
        }
    };
    remember(ctx, patterns, kind, icase, word, line, &re, warnings);
    Ok(Search::new(re))
}

fn print_warnings(ctx: &mut Ctx<'_>, warnings: &[String]) {
    for w in warnings {
        ctx.stderr
            .extend_from_slice(format!("grep: warning: {w}\n").as_bytes());
    }
}

#[allow(clippy::too_many_arguments)]
fn remember(
    ctx: &mut Ctx<'_>,
    patterns: &[Vec<u8>],
    kind: u8,
    icase: bool,
    word: bool,
    line: bool,
    re: &Compiled,
    warnings: Vec<String>,
) {
    let mut cache = ctx.io.caches.get::<SearchCache>();
    if cache.entries.len() >= SEARCH_CACHE {
        cache.entries.remove(0);
    }
    cache.entries.push((
        patterns.to_vec(),
        kind,
        icase,
        word,
        line,
        re.clone(),
        warnings,
    ));
}

/// One line's place in the data.
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    number: u64,
}

struct Out<'o> {
    o: &'o Opts,
    fname: &'o [u8],
    show_names: bool,
    buf: Vec<u8>,
    /// A group separator is due before the next output.
    sep_due: bool,
}

impl Out<'_> {
    /// The file name, line number and byte offset before a line (or an `-o` match of
    /// `len` bytes), after a group separator when one is due.
    fn prefix(&mut self, number: u64, offset: usize, sep: u8, len: usize) {
        let color = self.o.color;
        if self.sep_due {
            self.sep_due = false;
            if let Some(s) = &self.o.group_separator {
                paint(&mut self.buf, color, COLOR_SEPARATOR, s);
                self.buf.push(b'\n');
            }
        }
        if self.show_names {
            paint(&mut self.buf, color, COLOR_NAME, self.fname);
            if self.o.null_after_name {
                self.buf.push(0);
            } else {
                paint(&mut self.buf, color, COLOR_SEPARATOR, &[sep]);
            }
        }
        // With -T, GNU pads numbers to the width of the largest offset of a file of
        // unknown size (stdin is a pipe): 19 digits.
        for (on, n) in [
            (self.o.line_numbers, number),
            (self.o.byte_offset, offset as u64),
        ] {
            if !on {
                continue;
            }
            let text = if self.o.initial_tab {
                format!("{n:>19}")
            } else {
                n.to_string()
            };
            paint(&mut self.buf, color, COLOR_NUMBER, text.as_bytes());
            paint(&mut self.buf, color, COLOR_SEPARATOR, &[sep]);
        }
        if self.o.initial_tab
            && len != 0
            && (self.show_names || self.o.line_numbers || self.o.byte_offset)
        {
            self.buf.push(b'\t');
        }
    }

    /// Prints a line (selected: `sep` is `:`, context: `-`); with -o, its matches.
    fn line(
        &mut self,
        ctx: &mut Ctx<'_>,
        search: &Search,
        data: &[u8],
        l: Line,
        sep: u8,
    ) -> Result<()> {
        if self.o.only {
            // -o shows the matches of selected lines, or with -v of context lines.
            if (sep == b':') != self.o.invert {
                return only_matching(self, ctx, search, data, l, sep);
            }
            return Ok(());
        }
        self.prefix(l.number, l.start, sep, l.end - l.start);
        let text = &data[l.start..l.end];
        // GNU colors the matches of the lines that match (selected, or context with -v).
        if self.o.color && (sep == b':') != self.o.invert {
            let mut done = 0;
            for (s, e) in matches(search, text, ctx)? {
                self.buf.extend_from_slice(&text[done..s]);
                paint(&mut self.buf, true, COLOR_MATCH, &text[s..e]);
                done = e;
            }
            self.buf.extend_from_slice(&text[done..]);
        } else {
            self.buf.extend_from_slice(text);
        }
        self.buf.push(self.o.eol);
        Ok(())
    }
}

/// Searches one input; `Ok(true)` when a line was selected.
fn grep_one(
    ctx: &mut Ctx<'_>,
    o: &Opts,
    search: &Search,
    data: &[u8],
    fname: &[u8],
    show_names: bool,
) -> Result<bool> {
    let binary = o.binary != Binary::Text && o.eol != 0 && memchr::memchr(0, data).is_some();
    if binary && o.binary == Binary::WithoutMatch {
        if o.list == ListFiles::NonMatching {
            ctx.stdout.extend_from_slice(fname);
            ctx.stdout.push(if o.null_after_name { 0 } else { b'\n' });
        }
        return Ok(false);
    }
    let prints_lines = !o.quiet && !o.count && o.list == ListFiles::None;
    let mut out = Out {
        o,
        fname,
        show_names,
        buf: Vec::new(),
        sep_due: false,
    };
    let mut selected: u64 = 0;
    let mut pos = 0;
    let mut number: u64 = 0;
    let mut last_printed: Option<u64> = None;
    let mut after_left = 0usize;
    let mut pending_before: std::collections::VecDeque<Line> = std::collections::VecDeque::new();
    let mut stop_after_context = false;
    let mut binary_hit = false;
    while pos < data.len() {
        if o.max_count == Some(0) {
            break;
        }
        // In a binary file a NUL ends a line too.
        let end = if binary {
            memchr::memchr2(o.eol, 0, &data[pos..])
        } else {
            memchr::memchr(o.eol, &data[pos..])
        }
        .map(|i| pos + i)
        .unwrap_or(data.len());
        number += 1;
        let l = Line {
            start: pos,
            end,
            number,
        };
        pos = end + 1;
        ctx.io.budget.spend(1)?;
        let text = &data[l.start..l.end];
        if stop_after_context {
            if after_left == 0 {
                break;
            }
            after_left -= 1;
            out.line(ctx, search, data, l, b'-')?;
            last_printed = Some(l.number);
            continue;
        }
        let matched = search.is_match(text, ctx.io.budget)?;
        if search.exceeded.get() {
            break;
        }
        if matched != o.invert {
            selected += 1;
            if binary && prints_lines {
                binary_hit = true;
                break;
            }
            if o.quiet || o.list != ListFiles::None {
                break;
            }
            if prints_lines {
                // Leading context.
                let first = pending_before.front().map(|b| b.number).unwrap_or(l.number);
                if o.context_given && last_printed.is_some_and(|p| p + 1 < first) {
                    out.sep_due = true;
                }
                let before: Vec<Line> = pending_before.drain(..).collect();
                for b in before {
                    out.line(ctx, search, data, b, b'-')?;
                }
                out.line(ctx, search, data, l, b':')?;
                last_printed = Some(l.number);
                after_left = o.after;
            }
            if o.max_count.is_some_and(|m| selected >= m) {
                stop_after_context = true;
                if !prints_lines {
                    break;
                }
            }
        } else if prints_lines {
            if after_left > 0 {
                after_left -= 1;
                out.line(ctx, search, data, l, b'-')?;
                last_printed = Some(l.number);
            } else if o.before > 0 {
                pending_before.push_back(l);
                if pending_before.len() > o.before {
                    pending_before.pop_front();
                }
            }
        }
        if search.exceeded.get() {
            break;
        }
        if out.buf.len() >= 1 << 16 {
            ctx.stdout.append(&mut out.buf);
        }
    }
    ctx.stdout.append(&mut out.buf);
    if search.exceeded.get() {
        return Ok(false);
    }
    if binary_hit {
        ctx.stderr.extend_from_slice(
            format!(
                "grep: {}: binary file matches\n",
                String::from_utf8_lossy(fname)
            )
            .as_bytes(),
        );
    }
    if o.count {
        if show_names {
            paint(ctx.stdout, o.color, COLOR_NAME, fname);
            if o.null_after_name {
                ctx.stdout.push(0);
            } else {
                paint(ctx.stdout, o.color, COLOR_SEPARATOR, b":");
            }
        }
        ctx.stdout
            .extend_from_slice(format!("{selected}\n").as_bytes());
    }
    let name_line = |ctx: &mut Ctx<'_>| {
        paint(ctx.stdout, o.color, COLOR_NAME, fname);
        ctx.stdout.push(if o.null_after_name { 0 } else { b'\n' });
    };
    if !o.quiet {
        match o.list {
            ListFiles::Matching if selected > 0 => name_line(ctx),
            ListFiles::NonMatching if selected == 0 => name_line(ctx),
            _ => {}
        }
    }
    Ok(selected > 0)
}

/// `-o`: each non-empty match of a selected line on its own line.
fn only_matching(
    out: &mut Out<'_>,
    ctx: &mut Ctx<'_>,
    search: &Search,
    data: &[u8],
    l: Line,
    sep: u8,
) -> Result<()> {
    let text = &data[l.start..l.end];
    for (s, e) in matches(search, text, ctx)? {
        out.prefix(l.number, l.start + s, sep, e - s);
        paint(&mut out.buf, out.o.color, COLOR_MATCH, &text[s..e]);
        out.buf.push(out.o.eol);
    }
    Ok(())
}

/// The non-empty matches in a line, left to right (what `-o` prints and `--color`
/// paints).
fn matches(search: &Search, text: &[u8], ctx: &mut Ctx<'_>) -> Result<Vec<(usize, usize)>> {
    let mut found = Vec::new();
    let mut pos = 0;
    while pos <= text.len() {
        let Some((s, e)) = search.find_at(text, pos, ctx.io.budget)? else {
            break;
        };
        if e == s {
            pos = s + 1;
            continue;
        }
        found.push((s, e));
        pos = e;
    }
    Ok(found)
}
