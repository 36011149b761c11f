//! Differential: the memory-mapped reader (`log::read_mapped_file`, which `read_log` uses for
//! plain UTF-8 files of 1 MB and more) against the streaming reader (`log::read_from`) on the
//! same bytes. Both must give the same report. Inputs that are not plain UTF-8 (gzip, UTF-16),
//! for which `read_mapped_file` returns `None`, are skipped. Inputs are far below the mapped
//! reader's 8 MB window, so this checks its prefilter and line walk, not window boundaries.
#![no_main]

use std::io::Cursor;
use std::path::PathBuf;
use std::sync::OnceLock;

use cudasleuth::log::{read_from, read_mapped_file};
use cudasleuth::report::assemble::assemble;
use libfuzzer_sys::fuzz_target;

mod known;

fn path() -> &'static PathBuf {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| {
        let dir = if std::path::Path::new("/dev/shm").is_dir() { PathBuf::from("/dev/shm") } else { std::env::temp_dir() };
        dir.join(format!("cudasleuth-fuzz-mapped-{}.log", std::process::id()))
    })
}

fuzz_target!(|data: &[u8]| {
    known::run(|| {
        std::fs::write(path(), data).expect("write the input to a temporary file");
        let mapped = read_mapped_file(path()).expect("read_mapped_file on a readable file");
        let Some(mapped) = mapped else { return };
        let streamed = read_from(Box::new(Cursor::new(data.to_vec())));
        let a = serde_json::to_string(&assemble("fuzz.log", &mapped)).expect("report serializes");
        let b = serde_json::to_string(&assemble("fuzz.log", &streamed)).expect("report serializes");
        assert_eq!(a, b, "memory-mapped and streaming readers disagree");
    });
});
