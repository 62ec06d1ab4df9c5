//! The engine of `gzip`, `gunzip` and `zcat`: GNU gzip 1.12's options, its stream format
//! (for stdin: no name, mtime 0, XFL 2 for -9 and 4 for -1, OS 3), byte-identical
//! compression through [`deflate`](super::deflate), and decompression of any gzip stream
//! with GNU's handling of several members, trailing zeros and garbage, and its messages.
//! Spends one step per 64 bytes read or written: compressing, per read of the window and
//! over the whole output; decompressing, over each member's compressed and decompressed
//! bytes together.
//!
//! Both directions stream: input is read as it comes and output handed on as it is made.
//! Compressing holds the window and one read request; decompressing holds the compressed
//! input of the deflate block being decoded (to find where GNU stops on a cut stream, see
//! [`inflate_eof`]) and the last [`HOLD_BACK`] bytes of output, which GNU may not write.
//!
//! There is no file system: operands are `-` (stdin) and URLs, whose output goes to
//! stdout as with `-c`; any other name is a missing file.

use flate2::{Crc, Decompress, FlushDecompress, Status as ZStatus};

use crate::budget::ByteMeter;
use crate::builtins::common::args::{long, Arg, Spec};
use crate::builtins::common::deflate::Deflate;
use crate::builtins::common::inflate_eof;
use crate::builtins::date::tz::Zone;
use crate::builtins::{as_url, Ctx};
use crate::error::{Result, Status};
use crate::stream::Stdin;

/// Input is compressed in pieces of at most this many bytes, flushing in between.
const PIECE: usize = 64 * 1024;

/// Decompressed bytes kept back until more follow: on a cut stream GNU stops up to a few
/// symbols (each at most 258 bytes, in less than the 16 bits of its largest read) before
/// the last one flate2 decodes.
const HOLD_BACK: usize = 16 * 1024;

/// Compressed input of a member kept for [`inflate_eof`] before it is walked to the start
/// of the current block and cut there.
const KEEP_COMPRESSED: usize = 4 * 1024 * 1024;

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
        long("rsyncable", Arg::No, None),
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
    rsyncable: bool,
}

/// GNU's exit statuses: warnings (2) yield to errors (1).
fn worse(a: Status, b: Status) -> Status {
    if a == 1 || b == 1 {
        1
    } else {
        a.max(b)
    }
}

/// GNU's gunzip and zcat are scripts that run gzip: every message says "gzip".
const PROG: &str = "gzip";

pub async fn run_tool(ctx: &mut Ctx<'_>, args: &[Vec<u8>], mode: Mode) -> Result<Status> {
    let prog = PROG;
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
        rsyncable: false,
    };
    for opt in &parsed.opts {
        match opt.key {
            "d" => o.decompress = true,
            "a" => ctx.stderr.extend_from_slice(
                format!("{prog}: option --ascii ignored on this system\n").as_bytes(),
            ),
            "f" => o.force = true,
            "rsyncable" => o.rsyncable = true,
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
        let stream = match ctx.open_stream(name).await? {
            Ok(d) => d,
            Err(why) => {
                let text = format!("{prog}: {shown}: {why}\n");
                ctx.stderr.extend_from_slice(text.as_bytes());
                status = worse(status, 1);
                continue;
            }
        };
        let mut input = Input::new(&stream);
        let (s, fatal, bad_header) = if o.list {
            list(ctx, prog, &shown, &mut input, &o, &mut list_header).await?
        } else if o.decompress || o.test {
            let (s, found) = decompress_all(ctx, prog, &shown, &mut input, &o).await?;
            (s, found.fatal, found.bad_header)
        } else {
            let (read, wrote) = compress(ctx, &stream, &o).await?;
            if o.verbose {
                // The saving, counting neither the 10-byte header nor the 8-byte trailer.
                let ratio = ratio_text(wrote.saturating_sub(18), read);
                ctx.stderr
                    .extend_from_slice(format!("{ratio}\n").as_bytes());
            }
            (0, false, false)
        };
        status = worse(status, s);
        if s == 1 && (fatal || (bad_header && name == b"-")) {
            break;
        }
    }
    Ok(status)
}

