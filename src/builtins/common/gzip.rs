//! The engine of `gzip`, `gunzip` and `zcat`: GNU gzip 1.12's options, its stream format
//! (for stdin: no name, mtime 0, XFL 2 for -9 and 4 for -1, OS 3), byte-identical
//! compression through [`deflate`](super::deflate), and decompression of any gzip stream
//! with GNU's handling of several members, trailing zeros and garbage, and its messages.
//! Spends one step per 64 bytes read or written.
//!
//! There is no file system: operands are `-` (stdin) and URLs, whose output goes to
//! stdout as with `-c`; any other name is a missing file.

use flate2::{Crc, Decompress, FlushDecompress, Status as ZStatus};

use crate::builtins::common::args::{long, Arg, Spec};
use crate::builtins::common::deflate::deflate;
use crate::builtins::common::inflate_eof;
use crate::builtins::{as_url, Ctx};
use crate::error::{Result, Status};

/// How a tool was called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `gzip`: compresses unless `-d`.
    Gzip,
    /// `gunzip`: decompresses.
    Gunzip,
    /// `zcat`: decompresses to stdout.
    Zcat,
}

const SPEC: Spec = Spec {
    short: "123456789acdfhklLmMnNqrS:tvV",
    long: &[
        long("ascii", Arg::No, Some('a')),
        long("best", Arg::No, Some('9')),
        long("decompress", Arg::No, Some('d')),
        long("fast", Arg::No, Some('1')),
        long("force", Arg::No, Some('f')),
        long("keep", Arg::No, Some('k')),
        long("list", Arg::No, Some('l')),
        long("name", Arg::No, Some('N')),
        long("no-name", Arg::No, Some('n')),
        long("no-time", Arg::No, Some('m')),
        long("quiet", Arg::No, Some('q')),
        long("recursive", Arg::No, Some('r')),
        long("silent", Arg::No, Some('q')),
        long("stdout", Arg::No, Some('c')),
        long("suffix", Arg::Required, Some('S')),
        long("synchronous", Arg::No, None),
        long("test", Arg::No, Some('t')),
        long("time", Arg::No, Some('M')),
        long("to-stdout", Arg::No, Some('c')),
        long("uncompress", Arg::No, Some('d')),
        long("verbose", Arg::No, Some('v')),
    ],
    stop_at_operand: false,
};

#[derive(Clone, Copy)]
struct Options {
    decompress: bool,
    level: u32,
    force: bool,
    list: bool,
    test: bool,
    quiet: bool,
    verbose: bool,
}

/// GNU's exit statuses: warnings (2) yield to errors (1).
fn worse(a: Status, b: Status) -> Status {
    if a == 1 || b == 1 {
        1
    } else {
        a.max(b)
    }
}

pub fn run_tool(ctx: &mut Ctx<'_>, args: &[Vec<u8>], mode: Mode) -> Result<Status> {
    // GNU's gunzip and zcat are scripts that run gzip: every message says "gzip".
    let prog = "gzip";
    let parsed = match SPEC.parse(args.get(1..).unwrap_or(&[])) {
        Ok(p) => p,
        Err(msg) => {
            // gzip's own wording of the hint, with its backquote.
            let text = format!("{prog}: {msg}\nTry `{prog} --help' for more information.\n");
            ctx.stderr.extend_from_slice(text.as_bytes());
            return Ok(1);
        }
    };
    let mut o = Options {
        decompress: mode != Mode::Gzip,
        level: 6,
        force: false,
        list: false,
        test: false,
        quiet: false,
        verbose: false,
    };
    for opt in &parsed.opts {
        match opt.key {
            "d" => o.decompress = true,
            "f" => o.force = true,
            "l" => o.list = true,
            "t" => o.test = true,
            "q" => {
                o.quiet = true;
                o.verbose = false;
            }
            "v" => {
                o.verbose = true;
                o.quiet = false;
            }
            "h" | "L" | "V" => {
                let text =
                    format!("{prog}: --help, --license and --version are not available here\n");
                ctx.stderr.extend_from_slice(text.as_bytes());
                return Ok(1);
            }
            "S" if opt.value().is_empty() => {
                ctx.stderr
                    .extend_from_slice(format!("{prog}: invalid suffix ''\n").as_bytes());
                return Ok(1);
            }
            k if k.len() == 1 && k.as_bytes()[0].is_ascii_digit() => {
                o.level = (k.as_bytes()[0] - b'0') as u32;
            }
            _ => {}
        }
    }
    let mut operands = parsed.operands;
    if operands.is_empty() {
        operands.push(b"-".to_vec());
    }
    let mut status = 0;
    let mut list_header = false;
    for name in &operands {
        let shown = if name == b"-" {
            "stdin".to_string()
        } else {
            String::from_utf8_lossy(name).into_owned()
        };
        if name != b"-" && as_url(name).is_none() {
            // No file system: GNU's words for a missing file (decompressing, it looks
            // for NAME.gz too and names that).
            let mut missing = shown.clone();
            if (o.decompress || o.list || o.test) && !missing.ends_with(".gz") {
                missing.push_str(".gz");
            }
            let text = format!("{prog}: {missing}: No such file or directory\n");
            ctx.stderr.extend_from_slice(text.as_bytes());
            status = worse(status, 1);
            continue;
        }
        let data = match ctx.open(name)? {
            Ok(d) => d,
            Err(why) => {
                let text = format!("{prog}: {shown}: {why}\n");
                ctx.stderr.extend_from_slice(text.as_bytes());
                status = worse(status, 1);
                continue;
            }
        };
        let s = if o.list {
            list(ctx, prog, &shown, &data, &o, &mut list_header)?
        } else if o.decompress || o.test {
            decompress_all(ctx, prog, &shown, &data, &o, &mut (0, 0, false))?
        } else {
            let out = compress(&data, o.level, ctx)?;
            ctx.budget.spend_bytes(out.len())?;
            ctx.stdout.extend_from_slice(&out);
            if o.verbose {
                // The saving, counting neither the 10-byte header nor the 8-byte trailer.
                let ratio = ratio_text(out.len().saturating_sub(18) as u64, data.len() as u64);
                ctx.stderr
                    .extend_from_slice(format!("{ratio}\n").as_bytes());
            }
            0
        };
        status = worse(status, s);
        if s == 1 && ctx.stderr.ends_with(b": unexpected end of file\n") {
            // GNU gzip exits at a stream that ends too early: later operands are not read.
            break;
        }
    }
    Ok(status)
}

