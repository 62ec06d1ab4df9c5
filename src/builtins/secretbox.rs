//! `secretbox [-d [-b BLOCK]] -K HEXKEY [-n HEXNONCE] [FILE]`: seals or opens NaCl
//! secretbox (XSalsa20-Poly1305) in rclone crypt's file format, so that `secretbox -d -K
//! KEY` reads what rclone crypt wrote and rclone reads what `secretbox` wrote. Spends one
//! step per 64 bytes of input.
//!
//! `-b BLOCK` opens a part of a file: its header, then its blocks from number BLOCK on
//! (counted from 0), as two ranged reads bring them; a reader seeks this way, as rclone
//! crypt does.
//!
//! The format: `RCLONE\0\0`, a 24-byte nonce, then the plaintext in 64 KiB blocks, each
//! sealed on its own (16-byte tag, then the ciphertext) with the nonce plus the block's
//! index as a little-endian 192-bit integer. An empty plaintext has no block at all.
//!
//! Both directions stream, a block at a time: at most one block of input is held.

use xsalsa20poly1305::aead::{AeadInPlace, KeyInit};
use xsalsa20poly1305::{Key, Nonce, Tag, XSalsa20Poly1305};

use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::common::quote::quote_name;
use crate::builtins::Ctx;
use crate::error::{Result, Status};
use crate::stream::Stdin;

/// The magic string at the head of every rclone crypt file.
pub const MAGIC: &[u8; 8] = b"RCLONE\0\0";
const NONCE_LEN: usize = 24;
const TAG_LEN: usize = 16;
const HEADER_LEN: usize = MAGIC.len() + NONCE_LEN;
/// Plaintext bytes per block.
pub const BLOCK: usize = 64 * 1024;

const SPEC: Spec = Spec {
    short: "b:dK:n:",
    long: &[
        long("block", Arg::Required, Some('b')),
        long("decrypt", Arg::No, Some('d')),
        long("key", Arg::Required, Some('K')),
        long("nonce", Arg::Required, Some('n')),
    ],
    stop_at_operand: false,
};

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let parsed = match SPEC.parse(args.get(1..).unwrap_or(&[])) {
        Ok(p) => p,
        Err(msg) => {
            usage_error(ctx.stderr, "secretbox", &msg);
            return Ok(1);
        }
    };
    let mut decrypt = false;
    let mut key_hex = None;
    let mut nonce_hex = None;
    let mut first_block = None;
    for opt in &parsed.opts {
        match opt.key {
            "b" => first_block = Some(opt.value().to_vec()),
            "d" => decrypt = true,
            "K" => key_hex = Some(opt.value().to_vec()),
            "n" => nonce_hex = Some(opt.value().to_vec()),
            _ => {}
        }
    }
    if let Some(extra) = parsed.operands.get(1) {
        let msg = format!("extra operand {}", quote_name(extra));
        usage_error(ctx.stderr, "secretbox", &msg);
        return Ok(1);
    }
    let first_block = match first_block {
        None => 0,
        Some(_) if !decrypt => {
            usage_error(
                ctx.stderr,
                "secretbox",
                "-b opens a part of a file: it goes with -d",
            );
            return Ok(1);
        }
        Some(b) => match std::str::from_utf8(&b)
            .ok()
            .and_then(|b| b.parse::<u64>().ok())
        {
            Some(n) => n,
            None => {
                let msg = format!("secretbox: invalid block number: {}\n", quote_name(&b));
                ctx.stderr.extend_from_slice(msg.as_bytes());
                return Ok(1);
            }
        },
    };
    let Some(key_hex) = key_hex else {
        usage_error(ctx.stderr, "secretbox", "a key is needed: -K HEXKEY");
        return Ok(1);
    };
    let Some(key) = decode_hex_exact(&key_hex, 32) else {
        ctx.stderr
            .extend_from_slice(b"secretbox: invalid key: need 64 hex digits (32 bytes)\n");
        return Ok(1);
    };
    let nonce = match &nonce_hex {
        None => None,
        Some(h) => match decode_hex_exact(h, NONCE_LEN) {
            Some(n) => Some(n),
            None => {
                ctx.stderr.extend_from_slice(
                    b"secretbox: invalid nonce: need 48 hex digits (24 bytes)\n",
                );
                return Ok(1);
            }
        },
    };
    let name = parsed
        .operands
        .first()
        .cloned()
        .unwrap_or_else(|| b"-".to_vec());
    let input = match ctx.open_stream(&name).await? {
        Ok(d) => d,
        Err(why) => {
            let msg = format!("secretbox: {}: {why}\n", quote_name(&name));
            ctx.stderr.extend_from_slice(msg.as_bytes());
            return Ok(1);
        }
    };
    let cipher = XSalsa20Poly1305::new(Key::from_slice(&key));
    let mut blocks = Blocks::new(&input);
    if decrypt {
        return open(ctx, &cipher, &mut blocks, first_block).await;
    }
    let nonce = match nonce {
        Some(n) => n,
        None => {
            let mut n = vec![0u8; NONCE_LEN];
            ctx.io.host.fill_random(&mut n);
            n
        }
    };
    seal(ctx, &cipher, &nonce, &mut blocks).await
}

