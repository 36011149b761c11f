//! Running the user's command: its own process group, output copied to the terminal and to
//! `run.log`, stopped as a whole at the timeout, on Ctrl-C, or once a witness is written.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
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
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn on_sigint(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

#[cfg(unix)]
fn catch_sigint() {
    // SAFETY: installs an async-signal-safe handler that only stores to an atomic.
    unsafe {
        let mut act: libc::sigaction = std::mem::zeroed();
        act.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as usize;
        libc::sigemptyset(&mut act.sa_mask);
        libc::sigaction(libc::SIGINT, &act, std::ptr::null_mut());
        libc::sigaction(libc::SIGTERM, &act, std::ptr::null_mut());
    }
}

#[cfg(not(unix))]
fn catch_sigint() {}

#[cfg(unix)]
fn signal_group(child: &Child, sig: libc::c_int) {
    // the child leads its own group (process_group(0)), so its pid is the group id
    // SAFETY: plain syscall; ESRCH (group already gone) is fine.
    unsafe {
        libc::killpg(child.id() as libc::pid_t, sig);
    }
}

/// Stop the whole group: a polite signal first, then SIGKILL for whatever is left.
fn stop_group(child: &mut Child, first: Signal) -> Option<i32> {
    #[cfg(unix)]
    {
        let sig = match first {
            Signal::Int => libc::SIGINT,
            Signal::Term => libc::SIGTERM,
        };
        signal_group(child, sig);
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

#[derive(Clone, Copy)]
enum Signal {
    Int,
    Term,
}

fn copy_stream(
    mut from: impl Read + Send + 'static,
    log: Arc<Mutex<std::fs::File>>,
    to_stderr: bool,
    quiet: bool,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
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
    })
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
    let log = Arc::new(Mutex::new(std::fs::File::create(&log_path)?));
    let mut cmd = Command::new(&spec.argv[0]);
    cmd.args(&spec.argv[1..]).stdin(Stdio::inherit()).stdout(Stdio::piped()).stderr(Stdio::piped());
    for (k, v) in spec.env {
        cmd.env(k, v);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    catch_sigint();
    let start = Instant::now();
    let mut child = cmd.spawn()?;
    let out = child.stdout.take().map(|s| copy_stream(s, log.clone(), spec.echo_to_stderr, spec.quiet));
    let err = child.stderr.take().map(|s| copy_stream(s, log.clone(), true, spec.quiet));
    let mut seen_witness: Option<Instant> = None;
    let ending = loop {
        if let Some(status) = child.try_wait()? {
            let code = status.code();
            // the leader is gone; make sure nothing of its group lingers
            #[cfg(unix)]
            signal_group(&child, libc::SIGKILL);
            break if seen_witness.is_some() || witness_written(spec.out_dir) { Ending::Witness(code) } else { Ending::Exited(code) };
        }
        if INTERRUPTED.swap(false, Ordering::SeqCst) {
            stop_group(&mut child, Signal::Int);
            break Ending::Interrupted;
        }
        if spec.timeout.is_some_and(|t| start.elapsed() >= t) {
            stop_group(&mut child, Signal::Term);
            break Ending::TimedOut;
        }
        match seen_witness {
            None if witness_written(spec.out_dir) => seen_witness = Some(Instant::now()),
            // the process that wrote it exits by itself; other ranks may hang in a collective
            Some(t) if t.elapsed() > Duration::from_secs(2) => {
                let code = stop_group(&mut child, Signal::Term);
                break Ending::Witness(code);
            }
            _ => {}
        }
        std::thread::sleep(Duration::from_millis(25));
    };
    for h in [out, err].into_iter().flatten() {
        let _ = h.join();
    }
    Ok(Ran { ending, seconds: start.elapsed().as_secs_f64(), log: log_path })
}
