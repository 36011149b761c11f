//! Stamps: a file's size and modification time, which stand for its bytes while they match
//! (the summary's test of whether a file changed without reading it), and the stamps the stored
//! results depend on besides the project's files (the executable, the data files the code names).

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::analysis::project::Project;
use crate::scan::files::RootDir;

/// Files modified this close to a summary write are not recorded.
pub(super) const RACY: Duration = Duration::from_secs(2);

#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
pub struct Stamp {
    pub(super) size: u64,
    pub(super) mtime_ns: u64,
}

impl Stamp {
    pub(super) fn of(path: &Path) -> Option<(Stamp, SystemTime)> {
        let m = std::fs::metadata(path).ok()?;
        let t = m.modified().ok()?;
        let ns = t.duration_since(UNIX_EPOCH).ok()?.as_nanos() as u64;
        Some((Stamp { size: m.len(), mtime_ns: ns }, t))
    }

    /// The stamp of a project file, and its modification time.
    pub(super) fn at(root: &RootDir, rel: &str) -> Option<(Stamp, SystemTime)> {
        let (size, mtime_ns) = root.stat(rel, true)?;
        Some((Stamp { size, mtime_ns }, UNIX_EPOCH + Duration::from_nanos(mtime_ns)))
    }
}

/// The stamp of the running executable: stored results are only valid for the build that made them.
pub(super) fn tool_stamp() -> Option<Stamp> {
    std::env::current_exe().ok().and_then(|p| Stamp::of(&p)).map(|s| s.0)
}

/// The stamps of the data files the code names (each candidate location, present or not), which
/// stored results depend on.
pub(super) fn data_stamps(root: &Path, project: &Project<'_>) -> Vec<(String, Option<Stamp>)> {
    let mut data: Vec<(String, Option<Stamp>)> = Vec::new();
    for (path, d) in project.paths.iter().zip(&project.digests) {
        for p in &d.data_refs {
            for c in crate::scan::data::reference_candidates(path, p) {
                if !data.iter().any(|(d, _)| *d == c) {
                    let s = Stamp::of(&root.join(&c)).map(|x| x.0);
                    data.push((c, s));
                }
            }
        }
    }
    data
}
