//! A per-thread cache of freed small blocks in front of the system allocator.
//!
//! jq and the shell allocate and free many blocks of a few dozen bytes (an `Rc` and its
//! `String`, an array of four values, an object's map) in bursts: a filter over a page of
//! 1,000 entries makes about 100 of them per entry and frees them together. A freed block
//! of up to 512 bytes goes onto a list of its size class (a multiple of 8 bytes), and the
//! next allocation of that class takes it back: a push and a pop, against the system
//! allocator's bins, headers and coalescing. The lists of a thread keep at most 4 MiB in
//! all; past that, freed blocks go back to the system allocator, so the memory held is
//! bounded and large allocations still find what was freed.
//!
//! Rust gives the layout back on `dealloc`, so a block needs no header: its size class
//! comes from the layout, and every block of a class is allocated from the system with
//! the class's size.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::ptr;

const GRAIN: usize = 8;
const MAX_SMALL: usize = 512;
const CLASSES: usize = MAX_SMALL / GRAIN;
const HELD_CAP: usize = 4 << 20;

struct Lists {
    /// The first free block of each class; a free block's first word points to the next.
    head: [*mut u8; CLASSES],
    /// The bytes of all the lists.
    held: usize,
}

thread_local! {
    // No destructor and a const initializer: usable from the allocator at any time, and
    // never allocates. Blocks left on a finished thread's lists are not given back.
    static LISTS: UnsafeCell<Lists> = const {
        UnsafeCell::new(Lists { head: [ptr::null_mut(); CLASSES], held: 0 })
    };
}

/// The global allocator: `#[global_allocator] static A: SmallAlloc = SmallAlloc;`
pub struct SmallAlloc;

/// The largest size the cache serves; larger blocks go straight to the system allocator.
pub const MAX_SMALL_SIZE: usize = MAX_SMALL;
/// The most bytes a thread's lists keep.
pub const HELD_CAP_BYTES: usize = HELD_CAP;

/// The bytes of freed blocks kept on this thread's lists, by size class (8, 16, ... 512
/// bytes), counted by walking them.
pub fn cached_bytes() -> [usize; CLASSES] {
    LISTS.with(|lists| {
        // SAFETY: the allocator is not running on this thread now (we are outside it).
        let lists = unsafe { &*lists.get() };
        std::array::from_fn(|class| {
            let (mut block, mut n) = (lists.head[class], 0);
            while !block.is_null() {
                // SAFETY: a free block's first word is the next one.
                block = unsafe { *(block as *mut *mut u8) };
                n += 1;
            }
            n * (class + 1) * GRAIN
        })
    })
}

/// The class of a layout the cache serves (size 1 to 512, alignment up to 8).
#[inline]
fn class_of(layout: Layout) -> Option<usize> {
    if layout.size() <= MAX_SMALL && layout.align() <= GRAIN {
        Some(layout.size().div_ceil(GRAIN) - 1)
    } else {
        None
    }
}

#[inline]
fn class_layout(class: usize) -> Layout {
    // SAFETY: a multiple of 8 no larger than 512, aligned to 8.
    unsafe { Layout::from_size_align_unchecked((class + 1) * GRAIN, GRAIN) }
}

unsafe impl GlobalAlloc for SmallAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let Some(class) = class_of(layout) else {
            return System.alloc(layout);
        };
        LISTS.with(|lists| {
            let lists = &mut *lists.get();
            let block = lists.head[class];
            if block.is_null() {
                System.alloc(class_layout(class))
            } else {
                lists.head[class] = *(block as *mut *mut u8);
                lists.held -= (class + 1) * GRAIN;
                block
            }
        })
    }

    #[inline]
    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        let Some(class) = class_of(layout) else {
            return System.dealloc(block, layout);
        };
        LISTS.with(|lists| {
            let lists = &mut *lists.get();
            let size = (class + 1) * GRAIN;
            if lists.held + size > HELD_CAP {
                System.dealloc(block, class_layout(class));
            } else {
                *(block as *mut *mut u8) = lists.head[class];
                lists.head[class] = block;
                lists.held += size;
            }
        })
    }

    #[inline]
    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        match (class_of(layout), class_of(new_layout)) {
            (None, None) => System.realloc(block, layout, new_size),
            (Some(old), Some(new)) if old == new => block,
            _ => {
                let moved = self.alloc(new_layout);
                if !moved.is_null() {
                    ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                    self.dealloc(block, layout);
                }
                moved
            }
        }
    }
}
