//! Running the user's command: its own session (or, with `--stdin`, its own group holding the
//! terminal), output copied to the terminal and to `run.log`, stopped as a whole at the
//! timeout, on any signal that ends cudasleuth, or once a witness is written.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How the command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It exited by itself with this code (None: killed by a signal it got from elsewhere).
    Exited(Option<i32>),
    /// A witness appeared; the process group was stopped (the exit code if it had already exited).
    Witness(Option<i32>),
    TimedOut,
    Interrupted,
}

pub struct Spec<'a> {
    pub argv: &'a [String],
    pub env: &'a [(String, String)],
    pub out_dir: &'a Path,
    pub timeout: Option<Duration>,
    /// Where the child's output goes besides run.log: the terminal's stdout or stderr.
    pub echo_to_stderr: bool,
    pub quiet: bool,
    /// The command reads cudasleuth's stdin (`--stdin`); else its stdin is closed.
    pub stdin: bool,
}

/// The signal cudasleuth received while the command ran (0: none yet).
static RECEIVED: AtomicI32 = AtomicI32::new(0);

#[cfg(unix)]
extern "C" fn on_signal(sig: libc::c_int) {
    RECEIVED.store(sig, Ordering::SeqCst);
}

/// The signals that end a run: each is passed on to the command's group, which is then stopped,
/// and the run's temporary files removed before cudasleuth exits (Ctrl-C, `kill`, a closed
/// terminal or SSH session, Ctrl-\\).
#[cfg(unix)]
const ENDING_SIGNALS: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

#[cfg(unix)]
fn catch_signals() {
    // SAFETY: installs an async-signal-safe handler that only stores to an atomic.
    unsafe {
        let mut act: libc::sigaction = std::mem::zeroed();
        act.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
        libc::sigemptyset(&mut act.sa_mask);
        for sig in ENDING_SIGNALS {
            libc::sigaction(sig, &act, std::ptr::null_mut());
        }
    }
}

#[cfg(not(unix))]
fn catch_signals() {}

/// The default actions back once the command is gone: a Ctrl-C while the report is made ends
/// cudasleuth.
#[cfg(unix)]
fn restore_signals() {
    // SAFETY: resets dispositions to their defaults
    unsafe {
        for sig in ENDING_SIGNALS {
            libc::signal(sig, libc::SIG_DFL);
        }
    }
}

#[cfg(not(unix))]
fn restore_signals() {}

#[cfg(unix)]
fn signal_group(child: &Child, sig: libc::c_int) {
    // the child leads its own group (process_group(0)), so its pid is the group id
    // SAFETY: plain syscall; ESRCH (group already gone) is fine.
    unsafe {
        libc::killpg(child.id() as libc::pid_t, sig);
    }
}

