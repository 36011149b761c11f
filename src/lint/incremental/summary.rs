//! The project summary: one small file per project (bincode), beside the facts cache.
//!
//! It holds, for every project file, its size and modification time (its stamp) and the key of
//! its facts in the content-hash cache, and the results of the last run: the findings of every
//! rule over the whole project, the scan's warnings, the stamps of the data files the code
//! names (present or not) and of the cudasleuth executable.
//!
//! - The file list of the last walk is reused while every directory it entered keeps its
//!   modification time and every ignore file its stamp (`files::WalkRecord`).
//! - A file whose stamp matches is not read or hashed: its facts come from the cache by key.
//! - When every stamp matches (no file added, removed or changed, the same executable), the
//!   stored results are the project's results: a run on a few files filters them, without
//!   loading any facts. The configuration and the suppression comments are applied as usual.
//! - When every file whose stamp changed still hashes to the key the summary holds (a
//!   checkout, `touch`) or scans to the same facts (an edited comment), the stored results are
//!   used too, and the new stamps and keys recorded.
//! - A file modified within two seconds of a summary write is not recorded (a second change
//!   within the file system's timestamp granularity would keep the stamp): it is read, and no
//!   results are stored, until a later run records it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::analysis::project::{Digest, Project};
use crate::analysis::record::SavedFinding;
use crate::rules::{self, Finding};
use crate::scan::cache::Cache;
use crate::scan::facts::FileFacts;
use crate::scan::files::{ProjectFiles, RootDir, WalkRecord};

use super::stamp::{data_stamps, tool_stamp, Stamp, RACY};

/// The layout of the summary file (bincode is not self-describing: a new layout gets a new
/// file name).
const SUMMARY_FORMAT: u32 = 8;

/// Replaced cache keys kept for removal in the recent changes before a run writes the summary
/// whole to remove them (some 100 commits of 20 files; tens of megabytes of cache).
const MAX_UNUSED: usize = 2048;

#[derive(Serialize, Deserialize)]
struct Entry {
    path: String,
    stamp: Stamp,
    /// The content-cache key of the file's facts (none for a JSON file or a skipped one).
    key: Option<String>,
    /// The digest of its facts (none for a JSON file or a skipped one).
    digest: Option<Digest>,
}

/// An entry as it is written: `Entry`'s layout, borrowing from the run.
#[derive(Serialize)]
struct EntryOut<'a> {
    path: &'a str,
    stamp: Stamp,
    key: Option<&'a str>,
    digest: Option<&'a Digest>,
}

#[derive(Serialize, Deserialize, Clone)]
struct StoredFinding {
    rule: String,
    finding: SavedFinding,
}

#[derive(Serialize, Deserialize)]
struct Results {
    /// The executable that computed them.
    tool: Option<Stamp>,
    /// Data-file candidates named by the code: path and stamp (None: absent).
    data: Vec<(String, Option<Stamp>)>,
    findings: Vec<StoredFinding>,
    warnings: Vec<crate::scan::facts::Skipped>,
}

#[derive(Default)]
struct Stored {
    /// Which summary file this is (its recent changes name it: `Delta::base`); 0: none was read.
    id: u64,
    /// The paths of the recent changes read with it (`Delta`).
    delta_paths: Vec<String>,
    /// Cache keys the project's files no longer have, still to be removed (`Delta`).
    unused: Vec<String>,
    /// The last walk of the project: its files, reused while no directory changed.
    walk: Option<WalkRecord>,
    entries: Vec<Entry>,
    results: Option<Results>,
    /// What the rules that follow values to where they were set read, origin by origin, and
    /// found (`rules::record`).
    records: Vec<crate::analysis::record::Record>,
    /// The executable that made the records (another build may read differently).
    records_tool: Option<Stamp>,
}

/// The summary file: the length of its first part, then two parts that two threads decode at
/// once: the walk and the first half of the entries; the other entries, the results and the
/// records.
#[derive(Serialize)]
struct FirstOut<'a> {
    version: &'a str,
    id: u64,
    walk: Option<crate::scan::files::WalkOut<'a>>,
    entries: &'a [EntryOut<'a>],
}

#[derive(Deserialize)]
struct First {
    version: String,
    id: u64,
    walk: Option<WalkRecord>,
    entries: Vec<Entry>,
}

#[derive(Deserialize)]
struct Second {
    entries: Vec<Entry>,
    results: Option<Results>,
    records_tool: Option<Stamp>,
    records: Vec<crate::analysis::record::Record>,
}

