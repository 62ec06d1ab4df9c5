//! The `*sum` family (md5sum, sha1sum, sha2 sums, b2sum): hashing, GNU's output lines
//! and `-c` checking. Spends one step per 64 bytes hashed, plus one per checked line.
//!
//! Input is hashed as it comes, in blocks of at most 64 KiB; a `-c` list is read whole
//! (it is small), the files it names as streams.

use crate::builtins::common::quote::quote_name;
use blake2::digest::block_api::{Buffer, UpdateCore, VariableOutputCore};
use blake2::digest::block_buffer::BlockBuffer;
use blake2::Blake2bVarCore;
use sha2::Digest;

use crate::budget::ByteMeter;
use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::Ctx;
use crate::error::{Result, Status};
use crate::stream::Stdin;

/// Input is hashed in blocks of at most this size, spending steps before each.
const CHUNK: usize = 64 * 1024;

/// A hash function of the family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algo {
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
    /// BLAKE2b with a digest of this many bytes (1..=64).
    Blake2b(usize),
}

impl Algo {
    /// The name in `--tag` lines (`SHA256 (-) = ...`).
    pub fn tag(self) -> String {
        match self {
            Algo::Md5 => "MD5".into(),
            Algo::Sha1 => "SHA1".into(),
            Algo::Sha224 => "SHA224".into(),
            Algo::Sha256 => "SHA256".into(),
            Algo::Sha384 => "SHA384".into(),
            Algo::Sha512 => "SHA512".into(),
            Algo::Blake2b(64) => "BLAKE2b".into(),
            Algo::Blake2b(n) => format!("BLAKE2b-{}", n * 8),
        }
    }

    /// The digest size in bytes.
    pub fn size(self) -> usize {
        match self {
            Algo::Md5 => 16,
            Algo::Sha1 => 20,
            Algo::Sha224 => 28,
            Algo::Sha256 => 32,
            Algo::Sha384 => 48,
            Algo::Sha512 => 64,
            Algo::Blake2b(n) => n,
        }
    }
}

/// An incremental hash of one of the [`Algo`]s.
pub enum Hasher {
    Md5(md5::Md5),
    Sha1(sha1::Sha1),
    Sha224(sha2::Sha224),
    Sha256(sha2::Sha256),
    Sha384(sha2::Sha384),
    Sha512(sha2::Sha512),
    /// The core, its block buffer, and the digest size in bytes.
    Blake2b(Box<(Blake2bVarCore, Buffer<Blake2bVarCore>, usize)>),
}

impl Hasher {
    pub fn new(algo: Algo) -> Hasher {
        match algo {
            Algo::Md5 => Hasher::Md5(Default::default()),
            Algo::Sha1 => Hasher::Sha1(Default::default()),
            Algo::Sha224 => Hasher::Sha224(Default::default()),
            Algo::Sha256 => Hasher::Sha256(Default::default()),
            Algo::Sha384 => Hasher::Sha384(Default::default()),
            Algo::Sha512 => Hasher::Sha512(Default::default()),
            Algo::Blake2b(n) => {
                let n = n.clamp(1, 64);
                let core = Blake2bVarCore::new(n).unwrap_or_else(|_| unreachable_size());
                Hasher::Blake2b(Box::new((core, BlockBuffer::default(), n)))
            }
        }
    }

    pub fn update(&mut self, data: &[u8]) {
        match self {
            Hasher::Md5(h) => h.update(data),
            Hasher::Sha1(h) => h.update(data),
            Hasher::Sha224(h) => h.update(data),
            Hasher::Sha256(h) => h.update(data),
            Hasher::Sha384(h) => h.update(data),
            Hasher::Sha512(h) => h.update(data),
            Hasher::Blake2b(b) => {
                let (core, buffer, _) = &mut **b;
                buffer.digest_blocks(data, |blocks| core.update_blocks(blocks));
            }
        }
    }

    pub fn finish(self) -> Vec<u8> {
        match self {
            Hasher::Md5(h) => h.finalize().to_vec(),
            Hasher::Sha1(h) => h.finalize().to_vec(),
            Hasher::Sha224(h) => h.finalize().to_vec(),
            Hasher::Sha256(h) => h.finalize().to_vec(),
            Hasher::Sha384(h) => h.finalize().to_vec(),
            Hasher::Sha512(h) => h.finalize().to_vec(),
            Hasher::Blake2b(mut b) => {
                let (core, buffer, n) = &mut *b;
                let mut out = Default::default();
                core.finalize_variable_core(buffer, &mut out);
                out[..*n].to_vec()
            }
        }
    }
}

