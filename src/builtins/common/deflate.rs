//! A deflate (RFC 1951) encoder that makes the same choices as GNU gzip at each level, so
//! that `gzip -n` output is byte for byte GNU's. Spends one step per 64 bytes of input.
//!
//! It takes its input in chunks of any size ([`Deflate::write`], then [`Deflate::finish`])
//! and gives out each block as soon as it is made. GNU reads its input in requests for
//! the free part of the window (64 KiB at first, then about 32 KiB at a time) and every
//! choice it makes depends on what those requests brought, so the encoder makes the same
//! requests: it waits until a request can be met in full (or the input has ended) before
//! it reads, and holds at most one request's worth of input besides the window.
//!
//! The algorithm is the classic one of gzip and zlib: a 64 KiB window sliding by 32 KiB,
//! hash chains over 3-byte strings, greedy matching for levels 1-3 and lazy matching for
//! 4-9 under the per-level limits, blocks of up to 32 Ki symbols (or shorter when the
//! block seems to compress well), and each block sent stored, with the fixed codes or
//! with Huffman codes built for it, whichever is shortest.

use crate::budget::Budget;
use crate::error::Result;

const WSIZE: usize = 0x8000;
const WMASK: usize = WSIZE - 1;
const WINDOW_SIZE: usize = 2 * WSIZE;
const HASH_BITS: u32 = 15;
const HASH_SIZE: usize = 1 << HASH_BITS;
const HASH_MASK: usize = HASH_SIZE - 1;
const H_SHIFT: u32 = HASH_BITS.div_ceil(3);
const MIN_MATCH: usize = 3;
const MAX_MATCH: usize = 258;
const MIN_LOOKAHEAD: usize = MAX_MATCH + MIN_MATCH + 1;
const MAX_DIST: usize = WSIZE - MIN_LOOKAHEAD;
const TOO_FAR: usize = 4096;
const LIT_BUFSIZE: usize = 0x8000;
const NIL: usize = 0;
/// `--rsyncable`: the width of the rolling sum's window, and its modulus.
const RSYNC_WIN: usize = 4096;

const LENGTH_CODES: usize = 29;
const LITERALS: usize = 256;
const END_BLOCK: usize = 256;
const L_CODES: usize = LITERALS + 1 + LENGTH_CODES;
const D_CODES: usize = 30;
const BL_CODES: usize = 19;
const HEAP_SIZE: usize = 2 * L_CODES + 1;
const MAX_BITS: usize = 15;
const MAX_BL_BITS: usize = 7;
const REP_3_6: usize = 16;
const REPZ_3_10: usize = 17;
const REPZ_11_138: usize = 18;

const EXTRA_LBITS: [u8; LENGTH_CODES] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const EXTRA_DBITS: [u8; D_CODES] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];
const EXTRA_BLBITS: [u8; BL_CODES] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 7];
const BL_ORDER: [usize; BL_CODES] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// The per-level limits: reduce the lazy search above `good` length, do not search lazily
/// above `lazy` (levels 1-3: do not insert the strings of matches longer than it), stop
/// at a match of `nice`, follow at most `chain` links.
#[derive(Clone, Copy)]
struct Config {
    good: usize,
    lazy: usize,
    nice: usize,
    chain: usize,
}

const CONFIG: [Config; 10] = [
    Config {
        good: 0,
        lazy: 0,
        nice: 0,
        chain: 0,
    },
    Config {
        good: 4,
        lazy: 4,
        nice: 8,
        chain: 4,
    },
    Config {
        good: 4,
        lazy: 5,
        nice: 16,
        chain: 8,
    },
    Config {
        good: 4,
        lazy: 6,
        nice: 32,
        chain: 32,
    },
    Config {
        good: 4,
        lazy: 4,
        nice: 16,
        chain: 16,
    },
    Config {
        good: 8,
        lazy: 16,
        nice: 32,
        chain: 32,
    },
    Config {
        good: 8,
        lazy: 16,
        nice: 128,
        chain: 128,
    },
    Config {
        good: 8,
        lazy: 32,
        nice: 128,
        chain: 256,
    },
    Config {
        good: 32,
        lazy: 128,
        nice: 258,
        chain: 1024,
    },
    Config {
        good: 32,
        lazy: 258,
        nice: 258,
        chain: 4096,
    },
];

/// Tables derived once: length and distance codes, their bases, the fixed trees.
struct Tables {
    length_code: [u8; MAX_MATCH - MIN_MATCH + 1],
    base_length: [u16; LENGTH_CODES],
    dist_code: [u8; 512],
    base_dist: [u16; D_CODES],
    static_ltree: [Code; L_CODES + 2],
    static_dtree: [Code; D_CODES],
}

#[derive(Clone, Copy, Default)]
struct Code {
    code: u16,
    len: u16,
}

fn tables() -> &'static Tables {
    static T: std::sync::OnceLock<Tables> = std::sync::OnceLock::new();
    T.get_or_init(build_tables)
}

