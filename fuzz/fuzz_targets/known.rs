//! Stepping over panics that are already reported, so that a long run keeps looking for new
//! ones instead of stopping at the first, easy-to-hit bug.
//!
//! Opt-in: `CUDASLEUTH_FUZZ_KNOWN=src/log/assert_line.rs:285` (comma-separated `file:line`
//! panic locations; a location matches when the panic's file ends with `file` and the line is
//! equal). Unset, every panic aborts as libFuzzer expects. A panic at a listed location is
//! swallowed quietly (the input simply counts as handled); any other panic still goes through
//! libfuzzer-sys's hook, which prints it and aborts, so it is saved as a crash.

use std::panic::{self, AssertUnwindSafe};
use std::sync::{Once, OnceLock};

fn known() -> &'static [(String, u32)] {
    static K: OnceLock<Vec<(String, u32)>> = OnceLock::new();
    K.get_or_init(|| {
        std::env::var("CUDASLEUTH_FUZZ_KNOWN")
            .unwrap_or_default()
            .split(',')
            .filter_map(|s| {
                let (f, l) = s.trim().rsplit_once(':')?;
                Some((f.to_string(), l.parse().ok()?))
            })
            .collect()
    })
}

fn is_known(loc: Option<&panic::Location<'_>>) -> bool {
    loc.is_some_and(|l| known().iter().any(|(f, n)| l.file().ends_with(f.as_str()) && l.line() == *n))
}

/// Runs `f`; a panic at a known location returns `None`, any other panic aborts.
pub fn run<T>(f: impl FnOnce() -> T) -> Option<T> {
    if known().is_empty() {
        return Some(f());
    }
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        // libfuzzer-sys's hook (print, then abort) is the one installed at this point.
        let aborting = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !is_known(info.location()) {
                aborting(info);
            }
        }));
    });
    panic::catch_unwind(AssertUnwindSafe(f)).ok()
}