/// The summary's recent changes, in a small file beside it: a run on some files (a pre-commit
/// run) records the entries that changed since the summary was written whole, with its records,
/// rather than rewriting the summary's entries for every file of the project. Each such run
/// writes all the changes since (the last delta's and its own); the summary is written whole
/// again when they grow large, after a walk, and by a run on the whole project.
#[derive(Deserialize)]
struct Delta {
    version: String,
    /// The `id` of the summary file it changes (another summary's delta is of no use).
    base: u64,
    /// New or changed entries, in path order.
    entries: Vec<Entry>,
    /// Paths whose entries are gone (modified too recently to be recorded).
    dropped: Vec<String>,
    results: Option<Results>,
    records_tool: Option<Stamp>,
    records: Vec<crate::analysis::record::Record>,
    /// Cache keys of the project's files that newer bytes replaced since the summary was
    /// written whole: removed when it is next written whole (removing a cache file costs a
    /// run on some files a fifth of a millisecond or more).
    unused: Vec<String>,
}

#[derive(Serialize)]
struct DeltaOut<'a> {
    version: &'a str,
    base: u64,
    entries: Vec<&'a EntryOut<'a>>,
    dropped: Vec<&'a str>,
    results: &'a Option<Results>,
    records_tool: &'a Option<Stamp>,
    records: &'a [crate::analysis::record::Record],
    unused: &'a [String],
}

/// Counts the bytes written through it.
struct Counted<W> {
    inner: W,
    n: u64,
}

impl<W: std::io::Write> std::io::Write for Counted<W> {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(b)?;
        self.n += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl Stored {
    /// The summary in `bytes` (None: damaged, or written by another version of cudasleuth).
    fn decode(bytes: &[u8]) -> Option<Stored> {
        let first_len = usize::try_from(u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?)).ok()?;
        let first = bytes.get(8..first_len.checked_add(8)?)?;
        let rest = &bytes[8 + first_len..];
        let (first, rest) = rayon::join(|| bincode::deserialize::<First>(first).ok(), || bincode::deserialize::<Second>(rest).ok());
        let (mut first, rest) = (first?, rest?);
        if first.version != crate::scan::cache::CACHE_VERSION {
            return None;
        }
        first.entries.extend(rest.entries);
        Some(Stored {
            id: first.id,
            delta_paths: Vec::new(),
            unused: Vec::new(),
            walk: first.walk,
            entries: first.entries,
            results: rest.results,
            records: rest.records,
            records_tool: rest.records_tool,
        })
    }

    /// The summary with its recent changes in `bytes` (`Delta`), when they are this summary's.
    fn apply(&mut self, bytes: &[u8]) {
        let Ok(delta) = bincode::deserialize::<Delta>(bytes) else { return };
        if self.id == 0 || delta.base != self.id || delta.version != crate::scan::cache::CACHE_VERSION {
            return;
        }
        let mut paths = Vec::with_capacity(delta.entries.len() + delta.dropped.len());
        for e in delta.entries {
            paths.push(e.path.clone());
            match self.entries.binary_search_by(|x| x.path.cmp(&e.path)) {
                Ok(i) => self.entries[i] = e,
                Err(i) => self.entries.insert(i, e),
            }
        }
        for p in delta.dropped {
            if let Ok(i) = self.entries.binary_search_by(|x| x.path.cmp(&p)) {
                self.entries.remove(i);
            }
            paths.push(p);
        }
        paths.sort();
        self.delta_paths = paths;
        self.results = delta.results;
        self.records_tool = delta.records_tool;
        self.records = delta.records;
        self.unused = delta.unused;
    }
}

/// A project read for the rules (`Summary::project`): its files, each project path's cache key
/// and digest, and the scan's warnings.
pub struct Scan<'c> {
    pub project: Project<'c>,
    pub keys: Vec<Option<String>>,
    pub digests: Vec<Option<Digest>>,
    pub warnings: Vec<crate::scan::facts::Skipped>,
}

/// One project file as `Summary::project` finds it: its facts (None: a JSON file, or left to be
/// read on demand) or why it was skipped, its cache key and its digest.
type FileRead = (Result<Option<Box<FileFacts>>, crate::scan::facts::Skipped>, Option<String>, Option<Digest>);

/// Stored results: every rule's lint findings over the project, and the scan's warnings.
pub type Replayed = (Vec<Finding>, Vec<crate::scan::facts::Skipped>);

/// The summary of one project, and the stamps of its files now.
pub struct Summary {
    path: PathBuf,
    stored: Stored,
    stamps: Vec<Option<(Stamp, SystemTime)>>,
    /// For each project file: the stored entry whose stamp matches.
    matched: Vec<Option<usize>>,
    /// For each project file: its stored entry, whatever its stamp.
    entry_of: Vec<Option<usize>>,
    /// What this run's walk saw (a new walk's, or the stored one still valid).
    walk: Option<WalkRecord>,
    /// Whether the project was walked this run (the stored walk did not hold).
    walked: bool,
    /// Changed files read by `results_same_facts` whose facts changed: their new facts and keys.
    fresh: std::sync::Mutex<HashMap<usize, (FileFacts, Option<String>)>>,
    /// Cache keys of this project's files that their new bytes replaced this run: removed once
    /// the summary is written whole (else the cache would keep every version of every file
    /// edited).
    replaced: std::sync::Mutex<Vec<String>>,
}