/// A whole gzip member for `data`, as GNU gzip writes it for stdin.
pub fn compress(data: &[u8], level: u32, ctx: &mut Ctx<'_>) -> Result<Vec<u8>> {
    let body = deflate(data, level, ctx.budget)?;
    let xfl = match level {
        1 => 4,
        9 => 2,
        _ => 0,
    };
    let mut out = Vec::with_capacity(body.len() + 18);
    out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, xfl, 3]);
    out.extend_from_slice(&body);
    let mut crc = Crc::new();
    crc.update(data);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    Ok(out)
}

/// How decoding one member ended.
enum Member {
    /// A good member that used `used` bytes of input, `header` of them its header.
    Ok { used: usize, header: usize },
    /// An error with GNU's words, after the output it had made.
    Bad(&'static str),
}

const FENCRYPTED: u8 = 0x20;
const FTEXT_MASK_RESERVED: u8 = 0xc0;
const FHCRC: u8 = 0x02;
const FEXTRA: u8 = 0x04;
const FNAME: u8 = 0x08;
const FCOMMENT: u8 = 0x10;

/// Decodes the member at the start of `data` (whose magic has been checked) into `out`.
fn member(ctx: &mut Ctx<'_>, data: &[u8], out: &mut Vec<u8>) -> Result<Member> {
    const EOF: &str = "unexpected end of file";
    // GNU checks each header byte as it reads it: the method, then the flags.
    match data.get(2) {
        Some(8) => {}
        Some(_) => return Ok(Member::Bad("unknown method")),
        None => return Ok(Member::Bad(EOF)),
    }
    let flags = data.get(3).copied().unwrap_or(0);
    if flags & FENCRYPTED != 0 {
        return Ok(Member::Bad("encrypted"));
    }
    if flags & FTEXT_MASK_RESERVED != 0 {
        return Ok(Member::Bad("unsupported flags"));
    }
    if data.len() < 10 {
        return Ok(Member::Bad(EOF));
    }
    let mut pos = 10;
    if flags & FEXTRA != 0 {
        let Some(len) = data.get(pos..pos + 2) else {
            return Ok(Member::Bad(EOF));
        };
        pos += 2 + u16::from_le_bytes([len[0], len[1]]) as usize;
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            match data.get(pos..).and_then(|d| memchr::memchr(0, d)) {
                Some(z) => pos += z + 1,
                None => return Ok(Member::Bad(EOF)),
            }
        }
    }
    if flags & FHCRC != 0 {
        pos += 2;
    }
    if pos > data.len() {
        return Ok(Member::Bad(EOF));
    }
    let start = out.len();
    let mut z = Decompress::new(false);
    let body = &data[pos..];
    let mut stalled = false;
    loop {
        let before_in = z.total_in() as usize;
        let before_out = out.len();
        if out.capacity() - out.len() < 32 * 1024 {
            out.reserve(64 * 1024);
        }
        let res = z.decompress_vec(&body[before_in..], out, FlushDecompress::None);
        let made = out.len() - before_out;
        let used = z.total_in() as usize - before_in;
        ctx.budget.spend_bytes(made + used)?;
        match res {
            Ok(ZStatus::StreamEnd) => break,
            Ok(_) => {
                if used == 0 && made == 0 {
                    if z.total_in() as usize >= body.len() || stalled {
                        // GNU stops a little earlier than flate2 on a cut stream.
                        if let Some(n) = inflate_eof::gnu_output_len(body) {
                            out.truncate(start + n.min(out.len() - start));
                        }
                        return Ok(Member::Bad(EOF));
                    }
                    // No progress before the end of the input: give more room, once.
                    stalled = true;
                    out.reserve(256 * 1024);
                } else {
                    stalled = false;
                }
            }
            Err(_) => return Ok(Member::Bad("invalid compressed data--format violated")),
        }
    }
    let end = pos + z.total_in() as usize;
    let Some(trailer) = data.get(end..end + 8) else {
        return Ok(Member::Bad(EOF));
    };
    let mut crc = Crc::new();
    crc.update(&out[start..]);
    let want_crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
    let want_len = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
    if crc.sum() != want_crc {
        return Ok(Member::Bad("invalid compressed data--crc error"));
    }
    if (out.len() - start) as u32 != want_len {
        return Ok(Member::Bad("invalid compressed data--length error"));
    }
    Ok(Member::Ok {
        used: end + 8,
        header: pos,
    })
}