fn unreachable_size() -> Blake2bVarCore {
    // 64 is always a valid BLAKE2b output size.
    match Blake2bVarCore::new(64) {
        Ok(c) => c,
        Err(_) => unreachable!("64-byte BLAKE2b"),
    }
}

/// Hashes `input` as it comes, spending a step per 64 bytes as it goes.
pub async fn hash(ctx: &mut Ctx<'_>, algo: Algo, input: &Stdin) -> Result<Vec<u8>> {
    let mut h = Hasher::new(algo);
    let mut meter = ByteMeter::default();
    while let Some(chunk) = input.read().await? {
        for piece in chunk.chunks(CHUNK) {
            meter.add(ctx.io.budget, piece.len())?;
            h.update(piece);
        }
    }
    meter.finish(ctx.io.budget)?;
    Ok(h.finish())
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    data_encoding::HEXLOWER.encode(bytes)
}

const SPEC: Spec = Spec {
    short: "bctwzl:",
    long: &[
        long("binary", Arg::No, Some('b')),
        long("check", Arg::No, Some('c')),
        long("ignore-missing", Arg::No, None),
        long("length", Arg::Required, Some('l')),
        long("quiet", Arg::No, None),
        long("status", Arg::No, None),
        long("strict", Arg::No, None),
        long("tag", Arg::No, None),
        long("text", Arg::No, Some('t')),
        long("warn", Arg::No, Some('w')),
        long("zero", Arg::No, Some('z')),
    ],
    stop_at_operand: false,
};

/// Like [`SPEC`] without `-l`: only b2sum has it.
const SPEC_FIXED: Spec = Spec {
    short: "bctwz",
    long: &[
        long("binary", Arg::No, Some('b')),
        long("check", Arg::No, Some('c')),
        long("ignore-missing", Arg::No, None),
        long("quiet", Arg::No, None),
        long("status", Arg::No, None),
        long("strict", Arg::No, None),
        long("tag", Arg::No, None),
        long("text", Arg::No, Some('t')),
        long("warn", Arg::No, Some('w')),
        long("zero", Arg::No, Some('z')),
    ],
    stop_at_operand: false,
};

/// How much `-c` says: `--status`, `--quiet` and `-w` replace one another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verbosity {
    Normal,
    Status,
    Quiet,
    Warn,
}

struct Options {
    algo: Algo,
    /// `None` unless `-b`, `-t` or `--tag` was given.
    binary: Option<bool>,
    check: bool,
    tag: bool,
    zero: bool,
    verbosity: Verbosity,
    strict: bool,
    ignore_missing: bool,
}

/// Runs a `*sum` tool: `base` is its algorithm (b2sum: 512-bit BLAKE2b unless `-l`).
pub async fn run_sum(ctx: &mut Ctx<'_>, args: &[Vec<u8>], base: Algo) -> Result<Status> {
    let prog =
        String::from_utf8_lossy(args.first().map(|a| a.as_slice()).unwrap_or(b"sum")).into_owned();
    let spec = if matches!(base, Algo::Blake2b(_)) {
        SPEC
    } else {
        SPEC_FIXED
    };
    let parsed = match spec.parse(args.get(1..).unwrap_or(&[])) {
        Ok(p) => p,
        Err(msg) => {
            usage_error(ctx.stderr, &prog, &msg);
            return Ok(1);
        }
    };
    let mut o = Options {
        algo: base,
        binary: None,
        check: false,
        tag: false,
        zero: false,
        verbosity: Verbosity::Normal,
        strict: false,
        ignore_missing: false,
    };
    for opt in &parsed.opts {
        match opt.key {
            "b" => o.binary = Some(true),
            "t" => o.binary = Some(false),
            "c" => o.check = true,
            "z" => o.zero = true,
            "w" => o.verbosity = Verbosity::Warn,
            "quiet" => o.verbosity = Verbosity::Quiet,
            "status" => o.verbosity = Verbosity::Status,
            "strict" => o.strict = true,
            "ignore-missing" => o.ignore_missing = true,
            "tag" => {
                o.tag = true;
                o.binary = Some(true);
            }
            "l" => match parse_length(opt.value()) {
                Ok(bits) => {
                    o.algo = Algo::Blake2b(if bits == 0 { 64 } else { bits / 8 });
                }
                Err(why) => {
                    // Not a number: GNU says only that much.
                    let shown = String::from_utf8_lossy(opt.value());
                    let mut msg = format!("{prog}: invalid length: '{shown}'\n");
                    if !why.is_empty() {
                        msg.push_str(&format!("{prog}: {why}\n"));
                    }
                    ctx.stderr.extend_from_slice(msg.as_bytes());
                    return Ok(1);
                }
            },
            _ => {}
        }
    }
    if let Some(msg) = conflict(&o) {
        usage_error(ctx.stderr, &prog, msg);
        return Ok(1);
    }
    let mut operands = parsed.operands;
    if operands.is_empty() {
        operands.push(b"-".to_vec());
    }
    if o.check {
        return check_all(ctx, &prog, &o, &operands).await;
    }
    let mut status = 0;
    for name in &operands {
        let input = match ctx.open_stream(name).await? {
            Ok(d) => d,
            Err(why) => {
                let shown = quote_name(name);
                ctx.stderr
                    .extend_from_slice(format!("{prog}: {shown}: {why}\n").as_bytes());
                status = 1;
                continue;
            }
        };
        let digest = hash(ctx, o.algo, &input).await?;
        write_line(ctx.stdout, &o, name, &digest);
    }
    Ok(status)
}