impl Summary {
    /// The project's summary and its files: those of the stored walk when no directory (nor
    /// ignore file) changed since, else a new walk's.
    pub fn open(cache: &Cache, root: &Path) -> (Summary, ProjectFiles) {
        let project = Cache::key(&root.to_string_lossy(), b"project-summary");
        let path = cache.dir().join(format!("summary-v{SUMMARY_FORMAT}-{project}"));
        let t = std::time::Instant::now();
        let mapped = read_mapped(&path);
        if mapped.is_none() {
            // a first run with this layout: the project's summaries in older layouts are of no
            // more use
            for v in 1..SUMMARY_FORMAT {
                let _ = std::fs::remove_file(cache.dir().join(format!("summary-v{v}-{project}")));
            }
        }
        let mut stored = mapped.and_then(|b| Stored::decode(&b)).unwrap_or_default();
        if stored.id != 0 {
            if let Ok(bytes) = std::fs::read(delta_path(&path)) {
                stored.apply(&bytes);
            }
        }
        let t = crate::timings::phase("summary read", t);
        let dir = RootDir::open(root);
        let stamp_all = |paths: &[String]| -> Vec<Option<(Stamp, SystemTime)>> { paths.par_iter().map(|p| Stamp::at(&dir, p)).collect() };
        // the recorded walk checked and its files stamped at once (a stat per path either way,
        // on every core)
        let mut walk = stored.walk.take();
        let checked = walk.as_ref().map(|w| rayon::join(|| w.unchanged(&dir), || stamp_all(w.files())));
        let (files, walk, stamps, walked) = match (walk.as_mut(), checked) {
            (Some(w), Some((true, stamps))) => (w.take_files(), walk, stamps, false),
            _ => {
                let (files, walk) = ProjectFiles::walk_recorded(root);
                let stamps = stamp_all(files.paths());
                (files, walk, stamps, true)
            }
        };
        crate::timings::phase("walk and stamps", t);
        let summary = Self::with_files(path, stored, walk, walked, &files, stamps);
        crate::timings::count("files changed since the summary", summary.matched.iter().filter(|m| m.is_none()).count());
        (summary, files)
    }

    fn with_files(
        path: PathBuf,
        stored: Stored,
        walk: Option<WalkRecord>,
        walked: bool,
        files: &ProjectFiles,
        stamps: Vec<Option<(Stamp, SystemTime)>>,
    ) -> Summary {
        let paths = files.paths();
        let entry_of = match_sorted(paths, &stored.entries);
        let matched = entry_of.iter().zip(&stamps).map(|(e, s)| e.filter(|&i| s.map(|s| s.0) == Some(stored.entries[i].stamp))).collect();
        Summary { path, stored, stamps, matched, entry_of, walk, walked, fresh: Default::default(), replaced: Default::default() }
    }

    /// Notes that a file's bytes now have the cache key `new` instead of `old`.
    fn supersede(&self, old: Option<&str>, new: Option<&str>) {
        if let (Some(old), Some(new)) = (old, new) {
            if old != new {
                self.replaced.lock().unwrap_or_else(|e| e.into_inner()).push(old.to_string());
            }
        }
    }

    /// Files to read, in parallel: the largest first, one file per task (a few large files
    /// among many small ones must not end up on one thread).
    fn largest_first(&self, files: impl Iterator<Item = usize>) -> impl IndexedParallelIterator<Item = usize> {
        let mut files: Vec<usize> = files.collect();
        files.sort_by_key(|&i| std::cmp::Reverse(self.stamps[i].map_or(0, |s| s.0.size)));
        files.into_par_iter().with_max_len(1)
    }

    /// The stored results, when the same files are there, the executable and the data files the
    /// code names are unchanged (file stamps are checked by the callers).
    fn usable_results(&self, root: &Path) -> Option<&Results> {
        let r = self.stored.results.as_ref()?;
        if self.stored.entries.len() != self.matched.len()
            || self.entry_of.iter().any(Option::is_none)
            || r.tool.is_none()
            || r.tool != tool_stamp()
        {
            return None;
        }
        if r.data.iter().any(|(p, s)| Stamp::of(&root.join(p)).map(|x| x.0) != *s) {
            return None;
        }
        Some(r)
    }

    /// The last run's records of the rules' reads (`rules::record`); none when another build of
    /// cudasleuth made them (its rules may read differently).
    pub fn previous_records(&mut self) -> crate::analysis::record::Previous {
        let records = std::mem::take(&mut self.stored.records);
        if self.stored.records_tool.is_none() || self.stored.records_tool != tool_stamp() {
            return Default::default();
        }
        crate::analysis::record::Previous::new(records)
    }

    /// Whether most files are recorded as they are now (with the digest of their facts): then a
    /// run on a few files can leave the others unread. On a first run (or after a large
    /// change) every file must be read anyway, and a whole-project run stores its results.
    pub fn mostly_recorded(&self) -> bool {
        let recorded = self
            .matched
            .iter()
            .filter(|m| m.is_some_and(|e| self.stored.entries[e].digest.is_some() || self.stored.entries[e].path.ends_with(".json")))
            .count();
        recorded * 2 >= self.matched.len()
    }