fn decompress_all(
    ctx: &mut Ctx<'_>,
    prog: &str,
    shown: &str,
    data: &[u8],
    o: &Options,
    info: &mut (usize, usize, bool),
) -> Result<Status> {
    let mut out = Vec::new();
    let mut pos = 0;
    let mut first = true;
    let mut status = 0;
    let mut message: Option<String> = None;
    let mut members = 0usize;
    let mut trailing = false;
    let mut header_len = 0usize;
    loop {
        let rest = &data[pos..];
        if !first && rest.is_empty() {
            break;
        }
        let magic_ok = rest.len() >= 2 && rest[0] == 0x1f && rest[1] == 0x8b;
        if !magic_ok {
            if o.force {
                // gzip -df passes what is not gzip through unchanged, trailing bytes too.
                if !o.test {
                    ctx.budget.spend_bytes(rest.len())?;
                    out.extend_from_slice(rest);
                }
                break;
            }
            let why = if first {
                if rest.len() < 2 {
                    "unexpected end of file"
                } else {
                    "not in gzip format"
                }
            } else if rest.len() == 1 && rest[0] != 0 {
                "unexpected end of file"
            } else if rest.iter().all(|&b| b == 0) {
                trailing = true;
                if o.verbose {
                    message = Some(format!(
                        "\n{prog}: {shown}: decompression OK, trailing zero bytes ignored\n"
                    ));
                    status = 2;
                }
                break;
            } else {
                trailing = true;
                if !o.quiet {
                    message = Some(format!(
                        "\n{prog}: {shown}: decompression OK, trailing garbage ignored\n"
                    ));
                }
                status = 2;
                break;
            };
            message = Some(format!("\n{prog}: {shown}: {why}\n"));
            status = 1;
            break;
        }
        match member(ctx, rest, &mut out)? {
            Member::Ok { used, header } => {
                pos += used;
                members += 1;
                header_len = header;
            }
            Member::Bad(why) => {
                // GNU starts a line of its own only for errors inside the data.
                let why = match why {
                    "unknown method" => {
                        format!("{shown}: unknown method {} -- not supported", rest[2])
                    }
                    "encrypted" => format!("{shown} is encrypted -- not supported"),
                    "unsupported flags" => {
                        format!("{shown} has flags 0x{:x} -- not supported", rest[3])
                    }
                    w => format!("\n{prog}: {shown}: {w}"),
                };
                let why = if why.starts_with('\n') {
                    why
                } else {
                    format!("{prog}: {why}")
                };
                message = Some(format!("{why}\n"));
                status = 1;
                break;
            }
        }
        first = false;
    }
    *info = (members, header_len, trailing);
    if !o.test {
        ctx.stdout.extend_from_slice(&out);
    }
    if let Some(m) = message {
        ctx.stderr.extend_from_slice(m.as_bytes());
    }
    if o.test && o.verbose && status != 1 {
        ctx.stderr.extend_from_slice(b" OK\n");
    }
    Ok(status)
}