#[allow(clippy::needless_range_loop)] // the code numbers index several tables at once
fn build_tables() -> Tables {
    let mut t = Tables {
        length_code: [0; MAX_MATCH - MIN_MATCH + 1],
        base_length: [0; LENGTH_CODES],
        dist_code: [0; 512],
        base_dist: [0; D_CODES],
        static_ltree: [Code::default(); L_CODES + 2],
        static_dtree: [Code::default(); D_CODES],
    };
    let mut length = 0usize;
    for code in 0..LENGTH_CODES - 1 {
        t.base_length[code] = length as u16;
        for _ in 0..(1 << EXTRA_LBITS[code]) {
            t.length_code[length] = code as u8;
            length += 1;
        }
    }
    // Length 258 has its own code (285); it overwrites the last entry of code 284.
    t.length_code[length - 1] = (LENGTH_CODES - 1) as u8;
    let mut dist = 0usize;
    for code in 0..16 {
        t.base_dist[code] = dist as u16;
        for _ in 0..(1 << EXTRA_DBITS[code]) {
            t.dist_code[dist] = code as u8;
            dist += 1;
        }
    }
    dist >>= 7;
    for code in 16..D_CODES {
        t.base_dist[code] = (dist << 7) as u16;
        for _ in 0..(1 << (EXTRA_DBITS[code] - 7)) {
            t.dist_code[256 + dist] = code as u8;
            dist += 1;
        }
    }
    let mut bl_count = [0u16; MAX_BITS + 1];
    for (n, c) in t.static_ltree.iter_mut().enumerate() {
        c.len = match n {
            0..=143 => 8,
            144..=255 => 9,
            256..=279 => 7,
            _ => 8,
        };
        bl_count[c.len as usize] += 1;
    }
    let lens: Vec<u16> = t.static_ltree.iter().map(|c| c.len).collect();
    let codes = gen_codes(&lens, L_CODES + 1, &bl_count);
    for (c, code) in t.static_ltree.iter_mut().zip(codes) {
        c.code = code;
    }
    for (n, c) in t.static_dtree.iter_mut().enumerate() {
        c.len = 5;
        c.code = bi_reverse(n as u16, 5);
    }
    t
}

impl Tables {
    fn d_code(&self, dist: usize) -> usize {
        if dist < 256 {
            self.dist_code[dist] as usize
        } else {
            self.dist_code[256 + (dist >> 7)] as usize
        }
    }
}

fn bi_reverse(mut code: u16, len: u16) -> u16 {
    let mut res = 0u16;
    for _ in 0..len {
        res = (res << 1) | (code & 1);
        code >>= 1;
    }
    res
}

/// Canonical codes for the given lengths (`max_code` is the last symbol to give one).
fn gen_codes(lens: &[u16], max_code: usize, bl_count: &[u16; MAX_BITS + 1]) -> Vec<u16> {
    let mut next = [0u16; MAX_BITS + 1];
    let mut code = 0u16;
    for bits in 1..=MAX_BITS {
        code = (code.wrapping_add(bl_count[bits - 1])) << 1;
        next[bits] = code;
    }
    let mut out = vec![0u16; lens.len()];
    for n in 0..=max_code.min(lens.len().saturating_sub(1)) {
        let len = lens[n];
        if len != 0 {
            out[n] = bi_reverse(next[len as usize], len);
            next[len as usize] = next[len as usize].wrapping_add(1);
        }
    }
    out
}

/// Bits out, least significant first.
struct BitWriter {
    out: Vec<u8>,
    buf: u64,
    used: u32,
}

impl BitWriter {
    #[inline]
    fn send(&mut self, value: u32, len: u32) {
        self.buf |= (value as u64) << self.used;
        self.used += len;
        if self.used >= 32 {
            self.out.extend_from_slice(&(self.buf as u32).to_le_bytes());
            self.buf >>= 32;
            self.used -= 32;
        }
    }

    /// Pads to a byte boundary.
    fn windup(&mut self) {
        while self.used > 0 {
            self.out.push(self.buf as u8);
            self.buf >>= 8;
            self.used = self.used.saturating_sub(8);
        }
        self.buf = 0;
    }
}

/// One Huffman tree under construction: frequencies, lengths, codes.
struct Tree {
    freq: Vec<u32>,
    len: Vec<u16>,
    code: Vec<u16>,
    dad: Vec<u16>,
    max_code: usize,
}

impl Tree {
    fn new(nodes: usize) -> Tree {
        Tree {
            freq: vec![0; nodes],
            len: vec![0; nodes],
            code: vec![0; nodes],
            dad: vec![0; nodes],
            max_code: 0,
        }
    }
}

/// The state of one deflate stream.
pub struct Deflate {
    /// Input given to [`Deflate::write`] and not yet read into the window.
    pending: Vec<u8>,
    /// How many of the pending bytes the window has taken.
    pending_read: usize,
    /// Whether [`Deflate::finish`] said the input has ended.
    input_done: bool,
    /// Whether the window has been read for the first time and the hash set up.
    started: bool,
    /// Whether the last block has been sent.
    done: bool,
    /// The match carried from one step to the next (the greedy and the lazy loop).
    match_length: usize,
    match_available: bool,
    eof: bool,
    level: usize,
    cfg: Config,