    /// The stored results (findings, scan warnings), when no file changed since they were
    /// computed.
    pub fn results(&self, root: &Path) -> Option<Replayed> {
        if self.matched.iter().any(Option::is_none) {
            return None;
        }
        self.replay(self.usable_results(root)?)
    }

    /// The stored results when every file whose stamp changed still has the facts it had: the
    /// same bytes (a checkout, a rebase, `touch`, a formatter that changed nothing), or new
    /// bytes that scan to the same facts (an edited comment, a blank line at the end). The
    /// rules read nothing but the facts (and the data files, checked by stamp), so the same
    /// facts give the same findings. Also the content keys of every file, for `keep_results`.
    /// Changed files are parsed here (through the content cache, so a scan that follows finds
    /// them there).
    pub fn results_same_facts(&self, root: &Path, files: &ProjectFiles, cache: &Cache) -> Option<(Replayed, Vec<Option<String>>)> {
        let r = self.usable_results(root)?;
        let paths = files.paths();
        // every file recorded with its stamp keeps its key; the others are read, hashed and
        // (when their bytes changed) parsed again
        let changed = (0..paths.len()).filter(|&i| self.matched[i].is_none() && !paths[i].ends_with(".json"));
        let outcomes: Vec<(usize, Option<Option<String>>)> = self
            .largest_first(changed)
            .map(|i| {
                let rel = &paths[i];
                let check = || {
                    let entry = &self.stored.entries[self.entry_of[i]?];
                    let stored = entry.key.as_deref()?;
                    let bytes = std::fs::read(root.join(rel)).ok()?;
                    let key = Cache::key(rel, &bytes);
                    if key == stored {
                        return Some(entry.key.clone());
                    }
                    // the old entry is read once: to compare with, and for its chunks
                    let old = cache.get_entry(stored)?;
                    let (new, new_key) = crate::scan::scan_bytes(rel, bytes, Some(key), Some(cache), crate::scan::Prior::Entry(&old));
                    let new = new.ok()?;
                    self.supersede(Some(stored), new_key.as_deref());
                    let same = same_shape(&new, &old.facts) && bincode::serialize(&new).ok()? == bincode::serialize(&old.facts).ok()?;
                    if !same {
                        // kept for the run that follows, which needs the new facts
                        self.fresh.lock().unwrap_or_else(|e| e.into_inner()).insert(i, (new, new_key));
                        return None;
                    }
                    Some(new_key)
                };
                (i, check())
            })
            // every changed file is read (not only up to the first whose facts changed): a
            // run that follows takes the new facts from here
            .collect();
        let mut keys: Vec<Option<String>> =
            (0..paths.len()).map(|i| self.entry_of[i].and_then(|e| self.stored.entries[e].key.clone())).collect();
        let mut all_same = true;
        for (i, outcome) in outcomes {
            match outcome {
                Some(k) => keys[i] = k,
                None => all_same = false,
            }
        }
        let keys = all_same.then_some(keys);
        let keys = keys?;
        Some((self.replay(r)?, keys))
    }

    /// Records the new stamps and keys of files whose facts did not change, keeping the stored
    /// results.
    pub fn keep_results(mut self, files: &ProjectFiles, keys: &[Option<String>]) {
        let results = self.stored.results.take();
        // the facts are the same: so are their digests
        let digests: Vec<Option<Digest>> = self.entry_of.iter().map(|e| e.and_then(|i| self.stored.entries[i].digest.clone())).collect();
        self.write(files, keys, &digests, false, || results);
    }

