//! The `cudasleuth` command: the allocator and the process's memory settings; everything else
//! is in `src/cli/` (the arguments) and the library (the work).

use std::process::ExitCode;

mod cli;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Transparent huge pages for the process's memory: they make reading a whole project's facts
/// faster, and cost a run that reads a few files more than its work (each first touch of a page
/// clears 2 MiB). The kernel checks the switch when a page is first touched, so it applies to
/// memory the allocator has reserved already.
fn allow_huge_pages(on: bool) {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and changes only this process's flag
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, libc::c_ulong::from(!on), 0 as libc::c_ulong, 0 as libc::c_ulong, 0 as libc::c_ulong);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = on;
}

/// Huge pages off from the start of the process, before the Rust runtime's first allocation
/// reserves the allocator's arena (a constructor runs before `main`): clearing the 2 MiB
/// pages that the runtime's first allocations touch costs a short run several milliseconds.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static HUGE_PAGES_OFF_AT_START: extern "C" fn() = {
    extern "C" fn off() {
        allow_huge_pages(false);
    }
    off
};

fn main() -> ExitCode {
    #[cfg(not(target_os = "linux"))]
    allow_huge_pages(false);
    cudasleuth::memory::register(allow_huge_pages);
    cli::main()
}