/// Stop the whole group: a polite signal first (the one cudasleuth got, else SIGTERM), then
/// SIGKILL for whatever is left.
fn stop_group(child: &mut Child, first: Option<i32>) -> Option<i32> {
    #[cfg(unix)]
    {
        signal_group(child, first.unwrap_or(libc::SIGTERM));
        let deadline = Instant::now() + Duration::from_secs(3);
        let mut status = None;
        while Instant::now() < deadline {
            if let Ok(Some(s)) = child.try_wait() {
                status = Some(s);
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        // leftovers (DataLoader workers, other ranks) may outlive the leader
        signal_group(child, libc::SIGKILL);
        let status = status.or_else(|| child.wait().ok());
        status.and_then(|s| s.code())
    }
    #[cfg(not(unix))]
    {
        let _ = first;
        let _ = child.kill();
        child.wait().ok().and_then(|s| s.code())
    }
}

/// The processes of the command that left its group (a daemon started with
/// `start_new_session=True`), as the shim recorded them in `proc-<pid>` (pid, group, start
/// time): each still running with the same start time is stopped with its own group, politely
/// first. The records are removed.
#[cfg(unix)]
fn stop_strays(dir: &Path, group: i32) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut strays = Vec::new();
    for e in entries.flatten() {
        if !e.file_name().to_string_lossy().starts_with("proc-") {
            continue;
        }
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        let _ = std::fs::remove_file(e.path());
        let nums: Vec<i64> = text.split_whitespace().filter_map(|w| w.parse().ok()).collect();
        if let [pid, pgrp, start] = nums[..] {
            if pgrp != group as i64 && pid > 1 && started_at(pid as i32) == Some(start) {
                strays.push((pid as i32, pgrp as i32, start));
            }
        }
    }
    let signal = |sig: libc::c_int, strays: &[(i32, i32, i64)]| {
        for &(pid, pgrp, _) in strays {
            // SAFETY: plain syscalls on a process checked by its start time just before
            unsafe {
                if pgrp == pid {
                    libc::killpg(pid, sig);
                } else {
                    libc::kill(pid, sig);
                }
            }
        }
    };
    if strays.is_empty() {
        return;
    }
    signal(libc::SIGTERM, &strays);
    let deadline = Instant::now() + Duration::from_secs(1);
    while Instant::now() < deadline {
        strays.retain(|&(pid, _, start)| started_at(pid) == Some(start));
        if strays.is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    signal(libc::SIGKILL, &strays);
}

/// A running process's start time (clock ticks since boot, `/proc/PID/stat` field 22); None
/// when it is gone (or a zombie).
#[cfg(unix)]
fn started_at(pid: i32) -> Option<i64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat[stat.rfind(')')? + 2..].split_whitespace().collect();
    if fields.first() == Some(&"Z") {
        return None;
    }
    fields.get(19)?.parse().ok()
}

/// How long the output copies may go on after the command's group is gone: a process of another
/// session (a daemon started with `start_new_session=True`) can hold the pipe open for ever.
const DRAIN: Duration = Duration::from_millis(1500);

/// Copies one of the command's streams to run.log and the terminal until it closes, or until
/// `closed` is set (then the thread stops writing, and is left to end with the process).
fn copy_stream(
    mut from: impl Read + Send + 'static,
    log: Arc<Mutex<std::fs::File>>,
    to_stderr: bool,
    quiet: bool,
    closed: Arc<AtomicBool>,
) -> std::sync::mpsc::Receiver<()> {
    let (done, ended) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if closed.load(Ordering::SeqCst) {
                break;
            }
            if let Ok(mut f) = log.lock() {
                let _ = f.write_all(&buf[..n]);
            }
            if !quiet {
                if to_stderr {
                    let _ = std::io::stderr().write_all(&buf[..n]);
                } else {
                    let mut o = std::io::stdout().lock();
                    let _ = o.write_all(&buf[..n]);
                    let _ = o.flush();
                }
            }
        }
        let _ = done.send(());
    });
    ended
}

fn witness_written(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|rd| {
        rd.flatten().any(|e| {
            let n = e.file_name();
            let n = n.to_string_lossy();
            n.starts_with("witness-") && n.ends_with(".json")
        })
    })
}

pub struct Ran {
    pub ending: Ending,
    pub seconds: f64,
    pub log: PathBuf,
}

pub fn run(spec: &Spec) -> std::io::Result<Ran> {
    let log_path = spec.out_dir.join("run.log");
    let log = Arc::new(Mutex::new(std::fs::File::create_new(&log_path)?));
    let mut cmd = Command::new(&spec.argv[0]);
    cmd.args(&spec.argv[1..]).stdout(Stdio::piped()).stderr(Stdio::piped());
    for (k, v) in spec.env {
        cmd.env(k, v);
    }
    // the command in a group of its own, to be stopped as a whole; without `--stdin` also in a
    // session of its own with no terminal and stdin closed (`input()` and `breakpoint()` end
    // at once instead of stopping the run with SIGTTIN); with it, the terminal is lent to the
    // command's group while it runs
    let terminal = if spec.stdin { Terminal::inherit(&mut cmd) } else { Terminal::detach(&mut cmd) };
    catch_signals();
    let start = Instant::now();
    let mut child = cmd.spawn()?;
    let lent = terminal.lend(&child);
    let closed = Arc::new(AtomicBool::new(false));
    let out = child.stdout.take().map(|s| copy_stream(s, log.clone(), spec.echo_to_stderr, spec.quiet, closed.clone()));
    let err = child.stderr.take().map(|s| copy_stream(s, log.clone(), true, spec.quiet, closed.clone()));
    let mut seen_witness: Option<Instant> = None;
    // a sweep says how far it is (the shim's `.progress`): a progress line on a terminal
    let mut line = crate::progress::Line::new();
    let mut polls = 0u32;
    let ending = loop {
        polls += 1;
        if polls % 10 == 0 {
            if let Some(text) = std::fs::read_to_string(spec.out_dir.join(".progress")).ok().and_then(|t| sweep_progress(&t)) {
                line.show(&text);
            }
        }
        if let Some(status) = child.try_wait()? {
            let code = status.code();
            // the leader is gone; make sure nothing of its group lingers
            #[cfg(unix)]
            signal_group(&child, libc::SIGKILL);
            break if seen_witness.is_some() || witness_written(spec.out_dir) { Ending::Witness(code) } else { Ending::Exited(code) };
        }
        let sig = RECEIVED.swap(0, Ordering::SeqCst);
        if sig != 0 {
            stop_group(&mut child, Some(sig));
            break Ending::Interrupted;
        }
        if spec.timeout.is_some_and(|t| start.elapsed() >= t) {
            stop_group(&mut child, None);
            break Ending::TimedOut;
        }
        match seen_witness {
            None if witness_written(spec.out_dir) => seen_witness = Some(Instant::now()),
            // the process that wrote it exits by itself; other ranks may hang in a collective
            Some(t) if t.elapsed() > Duration::from_secs(2) => {
                let code = stop_group(&mut child, None);
                break Ending::Witness(code);
            }
            _ => {}
        }
        std::thread::sleep(Duration::from_millis(25));
    };
    line.clear();
    #[cfg(unix)]
    stop_strays(spec.out_dir, child.id() as i32);
    lent.give_back();
    restore_signals();
    // the output written before the end is copied; a pipe still held open after DRAIN (by a
    // process outside the group) is let go, and the copies stop writing
    let deadline = Instant::now() + DRAIN;
    for ended in [out, err].into_iter().flatten() {
        let _ = ended.recv_timeout(deadline.saturating_duration_since(Instant::now()));
    }
    closed.store(true, Ordering::SeqCst);
    Ok(Ran { ending, seconds: start.elapsed().as_secs_f64(), log: log_path })
}