/// `-l BITS`: GNU accepts a decimal number with leading blanks or `+`, a multiple of 8
/// up to 512; 0 means the default.
fn parse_length(v: &[u8]) -> std::result::Result<usize, &'static str> {
    let s = std::str::from_utf8(v).map_err(|_| "length is not a multiple of 8")?;
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let t = t.strip_prefix('+').unwrap_or(t);
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err("");
    }
    let n: u64 = t.parse().unwrap_or(u64::MAX);
    if n > 512 {
        return Err("maximum digest length for 'BLAKE2b' is 512 bits");
    }
    if !n.is_multiple_of(8) {
        return Err("length is not a multiple of 8");
    }
    Ok(n as usize)
}

/// Combinations of options GNU refuses, in the order it looks at them.
fn conflict(o: &Options) -> Option<&'static str> {
    if o.tag && o.binary == Some(false) {
        return Some("--tag does not support --text mode");
    }
    if o.zero && o.check {
        return Some("the --zero option is not supported when verifying checksums");
    }
    if o.tag && o.check {
        return Some("the --tag option is meaningless when verifying checksums");
    }
    if o.binary.is_some() && o.check {
        return Some("the --binary and --text options are meaningless when verifying checksums");
    }
    if !o.check {
        if o.ignore_missing {
            return Some("the --ignore-missing option is meaningful only when verifying checksums");
        }
        match o.verbosity {
            Verbosity::Status => {
                return Some("the --status option is meaningful only when verifying checksums")
            }
            Verbosity::Warn => {
                return Some("the --warn option is meaningful only when verifying checksums")
            }
            Verbosity::Quiet => {
                return Some("the --quiet option is meaningful only when verifying checksums")
            }
            Verbosity::Normal => {}
        }
        if o.strict {
            return Some("the --strict option is meaningful only when verifying checksums");
        }
    }
    None
}

/// Whether a listed name is written with GNU's leading backslash and escapes.
fn needs_escape(name: &[u8]) -> bool {
    name.iter().any(|&b| b == b'\\' || b == b'\n' || b == b'\r')
}

fn escape(name: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(name.len() + 2);
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
    out
}

fn write_line(out: &mut Vec<u8>, o: &Options, name: &[u8], digest: &[u8]) {
    let escaped = !o.zero && needs_escape(name);
    if escaped {
        out.push(b'\\');
    }
    let shown = if escaped { escape(name) } else { name.to_vec() };
    if o.tag {
        out.extend_from_slice(o.algo.tag().as_bytes());
        out.extend_from_slice(b" (");
        out.extend_from_slice(&shown);
        out.extend_from_slice(b") = ");
        out.extend_from_slice(hex(digest).as_bytes());
    } else {
        out.extend_from_slice(hex(digest).as_bytes());
        out.push(b' ');
        out.push(if o.binary == Some(true) { b'*' } else { b' ' });
        out.extend_from_slice(&shown);
    }
    out.push(if o.zero { 0 } else { b'\n' });
}

