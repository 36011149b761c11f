//! Huge pages for the allocator: worth their cost in a run that reads a whole project (the
//! facts of thousands of files), not in one that reads a few files, where clearing each 2 MiB
//! page on first touch would take longer than the work. The executable starts without them and
//! registers how to turn them on; the library does so before reading a whole project.

use std::sync::OnceLock;

static SWITCH: OnceLock<fn(bool)> = OnceLock::new();

/// Registers the allocator's switch (once, by the executable).
pub fn register(switch: fn(bool)) {
    let _ = SWITCH.set(switch);
}

/// A large run is about to allocate: huge pages from now on.
pub fn expect_large_run() {
    if let Some(s) = SWITCH.get() {
        s(true);
    }
}
