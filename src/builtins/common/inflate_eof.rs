//! How much of a truncated deflate stream GNU gzip writes before "unexpected end of file".
//!
//! Complete streams are decoded by flate2; this only answers the question for a stream
//! that ends too early. GNU's inflate is the classic table-driven one: before each code it
//! asks for as many bits as its first-level table indexes (9 for literal/length codes, 6
//! for distances, fewer when every code is shorter; 7 and 5 for the fixed codes), then for
//! the bits of any second-level table, then for the extra bits, and it stops at the first
//! request the input cannot meet. So it can end a few symbols before the last complete
//! one, where flate2 decodes everything the input holds. The tables are built as in
//! zlib 1.1's `huft_build`, whose sub-table sizes decide those requests.

/// One table entry: how many bits it uses, and what it means.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// A literal byte, or a code-length symbol.
    Lit(u16),
    Eob,
    /// A length or distance: its base and extra bits.
    Value(u16, u8),
    /// A sub-table of `1 << bits` entries at `at`.
    Sub {
        bits: u8,
        at: usize,
    },
    Invalid,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    bits: u8,
    kind: Kind,
}

const INVALID: Entry = Entry {
    bits: 0,
    kind: Kind::Invalid,
};

const LBASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
const LEXT: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const DBASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DEXT: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];

/// Decoding tables: all entries, the first-level table at 0, and its index bits.
struct Tables {
    entries: Vec<Entry>,
    bits: u32,
}

/// Builds the multi-level tables for code lengths `lens`, symbols below `simple` being
/// literals (256 the end of block), the others values from `base`/`extra`. `None` for a
/// set of lengths that is not a code.
fn build(lens: &[u8], simple: usize, base: &[u16], extra: &[u8], want: u32) -> Option<Tables> {
    const BMAX: usize = 15;
    let mut count = [0usize; BMAX + 1];
    for &l in lens {
        count[l as usize] += 1;
    }
    if count[0] == lens.len() {
        return Some(Tables {
            entries: vec![INVALID],
            bits: 0,
        });
    }
    let min = (1..=BMAX).find(|&j| count[j] != 0)?;
    let max = (1..=BMAX).rev().find(|&j| count[j] != 0)?;
    let l = (want as usize).clamp(min, max);
    // Fill an incomplete code with dummy codes of the longest length; refuse too many.
    let mut left: isize = 1 << min;
    for &c in &count[min..max] {
        left -= c as isize;
        if left < 0 {
            return None;
        }
        left <<= 1;
    }
    left -= count[max] as isize;
    if left < 0 {
        return None;
    }
    count[max] += left as usize;
    // Symbols in order of code length.
    let mut offs = [0usize; BMAX + 2];
    for k in 1..=BMAX {
        offs[k + 1] = offs[k]
            + if k == max {
                count[k] - left as usize
            } else {
                count[k]
            };
    }
    let mut values = vec![0usize; lens.len()];
    let mut next = offs;
    for (sym, &len) in lens.iter().enumerate() {
        if len != 0 {
            values[next[len as usize]] = sym;
            next[len as usize] += 1;
        }
    }
    let nvalues = offs[max + 1];

    let mut entries: Vec<Entry> = Vec::new();
    let mut table_at = [0usize; BMAX + 1]; // start of the table of each level
    let mut pattern = [0usize; BMAX + 1]; // code pattern at which each level's table began
    let mut code = 0usize; // the current Huffman code, counted bit-reversed
    let mut level: isize = -1;
    let mut w: isize = -(l as isize); // bits decoded by the levels above
    let mut q = 0usize; // the table being filled (not moved back: see below)
    let mut size = 0usize; // its entries
    let mut p = 0usize; // next value
    for k in min..=max {
        let mut a = count[k];
        while a > 0 {
            a -= 1;
            while (k as isize) > w + l as isize {
                level += 1;
                w += l as isize;
                let wu = w as usize;
                let limit = (max - wu).min(l);
                let mut j = k - wu;
                let mut f = 1usize << j;
                if f > a + 1 {
                    f -= a + 1;
                    let mut xp = k;
                    while j < limit {
                        j += 1;
                        if j >= limit {
                            break;
                        }
                        xp += 1;
                        f <<= 1;
                        if f <= count[xp] {
                            break;
                        }
                        f -= count[xp];
                    }
                }
                size = 1 << j;
                q = entries.len();
                entries.resize(q + size, INVALID);
                table_at[level as usize] = q;
                if level > 0 {
                    pattern[level as usize] = code;
                    let idx = code >> (wu - l);
                    let parent = table_at[level as usize - 1];
                    let slot = entries.get_mut(parent + idx)?;
                    *slot = Entry {
                        bits: l as u8,
                        kind: Kind::Sub {
                            bits: j as u8,
                            at: q,
                        },
                    };
                }
            }
            let wu = w as usize;
            let kind = if p >= nvalues {
                Kind::Invalid
            } else {
                let sym = values[p];
                p += 1;
                if sym < simple {
                    if sym == 256 && simple > 256 {
                        Kind::Eob
                    } else {
                        Kind::Lit(sym as u16)
                    }
                } else {
                    let i = sym - simple;
                    match (base.get(i), extra.get(i)) {
                        (Some(&b), Some(&e)) => Kind::Value(b, e),
                        _ => Kind::Invalid,
                    }
                }
            };
            let r = Entry {
                bits: (k - wu) as u8,
                kind,
            };
            let step = 1usize << (k - wu);
            let mut j = code >> wu;
            while j < size {
                *entries.get_mut(q + j)? = r;
                j += step;
            }
            // The next code, counting in bit-reversed order.
            let mut bit = 1usize << (k - 1);
            while code & bit != 0 {
                code ^= bit;
                bit >>= 1;
            }
            code ^= bit;
            // Back up over finished tables. Codes only grow longer, so the next code
            // always opens a new table below: the current table need not move back.
            while level > 0 && (code & ((1usize << w) - 1)) != pattern[level as usize] {
                level -= 1;
                w -= l as isize;
            }
        }
    }
    Some(Tables {
        entries,
        bits: l as u32,
    })
}