/// Input cut into blocks of a given size; a block that lies in one chunk is not copied.
struct Blocks<'s> {
    input: &'s Stdin,
    chunk: Vec<u8>,
    pos: usize,
    /// A block gathered from several chunks.
    gathered: Vec<u8>,
}

impl<'s> Blocks<'s> {
    fn new(input: &'s Stdin) -> Self {
        Blocks {
            input,
            chunk: Vec::new(),
            pos: 0,
            gathered: Vec::new(),
        }
    }

    /// The next `size` bytes, fewer at the end of the input; `None` after it.
    async fn next(&mut self, size: usize) -> Result<Option<&[u8]>> {
        self.gathered.clear();
        loop {
            let here = self.chunk.len() - self.pos;
            if self.gathered.is_empty() && here >= size {
                let at = self.pos;
                self.pos += size;
                return Ok(Some(&self.chunk[at..at + size]));
            }
            let take = (size - self.gathered.len()).min(here);
            self.gathered
                .extend_from_slice(&self.chunk[self.pos..self.pos + take]);
            self.pos += take;
            if self.gathered.len() == size {
                return Ok(Some(&self.gathered));
            }
            match self.input.read().await? {
                Some(chunk) => {
                    self.chunk = chunk;
                    self.pos = 0;
                }
                None => {
                    self.chunk = Vec::new();
                    self.pos = 0;
                    return Ok((!self.gathered.is_empty()).then_some(&self.gathered[..]));
                }
            }
        }
    }
}

/// Adds one to a nonce read as a little-endian 192-bit integer.
fn increment(nonce: &mut [u8]) {
    add(nonce, 1);
}

/// Adds `n` to a nonce read as a little-endian 192-bit integer (block `n`'s nonce).
fn add(nonce: &mut [u8], n: u64) {
    let mut carry = n as u128;
    for b in nonce.iter_mut() {
        if carry == 0 {
            break;
        }
        let sum = *b as u128 + (carry & 0xff);
        *b = sum as u8;
        carry = (carry >> 8) + (sum >> 8);
    }
}

async fn seal(
    ctx: &mut Ctx<'_>,
    cipher: &XSalsa20Poly1305,
    nonce: &[u8],
    blocks: &mut Blocks<'_>,
) -> Result<Status> {
    ctx.stdout.extend_from_slice(MAGIC);
    ctx.stdout.extend_from_slice(nonce);
    let mut n = nonce.to_vec();
    while let Some(block) = blocks.next(BLOCK).await? {
        ctx.io.budget.spend_bytes(block.len())?;
        let tag_at = ctx.stdout.len();
        ctx.stdout.extend_from_slice(&[0u8; TAG_LEN]);
        let body_at = ctx.stdout.len();
        ctx.stdout.extend_from_slice(block);
        let sealed = cipher.encrypt_in_place_detached(
            Nonce::from_slice(&n),
            b"",
            &mut ctx.stdout[body_at..],
        );
        match sealed {
            Ok(tag) => ctx.stdout[tag_at..body_at].copy_from_slice(tag.as_slice()),
            Err(_) => {
                // XSalsa20 refuses only messages longer than 256 GiB.
                ctx.stdout.truncate(tag_at);
                ctx.stderr.extend_from_slice(b"secretbox: block too long\n");
                return Ok(1);
            }
        }
        increment(&mut n);
        ctx.flush_some().await?;
    }
    Ok(0)
}

async fn open(
    ctx: &mut Ctx<'_>,
    cipher: &XSalsa20Poly1305,
    blocks: &mut Blocks<'_>,
    first_block: u64,
) -> Result<Status> {
    let fail = |ctx: &mut Ctx<'_>, why: &str| {
        ctx.stderr
            .extend_from_slice(format!("secretbox: {why}\n").as_bytes());
        Ok(1)
    };
    let header = blocks.next(HEADER_LEN).await?.unwrap_or_default();
    if header.len() < HEADER_LEN {
        return fail(ctx, "file is too short to be encrypted");
    }
    if &header[..MAGIC.len()] != MAGIC {
        return fail(ctx, "not an encrypted file - bad magic string");
    }
    let mut n = header[MAGIC.len()..].to_vec();
    add(&mut n, first_block);
    while let Some(block) = blocks.next(BLOCK + TAG_LEN).await? {
        ctx.io.budget.spend_bytes(block.len())?;
        if block.len() <= TAG_LEN {
            return fail(ctx, "file has truncated block header");
        }
        let (tag, body) = block.split_at(TAG_LEN);
        let at = ctx.stdout.len();
        ctx.stdout.extend_from_slice(body);
        let opened = cipher.decrypt_in_place_detached(
            Nonce::from_slice(&n),
            b"",
            &mut ctx.stdout[at..],
            Tag::from_slice(tag),
        );
        if opened.is_err() {
            ctx.stdout.truncate(at);
            return fail(
                ctx,
                "failed to authenticate decrypted block - bad password?",
            );
        }
        increment(&mut n);
        ctx.flush_some().await?;
    }
    Ok(0)
}

