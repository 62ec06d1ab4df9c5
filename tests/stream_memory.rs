//! A pipeline over a large stream holds a bounded amount of memory: every allocation of
//! this test binary is counted, and the peak while 100 MB flow through four stages stays
//! a few pipes' worth. (One test alone in this binary, so nothing else allocates meanwhile.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Runs `script` and gives its stdout and the peak of live heap bytes above the start.
fn peak_of(script: &str) -> (String, usize) {
    let job = mkfifo::shell::Job {
        script: script.as_bytes().to_vec(),
        arg0: b"sh".to_vec(),
        budget: 1_000_000_000,
        ..mkfifo::shell::Job::default()
    };
    let mut sh = mkfifo::shell::Shell::new();
    let host = mkfifo::host::FixedHost::default();
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let o = pollster::block_on(sh.run(&host, job));
    let peak = PEAK.load(Ordering::Relaxed) - base;
    assert_eq!((o.status, o.error), (0, None), "{script}");
    (String::from_utf8_lossy(&o.stdout).into_owned(), peak)
}

#[test]
fn large_streams_hold_little() {
    const MIB: usize = 1 << 20;
    for (script, out) in [
        ("yes | head -c 100000000 | tr y z | wc -c", "100000000\n"),
        ("seq 3000000 | cat -n | tail -n 1", "3000000\t3000000\n"),
        (
            "yes abcdef | head -n 2000000 | cut -c 2-3 | tee | wc -l -w -L",
            "2000000 2000000       2\n",
        ),
        ("seq 2000000 | head -n -2 | tail -c 8", "1999998\n"),
    ] {
        let (got, peak) = peak_of(script);
        assert_eq!(got, out, "{script}");
        // Without streaming each stage would hold its whole output (100 MB for the first).
        assert!(peak < 4 * MIB, "{script}: peak of {peak} bytes");
    }
}