    window: Vec<u8>,
    prev: Vec<u16>,
    head: Vec<u16>,
    ins_h: usize,
    strstart: usize,
    block_start: isize,
    lookahead: usize,
    match_start: usize,
    prev_length: usize,

    // The current block's symbols: (distance, literal or length - 3).
    syms: Vec<(u16, u8)>,
    matches: usize,
    ltree: Tree,
    dtree: Tree,
    bltree: Tree,
    opt_len: u64,
    static_len: u64,
    heap: [usize; HEAP_SIZE],
    heap_len: usize,
    heap_max: usize,
    depth: [u8; HEAP_SIZE],
    bl_count: [u16; MAX_BITS + 1],
    bits: BitWriter,

    /// `--rsyncable`: cut the stream where the content says (see [`Deflate::roll`]).
    rsyncable: bool,
    /// The sum of the last `RSYNC_WIN` bytes `strstart` has passed.
    rsync_sum: u32,
    /// Where the sum last hit its mark, a cut not yet made (a window position).
    rsync_end: Option<usize>,
}

impl Deflate {
    /// A stream at `level` (1-9).
    pub fn new(level: u32) -> Deflate {
        let level = (level as usize).clamp(1, 9);
        let mut d = Deflate {
            pending: Vec::new(),
            pending_read: 0,
            input_done: false,
            started: false,
            done: false,
            match_length: if level <= 3 { 0 } else { MIN_MATCH - 1 },
            match_available: false,
            eof: false,
            level,
            cfg: CONFIG[level],
            window: vec![0; WINDOW_SIZE + MAX_MATCH],
            prev: vec![0; WSIZE],
            head: vec![0; HASH_SIZE],
            ins_h: 0,
            strstart: 0,
            block_start: 0,
            lookahead: 0,
            match_start: 0,
            prev_length: MIN_MATCH - 1,
            syms: Vec::with_capacity(LIT_BUFSIZE),
            matches: 0,
            ltree: Tree::new(HEAP_SIZE),
            dtree: Tree::new(2 * D_CODES + 1),
            bltree: Tree::new(2 * BL_CODES + 1),
            opt_len: 0,
            static_len: 0,
            heap: [0; HEAP_SIZE],
            heap_len: 0,
            heap_max: 0,
            depth: [0; HEAP_SIZE],
            bl_count: [0; MAX_BITS + 1],
            bits: BitWriter {
                out: Vec::new(),
                buf: 0,
                used: 0,
            },
            rsyncable: false,
            rsync_sum: 0,
            rsync_end: None,
        };
        d.init_block();
        d
    }

    /// `gzip --rsyncable`: ends a block, and aligns the stream to a byte with an empty
    /// stored block, where the content of the input says, so that a change in the input
    /// changes the output only up to the next such cut.
    pub fn set_rsyncable(&mut self, on: bool) {
        self.rsyncable = on;
    }

    /// Takes `data` in and compresses as far as it can; the finished blocks' bytes are
    /// appended to `out`.
    pub fn write(&mut self, data: &[u8], budget: &Budget, out: &mut Vec<u8>) -> Result<()> {
        self.pending.extend_from_slice(data);
        self.pump(budget, out)
    }

    /// The input has ended: compresses the rest and appends the last bytes to `out`.
    pub fn finish(&mut self, budget: &Budget, out: &mut Vec<u8>) -> Result<()> {
        self.input_done = true;
        self.pump(budget, out)
    }

    /// Runs the loop of the level until it needs more input than it has, or to the end.
    fn pump(&mut self, budget: &Budget, out: &mut Vec<u8>) -> Result<()> {
        let r = self.steps(budget);
        // Input read into the window goes; the rest is less than one read request.
        let used = self.pending_read;
        if used > 0 {
            self.pending.drain(..used);
            self.pending_read = 0;
        }
        if out.is_empty() {
            std::mem::swap(out, &mut self.bits.out);
        } else {
            out.append(&mut self.bits.out);
        }
        r
    }

    fn steps(&mut self, budget: &Budget) -> Result<()> {
        if self.done {
            return Ok(());
        }
        loop {
            while self.lookahead < MIN_LOOKAHEAD && !self.eof {
                if !self.fill_window(budget)? {
                    return Ok(());
                }
            }
            if !self.started {
                self.started = true;
                self.ins_h = 0;
                if self.lookahead > 0 {
                    for j in 0..MIN_MATCH - 1 {
                        self.update_hash(self.window[j]);
                    }
                }
            }
            if self.lookahead == 0 {
                break;
            }
            if self.level <= 3 {
                self.step_fast();
            } else {
                self.step_lazy();
            }
        }
        if self.level > 3 && self.match_available {
            self.tally(0, self.window[self.strstart - 1] as usize);
        }
        self.flush(true);
        self.bits.windup();
        self.done = true;
        Ok(())
    }
}

