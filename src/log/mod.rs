//! Reading a log: bytes in, `Incident` out. Knows nothing about Python projects.

pub mod assert_line;
pub mod collect;
pub mod dsa;
pub mod host;
pub mod input;
pub mod normalize;
pub mod scan;
pub mod sites;
pub mod traceback;
pub mod window;

use std::io::Read;

pub use collect::Incident;
pub use input::{InputError, LogSource};

/// Reads one log to the end. A read error part-way keeps what was read, with a warning.
pub fn read_log(source: &LogSource) -> Result<Incident, InputError> {
    if let LogSource::File(path) = source {
        if let Some(incident) = read_mapped(path)? {
            return Ok(incident);
        }
    }
    let opened = input::open(source)?;
    Ok(read_from(opened.reader))
}

/// Plain UTF-8 files of some size are read through a memory map; gzip, UTF-16 and small or
/// special files go through the streaming reader.
fn read_mapped(path: &std::path::Path) -> Result<Option<Incident>, InputError> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(_) => return Ok(None), // the streaming path reports the error
    };
    if !meta.is_file() || meta.len() < (1 << 20) {
        return Ok(None);
    }
    read_mapped_file(path)
}

/// Reads a plain UTF-8 file in mapped windows on two threads (any size; `scan::scan_mapped`,
/// `window`); None for gzip, UTF-16 or a file that cannot be opened (the streaming path then
/// reports why).
pub fn read_mapped_file(path: &std::path::Path) -> Result<Option<Incident>, InputError> {
    let Ok(mut file) = std::fs::File::open(path) else { return Ok(None) };
    let mut head = [0u8; 4096];
    let n = file.read(&mut head).unwrap_or(0);
    if !input::is_plain_utf8(&head[..n]) {
        return Ok(None);
    }
    let ac = scan::prefilter();
    let mut collector = collect::Collector::default();
    let result = scan::scan_mapped(&file, &ac, &mut collector);
    Ok(Some(finish(collector, result)))
}

pub fn read_from(reader: Box<dyn Read>) -> Incident {
    let ac = scan::prefilter();
    let mut collector = collect::Collector::default();
    let result = scan::scan(reader, &ac, &mut collector);
    finish(collector, result)
}

/// The incident, with the reading's statistics, or a warning when it stopped part-way.
fn finish(collector: collect::Collector, result: std::io::Result<scan::ScanStats>) -> Incident {
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
