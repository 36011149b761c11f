//! A progress line for long scans: on stderr, only when stderr is a terminal that can move its
//! cursor (not `TERM=dumb`) and no one turned it off (`--quiet`); drawn only once the work has
//! taken more than a second, redrawn at most ten times a second, and cleared when the work ends.
//! Like `timings`, a process utility that imports nothing of the crate.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

static OFF: AtomicBool = AtomicBool::new(false);

/// After how long the line appears, and how often it is redrawn.
const AFTER: Duration = Duration::from_secs(1);
const EVERY: Duration = Duration::from_millis(100);

/// Turns every progress line of this process off (`--quiet`).
pub fn turn_off() {
    OFF.store(true, Ordering::Relaxed);
}

/// Whether a progress line may be drawn now.
fn wanted() -> bool {
    !OFF.load(Ordering::Relaxed) && std::io::stderr().is_terminal() && std::env::var("TERM").map_or(true, |t| t != "dumb")
}

/// The count of a piece of work done in steps (files read, logs explained), shared by threads.
pub struct Progress {
    what: &'static str,
    total: usize,
    done: AtomicUsize,
    start: Instant,
    last: Mutex<Option<Instant>>,
    on: bool,
    drawn: AtomicBool,
}

impl Progress {
    /// `what` names the steps (`files read`); `total` is how many there are.
    pub fn new(what: &'static str, total: usize) -> Progress {
        Progress::with(what, total, wanted(), Instant::now())
    }

    fn with(what: &'static str, total: usize, on: bool, start: Instant) -> Progress {
        Progress { what, total, done: AtomicUsize::new(0), start, last: Mutex::new(None), on, drawn: AtomicBool::new(false) }
    }

    /// One step done: the line is redrawn when it is due.
    pub fn step(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(line) = self.due(done, Instant::now()) {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K{line}");
            let _ = err.flush();
            self.drawn.store(true, Ordering::Relaxed);
        }
    }

    /// The line is taken off the terminal (before other output is written); the next step
    /// that is due draws it again.
    pub fn clear(&self) {
        if self.drawn.swap(false, Ordering::Relaxed) {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }

    /// The line to draw after `done` steps at `now`, when one is due.
    fn due(&self, done: usize, now: Instant) -> Option<String> {
        if !self.on || now.duration_since(self.start) < AFTER {
            return None;
        }
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if last.is_some_and(|t| now.duration_since(t) < EVERY) && done < self.total {
            return None;
        }
        *last = Some(now);
        Some(format!("cudasleuth: {done}/{} {}", self.total, self.what))
    }
}

impl Drop for Progress {
    /// The line is cleared: what is printed next starts on a clean line.
    fn drop(&mut self) {
        self.clear();
    }
}

/// A progress line whose text the caller makes, for work counted elsewhere (a sweep in the
/// command's own process): the same conventions as [`Progress`]; taken off when dropped.
pub struct Line {
    start: Instant,
    on: bool,
    drawn: bool,
}

impl Line {
    pub fn new() -> Line {
        Line { start: Instant::now(), on: wanted(), drawn: false }
    }

    /// Draws `text` in place of the last one, once the work has taken more than a second.
    pub fn show(&mut self, text: &str) {
        if !self.on || self.start.elapsed() < AFTER {
            return;
        }
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{text}");
        let _ = err.flush();
        self.drawn = true;
    }

    pub fn clear(&mut self) {
        if std::mem::take(&mut self.drawn) {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}

impl Default for Line {
    fn default() -> Self {
        Line::new()
    }
}

impl Drop for Line {
    fn drop(&mut self) {
        self.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_waits_a_second_and_is_redrawn_at_most_ten_times_a_second() {
        let t0 = Instant::now();
        let p = Progress::with("files read", 10, true, t0);
        assert_eq!(p.due(1, t0 + Duration::from_millis(500)), None, "not before a second");
        assert_eq!(p.due(2, t0 + Duration::from_millis(1000)).as_deref(), Some("cudasleuth: 2/10 files read"));
        assert_eq!(p.due(3, t0 + Duration::from_millis(1050)), None, "not again within 100 ms");
        assert_eq!(p.due(4, t0 + Duration::from_millis(1150)).as_deref(), Some("cudasleuth: 4/10 files read"));
        assert_eq!(p.due(10, t0 + Duration::from_millis(1160)).as_deref(), Some("cudasleuth: 10/10 files read"), "the last step is drawn");
    }

    #[test]
    fn off_draws_nothing() {
        let t0 = Instant::now();
        let p = Progress::with("files read", 10, false, t0);
        assert_eq!(p.due(5, t0 + Duration::from_secs(5)), None);
    }
}
