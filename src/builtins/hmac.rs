//! `hmac [-K HEXKEY | -k KEY] [ALG]`: the HMAC of stdin, printed as `HEX  -` like
//! `sha256sum`; equal to `openssl dgst -ALG -mac HMAC -macopt hexkey:HEXKEY` (or `key:KEY`).
//! Spends one step per 64 bytes of input, which it reads as it comes.

use hmac::{Hmac, KeyInit, Mac};

use crate::budget::ByteMeter;
use crate::builtins::common::args::{usage_error, Spec};
use crate::builtins::common::digest::hex;
use crate::builtins::Ctx;
use crate::error::{Result, Status};

const SPEC: Spec = Spec {
    short: "K:k:",
    long: &[],
    stop_at_operand: false,
};

const CHUNK: usize = 64 * 1024;

async fn mac<M: Mac + KeyInit>(ctx: &mut Ctx<'_>, key: &[u8]) -> Result<Vec<u8>> {
    // HMAC takes keys of any length; `new_from_slice` cannot fail for it.
    let Ok(mut m) = <M as KeyInit>::new_from_slice(key) else {
        return Ok(Vec::new());
    };
    let mut meter = ByteMeter::default();
    while let Some(chunk) = ctx.io.stdin.read().await? {
        for piece in chunk.chunks(CHUNK) {
            meter.add(ctx.io.budget, piece.len())?;
            m.update(piece);
        }
    }
    meter.finish(ctx.io.budget)?;
    Ok(m.finalize().into_bytes().to_vec())
}

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let parsed = match SPEC.parse(args.get(1..).unwrap_or(&[])) {
        Ok(p) => p,
        Err(msg) => {
            usage_error(ctx.stderr, "hmac", &msg);
            return Ok(1);
        }
    };
    let mut key: Option<std::result::Result<Vec<u8>, &'static str>> = None;
    for opt in &parsed.opts {
        match opt.key {
            "K" => key = Some(parse_hex_key(opt.value())),
            "k" => key = Some(Ok(opt.value().to_vec())),
            _ => {}
        }
    }
    if let Some(extra) = parsed.operands.get(1) {
        let msg = format!("extra operand '{}'", String::from_utf8_lossy(extra));
        usage_error(ctx.stderr, "hmac", &msg);
        return Ok(1);
    }
    let alg = parsed
        .operands
        .first()
        .map(|a| a.to_ascii_lowercase())
        .unwrap_or_else(|| b"sha256".to_vec());
    if !matches!(
        alg.as_slice(),
        b"md5" | b"sha1" | b"sha224" | b"sha256" | b"sha384" | b"sha512"
    ) {
        let msg = format!(
            "hmac: unknown algorithm '{}' (md5, sha1, sha224, sha256, sha384, sha512)\n",
            String::from_utf8_lossy(parsed.operands.first().map(|v| v.as_slice()).unwrap_or(b""))
        );
        ctx.stderr.extend_from_slice(msg.as_bytes());
        return Ok(1);
    }
    let key = match key {
        None => {
            usage_error(ctx.stderr, "hmac", "a key is needed: -K HEXKEY or -k KEY");
            return Ok(1);
        }
        Some(Err(why)) => {
            ctx.stderr
                .extend_from_slice(format!("hmac: invalid hex key: {why}\n").as_bytes());
            return Ok(1);
        }
        Some(Ok(k)) => k,
    };
    if key.is_empty() {
        // As OpenSSL does: an empty key is far more often an unset variable than a choice.
        ctx.stderr.extend_from_slice(b"hmac: the key is empty\n");
        return Ok(1);
    }
    let out = match alg.as_slice() {
        b"md5" => mac::<Hmac<md5::Md5>>(ctx, &key).await?,
        b"sha1" => mac::<Hmac<sha1::Sha1>>(ctx, &key).await?,
        b"sha224" => mac::<Hmac<sha2::Sha224>>(ctx, &key).await?,
        b"sha384" => mac::<Hmac<sha2::Sha384>>(ctx, &key).await?,
        b"sha512" => mac::<Hmac<sha2::Sha512>>(ctx, &key).await?,
        _ => mac::<Hmac<sha2::Sha256>>(ctx, &key).await?,
    };
    ctx.stdout.extend_from_slice(hex(&out).as_bytes());
    ctx.stdout.extend_from_slice(b"  -\n");
    Ok(0)
}

/// A hex key the way OpenSSL's `hexkey:` reads it: an even number of characters in all,
/// pairs of hex digits, `:` allowed between pairs; the key is as long as half the text,
/// so each `:` adds a zero byte at its end (which matters only for keys longer than the
/// hash's block, which HMAC hashes first).
fn parse_hex_key(s: &[u8]) -> std::result::Result<Vec<u8>, &'static str> {
    if !s.len().is_multiple_of(2) {
        return Err("odd number of digits");
    }
    let mut out = Vec::with_capacity(s.len() / 2);
    let mut i = 0;
    while i < s.len() {
        if s[i] == b':' {
            i += 1;
            continue;
        }
        let hi = (*s.get(i).unwrap_or(&b'x') as char).to_digit(16);
        let lo = (*s.get(i + 1).unwrap_or(&b'x') as char).to_digit(16);
        match (hi, lo) {
            (Some(h), Some(l)) => out.push((h * 16 + l) as u8),
            _ => return Err("illegal hex digit"),
        }
        i += 2;
    }
    out.resize(s.len() / 2, 0);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    #[test]
    fn openssl_answers() {
        // printf abc | openssl dgst -sha256 -mac HMAC -macopt hexkey:0a0b
        let r = run(&["hmac", "-K", "0a0b"], b"abc").unwrap();
        assert_eq!(
            r.stdout_str(),
            "fbd2627b230a498acc6d63685c439e113251c461044af8f06db3b18747f03e2f  -\n"
        );
        // printf abc | openssl dgst -md5 -mac HMAC -macopt key:k
        let r = run(&["hmac", "-k", "k", "md5"], b"abc").unwrap();
        assert_eq!(r.stdout_str(), "75972c9c6569f2f407752ddb02ac79de  -\n");
        let r = run(&["hmac", "-K", "0a:0b:"], b"abc").unwrap();
        assert!(r.stdout_str().starts_with("fbd2627b"));
    }

    #[test]
    fn errors() {
        for args in [
            &["hmac", "-K", "0a0"][..],
            &["hmac", "-K", "zz"],
            &["hmac", "-K", ""],
            &["hmac"],
            &["hmac", "-k", "x", "sha3"],
        ] {
            let r = run(args, b"abc").unwrap();
            assert_eq!(r.status, 1, "{args:?}");
            assert!(r.stdout.is_empty());
        }
    }
}
