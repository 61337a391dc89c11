//! The process's own handling of Ctrl-C, of its parent's death and of running out of memory.

use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::sync::atomic::{AtomicU8, Ordering};

use pyo3::prelude::*;

/// Ctrl-C in the command line: status 130 at once, even while the core runs and Python's
/// own handler cannot (a blocking open of a FIFO, a long evaluation); with `announce`, one
/// line on stderr first (the main process), else nothing (the -j workers: the main process
/// says it once). Only the `trecgain` program calls this; the library leaves a user's signal
/// handlers alone.
#[pyfunction]
pub(crate) fn exit_on_interrupt(announce: bool) {
    extern "C" fn announce_and_exit(_: libc::c_int) {
        const MESSAGE: &[u8] = b"trecgain: interrupted\n";
        // SAFETY: write(2) and _exit(2) are async-signal-safe (POSIX's list for signal
        // handlers); MESSAGE is a static buffer valid for its whole length, and nothing
        // else is touched, so the handler is sound whatever the interrupted thread was doing.
        unsafe {
            libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
            libc::_exit(130);
        }
    }
    extern "C" fn exit_quietly(_: libc::c_int) {
        // SAFETY: _exit(2) is async-signal-safe and touches no memory of the process.
        unsafe { libc::_exit(130) }
    }
    let handler: extern "C" fn(libc::c_int) = if announce {
        announce_and_exit
    } else {
        exit_quietly
    };
    // SAFETY: signal(2) with a handler of the right type (extern "C" fn(c_int)) that only
    // makes async-signal-safe calls; replacing the SIGINT disposition affects no memory.
    unsafe {
        libc::signal(libc::SIGINT, handler as libc::sighandler_t);
    }
}

/// A -j worker dies with its parent (SIGKILL when the parent ends, however it ends), so no
/// worker outlives the command; `parent` is the parent's pid, read before the fork: if it
/// already ended before the signal was asked for, the worker ends now.
#[pyfunction]
pub(crate) fn die_with_parent(parent: i32) {
    // SAFETY: prctl(PR_SET_PDEATHSIG, signal) takes two integers and changes only this
    // process's parent-death signal; getppid() and _exit() take no pointers; none touches
    // memory the program uses.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
        if libc::getppid() != parent {
            libc::_exit(1);
        }
    }
}

/// What an allocation that fails does: abort as Rust does (the library: a user's process is
/// not ours to end), or, in the command line, end at once with status 1, after one line on
/// stderr (the main process) or none (a -j worker: the main process reports it).
static ON_OUT_OF_MEMORY: AtomicU8 = AtomicU8::new(ABORT);
const ABORT: u8 = 0;
const EXIT_QUIETLY: u8 = 1;
const EXIT_WITH_LINE: u8 = 2;

/// The system allocator, with the command line's one-line end when memory runs out.
struct Allocator;

impl Allocator {
    fn out_of_memory(&self) {
        let mode = ON_OUT_OF_MEMORY.load(Ordering::Relaxed);
        if mode == ABORT {
            return; // the null pointer goes back, and Rust's handler aborts
        }
        const MESSAGE: &[u8] = b"trecgain: out of memory\n";
        // SAFETY: write(2) and _exit(2) allocate nothing and are async-signal-safe; MESSAGE is
        // a static buffer valid for its whole length. Ending the process here never returns
        // a pointer, so no caller can misuse one.
        unsafe {
            if mode == EXIT_WITH_LINE {
                libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
            }
            libc::_exit(1);
        }
    }
}

/// Blocks at least this large are backed by huge pages where the system allows it.
const HUGE_BLOCK: usize = 8 << 20;
/// A huge page (x86-64, aarch64 with 4 KiB pages).
const HUGE_PAGE: usize = 2 << 20;

/// Asks the kernel to back the whole huge pages inside a large block with huge pages
/// (transparent huge pages in "madvise" mode): one fault then maps 2 MiB instead of 4 KiB, and
/// filling a column of millions of rows faults 512 times less often. Advice only: the block's
/// contents and validity do not change, and a refusal (THP off, an old kernel) is ignored.
fn advise_huge(p: *mut u8, size: usize) {
    if p.is_null() || size < HUGE_BLOCK {
        return;
    }
    let start = (p as usize).next_multiple_of(HUGE_PAGE);
    let end = (p as usize + size) & !(HUGE_PAGE - 1);
    if end > start {
        // SAFETY: [start, end) lies inside the block just allocated (start rounds up, end
        // rounds down), so the advice concerns memory this process owns; MADV_HUGEPAGE changes
        // how pages are backed, never what they hold, and its result needs no handling.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

// SAFETY: every method forwards to `System` with the same arguments and returns its result
// unchanged, so the GlobalAlloc contract (sizes, alignment, null on failure) is System's; the
// additions run either on a block System has just returned (`advise_huge`: advice on memory
// the block holds, sound as it says) or when System has already failed, and then either
// return that null or end the process.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        let p = System.alloc(layout);
        if p.is_null() {
            self.out_of_memory();
        }
        advise_huge(p, layout.size());
        p
    }

    unsafe fn alloc_zeroed(&self, layout: AllocLayout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if p.is_null() {
            self.out_of_memory();
        }
        advise_huge(p, layout.size());
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: AllocLayout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if p.is_null() {
            self.out_of_memory();
        }
        advise_huge(p, new_size);
        p
    }
}

#[global_allocator]
static GLOBAL: Allocator = Allocator;

/// The command line's end when memory runs out: one line and status 1 (`announce`), or
/// status 1 alone (-j workers). Only the `trecgain` program calls this.
#[pyfunction]
pub(crate) fn exit_on_out_of_memory(announce: bool) {
    let mode = if announce {
        EXIT_WITH_LINE
    } else {
        EXIT_QUIETLY
    };
    ON_OUT_OF_MEMORY.store(mode, Ordering::Relaxed);
}
