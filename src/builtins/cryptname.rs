//! `cryptname [-d] [-D] [-e base32|base64] -K HEXKEY [NAME...]`: rclone crypt's file-name
//! encryption (`filename_encryption = standard`), so that a script finds the object that
//! a crypt remote wrote for a name, and reads a listing's names back. Spends one step per
//! name and one per 64 bytes of it.
//!
//! Each segment of a path (between `/`) on its own: PKCS#7 padding to a multiple of 16
//! bytes, EME under AES-256 with the name key and the name tweak, then base32 with the
//! "extended hex" alphabet in lower case without `=` (or, `-e base64`, URL-safe base64
//! without `=`: rclone's `filename_encoding`). Empty segments stay empty. `-D` leaves the
//! directories' names as they are and encrypts the last segment only
//! (`directory_name_encryption = false`). `-d` decrypts.
//!
//! HEXKEY is the name key and the tweak (96 hex digits), or the whole of what `scrypt`
//! prints (160; its first 32 bytes, the data key, are not used here). The names are the
//! operands, or else stdin's lines; each answer is a line. A name that does not decrypt
//! gets a message and an empty line, so that the lines stay beside the input's, and the
//! status is 1.

use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::common::eme::{self, Direction, MAX_BLOCKS};
use crate::builtins::common::quote::quote_name;
use crate::builtins::secretbox::decode_hex_exact;
use crate::builtins::Ctx;
use crate::error::{Result, Status};
use data_encoding::{BASE32HEX_NOPAD, BASE64URL_NOPAD};

const NAME: &str = "cryptname";

const SPEC: Spec = Spec {
    short: "dDe:K:",
    long: &[
        long("decrypt", Arg::No, Some('d')),
        long("plain-directories", Arg::No, Some('D')),
        long("encoding", Arg::Required, Some('e')),
        long("key", Arg::Required, Some('K')),
    ],
    stop_at_operand: false,
};

/// rclone's `filename_encoding` choices that this builtin has.
#[derive(Clone, Copy)]
enum Encoding {
    Base32,
    Base64,
}

struct Keys {
    key: [u8; 32],
    tweak: [u8; 16],
}

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let parsed = match SPEC.parse(args.get(1..).unwrap_or(&[])) {
        Ok(p) => p,
        Err(msg) => {
            usage_error(ctx.stderr, NAME, &msg);
            return Ok(1);
        }
    };
    let (mut decrypt, mut plain_dirs, mut encoding, mut key_hex) =
        (false, false, Encoding::Base32, None);
    for opt in &parsed.opts {
        match opt.key {
            "d" => decrypt = true,
            "D" => plain_dirs = true,
            "e" => {
                encoding = match opt.value() {
                    b"base32" => Encoding::Base32,
                    b"base64" => Encoding::Base64,
                    other => {
                        let msg =
                            format!("unknown encoding {}: base32 or base64", quote_name(other));
                        usage_error(ctx.stderr, NAME, &msg);
                        return Ok(1);
                    }
                }
            }
            "K" => key_hex = Some(opt.value().to_vec()),
            _ => {}
        }
    }
    let Some(key_hex) = key_hex else {
        usage_error(ctx.stderr, NAME, "a key is needed: -K HEXKEY");
        return Ok(1);
    };
    let Some(keys) = parse_keys(&key_hex) else {
        ctx.stderr.extend_from_slice(
            b"cryptname: invalid key: need 96 hex digits (name key and tweak) or scrypt's 160\n",
        );
        return Ok(1);
    };
    let names: Vec<Vec<u8>> = if parsed.operands.is_empty() {
        let text = ctx.io.stdin.read_all().await?;
        let mut lines: Vec<Vec<u8>> = text.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
        if text.is_empty() || text.ends_with(b"\n") {
            lines.pop();
        }
        lines
    } else {
        parsed.operands.clone()
    };
    let direction = if decrypt {
        Direction::Decrypt
    } else {
        Direction::Encrypt
    };
    let mut status = 0;
    for name in &names {
        ctx.io.budget.spend(1)?;
        ctx.io.budget.spend_bytes(name.len())?;
        match name_path(&keys, encoding, plain_dirs, name, direction) {
            Ok(out) => ctx.stdout.extend_from_slice(&out),
            Err(why) => {
                let msg = format!("{NAME}: {}: {why}\n", quote_name(name));
                ctx.stderr.extend_from_slice(msg.as_bytes());
                status = 1;
            }
        }
        ctx.stdout.push(b'\n');
        ctx.flush_some().await?;
    }
    Ok(status)
}

