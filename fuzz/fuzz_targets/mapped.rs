//! Differential: the memory-mapped reader (`log::read_mapped_file`, which `read_log` uses for
//! plain UTF-8 files of 1 MB and more) against the streaming reader (`log::read_from`) on the
//! same bytes. Both must give the same report. Inputs that are not plain UTF-8 (gzip, UTF-16),
//! for which `read_mapped_file` returns `None`, are skipped. Inputs are far below the mapped
//! reader's 8 MB window, so this checks its prefilter and line walk, not window boundaries.
#![no_main]

use std::fs::{File, OpenOptions};
use std::io::{Cursor, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use cudasleuth::log::{read_from, read_mapped_file};
use cudasleuth::rank::assemble::assemble;
use libfuzzer_sys::fuzz_target;

mod known;

/// One scratch file per process, unlinked as soon as it is opened (nothing is left behind when
/// libFuzzer exits or a fork-mode job is killed) and reached again through /proc/self/fd.
fn scratch() -> &'static Mutex<(File, PathBuf)> {
    static S: OnceLock<Mutex<(File, PathBuf)>> = OnceLock::new();
    S.get_or_init(|| {
        let dir = if Path::new("/dev/shm").is_dir() { PathBuf::from("/dev/shm") } else { std::env::temp_dir() };
        let named = dir.join(format!("cudasleuth-fuzz-mapped-{}.log", std::process::id()));
        let file = OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&named).expect("create scratch file");
        let _ = std::fs::remove_file(&named);
        let path = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        Mutex::new((file, path))
    })
}

fuzz_target!(|data: &[u8]| {
    known::run(|| {
        let guard = scratch().lock().unwrap_or_else(|e| e.into_inner());
        let (mut file, path) = (&guard.0, &guard.1);
        file.set_len(0).expect("truncate scratch file");
        file.seek(SeekFrom::Start(0)).expect("rewind scratch file");
        file.write_all(data).expect("write scratch file");
        let mapped = read_mapped_file(path).expect("read_mapped_file on a readable file");
        let Some(mapped) = mapped else { return };
        let streamed = read_from(Box::new(Cursor::new(data.to_vec())));
        let a = serde_json::to_string(&assemble("fuzz.log", &mapped)).expect("report serializes");
        let b = serde_json::to_string(&assemble("fuzz.log", &streamed)).expect("report serializes");
        assert_eq!(a, b, "memory-mapped and streaming readers disagree");
    });
});
