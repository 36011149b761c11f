//! The incremental lint: everything that lets a run read only what changed. The project
//! summary (`summary`: its file format, the stamp policy, the stored results and the rules'
//! records), the stamps it compares (`stamp`), and the facts cache below it (`scan::cache`).
//! The front end calls `open` and `findings`; nothing else here is its business.

pub mod stamp;
pub mod summary;

use std::collections::BTreeSet;
use std::path::Path;

use crate::rules::{self, Finding};
use crate::scan::{self, cache::Cache, files::ProjectFiles};
use summary::Summary;

/// The project's summary (with a cache) and its files: the summary's record of the last walk
/// while no directory changed since, else a new walk's.
pub fn open(cache: Option<&Cache>, root: &Path) -> (Option<Summary>, ProjectFiles) {
    let t = std::time::Instant::now();
    let opened = match cache {
        Some(c) => {
            let (s, f) = Summary::open(c, root);
            (Some(s), f)
        }
        None => (None, ProjectFiles::walk(root)),
    };
    crate::timings::phase("summary", t);
    opened
}

/// Every rule's findings over the project (at the files `wanted`, when given, and possibly
/// others), and the scan's warnings: the stored results while they hold, else the rules run
/// on the facts, read again only where they changed.
pub fn findings(
    root: &Path,
    files: &ProjectFiles,
    cache: Option<&Cache>,
    summary: Option<Summary>,
    wanted: Option<&BTreeSet<String>>,
) -> (Vec<Finding>, Vec<crate::scan::facts::Skipped>) {
    let t = std::time::Instant::now();
    // The summary keeps the results of the last whole-project run while no file's facts change
    // (same stamps, same bytes, or new bytes with the same facts).
    let stored = summary
        .as_ref()
        .and_then(|s| s.results(root).map(|r| (r, None)).or_else(|| s.results_same_facts(root, files, cache?).map(|(r, k)| (r, Some(k)))));
    let t = crate::timings::phase("stored results", t);
    match stored {
        Some((stored, keys)) => {
            // files changed without a change of facts: record their new stamps and keys
            if let (Some(s), Some(keys)) = (summary, keys) {
                s.keep_results(files, &keys);
            }
            stored
        }
        None => match (cache, summary) {
            (Some(c), Some(mut s)) => {
                // a run on some files reads the others only where a rule needs them; a run on
                // the whole project reads them all (in parallel) and stores its results
                let some = wanted.filter(|_| s.mostly_recorded());
                let now: Vec<bool> = files.paths().iter().map(|p| some.map_or(true, |w| w.contains(p))).collect();
                let scan = s.project(root, files, c, some.is_none(), &now);
                let t = crate::timings::phase("scan", t);
                let focus = some.map(|w| scan.project.paths.iter().map(|p| w.contains(p)).collect());
                let rule_files = crate::analysis::project::Files::of_project(&scan.project, focus);
                let previous = s.previous_records();
                let (findings, records) = rules::run_recorded(&rule_files, &previous);
                let t = crate::timings::phase("rules", t);
                crate::timings::count("files read by the rules", scan.project.loaded());
                s.save(root, files, &scan, some.is_none().then_some(findings.as_slice()), records);
                std::mem::forget(previous);
                crate::timings::phase("save", t);
                let warnings = scan.warnings.clone();
                // the facts of a large project are millions of small allocations, and a lint run
                // is the last thing the `lint` command does before it exits: they are left to the
                // process rather than freed one by one (a tenth of a large project's run)
                std::mem::forget(rule_files);
                std::mem::forget(scan);
                (findings, warnings)
            }
            _ => {
                let facts = scan::scan_project_cached(root, files, cache.map(|c| c as &dyn scan::cache::FactsStore));
                let t = crate::timings::phase("scan", t);
                let findings = rules::run_all(&facts);
                crate::timings::phase("rules", t);
                let crate::scan::facts::Facts { files: all, warnings } = facts;
                std::mem::forget(all);
                (findings, warnings)
            }
        },
    }
}