/// The progress line of a sweep from the shim's `.progress` ("CHECKED TOTAL CLASS", TOTAL `?`
/// for an iterable dataset).
fn sweep_progress(text: &str) -> Option<String> {
    let mut parts = text.split_whitespace();
    let checked: u64 = parts.next()?.parse().ok()?;
    let total = parts.next()?;
    let class = parts.next()?;
    let of = if total == "?" { String::new() } else { format!("/{total}") };
    Some(format!("cudasleuth: sweeping {class}: {checked}{of} samples checked"))
}

/// The command's relation to cudasleuth's terminal.
enum Terminal {
    /// Its own session: no terminal, stdin closed.
    Detached,
    /// Stdin inherited: the terminal's descriptor when stdin is one (its foreground group is
    /// lent to the command's group).
    Inherited(Option<i32>),
}

/// The terminal lent to the command's group, to be given back to cudasleuth's.
struct Lent(Option<i32>);

impl Terminal {
    fn detach(cmd: &mut Command) -> Terminal {
        cmd.stdin(Stdio::null());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // SAFETY: setsid is async-signal-safe; it cannot fail in a fresh child that is no
            // group leader, and an error would only leave the child in cudasleuth's session.
            unsafe {
                cmd.pre_exec(|| {
                    libc::setsid();
                    Ok(())
                });
            }
        }
        Terminal::Detached
    }

    fn inherit(cmd: &mut Command) -> Terminal {
        cmd.stdin(Stdio::inherit());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
            // SAFETY: isatty only reads the descriptor's state
            let tty = unsafe { libc::isatty(0) } == 1;
            return Terminal::Inherited(tty.then_some(0));
        }
        #[allow(unreachable_code)]
        Terminal::Inherited(None)
    }

    fn lend(&self, child: &Child) -> Lent {
        match self {
            #[cfg(unix)]
            Terminal::Inherited(Some(fd)) => {
                // SAFETY: plain syscalls; SIGTTOU is ignored around tcsetpgrp so a background
                // cudasleuth is not stopped by it
                unsafe {
                    let old = libc::signal(libc::SIGTTOU, libc::SIG_IGN);
                    let ok = libc::tcsetpgrp(*fd, child.id() as libc::pid_t) == 0;
                    libc::signal(libc::SIGTTOU, old);
                    Lent(ok.then_some(*fd))
                }
            }
            _ => {
                let _ = child;
                Lent(None)
            }
        }
    }
}

impl Lent {
    fn give_back(self) {
        #[cfg(unix)]
        if let Some(fd) = self.0 {
            // SAFETY: as in `lend`
            unsafe {
                let old = libc::signal(libc::SIGTTOU, libc::SIG_IGN);
                libc::tcsetpgrp(fd, libc::getpgrp());
                libc::signal(libc::SIGTTOU, old);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::sweep_progress;

    #[test]
    fn a_sweeps_progress_reads_as_a_line() {
        assert_eq!(sweep_progress("640 2000 Labels\n").as_deref(), Some("cudasleuth: sweeping Labels: 640/2000 samples checked"));
        assert_eq!(sweep_progress("12 ? Stream\n").as_deref(), Some("cudasleuth: sweeping Stream: 12 samples checked"));
        // a file caught half written says nothing
        assert_eq!(sweep_progress("64"), None);
        assert_eq!(sweep_progress(""), None);
    }
}