/// One line of a check list, parsed.
struct Entry {
    name: Vec<u8>,
    digest: Vec<u8>,
}

/// Counters for `-c`'s closing warnings.
#[derive(Default)]
struct Tally {
    improper: u64,
    unreadable: u64,
    mismatched: u64,
    matched_or_read: bool,
    proper: bool,
}

async fn check_all(
    ctx: &mut Ctx<'_>,
    prog: &str,
    o: &Options,
    lists: &[Vec<u8>],
) -> Result<Status> {
    let mut status = 0;
    for list_name in lists {
        let from_stdin = list_name == b"-";
        let list = match ctx.open(list_name).await? {
            Ok(d) => d,
            Err(why) => {
                let shown = quote_name(list_name);
                ctx.stderr
                    .extend_from_slice(format!("{prog}: {shown}: {why}\n").as_bytes());
                status = 1;
                continue;
            }
        };
        let list = list.to_vec();
        let shown_list = if from_stdin {
            "'standard input'".to_string()
        } else {
            quote_name(list_name)
        };
        if check_list(ctx, prog, o, &list, &shown_list, from_stdin).await? != 0 {
            status = 1;
        }
    }
    Ok(status)
}

async fn check_list(
    ctx: &mut Ctx<'_>,
    prog: &str,
    o: &Options,
    list: &[u8],
    shown_list: &str,
    from_stdin: bool,
) -> Result<Status> {
    let mut t = Tally::default();
    let mut two_char = None;
    let lines = split_lines(list);
    for (i, line) in lines.iter().enumerate() {
        ctx.io.budget.spend(1)?;
        let line = trim_line(line);
        let start = line
            .iter()
            .position(|&b| b != b' ' && b != b'\t')
            .unwrap_or(line.len());
        let line = &line[start..];
        if line.is_empty() || line[0] == b'#' {
            continue;
        }
        let entry = parse_entry(line, o, &mut two_char).filter(|e| !(from_stdin && e.name == b"-"));
        let Some(entry) = entry else {
            t.improper += 1;
            if o.verbosity == Verbosity::Warn {
                ctx.stderr.extend_from_slice(
                    format!(
                        "{prog}: {shown_list}: {}: improperly formatted {} checksum line\n",
                        i + 1,
                        o.algo.tag_family()
                    )
                    .as_bytes(),
                );
            }
            continue;
        };
        t.proper = true;
        let input = match ctx.open_stream(&entry.name).await? {
            Ok(d) => d,
            Err(why) => {
                if o.ignore_missing && why == "No such file or directory" {
                    continue;
                }
                ctx.stderr.extend_from_slice(
                    format!("{prog}: {}: {why}\n", quote_name(&entry.name)).as_bytes(),
                );
                t.unreadable += 1;
                if o.verbosity != Verbosity::Status {
                    write_result(ctx.stdout, &entry.name, b"FAILED open or read");
                }
                continue;
            }
        };
        t.matched_or_read = true;
        let digest = hash(ctx, o.algo_for(&entry), &input).await?;
        if digest == entry.digest {
            if o.verbosity != Verbosity::Status && o.verbosity != Verbosity::Quiet {
                write_result(ctx.stdout, &entry.name, b"OK");
            }
        } else {
            t.mismatched += 1;
            if o.verbosity != Verbosity::Status {
                write_result(ctx.stdout, &entry.name, b"FAILED");
            }
        }
    }
    if !t.proper {
        ctx.stderr.extend_from_slice(
            format!("{prog}: {shown_list}: no properly formatted checksum lines found\n")
                .as_bytes(),
        );
        return Ok(1);
    }
    if o.verbosity != Verbosity::Status {
        let plural = |n: u64, one: &str, many: &str| {
            if n == 1 {
                one.to_string()
            } else {
                many.to_string()
            }
        };
        if t.improper > 0 {
            let msg = format!(
                "{prog}: WARNING: {} {} improperly formatted\n",
                t.improper,
                plural(t.improper, "line is", "lines are")
            );
            ctx.stderr.extend_from_slice(msg.as_bytes());
        }
        if t.unreadable > 0 {
            let msg = format!(
                "{prog}: WARNING: {} listed {} could not be read\n",
                t.unreadable,
                plural(t.unreadable, "file", "files")
            );
            ctx.stderr.extend_from_slice(msg.as_bytes());
        }
        if t.mismatched > 0 {
            let msg = format!(
                "{prog}: WARNING: {} computed {} did NOT match\n",
                t.mismatched,
                plural(t.mismatched, "checksum", "checksums")
            );
            ctx.stderr.extend_from_slice(msg.as_bytes());
        }
    }
    if o.ignore_missing && !t.matched_or_read {
        // --status: the exit status alone says it.
        if o.verbosity != Verbosity::Status {
            let msg = format!("{prog}: {shown_list}: no file was verified\n");
            ctx.stderr.extend_from_slice(msg.as_bytes());
        }
        return Ok(1);
    }
    let bad = t.mismatched > 0 || t.unreadable > 0 || (o.strict && t.improper > 0);
    Ok(if bad { 1 } else { 0 })
}