impl Deflate {
    /// Reads `n` more bytes of input into the window at `at`, as GNU's read of a file
    /// does: all `n` unless the input ends first. `None` while the input given so far is
    /// too short to tell.
    fn read_buf(&mut self, at: usize, n: usize, budget: &Budget) -> Result<Option<usize>> {
        let have = self.pending.len() - self.pending_read;
        if have < n && !self.input_done {
            return Ok(None);
        }
        let take = n.min(have);
        budget.spend_bytes(take)?;
        let from = self.pending_read;
        self.window[at..at + take].copy_from_slice(&self.pending[from..from + take]);
        self.pending_read += take;
        Ok(Some(take))
    }

    #[inline]
    fn update_hash(&mut self, c: u8) {
        self.ins_h = ((self.ins_h << H_SHIFT) ^ c as usize) & HASH_MASK;
    }

    /// Inserts the string at `s` into the hash chains; returns the previous head.
    #[inline]
    fn insert_string(&mut self, s: usize) -> usize {
        self.update_hash(self.window[s + MIN_MATCH - 1]);
        let head = self.head[self.ins_h] as usize;
        self.prev[s & WMASK] = head as u16;
        self.head[self.ins_h] = s as u16;
        head
    }

    /// Slides the window when it is due and reads into its free part; `false` when that
    /// must wait for more input (the slide is done, and is not due again on the retry).
    fn fill_window(&mut self, budget: &Budget) -> Result<bool> {
        let mut more = WINDOW_SIZE - self.lookahead - self.strstart;
        if self.strstart >= WSIZE + MAX_DIST {
            self.window.copy_within(WSIZE..WINDOW_SIZE, 0);
            self.match_start = self.match_start.wrapping_sub(WSIZE);
            self.strstart -= WSIZE;
            self.block_start -= WSIZE as isize;
            self.rsync_end = self.rsync_end.map(|e| e.saturating_sub(WSIZE));
            for h in self.head.iter_mut() {
                let m = *h as usize;
                *h = if m >= WSIZE {
                    (m - WSIZE) as u16
                } else {
                    NIL as u16
                };
            }
            for p in self.prev.iter_mut() {
                let m = *p as usize;
                *p = if m >= WSIZE {
                    (m - WSIZE) as u16
                } else {
                    NIL as u16
                };
            }
            more += WSIZE;
        }
        if !self.eof {
            let at = self.strstart + self.lookahead;
            let Some(n) = self.read_buf(at, more, budget)? else {
                return Ok(false);
            };
            if n == 0 {
                self.eof = true;
                // Keep bytes past the end out of the hashes.
                self.window[at..at + MIN_MATCH - 1].fill(0);
            } else {
                self.lookahead += n;
            }
        }
        Ok(true)
    }

    fn longest_match(&mut self, mut cur_match: usize) -> usize {
        let mut chain = self.cfg.chain;
        let scan = self.strstart;
        let mut best_len = self.prev_length;
        let nice = self.cfg.nice;
        let limit = if self.strstart > MAX_DIST {
            self.strstart - MAX_DIST
        } else {
            NIL
        };
        if self.prev_length >= self.cfg.good {
            chain >>= 2;
        }
        let w = &self.window;
        let strend = scan + MAX_MATCH;
        loop {
            let m = cur_match;
            if w[m + best_len] == w[scan + best_len]
                && w[m + best_len - 1] == w[scan + best_len - 1]
                && w[m] == w[scan]
                && w[m + 1] == w[scan + 1]
            {
                // The third byte matches too when the first two and the hash do.
                let len = 2 + common_prefix(&w[scan + 2..strend], &w[m + 2..m + MAX_MATCH]);
                if len > best_len {
                    self.match_start = cur_match;
                    best_len = len;
                    if len >= nice {
                        break;
                    }
                }
            }
            cur_match = self.prev[cur_match & WMASK] as usize;
            if cur_match <= limit {
                break;
            }
            chain -= 1;
            if chain == 0 {
                break;
            }
        }
        best_len
    }

    /// Records a literal or a match; true when the block should end here.
    #[inline]
    fn tally(&mut self, dist: usize, lc: usize) -> bool {
        let t = tables();
        self.syms.push((dist as u16, lc as u8));
        if dist == 0 {
            self.ltree.freq[lc] += 1;
        } else {
            self.matches += 1;
            let d = dist - 1;
            self.ltree.freq[t.length_code[lc] as usize + LITERALS + 1] += 1;
            self.dtree.freq[t.d_code(d)] += 1;
        }
        let last_lit = self.syms.len();
        if self.level > 2 && last_lit & 0xfff == 0 {
            // End the block early when it compresses well.
            let mut out_length = last_lit as u64 * 8;
            let in_length = (self.strstart as isize - self.block_start) as u64;
            for (dcode, &f) in self.dtree.freq[..D_CODES].iter().enumerate() {
                out_length += f as u64 * (5 + EXTRA_DBITS[dcode] as u64);
            }
            out_length >>= 3;
            if self.matches < last_lit / 2 && out_length < in_length / 2 {
                return true;
            }
        }
        last_lit == LIT_BUFSIZE - 1
    }

