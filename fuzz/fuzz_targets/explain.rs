//! Whole pipeline, as `cudasleuth::log::read_log` runs it on a file: bytes -> container and
//! encoding sniffing (`input::decode`: gzip, UTF-16 with or without BOM, UTF-8 BOM) ->
//! `read_from` (line scanning, normalization, parsing) -> `assemble` -> JSON.
//!
//! `read_from` is mirrored line for line below, except that the Aho-Corasick prefilter is
//! built once instead of on every call: `scan::prefilter()` costs about two thirds of the
//! instructions of one run on a small input, so the mirror runs several times as many inputs per
//! second through the same scanner, collector and parsers. Keep `mirror_read_from` in step
//! with `cudasleuth::log::read_from`. `FUZZ_EXPLAIN_READ_FROM=1` calls the real one instead.
#![no_main]

use std::io::{Cursor, Read};
use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use cudasleuth::log::{collect::Collector, input, read_from, scan, Incident};
use cudasleuth::rank::assemble::assemble;
use libfuzzer_sys::fuzz_target;

mod known;

fn mirror_read_from(reader: Box<dyn Read>) -> Incident {
    static AC: OnceLock<AhoCorasick> = OnceLock::new();
    let ac = AC.get_or_init(scan::prefilter);
    let mut collector = Collector::default();
    let result = scan::scan(reader, ac, &mut collector);
    let mut incident = collector.finish();
    match result {
        Ok(stats) => {
            incident.bytes = stats.bytes;
            incident.lines = stats.lines;
        }
        Err(e) => incident.warnings.push(format!("the log could not be read to the end ({e}); the report covers the part before that")),
    }
    incident
}

fn real_read_from() -> bool {
    static R: OnceLock<bool> = OnceLock::new();
    *R.get_or_init(|| std::env::var_os("FUZZ_EXPLAIN_READ_FROM").is_some_and(|v| v == "1"))
}

fuzz_target!(|data: &[u8]| {
    known::run(|| {
        // `decode` fails only when the very first read fails (a gzip header that is not
        // one); the CLI reports that as an unreadable input, so nothing more is parsed.
        let Ok(opened) = input::decode(Box::new(Cursor::new(data.to_vec()))) else { return };
        let incident = if real_read_from() { read_from(opened.reader) } else { mirror_read_from(opened.reader) };
        let report = assemble("fuzz.log", &incident);
        let json = serde_json::to_string(&report).expect("report serializes");
        assert!(!json.is_empty());
    });
});