impl Algo {
    /// The name in "improperly formatted SHA256 checksum line" (b2sum: BLAKE2b).
    fn tag_family(self) -> &'static str {
        match self {
            Algo::Md5 => "MD5",
            Algo::Sha1 => "SHA1",
            Algo::Sha224 => "SHA224",
            Algo::Sha256 => "SHA256",
            Algo::Sha384 => "SHA384",
            Algo::Sha512 => "SHA512",
            Algo::Blake2b(_) => "BLAKE2b",
        }
    }
}

impl Options {
    /// b2sum checks each line with the digest length the line has.
    fn algo_for(&self, entry: &Entry) -> Algo {
        match self.algo {
            Algo::Blake2b(_) => Algo::Blake2b(entry.digest.len().clamp(1, 64)),
            a => a,
        }
    }
}

fn write_result(out: &mut Vec<u8>, name: &[u8], what: &[u8]) {
    if name.contains(&b'\n') {
        out.push(b'\\');
        out.extend_from_slice(&escape(name));
    } else {
        out.extend_from_slice(name);
    }
    out.extend_from_slice(b": ");
    out.extend_from_slice(what);
    out.push(b'\n');
}

/// Lines split at `\n`; a last line without one counts too.
fn split_lines(data: &[u8]) -> Vec<&[u8]> {
    let mut lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if data.last() == Some(&b'\n') || data.is_empty() {
        lines.pop();
    }
    lines
}

