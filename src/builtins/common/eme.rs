//! EME, the wide-block mode of Halevi and Rogaway ("A Parallelizable Enciphering Mode",
//! 2003) over AES-256, as rclone crypt enciphers file names: 1 to 128 blocks of 16 bytes
//! become as many blocks, every output byte depending on every input byte and on the tweak.

use aes::cipher::{generic_array::GenericArray, BlockDecrypt, BlockEncrypt, KeyInit};
use aes::Aes256;

/// The most blocks EME takes (2,048 bytes).
pub const MAX_BLOCKS: usize = 128;

type Block = [u8; 16];

/// Which way to run the cipher.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Encrypt,
    Decrypt,
}

/// Doubling in GF(2^128), the blocks read as little-endian numbers (x^128 = x^7+x^2+x+1).
fn double(b: &Block) -> Block {
    let mut out = [0u8; 16];
    out[0] = b[0] << 1;
    if b[15] & 0x80 != 0 {
        out[0] ^= 0x87;
    }
    for j in 1..16 {
        out[j] = (b[j] << 1) | (b[j - 1] >> 7);
    }
    out
}

fn xor(a: &Block, b: &Block) -> Block {
    std::array::from_fn(|i| a[i] ^ b[i])
}

/// EME with `key` and `tweak` over `data` in place; `data.len()` must be a multiple of 16
/// of at most [`MAX_BLOCKS`] blocks (the callers check, and get their own message).
pub fn transform(key: &[u8; 32], tweak: &Block, data: &mut [u8], direction: Direction) {
    let m = data.len() / 16;
    assert!(
        data.len().is_multiple_of(16) && (1..=MAX_BLOCKS).contains(&m),
        "EME: {} bytes",
        data.len()
    );
    let aes = Aes256::new(GenericArray::from_slice(key));
    let cipher = |b: &Block, dir: Direction| -> Block {
        let mut g = GenericArray::clone_from_slice(b);
        match dir {
            Direction::Encrypt => aes.encrypt_block(&mut g),
            Direction::Decrypt => aes.decrypt_block(&mut g),
        }
        g.into()
    };
    // L_j = 2^(j+1) * AES(0): the masks of the first and last passes.
    let mut masks = Vec::with_capacity(m);
    let mut l = cipher(&[0u8; 16], Direction::Encrypt);
    for _ in 0..m {
        l = double(&l);
        masks.push(l);
    }
    let mut blocks: Vec<Block> = data
        .chunks_exact(16)
        .zip(&masks)
        .map(|(p, mask)| cipher(&xor(p.try_into().unwrap_or(&[0; 16]), mask), direction))
        .collect();
    let mp = blocks.iter().fold(*tweak, |acc, b| xor(&acc, b));
    let mc = cipher(&mp, direction);
    let mut mix = xor(&mp, &mc);
    for b in blocks.iter_mut().skip(1) {
        mix = double(&mix);
        *b = xor(b, &mix);
    }
    blocks[0] = blocks[1..]
        .iter()
        .fold(xor(&mc, tweak), |acc, b| xor(&acc, b));
    for ((out, b), mask) in data.chunks_exact_mut(16).zip(&blocks).zip(&masks) {
        out.copy_from_slice(&xor(&cipher(b, direction), mask));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decrypt_undoes_encrypt_at_every_length() {
        let key: [u8; 32] = std::array::from_fn(|i| i as u8 * 7 + 1);
        let tweak: Block = std::array::from_fn(|i| 200 - i as u8);
        for m in 1..=MAX_BLOCKS {
            let plain: Vec<u8> = (0..m * 16).map(|i| (i * 31 % 251) as u8).collect();
            let mut data = plain.clone();
            transform(&key, &tweak, &mut data, Direction::Encrypt);
            assert_ne!(data, plain);
            transform(&key, &tweak, &mut data, Direction::Decrypt);
            assert_eq!(data, plain, "{m} blocks");
        }
    }

    #[test]
    fn one_bit_changes_every_block() {
        let key = [9u8; 32];
        let tweak = [3u8; 16];
        let mut a = vec![0u8; 64];
        let mut b = a.clone();
        b[63] = 1;
        transform(&key, &tweak, &mut a, Direction::Encrypt);
        transform(&key, &tweak, &mut b, Direction::Encrypt);
        for (x, y) in a.chunks(16).zip(b.chunks(16)) {
            assert_ne!(x, y);
        }
    }
}
