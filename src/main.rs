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

fn main() -> ExitCode {
    cli::main()
}