/// Bits in, least significant first, with GNU's rule: a request for more bits than the
/// input holds is the end.
struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Bits<'_> {
    fn need(&self, n: u32) -> bool {
        self.pos + n as usize <= self.data.len() * 8
    }
    /// The next `n` bits (at most 16); bits past the end read as zeros.
    fn peek(&self, n: u32) -> usize {
        let at = self.pos / 8;
        let mut word = [0u8; 8];
        if let Some(rest) = self.data.get(at..) {
            let k = rest.len().min(8);
            word[..k].copy_from_slice(&rest[..k]);
        }
        let v = u64::from_le_bytes(word) >> (self.pos % 8);
        (v & ((1u64 << n) - 1)) as usize
    }
    fn take(&mut self, n: u32) -> usize {
        let v = self.peek(n);
        self.pos += n as usize;
        v
    }
}

/// Decodes one code through the tables; `None` when GNU would stop for lack of bits.
fn decode(bits: &mut Bits<'_>, t: &Tables) -> Option<Entry> {
    if !bits.need(t.bits) {
        return None;
    }
    let mut e = *t.entries.get(bits.peek(t.bits))?;
    while let Kind::Sub { bits: nb, at } = e.kind {
        bits.take(e.bits as u32);
        if !bits.need(nb as u32) {
            return None;
        }
        e = *t.entries.get(at + bits.peek(nb as u32))?;
    }
    bits.take(e.bits as u32);
    Some(e)
}

/// The number of bytes GNU gzip writes from the truncated raw deflate stream `data`
/// before it stops, or `None` when the stream is bad in a way this does not follow.
pub fn gnu_output_len(data: &[u8]) -> Option<usize> {
    walk(data, 0).map(|w| w.out)
}

/// Where [`walk`] stopped: the bytes GNU writes, and where the block it stopped in begins
/// (its first bit, and the bytes written before it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Walk {
    pub out: usize,
    pub block_bit: usize,
    pub block_out: usize,
}

/// Follows a raw deflate stream from bit `start` (which must begin a block) as GNU does,
/// until it ends or the input does. A stream read as it comes can keep just the input from
/// the start of the block the walk stopped in, and walk again from there later.
pub fn walk(data: &[u8], start: usize) -> Option<Walk> {
    let mut b = Bits { data, pos: start };
    let mut out = 0usize;
    let mut block: (usize, usize);
    let stop = |out: usize, block: (usize, usize)| Walk {
        out,
        block_bit: block.0,
        block_out: block.1,
    };
    loop {
        block = (b.pos, out);
        if !b.need(1) {
            return Some(stop(out, block));
        }
        let last = b.take(1) == 1;
        if !b.need(2) {
            return Some(stop(out, block));
        }
        let kind = b.take(2);
        match kind {
            0 => {
                b.pos = b.pos.div_ceil(8) * 8;
                if !b.need(16) {
                    return Some(stop(out, block));
                }
                let n = b.take(16);
                if !b.need(16) {
                    return Some(stop(out, block));
                }
                let nn = b.take(16);
                if n != (!nn & 0xffff) {
                    return None;
                }
                let avail = (data.len() * 8 - b.pos) / 8;
                if avail < n {
                    return Some(stop(out + avail, block));
                }
                out += n;
                b.pos += n * 8;
            }
            1 | 2 => {
                let (lt, dt) = if kind == 1 {
                    let mut l = [0u8; 288];
                    for (i, x) in l.iter_mut().enumerate() {
                        *x = match i {
                            0..=143 => 8,
                            144..=255 => 9,
                            256..=279 => 7,
                            _ => 8,
                        };
                    }
                    (
                        build(&l, 257, &LBASE, &LEXT, 7)?,
                        build(&[5u8; 30], 0, &DBASE, &DEXT, 5)?,
                    )
                } else {
                    match dynamic_tables(&mut b)? {
                        Some(t) => t,
                        None => return Some(stop(out, block)),
                    }
                };
                loop {
                    let Some(e) = decode(&mut b, &lt) else {
                        return Some(stop(out, block));
                    };
                    match e.kind {
                        Kind::Lit(_) => out += 1,
                        Kind::Eob => break,
                        Kind::Value(base, ext) => {
                            if !b.need(ext as u32) {
                                return Some(stop(out, block));
                            }
                            let len = base as usize + b.take(ext as u32);
                            let Some(d) = decode(&mut b, &dt) else {
                                return Some(stop(out, block));
                            };
                            let Kind::Value(_, dext) = d.kind else {
                                return None;
                            };
                            if !b.need(dext as u32) {
                                return Some(stop(out, block));
                            }
                            b.take(dext as u32);
                            out += len;
                        }
                        _ => return None,
                    }
                }
            }
            _ => return None,
        }
        if last {
            return Some(stop(out, block));
        }
    }
}