    /// The entries of this run, file by file: none for a file whose stamp is too recent to
    /// trust.
    fn entries<'a>(&self, files: &'a ProjectFiles, keys: &'a [Option<String>], digests: &'a [Option<Digest>]) -> Vec<Option<EntryOut<'a>>> {
        let now = SystemTime::now();
        let recorded = |s: &Option<(Stamp, SystemTime)>| s.filter(|(_, t)| now.duration_since(*t).is_ok_and(|d| d >= RACY)).map(|s| s.0);
        files
            .paths()
            .iter()
            .zip(&self.stamps)
            .zip(keys)
            .zip(digests)
            .map(|(((p, s), key), digest)| Some(EntryOut { path: p, stamp: recorded(s)?, key: key.as_deref(), digest: digest.as_ref() }))
            .collect()
    }

    /// Writes this run's summary: the stamps, keys and digests of the files, the results (made
    /// only when every file is recorded: an unrecorded file could change or go unseen) and
    /// `self`'s records. As recent changes (`Delta`) when they are few and the summary read
    /// holds the rest, unless `whole`; else the summary whole.
    fn write(
        mut self,
        files: &ProjectFiles,
        keys: &[Option<String>],
        digests: &[Option<Digest>],
        whole: bool,
        results: impl FnOnce() -> Option<Results>,
    ) {
        let per_file = self.entries(files, keys, digests);
        let all_recorded = per_file.iter().all(Option::is_some);
        let results = if all_recorded { results() } else { None };
        // the keys replaced since the summary was written whole: kept in the recent changes, and
        // removed once the summary is written whole
        let mut unused = std::mem::take(&mut self.stored.unused);
        unused.append(&mut self.replaced.lock().unwrap_or_else(|e| e.into_inner()));
        let dir = self.path.parent().map(Path::to_path_buf);
        if !whole && unused.len() <= MAX_UNUSED && self.write_delta(files, &per_file, &results, &unused) {
            std::mem::forget(std::mem::take(&mut self.stored));
            return;
        }
        if !unused.is_empty() {
            // a file can be back at an earlier version (a revert, a checkout): its key is in use
            let current: std::collections::HashSet<&str> = keys.iter().flatten().map(String::as_str).collect();
            unused.retain(|k| !current.contains(k.as_str()));
        }
        let entries: Vec<EntryOut<'_>> = per_file.into_iter().flatten().collect();
        // the entries the summary named before and no longer does (another checkout of the
        // project with a file at an old version reads that file again)
        if let (true, Some(dir)) = (self.write_whole(files, &entries, results), dir) {
            for key in unused {
                let _ = std::fs::remove_file(dir.join(key));
            }
        }
    }

    /// Writes the changes since the summary was written whole, when the summary read was whole
    /// and walked the same files and the changes are few. Whether it was written.
    fn write_delta(&self, files: &ProjectFiles, per_file: &[Option<EntryOut<'_>>], results: &Option<Results>, unused: &[String]) -> bool {
        if self.stored.id == 0 || self.walked || self.walk.is_none() {
            return false;
        }
        let paths = files.paths();
        // changed: every file whose stamp did not match, and those the last delta changed
        let in_last = |p: &String| self.stored.delta_paths.binary_search(p).is_ok();
        let changed: Vec<usize> = (0..paths.len()).filter(|&i| self.matched[i].is_none() || in_last(&paths[i])).collect();
        if changed.len() > 64 + paths.len() / 16 {
            return false;
        }
        let delta = DeltaOut {
            version: crate::scan::cache::CACHE_VERSION,
            base: self.stored.id,
            entries: changed.iter().filter_map(|&i| per_file[i].as_ref()).collect(),
            dropped: changed.iter().filter(|&&i| per_file[i].is_none()).map(|&i| paths[i].as_str()).collect(),
            results,
            records_tool: &self.stored.records_tool,
            records: &self.stored.records,
            unused,
        };
        let path = delta_path(&self.path);
        let tmp = path.with_extension(format!("recent-tmp{}", std::process::id()));
        if !crate::scan::cache::write_encoded(&tmp, &delta) {
            let _ = std::fs::remove_file(&tmp);
            return false;
        }
        // removed first, as the summary is (`write_whole`)
        let _ = std::fs::remove_file(&path);
        std::fs::rename(&tmp, &path).is_ok()
    }

    /// Writes the summary of this run whole: its walk and entries, the results and the records
    /// (`self`'s), to a temporary file beside the summary put in place (its recent changes, now
    /// in it, removed). Whether it was written (if not, the summary stays as it was).
    fn write_whole(mut self, files: &ProjectFiles, entries: &[EntryOut<'_>], results: Option<Results>) -> bool {
        use std::io::{Seek, Write};
        let tmp = self.path.with_extension(format!("tmp{}", std::process::id()));
        let io = |e: bincode::Error| std::io::Error::other(e.to_string());
        // any number but 0 ("none read") that another write is unlikely to pick
        let id =
            SystemTime::now().duration_since(UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64) ^ (u64::from(std::process::id()) << 40) | 1;
        let write = || -> std::io::Result<()> {
            // through a small buffer rather than a whole encoded copy in memory: a large
            // project's summary is megabytes, fresh pages to fault in for bytes written once
            let mut out = Counted { inner: std::io::BufWriter::with_capacity(64 << 10, crate::scan::cache::create_fresh(&tmp)?), n: 0 };
            let half = entries.len() / 2;
            out.write_all(&[0; 8])?;
            bincode::serialize_into(
                &mut out,
                &FirstOut {
                    version: crate::scan::cache::CACHE_VERSION,
                    id,
                    walk: self.walk.as_ref().map(|w| w.with_files(files)),
                    entries: &entries[..half],
                },
            )
            .map_err(io)?;
            let first_len = out.n - 8;
            bincode::serialize_into(&mut out, &entries[half..]).map_err(io)?;
            bincode::serialize_into(&mut out, &results).map_err(io)?;
            bincode::serialize_into(&mut out, &self.stored.records_tool).map_err(io)?;
            bincode::serialize_into(&mut out, &self.stored.records).map_err(io)?;
            let mut file = out.inner.into_inner().map_err(|e| e.into_error())?;
            file.seek(std::io::SeekFrom::Start(0))?;
            file.write_all(&first_len.to_le_bytes())
        };
        let written = if write().is_ok() {
            // the old summary is removed first: renaming over it makes the file system flush
            // the new file's data at once (ext4's safeguard for replace-by-rename), a few
            // milliseconds of a short run; a run that starts in between finds no summary and
            // walks and reads the project itself
            let _ = std::fs::remove_file(delta_path(&self.path));
            let _ = std::fs::remove_file(&self.path);
            std::fs::rename(&tmp, &self.path).is_ok()
        } else {
            let _ = std::fs::remove_file(&tmp);
            false
        };
        // the last summary's entries are thousands of small allocations, and saving is the last
        // thing a lint run does before the `lint` command exits (as `lint::run` does with the
        // project's facts, they are left to the process)
        std::mem::forget(std::mem::take(&mut self.stored));
        written
    }

    fn replay(&self, r: &Results) -> Option<Replayed> {
        let mut findings = Vec::with_capacity(r.findings.len());
        for f in &r.findings {
            findings.push(f.finding.finding(rules::find_rule(&f.rule)?));
        }
        Some((findings, r.warnings.clone()))
    }

    /// The project's files for the rules: files whose stamp matches come from the cache by key
    /// (read now when `eager`, else when a rule first reads them, their digest taken from the
    /// summary), the others are read now (through the content cache), and the data files the
    /// code names are appended. Also each project path's cache key and digest, and the scan's
    /// warnings.
    pub fn project<'c>(&self, root: &'c Path, files: &ProjectFiles, cache: &'c Cache, eager: bool, now: &[bool]) -> Scan<'c> {
        let paths = files.paths();
        let t0 = std::time::Instant::now();
        let fresh = self.fresh.lock().unwrap_or_else(|e| e.into_inner()).len();
        let read = |i: usize| -> FileRead {
            if paths[i].ends_with(".json") {
                // configs are read below, when the code names them
                return (Ok(None), None, None);
            }
            if let Some((f, key)) = self.fresh.lock().unwrap_or_else(|e| e.into_inner()).remove(&i) {
                let d = Digest::of(&f, rules::MARKS);
                return (Ok(Some(Box::new(f))), key, Some(d));
            }
            let entry = self.matched[i].map(|e| &self.stored.entries[e]);
            if let Some((key, digest)) = entry.and_then(|e| Some((e.key.as_deref()?, e.digest.as_ref()?))) {
                if !eager && !now[i] {
                    return (Ok(None), Some(key.to_string()), Some(digest.clone()));
                }
                if let Some(f) = cache.get_key(key) {
                    return (Ok(Some(Box::new(f))), Some(key.to_string()), Some(digest.clone()));
                }
            }
            let prior = self.entry_of[i].and_then(|e| self.stored.entries[e].key.as_deref());
            let (r, key) =
                crate::scan::scan_file(root, &paths[i], Some(cache), prior.map_or(crate::scan::Prior::None, crate::scan::Prior::Key));
            self.supersede(prior, key.as_deref());
            match r {
                Ok(f) => {
                    let d = Digest::of(&f, rules::MARKS);
                    (Ok(Some(Box::new(f))), key, Some(d))
                }
                Err(w) => (Err(w), key, None),
            }
        };
        // a file whose facts are at hand or left for later costs next to nothing; the others
        // are read (and the changed ones digested)
        let light = |i: usize| {
            paths[i].ends_with(".json")
                || (!eager
                    && !now[i]
                    && self.matched[i].is_some_and(|e| self.stored.entries[e].key.is_some() && self.stored.entries[e].digest.is_some())
                    && (fresh == 0 || !self.fresh.lock().unwrap_or_else(|e| e.into_inner()).contains_key(&i)))
        };
        let heavy: Vec<usize> = (0..paths.len()).filter(|&i| !light(i)).collect();
        // a line on the terminal when reading takes more than a second (a first, cold run)
        let progress = crate::progress::Progress::new("files read", heavy.len());
        let mut done: HashMap<usize, FileRead> = self
            .largest_first(heavy.into_iter())
            .map(|i| {
                let r = read(i);
                progress.step();
                (i, r)
            })
            .collect();
        drop(progress);
        let scanned = (0..paths.len()).map(|i| done.remove(&i).unwrap_or_else(|| read(i)));
        let t = crate::timings::phase("project: files", t0);
        let mut keys = Vec::with_capacity(paths.len());
        let mut digests = Vec::with_capacity(paths.len());
        let mut warnings = Vec::new();
        let n = paths.len();
        let (mut p_paths, mut p_digests, mut p_facts, mut p_keys) =
            (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
        for (i, (r, key, digest)) in scanned.enumerate() {
            match (r, &digest) {
                (Err(w), _) => warnings.push(w),
                (Ok(facts), Some(d)) => {
                    p_paths.push(paths[i].clone());
                    p_digests.push(d.clone());
                    p_facts.push(facts);
                    p_keys.push(key.clone());
                }
                (Ok(_), None) => {}
            }
            keys.push(key);
            digests.push(digest);
        }
        // the data files the code names: read every run (their stamps are not recorded)
        let mut refs: Vec<(&str, &str)> =
            p_paths.iter().zip(&p_digests).flat_map(|(p, d)| d.data_refs.iter().map(move |r| (p.as_str(), r.as_str()))).collect();
        // (and those the run scripts pass on a command line, as a scan without the cache reads)
        let scripts = crate::scan::run_script_refs(root);
        refs.extend(scripts.iter().map(|(rel, p)| (rel.as_str(), p.as_str())));
        for f in crate::scan::read_data(root, refs.into_iter()) {
            p_paths.push(f.path.clone());
            p_digests.push(Digest::of(&f, rules::MARKS));
            // a data file's key is its facts' (for the rules' records; its facts are at hand, so
            // `load` never looks it up)
            p_keys.push(bincode::serialize(&f).ok().map(|b| Cache::key(&f.path, &b)));
            p_facts.push(Some(Box::new(f)));
        }
        crate::timings::phase("project: tables", t);
        let load = move |_: usize, path: &str, key: Option<&str>| -> FileFacts {
            if let Some(f) = key.and_then(|k| cache.get_key(k)) {
                return f;
            }
            // gone from the cache since: read again
            let path = path.to_string();
            crate::scan::scan_file(root, &path, Some(cache), crate::scan::Prior::None)
                .0
                .unwrap_or_else(|_| FileFacts { path, ..Default::default() })
        };
        let project = Project::new(p_paths, p_digests, p_facts, Box::new(load)).with_keys(p_keys);
        Scan { project, keys, digests, warnings }
    }

    /// Records the stamps and keys of this run and the project's results.
    /// `findings`: every rule's over the whole project, or None after a run on some files only
    /// (the stamps, keys and digests are recorded, no results).
    pub fn save(
        mut self,
        root: &Path,
        files: &ProjectFiles,
        scan: &Scan<'_>,
        findings: Option<&[Finding]>,
        records: Vec<crate::analysis::record::Record>,
    ) {
        let tool = tool_stamp();
        self.stored.records = records;
        self.stored.records_tool = tool;
        let results = || {
            let findings = findings?
                .iter()
                .filter(|f| f.lint)
                .map(|f| StoredFinding { rule: f.rule.to_string(), finding: SavedFinding::of(f) })
                .collect();
            Some(Results { tool, data: data_stamps(root, &scan.project), findings, warnings: scan.warnings.clone() })
        };
        // a run on the whole project writes the summary whole
        self.write(files, &scan.keys, &scan.digests, findings.is_some(), results);
    }
}

/// Where a summary's recent changes are kept (`Delta`).
fn delta_path(summary: &Path) -> PathBuf {
    summary.with_extension("recent")
}

/// For each path, the entry of the same path. Both are in path order (a walk's files are
/// sorted and the entries written in their order): one pass over both, without hashing.
fn match_sorted(paths: &[String], entries: &[Entry]) -> Vec<Option<usize>> {
    let mut out = Vec::with_capacity(paths.len());
    let mut e = 0;
    for p in paths {
        while e < entries.len() && entries[e].path.as_str() < p.as_str() {
            e += 1;
        }
        out.push((e < entries.len() && entries[e].path == *p).then_some(e));
    }
    out
}

/// The summary's bytes, mapped rather than copied (a large project's summary is megabytes,
/// read once: mapping the page cache spares fresh memory and a copy). The file is never
/// written in place (a new summary is written beside it and renamed over it), so the mapped
/// bytes do not change while they are read.
fn read_mapped(path: &Path) -> Option<memmap2::Mmap> {
    let file = std::fs::File::open(path).ok()?;
    // SAFETY: see above; a summary is only ever replaced whole, by rename
    unsafe { memmap2::Mmap::map(&file) }.ok()
}

/// Whether two files' facts have as many facts of each kind (a cheap test before comparing
/// them whole: an edit of code mostly adds or removes some).
fn same_shape(a: &FileFacts, b: &FileFacts) -> bool {
    (a.calls.len(), a.classes.len(), a.functions.len(), a.assigns.len(), a.returns.len(), a.fors.len(), a.conds.len(), a.imports.len())
        == (
            b.calls.len(),
            b.classes.len(),
            b.functions.len(),
            b.assigns.len(),
            b.returns.len(),
            b.fors.len(),
            b.conds.len(),
            b.imports.len(),
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(src: &str) -> Digest {
        Digest::of(&crate::scan::python::scan_source("m.py", src), crate::rules::MARKS)
    }

    #[test]
    fn the_file_reads_back_as_written_and_damage_reads_as_none() {
        let dir = std::env::temp_dir().join(format!("cudasleuth-summary-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("summary");
        let n = 7;
        let digests: Vec<Option<Digest>> =
            (0..n).map(|i| (i % 3 != 0).then(|| digest(&format!("import torch\nN = {i}\nfc = torch.nn.Linear(8, N)\n")))).collect();
        let keys: Vec<Option<String>> = (0..n).map(|i| (i % 2 == 0).then(|| format!("{i:032x}"))).collect();
        let paths: Vec<String> = (0..n).map(|i| format!("pkg/m{i}.py")).collect();
        let files = ProjectFiles::from_list(paths.clone());
        let an_hour_ago = SystemTime::now() - std::time::Duration::from_secs(3600);
        let stamp = |i: usize| Stamp { size: i as u64, mtime_ns: 1000 + i as u64 };
        // the last file was modified just now: no entry for it
        let stamps = (0..n).map(|i| Some((stamp(i), if i + 1 == n { SystemTime::now() } else { an_hour_ago }))).collect();
        let mut summary = Summary {
            path: path.clone(),
            stored: Stored::default(),
            stamps,
            matched: vec![None; n],
            entry_of: vec![None; n],
            walk: Some(WalkRecord::default()),
            walked: true,
            fresh: Default::default(),
            replaced: Default::default(),
        };
        summary.stored.records_tool = Some(Stamp { size: 1, mtime_ns: 2 });
        let per_file = summary.entries(&files, &keys, &digests);
        assert!(per_file[n - 1].is_none() && per_file[..n - 1].iter().all(Option::is_some));
        let results = Some(Results {
            tool: None,
            data: vec![("a.json".into(), None)],
            findings: Vec::new(),
            warnings: vec![("x.py".into(), crate::scan::facts::SkipReason::NotUtf8)],
        });
        let entries: Vec<EntryOut<'_>> = per_file.into_iter().flatten().collect();
        assert!(summary.write_whole(&files, &entries, results));
        let bytes = std::fs::read(&path).unwrap();
        let back = Stored::decode(&bytes).expect("reads back");
        assert_eq!(back.entries.len(), n - 1);
        for (i, e) in back.entries.iter().enumerate() {
            assert_eq!(
                (e.path.as_str(), e.stamp, e.key.as_deref(), e.digest.as_ref()),
                (paths[i].as_str(), stamp(i), keys[i].as_deref(), digests[i].as_ref())
            );
        }
        assert_eq!(
            back.results.as_ref().map(|r| r.warnings.clone()),
            Some(vec![("x.py".to_string(), crate::scan::facts::SkipReason::NotUtf8)])
        );
        assert_eq!(back.records_tool, Some(Stamp { size: 1, mtime_ns: 2 }));
        // cut anywhere, or a first part's length past the end: no summary (and no panic)
        for cut in [0, 4, 8, 9, bytes.len() / 2, bytes.len() - 1] {
            assert!(Stored::decode(&bytes[..cut]).is_none(), "cut at {cut}");
        }
        let mut long = bytes.clone();
        long[..8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(Stored::decode(&long).is_none());

        // A run on some files: m1 changed (new stamp and key), m6 still too recent, the others
        // as recorded. Its changes are written beside the summary, which stays as it was.
        let mut keys2 = keys.clone();
        keys2[1] = Some("changed".into());
        let stamps2 = (0..n)
            .map(|i| {
                Some((
                    if i == 1 { Stamp { size: 99, mtime_ns: 5 } } else { stamp(i) },
                    if i + 1 == n { SystemTime::now() } else { an_hour_ago },
                ))
            })
            .collect();
        let mut stored = Stored::decode(&bytes).unwrap();
        let id = stored.id;
        assert_ne!(id, 0);
        stored.walk = Some(WalkRecord::default());
        let entry_of: Vec<Option<usize>> = (0..n).map(|i| (i + 1 < n).then_some(i)).collect();
        let matched = (0..n).map(|i| (i != 1 && i + 1 < n).then_some(i)).collect();
        let summary = Summary {
            path: path.clone(),
            walk: stored.walk.take(),
            stored,
            stamps: stamps2,
            matched,
            entry_of,
            walked: false,
            fresh: Default::default(),
            replaced: Default::default(),
        };
        summary.write(&files, &keys2, &digests, false, || None);
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "the summary itself is not rewritten");
        let recent = std::fs::read(delta_path(&path)).expect("recent changes written");
        let mut back = Stored::decode(&bytes).unwrap();
        back.apply(&recent);
        assert_eq!(back.entries.len(), n - 1);
        assert_eq!((back.entries[1].stamp, back.entries[1].key.as_deref()), (Stamp { size: 99, mtime_ns: 5 }, Some("changed")));
        assert_eq!(back.entries[2].key.as_deref(), keys[2].as_deref());
        assert!(back.results.is_none(), "the stored results went with the change");
        assert_eq!(back.delta_paths, ["pkg/m1.py", "pkg/m6.py"]);
        // the changes of another summary are not applied
        let mut other = Stored::decode(&bytes).unwrap();
        other.id ^= 2;
        other.apply(&recent);
        assert_eq!(other.entries[1].stamp, stamp(1));
        assert!(other.results.is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