fn parse_keys(hex: &[u8]) -> Option<Keys> {
    let bytes = match hex.len() {
        96 => decode_hex_exact(hex, 48)?,
        160 => decode_hex_exact(hex, 80)?.split_off(32),
        _ => return None,
    };
    Some(Keys {
        key: bytes[..32].try_into().ok()?,
        tweak: bytes[32..48].try_into().ok()?,
    })
}

/// Applies `each` to the segments that are enciphered: all, or the last with `-D`.
fn map_segments(
    path: &[u8],
    plain_dirs: bool,
    mut each: impl FnMut(&[u8]) -> std::result::Result<Vec<u8>, String>,
) -> std::result::Result<Vec<u8>, String> {
    let segments: Vec<&[u8]> = path.split(|&b| b == b'/').collect();
    let last = segments.len() - 1;
    let mut out = Vec::with_capacity(path.len() * 2);
    for (i, seg) in segments.into_iter().enumerate() {
        if i > 0 {
            out.push(b'/');
        }
        if seg.is_empty() || (plain_dirs && i != last) {
            out.extend_from_slice(seg);
        } else {
            out.extend_from_slice(&each(seg)?);
        }
    }
    Ok(out)
}

/// The path with each segment enciphered (or, `-d`, deciphered).
fn name_path(
    keys: &Keys,
    encoding: Encoding,
    plain_dirs: bool,
    path: &[u8],
    direction: Direction,
) -> std::result::Result<Vec<u8>, String> {
    map_segments(path, plain_dirs, |seg| match direction {
        Direction::Encrypt => encrypt_segment(keys, encoding, seg),
        Direction::Decrypt => decrypt_segment(keys, encoding, seg),
    })
}

fn encrypt_segment(
    keys: &Keys,
    encoding: Encoding,
    seg: &[u8],
) -> std::result::Result<Vec<u8>, String> {
    let pad = 16 - seg.len() % 16;
    let mut data = seg.to_vec();
    data.resize(seg.len() + pad, pad as u8);
    if data.len() > MAX_BLOCKS * 16 {
        return Err(format!(
            "a segment of {} bytes is too long (at most {})",
            seg.len(),
            MAX_BLOCKS * 16 - 1
        ));
    }
    eme::transform(&keys.key, &keys.tweak, &mut data, Direction::Encrypt);
    Ok(match encoding {
        Encoding::Base32 => BASE32HEX_NOPAD.encode(&data).to_ascii_lowercase(),
        Encoding::Base64 => BASE64URL_NOPAD.encode(&data),
    }
    .into_bytes())
}

