//! The Python side: bytes as up to three project files (split at NUL bytes) -> the scan as
//! `lint` runs it on a file (`scan::scan_bytes`: size and nesting checks, tree-sitter, facts,
//! statement trees) -> every rule (`rules::run_all`) -> the value tracing from every sink kind
//! (`analysis::flow::suspects`, as `explain --project` runs it). Must not panic, overflow the
//! stack or hang.
#![no_main]

use cudasleuth::scan::{self, Facts, FileFacts, Prior};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut files: Vec<FileFacts> = Vec::new();
    let mut facts = Facts::default();
    for (i, part) in data.split(|&b| b == 0).take(3).enumerate() {
        let name = ["train.py", "data.py", "model.py"][i];
        match scan::scan_bytes(name, part.to_vec(), None, None, Prior::None).0 {
            Ok(f) => files.push(f),
            Err(w) => facts.warnings.push(w),
        }
    }
    facts.files = files;
    let _ = cudasleuth::rules::run_all(&facts);
    let refs: Vec<&FileFacts> = facts.files.iter().collect();
    let categories = ["label_out_of_range", "index_out_of_range", "probability_out_of_range", "invalid_distribution"];
    // an asynchronous traceback (the frame a few lines after the op) and an exact one, whose
    // frames pin functions to their calls
    let frames = [("train.py".to_string(), 3), ("model.py".to_string(), 5)];
    let _ = cudasleuth::analysis::flow::suspects(&refs, &categories, &frames[..1], &[], false);
    let _ = cudasleuth::analysis::flow::suspects(&refs, &categories, &frames, &[], true);
});