    fn flush(&mut self, eof: bool) {
        let stored_len = (self.strstart as isize - self.block_start) as usize;
        let buf = (self.block_start >= 0).then_some(self.block_start as usize);
        self.flush_block(buf, stored_len, eof);
        self.block_start = self.strstart as isize;
        if self.rsync_due() {
            self.rsync_end = None;
            // A cut: an empty stored block brings the stream to a byte, unless it is on
            // one already (a stored block) or this was the last block.
            if !eof && !self.bits.used.is_multiple_of(8) {
                self.bits.send(0, 3);
                self.bits.windup();
                self.bits.out.extend_from_slice(&[0, 0, 0xff, 0xff]);
            }
        }
    }

    /// Whether a cut of `--rsyncable` is due at `strstart`.
    #[inline]
    fn rsync_due(&self) -> bool {
        self.rsync_end.is_some_and(|e| e <= self.strstart)
    }

    /// Moves `strstart` on by `n`; for `--rsyncable`, adds the bytes passed to the
    /// rolling sum (taking out those that leave its window) and marks a cut after each
    /// byte where the sum is a multiple of the window, once more than a window of input
    /// is behind (a window position is the input offset until the first slide, and past
    /// `RSYNC_WIN` after it). The loops make the cut at their next chance to end a block.
    #[inline]
    fn roll(&mut self, n: usize) {
        if self.rsyncable {
            for p in self.strstart..self.strstart + n {
                self.rsync_sum = self.rsync_sum.wrapping_add(self.window[p] as u32);
                if p >= RSYNC_WIN {
                    self.rsync_sum = self
                        .rsync_sum
                        .wrapping_sub(self.window[p - RSYNC_WIN] as u32);
                    if self.rsync_sum.is_multiple_of(RSYNC_WIN as u32) && self.rsync_end.is_none() {
                        self.rsync_end = Some(p + 1);
                    }
                }
            }
        }
        self.strstart += n;
    }

    /// One step of the greedy loop (levels 1-3): a match or a literal at `strstart`.
    #[inline]
    fn step_fast(&mut self) {
        let mut match_length = self.match_length;
        let hash_head = self.insert_string(self.strstart);
        if hash_head != NIL
            && self.strstart - hash_head <= MAX_DIST
            && self.strstart <= WINDOW_SIZE - MIN_LOOKAHEAD
        {
            match_length = self.longest_match(hash_head);
            if match_length > self.lookahead {
                match_length = self.lookahead;
            }
        }
        let flush;
        if match_length >= MIN_MATCH {
            flush = self.tally(self.strstart - self.match_start, match_length - MIN_MATCH);
            self.lookahead -= match_length;
            if match_length <= self.cfg.lazy {
                match_length -= 1;
                while match_length != 0 {
                    self.roll(1);
                    self.insert_string(self.strstart);
                    match_length -= 1;
                }
                self.roll(1);
            } else {
                self.roll(match_length);
                match_length = 0;
                self.ins_h = self.window[self.strstart] as usize;
                self.update_hash(self.window[self.strstart + 1]);
            }
        } else {
            flush = self.tally(0, self.window[self.strstart] as usize);
            self.lookahead -= 1;
            self.roll(1);
        }
        self.match_length = match_length;
        if flush || self.rsync_due() {
            self.flush(false);
        }
    }

    /// One step of the lazy loop (levels 4-9): the match at `strstart - 1` is taken only
    /// when the one at `strstart` is no longer.
    #[inline]
    fn step_lazy(&mut self) {
        let hash_head = self.insert_string(self.strstart);
        self.prev_length = self.match_length;
        let prev_match = self.match_start;
        let mut match_length = MIN_MATCH - 1;
        if hash_head != NIL
            && self.prev_length < self.cfg.lazy
            && self.strstart - hash_head <= MAX_DIST
            && self.strstart <= WINDOW_SIZE - MIN_LOOKAHEAD
        {
            match_length = self.longest_match(hash_head);
            if match_length > self.lookahead {
                match_length = self.lookahead;
            }
            if match_length == MIN_MATCH && self.strstart - self.match_start > TOO_FAR {
                match_length -= 1;
            }
        }
        if self.prev_length >= MIN_MATCH && match_length <= self.prev_length {
            let flush = self.tally(self.strstart - 1 - prev_match, self.prev_length - MIN_MATCH);
            self.lookahead -= self.prev_length - 1;
            let mut n = self.prev_length - 2;
            while n != 0 {
                self.roll(1);
                self.insert_string(self.strstart);
                n -= 1;
            }
            self.match_available = false;
            match_length = MIN_MATCH - 1;
            self.roll(1);
            if flush || self.rsync_due() {
                self.flush(false);
            }
        } else if self.match_available {
            if self.tally(0, self.window[self.strstart - 1] as usize) || self.rsync_due() {
                self.flush(false);
            }
            self.roll(1);
            self.lookahead -= 1;
        } else {
            self.match_available = true;
            self.roll(1);
            self.lookahead -= 1;
        }
        self.match_length = match_length;
    }