/// Reads a dynamic block's code lengths; `Ok(None)` when the input ends first.
#[allow(clippy::type_complexity)]
fn dynamic_tables(b: &mut Bits<'_>) -> Option<Option<(Tables, Tables)>> {
    const ORDER: [usize; 19] = [
        16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
    ];
    if !b.need(14) {
        return Some(None);
    }
    let nl = b.take(5) + 257;
    let nd = b.take(5) + 1;
    let nb = b.take(4) + 4;
    if nl > 286 || nd > 30 {
        return None;
    }
    let mut bl = [0u8; 19];
    for &i in ORDER.iter().take(nb) {
        if !b.need(3) {
            return Some(None);
        }
        bl[i] = b.take(3) as u8;
    }
    let bt = build(&bl, 19, &[], &[], 7)?;
    let mut lens = vec![0u8; nl + nd];
    let mut i = 0;
    let mut prev = 0u8;
    while i < nl + nd {
        let Some(e) = decode(b, &bt) else {
            return Some(None);
        };
        // Code-length symbols are "literals" of the table: find which by its position.
        let sym = symbol_of(&bt, e)?;
        match sym {
            0..=15 => {
                lens[i] = sym as u8;
                prev = sym as u8;
                i += 1;
            }
            16..=18 => {
                let (nbits, add, val) = match sym {
                    16 => (2, 3, prev),
                    17 => (3, 3, 0),
                    _ => (7, 11, 0),
                };
                if !b.need(nbits) {
                    return Some(None);
                }
                let n = b.take(nbits) + add;
                if i + n > nl + nd {
                    return None;
                }
                lens[i..i + n].fill(val);
                i += n;
                prev = val;
            }
            _ => return None,
        }
    }
    let lt = build(&lens[..nl], 257, &LBASE, &LEXT, 9)?;
    let dt = build(&lens[nl..], 0, &DBASE, &DEXT, 6)?;
    Some(Some((lt, dt)))
}

/// The code-length symbol an entry of the bit-length table stands for.
fn symbol_of(_t: &Tables, e: Entry) -> Option<usize> {
    match e.kind {
        Kind::Lit(v) => Some(v as usize),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::builtins::testing::run;

    #[test]
    fn stops_where_gnu_stops() {
        // A cut stream on which flate2 decodes 3880 bytes and GNU gzip 1.12 writes 3364
        // (`gzip -d | wc -c`; the sha256 is of GNU's output).
        let cut = data_encoding::HEXLOWER
            .decode(
                b"1f8b0800000000000003edc7211100201000304f0aaafd71205fd20945882f460dc4e696\
                  5177cf3e62d529292222222222222222222222222222222222222222222222222222222222\
                  222222222222222222222222223fe701359bcc4354560000",
            )
            .unwrap();
        let r = run(&["gzip", "-d"], &cut).unwrap();
        assert_eq!(r.status, 1);
        assert_eq!(r.stdout.len(), 3364);
        let sum = run(&["sha256sum"], &r.stdout).unwrap().stdout_str();
        assert!(sum.starts_with("c4df23bfdcff7ce7d625a968fc808c0de5b472dc806af9ee8d1567888edbc737"));
    }

    #[test]
    fn a_walk_goes_on_from_the_block_it_stopped_in() {
        // A body of many blocks, walked whole and in two parts cut anywhere: the second
        // part, from the start of the block the first stopped in, ends where the whole does.
        let mut x = 7u64;
        let text: Vec<u8> = (0..1_000_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                b"ab cd\nefgh"[(x % 10) as usize]
            })
            .collect();
        let packed = run(&["gzip", "-6"], &text).unwrap().stdout;
        let body = &packed[10..packed.len() - 8];
        for cut in [body.len() / 2, body.len() * 3 / 4 + 17, body.len() - 1000] {
            let whole = super::walk(&body[..cut], 0).unwrap();
            let first = super::walk(&body[..cut / 2], 0).unwrap();
            assert!(first.block_bit > 0, "the first part holds a whole block");
            let from = first.block_bit / 8;
            let rest = super::walk(&body[from..cut], first.block_bit % 8).unwrap();
            assert_eq!(first.block_out + rest.out, whole.out, "cut at {cut}");
        }
    }
}