fn decrypt_segment(
    keys: &Keys,
    encoding: Encoding,
    seg: &[u8],
) -> std::result::Result<Vec<u8>, String> {
    let decoded = match encoding {
        // rclone reads base32 names in either case.
        Encoding::Base32 => BASE32HEX_NOPAD.decode(&seg.to_ascii_uppercase()),
        Encoding::Base64 => BASE64URL_NOPAD.decode(seg),
    };
    let mut data = decoded.map_err(|_| "not an encrypted name: bad encoding".to_string())?;
    if data.is_empty() || !data.len().is_multiple_of(16) {
        return Err("not an encrypted name: not a multiple of 16 bytes".into());
    }
    if data.len() > MAX_BLOCKS * 16 {
        return Err("not an encrypted name: too long".into());
    }
    eme::transform(&keys.key, &keys.tweak, &mut data, Direction::Decrypt);
    let pad = usize::from(data[data.len() - 1]);
    let padded = (1..=16).contains(&pad)
        && data[data.len() - pad..]
            .iter()
            .all(|&b| usize::from(b) == pad);
    if !padded {
        return Err("not an encrypted name: bad padding (another key?)".into());
    }
    data.truncate(data.len() - pad);
    Ok(data)
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    /// scrypt of `fixture-password-2` with the salt `fixture-salt-2`.
    fn keys() -> String {
        let r = run(
            &["scrypt", "-s", "fixture-salt-2", "fixture-password-2"],
            b"",
        )
        .unwrap();
        r.stdout_str().trim_end().to_string()
    }

    #[test]
    fn rclone_known_answer() {
        // What real rclone's `cryptdecode --reverse` printed for this path and these keys.
        let k = keys();
        let r = run(&["cryptname", "-K", &k, "sub/hello.txt"], b"").unwrap();
        assert_eq!(
            r.stdout_str(),
            "ip66ud34dad6s0cds1481lj8s0/uejc35o3nm8jcdcr0vccvj0ni4\n"
        );
        let r = run(&["cryptname", "-K", &k[64..], "-d"], r.stdout.as_slice()).unwrap();
        assert_eq!((r.status, r.stdout_str()), (0, "sub/hello.txt\n".into()));
    }

    #[test]
    fn bad_names_keep_their_lines() {
        let k = keys();
        let input = b"ip66ud34dad6s0cds1481lj8s0\nnot-base32!\n\nIP66UD34DAD6S0CDS1481LJ8S0\n";
        let r = run(&["cryptname", "-d", "-K", &k], input).unwrap();
        assert_eq!(r.status, 1);
        assert_eq!(r.stdout_str(), "sub\n\n\nsub\n");
        assert_eq!(
            r.stderr_str(),
            "cryptname: 'not-base32!': not an encrypted name: bad encoding\n"
        );
    }

    #[test]
    fn random_names_never_panic_and_round_trip() {
        // Random bytes as names to decrypt (never a panic: a message or a name), and random
        // names through encryption and back.
        let k = "0123456789abcdef".repeat(6);
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..300 {
            let len = (next() % 120) as usize;
            let alphabet: &[u8] = if round % 2 == 0 {
                b"0123456789abcdefghijklmnopqrstuvABCDEFGHIJKLMNOPQRSTUV/=-_"
            } else {
                b"\x00\xff/ a\xc3\xa9\t"
            };
            let name: Vec<u8> = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .filter(|&b| b != b'\n')
                .collect();
            let name = String::from_utf8_lossy(&name).into_owned();
            for enc in ["base32", "base64"] {
                let r = run(&["cryptname", "-d", "-e", enc, "-K", &k, "--", &name], b"").unwrap();
                assert!(r.status == 0 || r.stderr_str().contains("not an encrypted name"));
                let e = run(&["cryptname", "-e", enc, "-K", &k, "--", &name], b"").unwrap();
                assert_eq!(e.status, 0, "{name:?}");
                let back = run(&["cryptname", "-d", "-e", enc, "-K", &k], &e.stdout).unwrap();
                assert_eq!(back.stdout_str(), format!("{name}\n"), "{name:?} {enc}");
            }
        }
    }

    #[test]
    fn usage() {
        let r = run(&["cryptname", "x"], b"").unwrap();
        assert_eq!(r.status, 1);
        assert!(r.stderr_str().starts_with("cryptname: a key is needed"));
        let r = run(&["cryptname", "-K", "00", "x"], b"").unwrap();
        assert_eq!(r.status, 1);
        assert!(r.stderr_str().contains("invalid key"));
        let long = "a".repeat(2048);
        let r = run(&["cryptname", "-K", &"0".repeat(96), &long], b"").unwrap();
        assert_eq!(r.status, 1);
        assert!(r.stderr_str().contains("too long"), "{}", r.stderr_str());
    }
}