/// Drops one trailing carriage return, as GNU does for lists written on DOS.
fn trim_line(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Parses `HEX  NAME`, `HEX *NAME` or `ALGO (NAME) = HEX`, with GNU's leading backslash
/// for escaped names.
fn parse_entry(line: &[u8], o: &Options, two_char: &mut Option<bool>) -> Option<Entry> {
    let (escaped, body) = match line.strip_prefix(b"\\") {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let entry = parse_tagged(body, o).or_else(|| parse_untagged(body, o, two_char))?;
    if escaped {
        let name = unescape(&entry.name)?;
        return Some(Entry { name, ..entry });
    }
    Some(entry)
}

fn parse_tagged(line: &[u8], o: &Options) -> Option<Entry> {
    let (size, rest) = match o.algo {
        Algo::Blake2b(_) => {
            let rest = line.strip_prefix(b"BLAKE2b")?;
            if let Some(r) = rest.strip_prefix(b"-") {
                let digits = r.iter().take_while(|b| b.is_ascii_digit()).count();
                let bits: usize = std::str::from_utf8(&r[..digits]).ok()?.parse().ok()?;
                if bits == 0 || !bits.is_multiple_of(8) || bits > 512 {
                    return None;
                }
                (bits / 8, &r[digits..])
            } else {
                (64, rest)
            }
        }
        a => (a.size(), line.strip_prefix(a.tag().as_bytes())?),
    };
    let rest = skip_blanks(rest);
    let rest = rest.strip_prefix(b"(")?;
    let close = rest.iter().rposition(|&b| b == b')')?;
    let name = &rest[..close];
    let after = skip_blanks(&rest[close + 1..]);
    let after = after.strip_prefix(b"=")?;
    let hexpart = skip_blanks(after);
    let digest = decode_hex(hexpart)?;
    if digest.len() != size {
        return None;
    }
    Some(Entry {
        name: name.to_vec(),
        digest,
    })
}

fn skip_blanks(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    &s[n..]
}

fn parse_untagged(line: &[u8], o: &Options, two_char: &mut Option<bool>) -> Option<Entry> {
    let hex_len = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    match o.algo {
        Algo::Blake2b(_) => {
            if hex_len == 0 || hex_len % 2 != 0 || hex_len > 128 {
                return None;
            }
        }
        a => {
            if hex_len != a.size() * 2 {
                return None;
            }
        }
    }
    let digest = decode_hex(&line[..hex_len])?;
    let rest = &line[hex_len..];
    let sep = *rest.first()?;
    if sep != b' ' && sep != b'\t' {
        return None;
    }
    let after = &rest[1..];
    // GNU learns from the first such line whether the list has a type character (` ` or
    // `*`) after the separator, and holds later lines to it.
    let two = *two_char.get_or_insert(after.len() > 1 && (after[0] == b' ' || after[0] == b'*'));
    let name = if two {
        match after.first() {
            Some(b' ') | Some(b'*') => &after[1..],
            _ => return None,
        }
    } else {
        after
    };
    if name.is_empty() {
        return None;
    }
    Some(Entry {
        name: name.to_vec(),
        digest,
    })
}

fn decode_hex(s: &[u8]) -> Option<Vec<u8>> {
    if s.is_empty() || !s.len().is_multiple_of(2) {
        return None;
    }
    let mut out = Vec::with_capacity(s.len() / 2);
    for pair in s.chunks(2) {
        let hi = (pair[0] as char).to_digit(16)?;
        let lo = (pair[1] as char).to_digit(16)?;
        out.push((hi * 16 + lo) as u8);
    }
    Some(out)
}

/// Undoes GNU's escapes in a listed name: `\\`, `\n`, `\r`; anything else is bad.
fn unescape(name: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(name.len());
    let mut it = name.iter();
    while let Some(&b) = it.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match it.next()? {
            b'\\' => out.push(b'\\'),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    fn out(args: &[&str], stdin: &[u8]) -> (i32, String) {
        let r = run(args, stdin).unwrap();
        (r.status, r.stdout_str())
    }

    #[test]
    fn gnu_lines() {
        // Expected values printed by GNU coreutils 9.1.
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(out(&["sha256sum"], b"abc"), (0, format!("{abc}  -\n")));
        assert_eq!(
            out(&["sha256sum", "-b"], b"abc"),
            (0, format!("{abc} *-\n"))
        );
        assert_eq!(
            out(&["sha256sum", "--tag"], b"abc"),
            (0, format!("SHA256 (-) = {abc}\n"))
        );
        assert_eq!(
            out(&["b2sum", "--tag", "-l", "128"], b"abc"),
            (
                0,
                "BLAKE2b-128 (-) = cf4ab791c62b8d2b2109c90275287816\n".into()
            )
        );
        assert_eq!(
            out(&["md5sum", "--tag"], b"abc"),
            (0, "MD5 (-) = 900150983cd24fb0d6963f7d28e17f72\n".into())
        );
        assert_eq!(
            out(&["sha256sum", "-z"], b"abc"),
            (0, format!("{abc}  -\0"))
        );
        assert_eq!(
            out(&["sha256sum", "-", "-"], b"abc"),
            (
                0,
                format!("{abc}  -\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  -\n")
            )
        );
        assert_eq!(out(&["sha256sum", "nofile"], b"abc"), (1, String::new()));
    }

    #[test]
    fn check_from_stdin() {
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        // A `-` in a list read from stdin is improperly formatted.
        let r = run(&["sha256sum", "-c"], format!("{abc}  -\n").as_bytes()).unwrap();
        assert_eq!(r.status, 1);
        assert_eq!(
            r.stderr_str(),
            "sha256sum: 'standard input': no properly formatted checksum lines found\n"
        );
        let r = run(&["sha256sum", "-c"], format!("{abc}  foo\nxx\n").as_bytes()).unwrap();
        assert_eq!(r.stdout_str(), "foo: FAILED open or read\n");
        assert_eq!(
            r.stderr_str(),
            "sha256sum: foo: No such file or directory\n\
             sha256sum: WARNING: 1 line is improperly formatted\n\
             sha256sum: WARNING: 1 listed file could not be read\n"
        );
    }

    #[test]
    fn quoting() {
        use super::quote_name;
        assert_eq!(quote_name(b"foo"), "foo");
        assert_eq!(quote_name(b"a b"), "'a b'");
        assert_eq!(quote_name(b"x\ny"), "'x'$'\\n''y'");
        assert_eq!(quote_name("*é".as_bytes()), "'*'$'\\303\\251'");
        assert_eq!(quote_name("é".as_bytes()), "''$'\\303\\251'");
    }
}