/// Compresses `input` into one gzip member, as GNU gzip writes it for stdin.
/// Returns the bytes read and written.
async fn compress(ctx: &mut Ctx<'_>, input: &Stdin, o: &Options) -> Result<(u64, u64)> {
    let level = o.level;
    let xfl = match level {
        1 => 4,
        9 => 2,
        _ => 0,
    };
    let mut written = ByteMeter::default();
    let (mut read, mut wrote) = (0u64, 0u64);
    let mut emit = |ctx: &mut Ctx<'_>, from: usize| {
        wrote += (ctx.stdout.len() - from) as u64;
        written.add(ctx.io.budget, ctx.stdout.len() - from)
    };
    let from = ctx.stdout.len();
    ctx.stdout
        .extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, xfl, 3]);
    emit(ctx, from)?;
    let mut deflate = Deflate::new(level);
    deflate.set_rsyncable(o.rsyncable);
    let mut crc = Crc::new();
    while let Some(chunk) = input.read().await? {
        read += chunk.len() as u64;
        for piece in chunk.chunks(PIECE) {
            crc.update(piece);
            let from = ctx.stdout.len();
            deflate.write(piece, ctx.io.budget, ctx.stdout)?;
            emit(ctx, from)?;
            ctx.flush_some().await?;
        }
    }
    let from = ctx.stdout.len();
    deflate.finish(ctx.io.budget, ctx.stdout)?;
    ctx.stdout.extend_from_slice(&crc.sum().to_le_bytes());
    ctx.stdout.extend_from_slice(&crc.amount().to_le_bytes());
    emit(ctx, from)?;
    written.finish(ctx.io.budget)?;
    Ok((read, wrote))
}

/// The compressed input of one operand, read as it is needed.
struct Input<'s> {
    stream: &'s Stdin,
    buf: Vec<u8>,
    pos: usize,
    ended: bool,
    /// Bytes taken from the stream so far.
    total: u64,
    /// The CRC of the bytes consumed while it is set: a member's header, for FHCRC.
    header_crc: Option<Crc>,
}

impl<'s> Input<'s> {
    fn new(stream: &'s Stdin) -> Self {
        Input {
            stream,
            buf: Vec::new(),
            pos: 0,
            ended: false,
            total: 0,
            header_crc: None,
        }
    }

    /// The bytes at hand.
    fn avail(&self) -> &[u8] {
        &self.buf[self.pos..]
    }

    fn consume(&mut self, n: usize) {
        if let Some(crc) = &mut self.header_crc {
            crc.update(&self.buf[self.pos..self.pos + n]);
        }
        self.pos += n;
    }

    /// Reads until `n` bytes are at hand; `false` when the stream ends first.
    async fn fill(&mut self, n: usize) -> Result<bool> {
        while self.buf.len() - self.pos < n {
            if self.ended {
                return Ok(false);
            }
            let Some(chunk) = self.stream.read().await? else {
                self.ended = true;
                continue;
            };
            self.total += chunk.len() as u64;
            if self.pos == self.buf.len() {
                self.buf = chunk;
            } else {
                self.buf.drain(..self.pos);
                self.buf.extend_from_slice(&chunk);
            }
            self.pos = 0;
        }
        Ok(true)
    }

    /// Drops `n` bytes; `false` when the stream ends first.
    async fn skip(&mut self, mut n: usize) -> Result<bool> {
        loop {
            let here = n.min(self.avail().len());
            self.consume(here);
            n -= here;
            if n == 0 {
                return Ok(true);
            }
            if !self.fill(1).await? {
                return Ok(false);
            }
        }
    }

    /// Drops the bytes up to and with the next NUL; `false` when the stream ends first.
    async fn skip_past_nul(&mut self) -> Result<bool> {
        loop {
            if let Some(z) = memchr::memchr(0, self.avail()) {
                self.consume(z + 1);
                return Ok(true);
            }
            let all = self.avail().len();
            self.consume(all);
            if !self.fill(1).await? {
                return Ok(false);
            }
        }
    }
}