/// Exactly `len` bytes written as hex (either case), or `None`.
pub fn decode_hex_exact(s: &[u8], len: usize) -> Option<Vec<u8>> {
    if s.len() != len * 2 {
        return None;
    }
    data_encoding::HEXLOWER_PERMISSIVE.decode(s).ok()
}

#[cfg(test)]
mod tests {
    use super::{add, increment};
    use crate::builtins::testing::run;

    const KEY: &str = "a9bb6a4fb054a7d9da7808ff56549472f3b6299a4b67741c7bfcfe6a0dec5323";
    const NONCE: &str = "000102030405060708090a0b0c0d0e0f1011121314151617";

    #[test]
    fn nonce_carries() {
        let mut n = [0u8; 24];
        n[0] = 0xff;
        n[1] = 0xff;
        n[2] = 0x01;
        increment(&mut n);
        assert_eq!(&n[..3], &[0, 0, 2]);
        let mut all = [0xffu8; 24];
        increment(&mut all);
        assert_eq!(all, [0u8; 24]);
        let mut m = [0u8; 24];
        m[0] = 0xfe;
        add(&mut m, 0x1_0203);
        assert_eq!(&m[..4], &[0x01, 0x03, 0x01, 0]);
    }

    #[test]
    fn a_part_opens_from_its_block() {
        let plain: Vec<u8> = (0..200_000u32).map(|i| (i * 13 % 251) as u8).collect();
        let sealed = run(&["secretbox", "-K", KEY, "-n", NONCE], &plain)
            .unwrap()
            .stdout;
        let block = super::BLOCK + super::TAG_LEN;
        for first in 0..4 {
            let mut part = sealed[..32].to_vec();
            part.extend_from_slice(&sealed[(32 + first * block).min(sealed.len())..]);
            let b = first.to_string();
            let opened = run(&["secretbox", "-d", "-b", &b, "-K", KEY], &part).unwrap();
            assert_eq!(opened.status, 0, "{first}");
            assert_eq!(
                opened.stdout,
                &plain[(first * super::BLOCK).min(plain.len())..]
            );
        }
        // Block 2's bytes opened as block 1 do not authenticate.
        let mut part = sealed[..32].to_vec();
        part.extend_from_slice(&sealed[32 + 2 * block..]);
        let wrong = run(&["secretbox", "-d", "-b", "1", "-K", KEY], &part).unwrap();
        assert_eq!(wrong.status, 1);
        assert_eq!(
            run(&["secretbox", "-b", "1", "-K", KEY], b"x")
                .unwrap()
                .status,
            1
        );
        let bad = run(&["secretbox", "-d", "-b", "x1", "-K", KEY], &part).unwrap();
        assert_eq!(bad.stderr_str(), "secretbox: invalid block number: x1\n");
    }

    #[test]
    fn sizes_and_round_trip() {
        for (n, size) in [
            (0, 32),
            (1, 49),
            (100, 148),
            (65535, 65583),
            (65536, 65584),
            (65537, 65601),
            (200000, 200096),
        ] {
            let plain: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
            let sealed = run(&["secretbox", "-K", KEY, "-n", NONCE], &plain).unwrap();
            assert_eq!(sealed.status, 0);
            assert_eq!(sealed.stdout.len(), size, "{n}");
            let opened = run(&["secretbox", "-d", "-K", KEY], &sealed.stdout).unwrap();
            assert_eq!(opened.status, 0);
            assert_eq!(opened.stdout, plain);
        }
    }

    #[test]
    fn rclone_errors() {
        let sealed = run(&["secretbox", "-K", KEY], b"hello").unwrap().stdout;
        let err = |data: &[u8]| {
            let r = run(&["secretbox", "-d", "-K", KEY], data).unwrap();
            assert_eq!(r.status, 1);
            r.stderr_str()
        };
        assert_eq!(
            err(&sealed[..31]),
            "secretbox: file is too short to be encrypted\n"
        );
        let mut bad = sealed.clone();
        bad[0] = b'X';
        assert_eq!(
            err(&bad),
            "secretbox: not an encrypted file - bad magic string\n"
        );
        assert_eq!(
            err(&sealed[..40]),
            "secretbox: file has truncated block header\n"
        );
        for i in 32..sealed.len() {
            let mut bad = sealed.clone();
            bad[i] ^= 1;
            assert_eq!(
                err(&bad),
                "secretbox: failed to authenticate decrypted block - bad password?\n"
            );
        }
    }
}
