//! Line-level parsers on their own: the normalizer, the assert-line parser on the whole input
//! and on each cleaned line (with `has_anchor`, `looks_like_report_head`, `parse_location`),
//! and the traceback parser fed line by line.
#![no_main]

use cudasleuth::log::{assert_line, normalize, traceback::TracebackParser};
use libfuzzer_sys::fuzz_target;

mod known;

fuzz_target!(|data: &[u8]| {
    known::run(|| {
        let _ = normalize::clean(data);
        let s = String::from_utf8_lossy(data);
        let _ = assert_line::parse_all(&s);

        let mut tb = TracebackParser::default();
        for (i, raw) in data.split(|&b| b == b'\n').enumerate() {
            let cleaned = normalize::clean(raw);
            let _ = assert_line::parse_all(&cleaned.text);
            let _ = assert_line::has_anchor(&cleaned.text);
            let _ = assert_line::looks_like_report_head(&cleaned.text);
            let _ = assert_line::parse_location(&cleaned.text);
            tb.feed(&cleaned.text, i as u64 + 1, cleaned.rank.as_ref().map(|r| r.id));
        }
        let _ = tb.into_tracebacks();
    });
});
