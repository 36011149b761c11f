//! Whole pipeline, as `cudasleuth::log::read_log` runs it on a file: bytes -> container and
//! encoding sniffing (`input::decode`: gzip, UTF-16 with or without BOM, UTF-8 BOM) ->
//! `read_from` (line scanning, normalization, parsing) -> `assemble` -> JSON.
#![no_main]

use std::io::Cursor;

use cudasleuth::log::{input, read_from};
use cudasleuth::report::assemble::assemble;
use libfuzzer_sys::fuzz_target;

mod known;

fuzz_target!(|data: &[u8]| {
    known::run(|| {
        // `decode` fails only when the very first read fails (a gzip header that is not
        // one); the CLI reports that as an unreadable input, so nothing more is parsed.
        let Ok(opened) = input::decode(Box::new(Cursor::new(data.to_vec()))) else { return };
        let incident = read_from(opened.reader);
        let report = assemble("fuzz.log", &incident);
        let json = serde_json::to_string(&report).expect("report serializes");
        assert!(!json.is_empty());
    });
});
