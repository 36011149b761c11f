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

use std::io::Read;

pub use collect::Incident;
pub use input::{InputError, LogSource};

/// Reads one log to the end. A read error part-way keeps what was read, with a warning.
pub fn read_log(source: &LogSource) -> Result<Incident, InputError> {
    let opened = input::open(source)?;
    Ok(read_from(opened.reader))
}

pub fn read_from(reader: Box<dyn Read>) -> Incident {
    let ac = scan::prefilter();
    let mut collector = collect::Collector::default();
    let result = scan::scan(reader, &ac, &mut collector);
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
