//! Phase timings on stderr when `CUDASLEUTH_TIMINGS` is set (for the benchmarks in bench/).

use std::sync::OnceLock;
use std::time::Instant;

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("CUDASLEUTH_TIMINGS").is_some())
}

/// Prints `name` and the time since `since` when timings are on; returns now.
pub fn phase(name: &str, since: Instant) -> Instant {
    let now = Instant::now();
    if enabled() {
        eprintln!("timing {name}: {:.4} s", (now - since).as_secs_f64());
    }
    now
}

/// Prints a count when timings are on.
pub fn count(name: &str, n: usize) {
    if enabled() {
        eprintln!("count {name}: {n}");
    }
}