/// `gzip -l`: GNU reads a pipe through (so a bad stream fails as with `-t`), then shows
/// the size in the last trailer; the header and trailer are not counted as compressed
/// data for a single member (GNU counts them for several).
fn list(
    ctx: &mut Ctx<'_>,
    prog: &str,
    shown: &str,
    data: &[u8],
    o: &Options,
    header_done: &mut bool,
) -> Result<Status> {
    let test = Options {
        test: true,
        force: false,
        ..*o
    };
    let mut info = (0, 0, false);
    let status = decompress_all(ctx, prog, shown, data, &test, &mut info)?;
    if status == 1 || info.2 {
        // GNU lists nothing for a stream with anything after its last member.
        return Ok(status);
    }
    let n = data.len();
    let uncompressed = match data.get(n.saturating_sub(4)..) {
        Some(t) if n >= 4 => u32::from_le_bytes([t[0], t[1], t[2], t[3]]) as u64,
        _ => 0,
    };
    let (members, header_len, _) = info;
    let overhead = if members == 1 {
        header_len as u64 + 8
    } else {
        0
    };
    let compressed = n as u64;
    if !*header_done {
        ctx.stdout.extend_from_slice(
            b"         compressed        uncompressed  ratio uncompressed_name\n",
        );
        *header_done = true;
    }
    let ratio = ratio_text(compressed.saturating_sub(overhead), uncompressed);
    let name = if shown == "stdin" { "stdout" } else { shown };
    let line = format!("{compressed:>19} {uncompressed:>19} {ratio} {name}\n");
    ctx.stdout.extend_from_slice(line.as_bytes());
    Ok(status)
}

/// GNU's ratio column: the saving in per cent, `%5.1f%%`.
fn ratio_text(compressed: u64, uncompressed: u64) -> String {
    if uncompressed == 0 {
        return "  0.0%".to_string();
    }
    let ratio = 100.0 * (uncompressed as f64 - compressed as f64) / uncompressed as f64;
    format!("{ratio:5.1}%")
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    fn unhex(s: &str) -> Vec<u8> {
        data_encoding::HEXLOWER.decode(s.as_bytes()).unwrap()
    }

    #[test]
    fn gnu_bytes() {
        // `printf hello | gzip -n` and `printf '' | gzip -n -9`, GNU gzip 1.12.
        let hello = unhex("1f8b0800000000000003cb48cdc9c9070086a6103605000000");
        assert_eq!(run(&["gzip", "-n"], b"hello").unwrap().stdout, hello);
        assert_eq!(run(&["gzip"], b"hello").unwrap().stdout, hello);
        assert_eq!(
            run(&["gzip", "-9"], b"").unwrap().stdout,
            unhex("1f8b080000000000020303000000000000000000")
        );
        let r = run(&["gzip", "-c", "foo"], b"").unwrap();
        assert_eq!((r.status, r.stdout.len()), (1, 0));
    }

    #[test]
    fn decompression_rules() {
        let hello = unhex("1f8b0800000000000003cb48cdc9c9070086a6103605000000");
        let mut two = hello.clone();
        two.extend_from_slice(&hello);
        let r = run(&["zcat"], &two).unwrap();
        assert_eq!((r.status, r.stdout_str()), (0, "hellohello".into()));
        let mut zeros = hello.clone();
        zeros.extend_from_slice(&[0, 0, 0]);
        assert_eq!(run(&["gunzip"], &zeros).unwrap().status, 0);
        let mut garbage = hello.clone();
        garbage.extend_from_slice(b"garbage");
        let r = run(&["gzip", "-d"], &garbage).unwrap();
        assert_eq!((r.status, r.stdout_str()), (2, "hello".into()));
        assert_eq!(
            r.stderr_str(),
            "gzip: stdin: decompression OK, trailing garbage ignored\n"
        );
        let r = run(&["gzip", "-d"], &hello[..15]).unwrap();
        assert_eq!(r.status, 1);
        assert_eq!(r.stderr_str(), "\ngzip: stdin: unexpected end of file\n");
        let mut bad_crc = hello.clone();
        bad_crc[17] ^= 1;
        let r = run(&["gzip", "-d"], &bad_crc).unwrap();
        assert_eq!((r.status, r.stdout_str()), (1, "hello".into()));
        let r = run(&["zcat", "-f"], b"plain").unwrap();
        assert_eq!((r.status, r.stdout_str()), (0, "plain".into()));
        let r = run(&["zcat"], b"plain").unwrap();
        assert_eq!(r.stderr_str(), "\ngzip: stdin: not in gzip format\n");
    }

    #[test]
    fn list() {
        let hello = unhex("1f8b0800000000000003cb48cdc9c9070086a6103605000000");
        let r = run(&["gzip", "-l"], &hello).unwrap();
        assert_eq!(
            r.stdout_str(),
            "         compressed        uncompressed  ratio uncompressed_name\n\
             \x20                25                   5 -40.0% stdout\n"
        );
    }
}