/// How decoding one member ended.
enum Member {
    /// A good member; its header was `header` bytes, its trailer said `size` and `crc`.
    Ok { header: usize, size: u32, crc: u32 },
    /// An error with GNU's words, after the output it had made.
    Bad(&'static str),
    /// The header's own CRC (FHCRC) is not that of its bytes.
    BadHeaderCrc { stored: u16, computed: u16 },
}

/// A member whose trailer has neither the data's CRC nor its length.
const CRC_AND_LENGTH: &str = "crc and length";

const FENCRYPTED: u8 = 0x20;
const FTEXT_MASK_RESERVED: u8 = 0xc0;
const FHCRC: u8 = 0x02;
const FEXTRA: u8 = 0x04;
const FNAME: u8 = 0x08;
const FCOMMENT: u8 = 0x10;

/// Decompressed bytes on their way to stdout (none with `-t`), the last [`HOLD_BACK`]
/// of them kept until more follow.
struct Output {
    held: Vec<u8>,
    written: u64,
    test: bool,
}

impl Output {
    async fn put(&mut self, ctx: &mut Ctx<'_>, bytes: &[u8]) -> Result<()> {
        self.held.extend_from_slice(bytes);
        if self.held.len() >= HOLD_BACK + PIECE {
            let n = self.held.len() - HOLD_BACK;
            self.release(ctx, n).await?;
        }
        Ok(())
    }

    /// Writes `n` of the held bytes.
    async fn release(&mut self, ctx: &mut Ctx<'_>, n: usize) -> Result<()> {
        let n = n.min(self.held.len());
        if !self.test {
            ctx.stdout.extend_from_slice(&self.held[..n]);
        }
        self.held.drain(..n);
        self.written += n as u64;
        ctx.flush_some().await
    }

    /// Writes the held bytes so that `total` have been written in all (at least those
    /// already written).
    async fn release_to(&mut self, ctx: &mut Ctx<'_>, total: u64) -> Result<()> {
        let n = total.saturating_sub(self.written);
        self.release(ctx, usize::try_from(n).unwrap_or(usize::MAX))
            .await?;
        self.held.clear();
        Ok(())
    }

    async fn release_all(&mut self, ctx: &mut Ctx<'_>) -> Result<()> {
        self.release(ctx, self.held.len()).await
    }
}

/// A member's compressed input from the start of the deflate block being decoded: what
/// [`inflate_eof`] needs to tell where GNU stops if the stream is cut.
struct Kept {
    bytes: Vec<u8>,
    /// The bit of `bytes` the block starts at.
    bit: usize,
    /// Bytes decompressed before that block.
    out: u64,
    /// Walk again once this much is kept.
    walk_at: usize,
    /// The walk gave up (a stream bad in a way it does not follow).
    lost: bool,
}

impl Kept {
    fn new() -> Self {
        Kept {
            bytes: Vec::new(),
            bit: 0,
            out: 0,
            walk_at: KEEP_COMPRESSED,
            lost: false,
        }
    }

    fn add(&mut self, bytes: &[u8]) {
        if self.lost {
            return;
        }
        if self.bytes.capacity() < self.walk_at + PIECE {
            // Room for what is kept before the next walk, not twice that.
            self.bytes
                .reserve_exact(self.walk_at + PIECE - self.bytes.len());
        }
        self.bytes.extend_from_slice(bytes);
        if self.bytes.len() >= self.walk_at {
            match inflate_eof::walk(&self.bytes, self.bit) {
                Some(w) => {
                    let cut = w.block_bit / 8;
                    self.bytes.drain(..cut);
                    self.bit = w.block_bit % 8;
                    self.out += w.block_out as u64;
                    // The same room again, unless the current block has filled half.
                    self.walk_at = KEEP_COMPRESSED.max(self.bytes.len() + KEEP_COMPRESSED / 2);
                }
                None => {
                    self.lost = true;
                    self.bytes = Vec::new();
                }
            }
        }
    }

