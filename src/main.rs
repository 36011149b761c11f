//! The `cudasleuth` command: the allocator and the process's memory settings; everything else
//! is in `src/cli/` (the arguments) and the library (the work).

use std::process::ExitCode;

mod cli;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Transparent huge pages off for the whole run, before the Rust runtime's first allocation
/// reserves the allocator's arena (a constructor runs before `main`). Each first touch of a
/// huge page clears 2 MiB, and the allocator gives memory back and touches it again: with them
/// on for whole-project reads a cold lint of transformers took 4.7 s and a run from the facts
/// cache 0.72 s; without, 4.0 s and 0.65 s (bench/LINT.md). A short run pays several
/// milliseconds for the pages its first allocations touch.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static HUGE_PAGES_OFF_AT_START: extern "C" fn() = {
    extern "C" fn off() {
        // SAFETY: PR_SET_THP_DISABLE takes plain integers and changes only this process's flag
        unsafe {
            libc::prctl(libc::PR_SET_THP_DISABLE, 1 as libc::c_ulong, 0 as libc::c_ulong, 0 as libc::c_ulong, 0 as libc::c_ulong);
        }
    }
    off
};

/// tree-sitter's C allocations through mimalloc too, set before the first parser exists (memory
/// one allocator made must not be freed by the other): the parse allocates and frees a node
/// at a time, and glibc's malloc and free were ~7 % of a cold lint of transformers (~4 % now).
fn tree_sitter_on_mimalloc() {
    unsafe extern "C" fn calloc(n: usize, size: usize) -> *mut std::ffi::c_void {
        match n.checked_mul(size) {
            // SAFETY: mi_zalloc takes any size and returns null when it cannot allocate
            Some(total) => unsafe { libmimalloc_sys::mi_zalloc(total) },
            None => std::ptr::null_mut(),
        }
    }
    // SAFETY: called once at the start of main, before any tree-sitter object is made; the four
    // functions are mimalloc's malloc, calloc (through zalloc), realloc and free
    unsafe {
        tree_sitter::set_allocator(
            Some(libmimalloc_sys::mi_malloc),
            Some(calloc),
            Some(libmimalloc_sys::mi_realloc),
            Some(libmimalloc_sys::mi_free),
        );
    }
}

fn main() -> ExitCode {
    tree_sitter_on_mimalloc();
    cli::main()
}
