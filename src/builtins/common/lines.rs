//! Line-oriented input read as it comes: blocks of whole lines, so that a tool's
//! whole-buffer loop runs over each block unchanged and never sees a line cut in two.

use memchr::memrchr;

use crate::error::Result;
use crate::stream::Stdin;

/// Cuts a stream into blocks that end at a line end; the bytes after the last line end
/// of a chunk wait for the next one. Only the last block of the input may lack its line
/// end (a last line without newline). A line longer than a chunk is held whole.
pub struct LineBlocks {
    input: Stdin,
    eol: u8,
    partial: Vec<u8>,
}

impl LineBlocks {
    pub fn new(input: Stdin, eol: u8) -> Self {
        LineBlocks {
            input,
            eol,
            partial: Vec::new(),
        }
    }

    /// The next block of whole lines (never empty), or `None` at the end of the input.
    pub async fn next(&mut self) -> Result<Option<Vec<u8>>> {
        loop {
            let Some(mut chunk) = self.input.read().await? else {
                if self.partial.is_empty() {
                    return Ok(None);
                }
                return Ok(Some(std::mem::take(&mut self.partial)));
            };
            let Some(last_eol) = memrchr(self.eol, &chunk) else {
                self.partial.extend_from_slice(&chunk);
                continue;
            };
            let rest = chunk[last_eol + 1..].to_vec();
            chunk.truncate(last_eol + 1);
            let block = if self.partial.is_empty() {
                chunk
            } else {
                let mut joined = std::mem::take(&mut self.partial);
                joined.extend_from_slice(&chunk);
                joined
            };
            self.partial = rest;
            return Ok(Some(block));
        }
    }

    /// Gives `bytes` back to the input, in front of what was read and not yet handed
    /// out: a tool that stops early leaves the rest for the next reader.
    pub fn give_back(self, bytes: &[u8]) {
        let mut back = bytes.to_vec();
        back.extend_from_slice(&self.partial);
        self.input.unread(back);
    }
}

/// The end of a stream, kept while it passes: at least the last `n` lines (and a last line
/// without its line end), with what comes before them handed out as it becomes known not
/// to be among them (`head -n -N` prints that part, `tail -n N` drops it). The front is
/// cut only when the window has doubled, so each byte is moved a bounded number of times.
pub struct LineWindow {
    held: Vec<u8>,
    /// Line ends in `held`.
    held_eols: u64,
    n: u64,
    eol: u8,
    cut_at: usize,
    /// What the whole stream held: bytes, line ends, and whether its last byte ends a line.
    pub total: u64,
    pub total_eols: u64,
    pub ends_with_eol: bool,
}

impl LineWindow {
    pub fn new(n: u64, eol: u8) -> Self {
        LineWindow {
            held: Vec::new(),
            held_eols: 0,
            n,
            eol,
            cut_at: WINDOW_MIN,
            total: 0,
            total_eols: 0,
            ends_with_eol: false,
        }
    }

    /// Takes `chunk` in; calls `before` with bytes that are surely before the last `n` lines.
    pub fn push(&mut self, chunk: &[u8], before: impl FnOnce(&[u8])) {
        if chunk.is_empty() {
            return;
        }
        let eols = memchr::memchr_iter(self.eol, chunk).count() as u64;
        self.total += chunk.len() as u64;
        self.total_eols += eols;
        self.ends_with_eol = chunk.last() == Some(&self.eol);
        self.held.extend_from_slice(chunk);
        self.held_eols += eols;
        if self.held.len() < self.cut_at || self.held_eols <= self.n {
            return;
        }
        // Keep the last `n` whole lines and what follows them.
        let drop_lines = self.held_eols - self.n;
        let cut = memchr::memchr_iter(self.eol, &self.held)
            .nth((drop_lines - 1) as usize)
            .map_or(0, |at| at + 1);
        before(&self.held[..cut]);
        self.held.drain(..cut);
        self.held_eols = self.n;
        self.cut_at = (2 * self.held.len()).max(WINDOW_MIN);
    }

    /// What is held: the end of the stream, from somewhere at or before its last `n` lines.
    pub fn held(&self) -> &[u8] {
        &self.held
    }

    /// The steps GNU's backward search for the last `n` lines takes over the whole
    /// stream: one per line end passed, and one for the start (see [`last_lines_start`]).
    pub fn search_steps(&self) -> u64 {
        if self.total == 0 {
            return 0;
        }
        let inner = self.total_eols - u64::from(self.ends_with_eol);
        self.n.min(inner + 1)
    }
}

/// The window is not cut below this size, so short inputs are never moved.
const WINDOW_MIN: usize = 64 * 1024;

/// Where the last `n` lines of `data` start (a last line without its line end counts).
pub fn last_lines_start(data: &[u8], n: u64, eol: u8) -> usize {
    let mut start = data.len();
    let mut search_end = match data.last() {
        Some(&b) if b == eol => data.len() - 1,
        _ => data.len(),
    };
    for _ in 0..n {
        if start == 0 {
            break;
        }
        match memrchr(eol, &data[..search_end]) {
            Some(at) => {
                start = at + 1;
                search_end = at;
            }
            None => {
                start = 0;
                break;
            }
        }
    }
    start
}
