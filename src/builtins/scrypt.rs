//! `scrypt [-s SALT] [PASSWORD]`: derives rclone crypt's keys from a password, as rclone
//! does (scrypt N=16384, r=8, p=1, 80 bytes: data key, name key, name tweak), and prints
//! them as 160 lower-case hex digits. Spends a fixed [`STEPS`] per derivation.
//!
//! PASSWORD is the operand, or else stdin with one trailing newline removed (so that
//! `echo "$PW" | scrypt` and `printf %s "$PW" | scrypt` agree; a password that really ends
//! in a newline can be given as the operand). SALT is the text of rclone's `password2`;
//! without `-s` rclone's built-in salt is used. An empty password gives 80 zero bytes, as
//! in rclone, without running scrypt.

use crate::builtins::common::args::{long, usage_error, Arg, Spec};
use crate::builtins::common::digest::hex;
use crate::builtins::Ctx;
use crate::error::{Result, Status};

/// rclone crypt's salt when `password2` is empty.
pub const DEFAULT_SALT: [u8; 16] = [
    0xa8, 0x0d, 0xf4, 0x3a, 0x8f, 0xbd, 0x03, 0x08, 0xa7, 0xca, 0xb8, 0x3e, 0x58, 0x1f, 0x86, 0xb1,
];

/// log2 of scrypt's N, and r and p, as rclone uses them.
const LOG_N: u8 = 14;
const R: u32 = 8;
const P: u32 = 1;
/// Bytes of key material: 32 data key, 32 name key, 16 name tweak.
pub const KEY_LEN: usize = 80;

/// The steps one derivation costs: what hashing the 32 MiB that scrypt's mixing passes
/// over (2 * N * r * 128 bytes) would cost at one step per 64 bytes.
pub const STEPS: u64 = 2 * (1 << LOG_N) * (R as u64) * 128 / crate::budget::BYTES_PER_STEP;

const SPEC: Spec = Spec {
    short: "s:",
    long: &[long("salt", Arg::Required, Some('s'))],
    stop_at_operand: false,
};

/// rclone's key derivation: 80 bytes from `password` and `salt`.
pub fn derive(password: &[u8], salt: &[u8]) -> [u8; KEY_LEN] {
    let mut out = [0u8; KEY_LEN];
    if password.is_empty() {
        return out;
    }
    if let Ok(params) = scrypt::Params::new(LOG_N, R, P) {
        // Cannot fail: the output length is within scrypt's bounds.
        let _ = scrypt::scrypt(password, salt, &params, &mut out);
    }
    out
}

pub async fn run(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Status> {
    let parsed = match SPEC.parse(args.get(1..).unwrap_or(&[])) {
        Ok(p) => p,
        Err(msg) => {
            usage_error(ctx.stderr, "scrypt", &msg);
            return Ok(1);
        }
    };
    let mut salt = DEFAULT_SALT.to_vec();
    for opt in &parsed.opts {
        if opt.key == "s" {
            salt = opt.value().to_vec();
            if salt.is_empty() {
                // rclone: an empty password2 means the built-in salt.
                salt = DEFAULT_SALT.to_vec();
            }
        }
    }
    if let Some(extra) = parsed.operands.get(1) {
        let msg = format!("extra operand '{}'", String::from_utf8_lossy(extra));
        usage_error(ctx.stderr, "scrypt", &msg);
        return Ok(1);
    }
    let password = match parsed.operands.first() {
        Some(p) => p.clone(),
        None => {
            let mut p = ctx.io.stdin.read_all().await?;
            ctx.io.budget.spend_bytes(p.len())?;
            if p.last() == Some(&b'\n') {
                p.pop();
            }
            p
        }
    };
    if !password.is_empty() {
        ctx.io.budget.spend(STEPS)?;
    }
    let key = derive(&password, &salt);
    ctx.stdout.extend_from_slice(hex(&key).as_bytes());
    ctx.stdout.push(b'\n');
    Ok(0)
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    #[test]
    fn rclone_known_answer() {
        // Password `fixture-password-1`, default salt: the keys real rclone derives.
        let want = "a9bb6a4fb054a7d9da7808ff56549472f3b6299a4b67741c7bfcfe6a0dec5323\
                    3e93d6ed5c286a2b5e271ba344a1cd618ed249c4de419e6ba1777af670b5778e\
                    09b7cfc96027924a1dcbcdd27492b575\n";
        let r = run(&["scrypt", "fixture-password-1"], b"").unwrap();
        assert_eq!(r.stdout_str(), want);
        assert_eq!(r.steps, super::STEPS);
        let r = run(&["scrypt"], b"fixture-password-1\n").unwrap();
        assert_eq!(r.stdout_str(), want);
    }

    #[test]
    fn empty_password_is_zero() {
        let r = run(&["scrypt"], b"").unwrap();
        assert_eq!(r.stdout_str(), format!("{}\n", "0".repeat(160)));
    }
}