    fn init_block(&mut self) {
        self.ltree.freq[..L_CODES].fill(0);
        self.dtree.freq[..D_CODES].fill(0);
        self.bltree.freq[..BL_CODES].fill(0);
        self.ltree.freq[END_BLOCK] = 1;
        self.opt_len = 0;
        self.static_len = 0;
        self.syms.clear();
        self.matches = 0;
    }

    fn flush_block(&mut self, buf: Option<usize>, stored_len: usize, eof: bool) {
        let t = tables();
        self.build_tree(TreeKind::Lit);
        self.build_tree(TreeKind::Dist);
        let max_blindex = self.build_bl_tree();
        let mut opt_lenb = (self.opt_len + 3 + 7) >> 3;
        let static_lenb = (self.static_len + 3 + 7) >> 3;
        if static_lenb <= opt_lenb {
            opt_lenb = static_lenb;
        }
        let eof_bit = eof as u32;
        match buf {
            Some(start) if stored_len as u64 + 4 <= opt_lenb => {
                self.bits.send(eof_bit, 3);
                self.bits.windup();
                let out = &mut self.bits.out;
                out.extend_from_slice(&(stored_len as u16).to_le_bytes());
                out.extend_from_slice(&(!(stored_len as u16)).to_le_bytes());
                out.extend_from_slice(&self.window[start..start + stored_len]);
            }
            _ if static_lenb == opt_lenb => {
                self.bits.send(2 + eof_bit, 3);
                let lt: Vec<Code> = t.static_ltree.to_vec();
                let dt: Vec<Code> = t.static_dtree.to_vec();
                self.compress_block(&lt, &dt);
            }
            _ => {
                self.bits.send(4 + eof_bit, 3);
                self.send_all_trees(
                    self.ltree.max_code + 1,
                    self.dtree.max_code + 1,
                    max_blindex + 1,
                );
                let lt: Vec<Code> = (0..L_CODES)
                    .map(|n| Code {
                        code: self.ltree.code[n],
                        len: self.ltree.len[n],
                    })
                    .collect();
                let dt: Vec<Code> = (0..D_CODES)
                    .map(|n| Code {
                        code: self.dtree.code[n],
                        len: self.dtree.len[n],
                    })
                    .collect();
                self.compress_block(&lt, &dt);
            }
        }
        self.init_block();
    }

