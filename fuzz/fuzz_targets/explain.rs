//! Whole pipeline: bytes (maybe gzip, maybe UTF-16) -> Incident -> Report -> JSON.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let incident = cudasleuth::log::read_from(Box::new(Cursor::new(data.to_vec())));
    let report = cudasleuth::report::assemble::assemble("fuzz.log", &incident);
    let json = serde_json::to_string(&report).expect("report serializes");
    assert!(!json.is_empty());
});
