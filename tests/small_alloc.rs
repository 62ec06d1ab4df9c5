//! The global allocator (crates/small-alloc): freed small blocks come back for the next
//! allocation of their size class, contents survive every realloc, each class keeps at
//! most its cap, and larger or more aligned layouts go to the system allocator.

use std::alloc::{GlobalAlloc, Layout};

use mkfifo::seeded::Rng;
use small_alloc::{cached_bytes, SmallAlloc, HELD_CAP_BYTES, MAX_SMALL_SIZE};

fn layout(size: usize, align: usize) -> Layout {
    Layout::from_size_align(size, align).unwrap()
}

fn fill(p: *mut u8, n: usize, seed: u8) {
    for i in 0..n {
        unsafe { *p.add(i) = seed.wrapping_add(i as u8) };
    }
}

fn holds(p: *mut u8, n: usize, seed: u8) -> bool {
    (0..n).all(|i| unsafe { *p.add(i) } == seed.wrapping_add(i as u8))
}

#[test]
fn a_freed_block_is_the_next_of_its_class() {
    for size in 1..=MAX_SMALL_SIZE {
        let l = layout(size, 1);
        unsafe {
            let a = SmallAlloc.alloc(l);
            assert!(!a.is_null());
            assert_eq!(a as usize % 8, 0, "size {size}: blocks are aligned to 8");
            fill(a, size, 7);
            SmallAlloc.dealloc(a, l);
            // any size of the same class (a multiple of 8) takes it back
            let same_class = layout(size.div_ceil(8) * 8, 8);
            let b = SmallAlloc.alloc(same_class);
            assert_eq!(a, b, "size {size}");
            SmallAlloc.dealloc(b, same_class);
        }
    }
}

#[test]
fn freed_blocks_come_back_newest_first() {
    let l = layout(48, 8);
    unsafe {
        let blocks: Vec<*mut u8> = (0..5).map(|_| SmallAlloc.alloc(l)).collect();
        for &b in &blocks {
            SmallAlloc.dealloc(b, l);
        }
        let again: Vec<*mut u8> = (0..5).map(|_| SmallAlloc.alloc(l)).collect();
        assert_eq!(again, blocks.iter().rev().copied().collect::<Vec<_>>());
        for b in again {
            SmallAlloc.dealloc(b, l);
        }
    }
}

#[test]
fn realloc_keeps_the_contents_across_classes_and_sizes() {
    let sizes = [1, 7, 8, 9, 24, 100, 511, 512, 513, 4096, 100_000, 40, 3];
    unsafe {
        let mut p = SmallAlloc.alloc(layout(sizes[0], 1));
        fill(p, sizes[0], 3);
        for w in sizes.windows(2) {
            let (old, new) = (w[0], w[1]);
            let q = SmallAlloc.realloc(p, layout(old, 1), new);
            assert!(!q.is_null());
            assert!(holds(q, old.min(new), 3), "{old} -> {new}");
            if old.div_ceil(8) == new.div_ceil(8) && new <= MAX_SMALL_SIZE {
                assert_eq!(p, q, "{old} -> {new}: same class, same block");
            }
            fill(q, new, 3);
            p = q;
        }
        SmallAlloc.dealloc(p, layout(*sizes.last().unwrap(), 1));
    }
}

#[test]
fn the_lists_keep_at_most_their_cap() {
    let size = 256;
    let l = layout(size, 8);
    let n = 2 * HELD_CAP_BYTES / size;
    let class = size / 8 - 1;
    let held = || cached_bytes().iter().sum::<usize>();
    unsafe {
        let blocks: Vec<*mut u8> = (0..n).map(|_| SmallAlloc.alloc(l)).collect();
        let before = held();
        for &b in &blocks {
            SmallAlloc.dealloc(b, l);
        }
        let kept = held();
        assert!(kept <= HELD_CAP_BYTES, "kept {kept}");
        assert!(kept > before, "freed blocks are kept up to the cap");
        assert!(
            kept + size > HELD_CAP_BYTES,
            "kept {kept}: the lists fill to their cap"
        );
        // and the kept blocks are handed out again
        let class_bytes = cached_bytes()[class];
        let again = SmallAlloc.alloc(l);
        assert_eq!(cached_bytes()[class], class_bytes - size);
        SmallAlloc.dealloc(again, l);
    }
}

#[test]
fn large_and_aligned_layouts_go_to_the_system() {
    unsafe {
        let before = cached_bytes();
        for l in [
            layout(MAX_SMALL_SIZE + 1, 8),
            layout(64, 16),
            layout(32, 64),
            layout(1 << 20, 8),
        ] {
            let p = SmallAlloc.alloc(l);
            assert_eq!(p as usize % l.align(), 0);
            fill(p, l.size(), 9);
            assert!(holds(p, l.size(), 9));
            SmallAlloc.dealloc(p, l);
        }
        assert_eq!(cached_bytes(), before, "none of them kept on a list");
    }
}

/// Seeded allocations, reallocs and frees of many sizes on two threads at once, every
/// block filled with its own pattern and checked before it changes hands.
#[test]
fn seeded_churn_keeps_every_block_intact() {
    let churn = |seed: u64| {
        let mut rng = Rng(seed);
        let mut live: Vec<(*mut u8, usize, u8)> = Vec::new();
        for step in 0..200_000u32 {
            let tag = step as u8;
            match rng.below(10) {
                0..=4 => {
                    let size = if rng.chance(5) {
                        1 + rng.below(5000)
                    } else {
                        1 + rng.below(600)
                    };
                    let p = unsafe { SmallAlloc.alloc(layout(size, 8)) };
                    fill(p, size, tag);
                    live.push((p, size, tag));
                }
                5..=6 if !live.is_empty() => {
                    let i = rng.below(live.len());
                    let (p, size, t) = live[i];
                    let new = 1 + rng.below(700);
                    let q = unsafe { SmallAlloc.realloc(p, layout(size, 8), new) };
                    assert!(holds(q, size.min(new), t), "step {step}");
                    fill(q, new, tag);
                    live[i] = (q, new, tag);
                }
                _ if !live.is_empty() => {
                    let (p, size, t) = live.swap_remove(rng.below(live.len()));
                    assert!(holds(p, size, t), "step {step}");
                    unsafe { SmallAlloc.dealloc(p, layout(size, 8)) };
                }
                _ => {}
            }
        }
        for (p, size, t) in live {
            assert!(holds(p, size, t));
            unsafe { SmallAlloc.dealloc(p, layout(size, 8)) };
        }
    };
    let other = std::thread::spawn(move || churn(0x9e37_79b9_7f4a_7c15));
    churn(0x2545_f491_4f6c_dd1d);
    other.join().unwrap();
}