    fn compress_block(&mut self, ltree: &[Code], dtree: &[Code]) {
        let t = tables();
        let bits = &mut self.bits;
        for &(dist, lc) in &self.syms {
            let lc = lc as usize;
            if dist == 0 {
                bits.send(ltree[lc].code as u32, ltree[lc].len as u32);
            } else {
                let code = t.length_code[lc] as usize;
                let c = ltree[code + LITERALS + 1];
                bits.send(c.code as u32, c.len as u32);
                let extra = EXTRA_LBITS[code] as u32;
                if extra != 0 {
                    bits.send((lc - t.base_length[code] as usize) as u32, extra);
                }
                let d = dist as usize - 1;
                let code = t.d_code(d);
                bits.send(dtree[code].code as u32, dtree[code].len as u32);
                let extra = EXTRA_DBITS[code] as u32;
                if extra != 0 {
                    bits.send((d - t.base_dist[code] as usize) as u32, extra);
                }
            }
        }
        let eob = ltree[END_BLOCK];
        bits.send(eob.code as u32, eob.len as u32);
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum TreeKind {
    Lit,
    Dist,
    Bl,
}

impl Deflate {
    fn tree(&mut self, kind: TreeKind) -> &mut Tree {
        match kind {
            TreeKind::Lit => &mut self.ltree,
            TreeKind::Dist => &mut self.dtree,
            TreeKind::Bl => &mut self.bltree,
        }
    }

    /// `(elems, max_length, extra bits, extra base, static lengths)` of a tree.
    fn desc(kind: TreeKind) -> (usize, usize, &'static [u8], usize) {
        match kind {
            TreeKind::Lit => (L_CODES, MAX_BITS, &EXTRA_LBITS, LITERALS + 1),
            TreeKind::Dist => (D_CODES, MAX_BITS, &EXTRA_DBITS, 0),
            TreeKind::Bl => (BL_CODES, MAX_BL_BITS, &EXTRA_BLBITS, 0),
        }
    }

    fn static_len_of(kind: TreeKind, n: usize) -> Option<u64> {
        let t = tables();
        match kind {
            TreeKind::Lit => Some(t.static_ltree[n].len as u64),
            TreeKind::Dist => Some(t.static_dtree[n].len as u64),
            TreeKind::Bl => None,
        }
    }

    /// Is node `n` smaller than node `m` (frequency, then depth)?
    #[inline]
    fn smaller(&self, kind: TreeKind, n: usize, m: usize) -> bool {
        let f = match kind {
            TreeKind::Lit => &self.ltree.freq,
            TreeKind::Dist => &self.dtree.freq,
            TreeKind::Bl => &self.bltree.freq,
        };
        f[n] < f[m] || (f[n] == f[m] && self.depth[n] <= self.depth[m])
    }

    fn pqdownheap(&mut self, kind: TreeKind, mut k: usize) {
        let v = self.heap[k];
        let mut j = k << 1;
        while j <= self.heap_len {
            if j < self.heap_len && self.smaller(kind, self.heap[j + 1], self.heap[j]) {
                j += 1;
            }
            if self.smaller(kind, v, self.heap[j]) {
                break;
            }
            self.heap[k] = self.heap[j];
            k = j;
            j <<= 1;
        }
        self.heap[k] = v;
    }

    fn build_tree(&mut self, kind: TreeKind) {
        let (elems, _, _, _) = Self::desc(kind);
        let mut max_code: isize = -1;
        self.heap_len = 0;
        self.heap_max = HEAP_SIZE;
        for n in 0..elems {
            if self.tree(kind).freq[n] != 0 {
                self.heap_len += 1;
                self.heap[self.heap_len] = n;
                max_code = n as isize;
                self.depth[n] = 0;
            } else {
                self.tree(kind).len[n] = 0;
            }
        }
        // At least two codes of non-zero frequency.
        while self.heap_len < 2 {
            let node = if max_code < 2 {
                max_code += 1;
                max_code as usize
            } else {
                0
            };
            self.heap_len += 1;
            self.heap[self.heap_len] = node;
            self.tree(kind).freq[node] = 1;
            self.depth[node] = 0;
            self.opt_len = self.opt_len.wrapping_sub(1);
            if let Some(sl) = Self::static_len_of(kind, node) {
                self.static_len = self.static_len.wrapping_sub(sl);
            }
        }
        let max_code = max_code as usize;
        self.tree(kind).max_code = max_code;
        let mut n = self.heap_len / 2;
        while n >= 1 {
            self.pqdownheap(kind, n);
            n -= 1;
        }
        let mut node = elems;
        loop {
            // n = the node of least frequency
            let n = self.heap[1];
            self.heap[1] = self.heap[self.heap_len];
            self.heap_len -= 1;
            self.pqdownheap(kind, 1);
            let m = self.heap[1];
            self.heap_max -= 1;
            self.heap[self.heap_max] = n;
            self.heap_max -= 1;
            self.heap[self.heap_max] = m;
            let tree = self.tree(kind);
            tree.freq[node] = tree.freq[n] + tree.freq[m];
            tree.dad[n] = node as u16;
            tree.dad[m] = node as u16;
            self.depth[node] = self.depth[n].max(self.depth[m]) + 1;
            self.heap[1] = node;
            node += 1;
            self.pqdownheap(kind, 1);
            if self.heap_len < 2 {
                break;
            }
        }
        self.heap_max -= 1;
        self.heap[self.heap_max] = self.heap[1];
        self.gen_bitlen(kind);
        let tree = self.tree(kind);
        let lens = tree.len.clone();
        let bl_count = self.bl_count;
        let codes = gen_codes(&lens, max_code, &bl_count);
        self.tree(kind).code = codes;
    }

    fn gen_bitlen(&mut self, kind: TreeKind) {
        let (_, max_length, extra, base) = Self::desc(kind);
        let max_code = self.tree(kind).max_code;
        self.bl_count = [0; MAX_BITS + 1];
        let root = self.heap[self.heap_max];
        self.tree(kind).len[root] = 0;
        let mut overflow = 0i32;
        for h in self.heap_max + 1..HEAP_SIZE {
            let n = self.heap[h];
            let tree = self.tree(kind);
            let mut bits = tree.len[tree.dad[n] as usize] as usize + 1;
            if bits > max_length {
                bits = max_length;
                overflow += 1;
            }
            tree.len[n] = bits as u16;
            if n > max_code {
                continue;
            }
            let xbits = if n >= base { extra[n - base] as u64 } else { 0 };
            let f = tree.freq[n] as u64;
            self.bl_count[bits] += 1;
            self.opt_len = self.opt_len.wrapping_add(f * (bits as u64 + xbits));
            if let Some(sl) = Self::static_len_of(kind, n) {
                self.static_len = self.static_len.wrapping_add(f * (sl + xbits));
            }
        }
        if overflow == 0 {
            return;
        }
        loop {
            let mut bits = max_length - 1;
            while self.bl_count[bits] == 0 {
                bits -= 1;
            }
            self.bl_count[bits] -= 1;
            self.bl_count[bits + 1] += 2;
            self.bl_count[max_length] -= 1;
            overflow -= 2;
            if overflow <= 0 {
                break;
            }
        }
        let mut h = HEAP_SIZE;
        for bits in (1..=max_length).rev() {
            let mut n = self.bl_count[bits];
            while n != 0 {
                h -= 1;
                let m = self.heap[h];
                if m > max_code {
                    continue;
                }
                let tree = self.tree(kind);
                if tree.len[m] as usize != bits {
                    let delta = (bits as i64 - tree.len[m] as i64) * tree.freq[m] as i64;
                    tree.len[m] = bits as u16;
                    self.opt_len = (self.opt_len as i64 + delta) as u64;
                }
                n -= 1;
            }
        }
    }

    /// Counts the run-length codes the lengths of `kind` need.
    fn scan_tree(&mut self, kind: TreeKind) {
        let max_code = self.tree(kind).max_code;
        let lens: Vec<u16> = self.tree(kind).len[..=max_code].to_vec();
        for_each_run(&lens, |sym, count| match sym {
            RunSym::Len(l, n) => self.bltree.freq[l] += n as u32,
            RunSym::Rep(_) => self.bltree.freq[REP_3_6] += 1,
            RunSym::Zeros3(_) => self.bltree.freq[REPZ_3_10] += 1,
            RunSym::Zeros11(_) => self.bltree.freq[REPZ_11_138] += 1,
            RunSym::LenOnce(l) => {
                let _ = count;
                self.bltree.freq[l] += 1
            }
        });
    }

    fn send_tree(&mut self, kind: TreeKind, max_code: usize) {
        let lens: Vec<u16> = self.tree(kind).len[..=max_code].to_vec();
        let bl: Vec<(u16, u16)> = (0..BL_CODES)
            .map(|i| (self.bltree.code[i], self.bltree.len[i]))
            .collect();
        let bits = &mut self.bits;
        let send = |bits: &mut BitWriter, s: usize| bits.send(bl[s].0 as u32, bl[s].1 as u32);
        for_each_run(&lens, |sym, _| match sym {
            RunSym::Len(l, n) => {
                for _ in 0..n {
                    send(bits, l);
                }
            }
            RunSym::LenOnce(l) => send(bits, l),
            RunSym::Rep(c) => {
                send(bits, REP_3_6);
                bits.send(c as u32 - 3, 2);
            }
            RunSym::Zeros3(c) => {
                send(bits, REPZ_3_10);
                bits.send(c as u32 - 3, 3);
            }
            RunSym::Zeros11(c) => {
                send(bits, REPZ_11_138);
                bits.send(c as u32 - 11, 7);
            }
        });
    }

    fn build_bl_tree(&mut self) -> usize {
        self.scan_tree(TreeKind::Lit);
        self.scan_tree(TreeKind::Dist);
        self.build_tree(TreeKind::Bl);
        let mut max_blindex = BL_CODES - 1;
        while max_blindex >= 3 {
            if self.bltree.len[BL_ORDER[max_blindex]] != 0 {
                break;
            }
            max_blindex -= 1;
        }
        self.opt_len = self
            .opt_len
            .wrapping_add(3 * (max_blindex as u64 + 1) + 5 + 5 + 4);
        max_blindex
    }

    fn send_all_trees(&mut self, lcodes: usize, dcodes: usize, blcodes: usize) {
        self.bits.send((lcodes - 257) as u32, 5);
        self.bits.send((dcodes - 1) as u32, 5);
        self.bits.send((blcodes - 4) as u32, 4);
        for &i in BL_ORDER.iter().take(blcodes) {
            self.bits.send(self.bltree.len[i] as u32, 3);
        }
        self.send_tree(TreeKind::Lit, lcodes - 1);
        self.send_tree(TreeKind::Dist, dcodes - 1);
    }
}

/// One symbol of a run-length coded list of code lengths.
enum RunSym {
    /// A length sent `n` times as itself.
    Len(usize, usize),
    /// A length sent once before a repeat.
    LenOnce(usize),
    /// Repeat the previous length 3-6 times.
    Rep(usize),
    /// 3-10 zeros.
    Zeros3(usize),
    /// 11-138 zeros.
    Zeros11(usize),
}

/// Walks `lens` as deflate's run-length coding of code lengths does (the choices of
/// scan_tree/send_tree), calling `f` for each symbol.
fn for_each_run(lens: &[u16], mut f: impl FnMut(RunSym, usize)) {
    let mut prevlen: i32 = -1;
    let mut nextlen = lens.first().copied().unwrap_or(0) as i32;
    let mut count = 0usize;
    let (mut max_count, mut min_count) = if nextlen == 0 { (138, 3) } else { (7, 4) };
    for n in 0..lens.len() {
        let curlen = nextlen;
        // The guard past the last code never equals a length.
        nextlen = lens.get(n + 1).map(|&l| l as i32).unwrap_or(-1);
        count += 1;
        if count < max_count && curlen == nextlen {
            continue;
        } else if count < min_count {
            f(RunSym::Len(curlen as usize, count), count);
        } else if curlen != 0 {
            if curlen != prevlen {
                f(RunSym::LenOnce(curlen as usize), 1);
                count -= 1;
            }
            f(RunSym::Rep(count), count);
        } else if count <= 10 {
            f(RunSym::Zeros3(count), count);
        } else {
            f(RunSym::Zeros11(count), count);
        }
        count = 0;
        prevlen = curlen;
        if nextlen == 0 {
            (max_count, min_count) = (138, 3);
        } else if curlen == nextlen {
            (max_count, min_count) = (6, 3);
        } else {
            (max_count, min_count) = (7, 4);
        }
    }
}

/// How many leading bytes `a` and `b` share.
#[inline]
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let x = u64::from_le_bytes(a[i..i + 8].try_into().unwrap_or([0; 8]))
            ^ u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
        if x != 0 {
            return i + (x.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}