    /// The bytes GNU writes of a member cut here, or `None` when the walk cannot tell.
    fn gnu_output_len(&self) -> Option<u64> {
        if self.lost {
            return None;
        }
        inflate_eof::walk(&self.bytes, self.bit).map(|w| self.out + w.out as u64)
    }
}

/// Decodes the member at the head of `input` (whose magic has been checked).
/// `verbose_name`: the name to say `-v`'s notes under (an extra field it ignores).
async fn member(
    ctx: &mut Ctx<'_>,
    input: &mut Input<'_>,
    out: &mut Output,
    verbose_name: Option<&str>,
) -> Result<Member> {
    const EOF: &str = "unexpected end of file";
    // GNU checks each header byte as it reads it: the method, then the flags.
    let whole = input.fill(10).await?;
    match input.avail().get(2) {
        Some(8) => {}
        Some(_) => return Ok(Member::Bad("unknown method")),
        None => return Ok(Member::Bad(EOF)),
    }
    let flags = input.avail().get(3).copied().unwrap_or(0);
    if flags & FENCRYPTED != 0 {
        return Ok(Member::Bad("encrypted"));
    }
    if flags & FTEXT_MASK_RESERVED != 0 {
        return Ok(Member::Bad("unsupported flags"));
    }
    if !whole {
        return Ok(Member::Bad(EOF));
    }
    let start = input.total - input.avail().len() as u64;
    input.header_crc = Some(Crc::new());
    input.consume(10);
    if flags & FEXTRA != 0 {
        if !input.fill(2).await? {
            return Ok(Member::Bad(EOF));
        }
        let len = u16::from_le_bytes([input.avail()[0], input.avail()[1]]) as usize;
        input.consume(2);
        if let Some(name) = verbose_name {
            let note = format!("{PROG}: {name}: extra field of {len} bytes ignored\n");
            ctx.stderr.extend_from_slice(note.as_bytes());
        }
        if !input.skip(len).await? {
            return Ok(Member::Bad(EOF));
        }
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 && !input.skip_past_nul().await? {
            return Ok(Member::Bad(EOF));
        }
    }
    let header_crc = input.header_crc.take().map_or(0, |c| c.sum() & 0xffff);
    if flags & FHCRC != 0 {
        if !input.fill(2).await? {
            return Ok(Member::Bad(EOF));
        }
        let stored = u16::from_le_bytes([input.avail()[0], input.avail()[1]]);
        input.consume(2);
        if u32::from(stored) != header_crc {
            return Ok(Member::BadHeaderCrc {
                stored,
                computed: header_crc as u16,
            });
        }
    }
    let header = (input.total - input.avail().len() as u64 - start) as usize;
    // The bytes written and held before this member.
    let before = out.written + out.held.len() as u64;
    let mut z = Decompress::new(false);
    let mut crc = Crc::new();
    let mut steps = ByteMeter::default();
    let mut kept = Kept::new();
    let mut made = Vec::with_capacity(PIECE);
    let mut stalled = false;
    loop {
        if input.avail().is_empty() {
            input.fill(1).await?;
        }
        let body = input.avail();
        let before_in = z.total_in();
        made.clear();
        let res = z.decompress_vec(body, &mut made, FlushDecompress::None);
        let used = (z.total_in() - before_in) as usize;
        kept.add(&body[..used]);
        input.consume(used);
        steps.add(ctx.io.budget, made.len() + used)?;
        crc.update(&made);
        out.put(ctx, &made).await?;
        match res {
            Ok(ZStatus::StreamEnd) => break,
            Ok(_) if used == 0 && made.is_empty() => {
                // No progress: it needs more input than is at hand, or the stream is cut.
                let at_hand = input.avail().len();
                if input.fill(at_hand + 1).await? {
                    stalled = false;
                } else if stalled || at_hand == 0 {
                    steps.finish(ctx.io.budget)?;
                    kept.add(input.avail());
                    let member_made = out.written + out.held.len() as u64 - before;
                    match kept.gnu_output_len() {
                        Some(n) => out.release_to(ctx, before + n.min(member_made)).await?,
                        None => out.release_all(ctx).await?,
                    }
                    return Ok(Member::Bad(EOF));
                } else {
                    stalled = true;
                }
            }
            Ok(_) => stalled = false,
            Err(_) => {
                steps.finish(ctx.io.budget)?;
                out.release_all(ctx).await?;
                return Ok(Member::Bad("invalid compressed data--format violated"));
            }
        }
    }
    steps.finish(ctx.io.budget)?;
    out.release_all(ctx).await?;
    if !input.fill(8).await? {
        return Ok(Member::Bad(EOF));
    }
    let t = &input.avail()[..8];
    let want_crc = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
    let want_len = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
    input.consume(8);
    // GNU checks both and says both.
    match (crc.sum() == want_crc, crc.amount() == want_len) {
        (false, false) => return Ok(Member::Bad(CRC_AND_LENGTH)),
        (false, true) => return Ok(Member::Bad("invalid compressed data--crc error")),
        (true, false) => return Ok(Member::Bad("invalid compressed data--length error")),
        (true, true) => {}
    }
    Ok(Member::Ok {
        header,
        size: want_len,
        crc: want_crc,
    })
}

/// What [`decompress_all`] found besides the status: the members, the header length of
/// the last one, whether anything followed them, and the last one's stated size.
#[derive(Default)]
struct Found {
    members: usize,
    header_len: usize,
    trailing: bool,
    last_size: u32,
    last_crc: u32,
    /// GNU gzip exits at this error: no later operand is read. So it does at an early
    /// end, and at an error inside the data unless it only tests.
    fatal: bool,
    /// The error was in a member's header (not gzip, an unknown method...), where GNU
    /// goes on to the next file but, reading stdin, exits.
    bad_header: bool,
}

async fn decompress_all(
    ctx: &mut Ctx<'_>,
    prog: &str,
    shown: &str,
    input: &mut Input<'_>,
    o: &Options,
) -> Result<(Status, Found)> {
    let mut out = Output {
        held: Vec::new(),
        written: 0,
        test: o.test,
    };
    let mut found = Found::default();
    let mut first = true;
    let mut status = 0;
    let mut message: Option<String> = None;
    loop {
        input.fill(2).await?;
        let rest = input.avail();
        if !first && rest.is_empty() {
            break;
        }
        let magic_ok = rest.len() >= 2 && rest[0] == 0x1f && rest[1] == 0x8b;
        if !magic_ok {
            if o.force {
                // gzip -df passes what is not gzip through unchanged, trailing bytes too.
                let mut passed = ByteMeter::default();
                loop {
                    let n = input.avail().len();
                    if !o.test {
                        passed.add(ctx.io.budget, n)?;
                        out.put(ctx, input.avail()).await?;
                    }
                    input.consume(n);
                    if !input.fill(1).await? {
                        break;
                    }
                }
                passed.finish(ctx.io.budget)?;
                out.release_all(ctx).await?;
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
            } else if all_zeros(input).await? {
                found.trailing = true;
                if o.verbose {
                    message = Some(format!(
                        "\n{prog}: {shown}: decompression OK, trailing zero bytes ignored\n"
                    ));
                    status = 2;
                }
                break;
            } else {
                found.trailing = true;
                if !o.quiet {
                    message = Some(format!(
                        "\n{prog}: {shown}: decompression OK, trailing garbage ignored\n"
                    ));
                }
                status = 2;
                break;
            };
            found.fatal = why == "unexpected end of file";
            found.bad_header = !found.fatal;
            message = Some(format!("\n{prog}: {shown}: {why}\n"));
            status = 1;
            break;
        }
        let (method, flags) = (rest.get(2).copied(), rest.get(3).copied());
        let verbose_name = o.verbose.then_some(shown);
        match member(ctx, input, &mut out, verbose_name).await? {
            Member::Ok { header, size, crc } => {
                found.members += 1;
                found.header_len = header;
                found.last_size = size;
                found.last_crc = crc;
            }
            Member::BadHeaderCrc { stored, computed } => {
                message = Some(format!(
                    "{prog}: {shown}: header checksum 0x{stored:04x} != computed checksum 0x{computed:04x}\n"
                ));
                status = 1;
                found.bad_header = true;
                break;
            }
            Member::Bad(why) => {
                // GNU starts a line of its own only for errors inside the data.
                let why = match why {
                    "unknown method" => {
                        format!(
                            "{shown}: unknown method {} -- not supported",
                            method.unwrap_or(0)
                        )
                    }
                    "encrypted" => format!("{shown} is encrypted -- not supported"),
                    "unsupported flags" => {
                        format!(
                            "{shown} has flags 0x{:x} -- not supported",
                            flags.unwrap_or(0)
                        )
                    }
                    CRC_AND_LENGTH => format!(
                        "\n{prog}: {shown}: invalid compressed data--crc error\n\n{prog}: {shown}: invalid compressed data--length error"
                    ),
                    w => format!("\n{prog}: {shown}: {w}"),
                };
                found.fatal =
                    why.ends_with("unexpected end of file") || (why.starts_with('\n') && !o.test);
                found.bad_header = !why.starts_with('\n');
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
    if let Some(m) = message {
        ctx.stderr.extend_from_slice(m.as_bytes());
    }
    if o.test && o.verbose && status == 0 && !o.list {
        ctx.stderr.extend_from_slice(b" OK\n");
    }
    Ok((status, found))
}

/// Whether the rest of the input is zeros, read to its end.
async fn all_zeros(input: &mut Input<'_>) -> Result<bool> {
    let mut zeros = true;
    loop {
        let n = input.avail().len();
        zeros = zeros && input.avail().iter().all(|&b| b == 0);
        input.consume(n);
        if !input.fill(1).await? {
            return Ok(zeros);
        }
    }
}

/// `gzip -l`: GNU reads a pipe through (so a bad stream fails as with `-t`), then shows
/// the size in the last trailer; the header and trailer are not counted as compressed
/// data for a single member (GNU counts them for several).
async fn list(
    ctx: &mut Ctx<'_>,
    prog: &str,
    shown: &str,
    input: &mut Input<'_>,
    o: &Options,
    header_done: &mut bool,
) -> Result<(Status, bool, bool)> {
    // With --force GNU reads the magic without asking for it: a stream too short for it is
    // not gzip, rather than cut short.
    if o.force && !input.fill(2).await? {
        let text = format!("\n{prog}: {shown}: not in gzip format\n");
        ctx.stderr.extend_from_slice(text.as_bytes());
        return Ok((1, false, true));
    }
    let test = Options {
        test: true,
        force: false,
        ..*o
    };
    let (status, found) = decompress_all(ctx, prog, shown, input, &test).await?;
    if status == 1 || found.trailing {
        // GNU lists nothing for a stream with anything after its last member.
        return Ok((status, found.fatal, found.bad_header));
    }
    // The stream ends with the last member's trailer: its size is the last 4 bytes.
    let uncompressed = found.last_size as u64;
    let overhead = if found.members == 1 {
        found.header_len as u64 + 8
    } else {
        0
    };
    let compressed = input.total;
    if !*header_done && !o.quiet {
        if o.verbose {
            ctx.stdout
                .extend_from_slice(b"method  crc     date  time  ");
        }
        ctx.stdout.extend_from_slice(
            b"         compressed        uncompressed  ratio uncompressed_name\n",
        );
        *header_done = true;
    }
    if o.verbose {
        // GNU shows the file's time; a stream has none, and GNU shows the epoch in TZ.
        let when = epoch_in_zone(ctx.io.vars.get(b"TZ"));
        let line = format!("defla {:08x} {when} ", found.last_crc);
        ctx.stdout.extend_from_slice(line.as_bytes());
    }
    let ratio = ratio_text(compressed.saturating_sub(overhead), uncompressed);
    let name = if shown == "stdin" { "stdout" } else { shown };
    let line = format!("{compressed:>19} {uncompressed:>19} {ratio} {name}\n");
    ctx.stdout.extend_from_slice(line.as_bytes());
    Ok((status, false, false))
}

/// 1970-01-01T00:00Z in zone `tz`, as `gzip -lv` shows a time: `Jan  1 00:00`.
fn epoch_in_zone(tz: Option<&[u8]>) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let local = i64::from(Zone::from_tz(tz).info(0).offset);
    let (_, month, day) = crate::calendar::civil_from_days(local.div_euclid(86_400));
    let secs = local.rem_euclid(86_400);
    format!(
        "{} {day:>2} {:02}:{:02}",
        MONTHS[month as usize - 1],
        secs / 3600,
        secs % 3600 / 60
    )
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
    fn rsyncable_gnu_bytes() {
        // `head -c N /dev/zero | gzip -n --rsyncable -L`, GNU gzip 1.12: in a run, a cut
        // after each match once 4096 bytes are behind; an empty stored block aligns the
        // stream unless it already is, and the last block has none.
        for (n, level, hex) in [
            (5000, "-1", "1f8b0800000000000403ecd0810000000080a0fda91729840a03060c183060c0800103060c183060c0c01a0d0100000000ffff1a0d0100000000ffff1a0d0100000000ffffa2750800000000ffff0300a80ee5d888130000"),
            (5000, "-6", "1f8b0800000000000003ecc101010000008090feafee080a00000060000000ffff1a0500000000ffff1a0500000000ffff1a0500000000ffffa23500000000ffff0300a80ee5d888130000"),
            (4097, "-1", "1f8b0800000000000403ecd0010d000000c2a0f74f6d0f0711280c183060c0800103060c183060c08081fb81010000ffff03007fd375b801100000"),
            (4097, "-6", "1f8b0800000000000003ecc1010d000000c2a0f74f6d0f0714000000706f03007fd375b801100000"),
            (4130, "-1", "1f8b0800000000000403ecd0810000000080a0fda91729840a03060c183060c0800103060c183060c0c0030059b71df622100000"),
        ] {
            let r = run(&["gzip", "--rsyncable", level], &vec![0u8; n]).unwrap();
            assert_eq!(r.stdout, unhex(hex), "{n} zeros, {level}");
        }
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
            "\ngzip: stdin: decompression OK, trailing garbage ignored\n"
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
