//! What a rule read, remembered from one lint run to the next.
//!
//! Some findings land where a value was set rather than where it was used: a one-hot width, a
//! head size, a zero temperature set in one file and used in another (CS115, CS102 against the
//! data, CS114). A run on a few files must therefore follow every such use in the project, in
//! any file. Each use's file (its *origin*) is evaluated on its own while the files note what it
//! reads (`note`): the files whose facts or digest it read, the digest lookups it made (which
//! files have a kind of fact, which may call or define a name) and the paths it looked up. The
//! reads and the findings are kept in the project summary; the next run takes an origin's
//! findings as they were when every read still gives the same answer (the same file contents,
//! the same files answering each lookup), and evaluates the others again.

use std::cell::RefCell;
use std::collections::HashMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::analysis::project::Files;
use crate::analysis::rule::{Finding, RuleInfo};
use crate::scan::facts::Span;

/// A digest table a lookup searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Table {
    Calls,
    Defined,
    Targets,
    Flags,
    Config,
}

/// One read of the project's files during an evaluation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Read {
    /// A file's facts or digest.
    File(u32),
    /// Which files have facts of a kind.
    Kind(u64),
    /// Which files' digests hold a name's hash in a table.
    Name(Table, u32),
    /// Whether a path is a project file.
    Path(String),
    /// Something no record can stand for (every file, the files a lint was given).
    Anything,
}

thread_local! {
    /// The reads of the evaluations in progress on this thread, innermost last.
    static FRAMES: RefCell<Vec<Vec<Read>>> = const { RefCell::new(Vec::new()) };
}

/// Notes a read, when an evaluation on this thread is being recorded.
pub fn note(r: Read) {
    FRAMES.with(|f| {
        if let Some(top) = f.borrow_mut().last_mut() {
            if top.last() != Some(&r) {
                top.push(r);
            }
        }
    });
}

/// Runs `f`, returning what it read (also noted in any evaluation around it).
pub fn capture<T>(f: impl FnOnce() -> T) -> (T, Vec<Read>) {
    FRAMES.with(|s| s.borrow_mut().push(Vec::new()));
    let t = f();
    let mut reads = FRAMES.with(|s| s.borrow_mut().pop()).unwrap_or_default();
    reads.sort_unstable();
    reads.dedup();
    replay(&reads);
    (t, reads)
}

/// A value computed once (in `cell`) and reused, with what computing it read: every use notes
/// those reads, as if it had computed the value itself.
pub fn once<T>(cell: &std::sync::OnceLock<(T, Vec<Read>)>, f: impl FnOnce() -> T) -> &T {
    let (value, reads) = cell.get_or_init(|| capture(f));
    replay(reads);
    value
}

/// Notes reads made earlier (by a computation whose result is reused).
pub fn replay(reads: &[Read]) {
    FRAMES.with(|s| {
        if let Some(top) = s.borrow_mut().last_mut() {
            top.extend_from_slice(reads);
        }
    });
}

/// A read as the summary keeps it: with the answer it got.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dep {
    /// A file and the content key of its facts.
    File(String, String),
    /// A kind and a hash of the paths of the files that had it.
    Kind(u64, u64),
    /// A table, a name's hash, and a hash of the paths of the files whose digests held it.
    Name(Table, u32, u64),
    /// A path and whether it was a project file.
    Path(String, bool),
}

/// A finding as the summary keeps it (its rule kept beside it).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SavedFinding {
    pub file: String,
    pub span: Span,
    pub message: String,
    pub evidence: Vec<String>,
    pub fingerprint: String,
}

impl SavedFinding {
    pub fn of(f: &Finding) -> Self {
        SavedFinding {
            file: f.file.clone(),
            span: f.span,
            message: f.message.clone(),
            evidence: f.evidence.clone(),
            fingerprint: f.fingerprint.clone(),
        }
    }

    /// The finding again, of `rule` (a lint finding: only those are kept).
    pub fn finding(&self, rule: &RuleInfo) -> Finding {
        Finding {
            rule: rule.code,
            file: self.file.clone(),
            span: self.span,
            message: self.message.clone(),
            evidence: self.evidence.clone(),
            fingerprint: self.fingerprint.clone(),
            category: rule.category,
            lint: true,
        }
    }
}

/// One rule's evaluation of one origin file (`origin` None: the rule's shared part, whose
/// findings are none and whose `empty` says the rule had nothing to evaluate).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    pub rule: String,
    pub origin: Option<String>,
    pub deps: Vec<Dep>,
    pub findings: Vec<SavedFinding>,
    pub empty: bool,
}

fn paths_hash<'p>(paths: impl Iterator<Item = &'p str>) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    for p in paths {
        p.hash(&mut h);
    }
    h.finish()
}

/// The answers of reads over the files as they are now.
pub struct Answers<'f, 'a> {
    files: &'f Files<'a>,
    kinds: std::sync::Mutex<HashMap<u64, u64>>,
    names: std::sync::Mutex<HashMap<(Table, u32), u64>>,
    keys: std::sync::OnceLock<HashMap<&'a str, Option<&'a str>>>,
}

impl<'f, 'a> Answers<'f, 'a> {
    pub fn new(files: &'f Files<'a>) -> Self {
        Answers { files, kinds: Default::default(), names: Default::default(), keys: Default::default() }
    }

    fn kind(&self, k: u64) -> u64 {
        if let Some(h) = self.kinds.lock().unwrap_or_else(|e| e.into_inner()).get(&k) {
            return *h;
        }
        let h = paths_hash(self.files.indices_of_kind(k).map(|i| self.files.path(i)));
        self.kinds.lock().unwrap_or_else(|e| e.into_inner()).insert(k, h);
        h
    }

    fn name(&self, t: Table, h: u32) -> u64 {
        if let Some(a) = self.names.lock().unwrap_or_else(|e| e.into_inner()).get(&(t, h)) {
            return *a;
        }
        let a = paths_hash(self.files.lookup_hash(t, h).map(|i| self.files.path(i)));
        self.names.lock().unwrap_or_else(|e| e.into_inner()).insert((t, h), a);
        a
    }

    /// The read as the summary keeps it (None: it cannot be kept, e.g. a file without a key).
    fn resolve(&self, r: &Read) -> Option<Dep> {
        Some(match r {
            Read::File(i) => Dep::File(self.files.path(*i as usize).to_string(), self.files.key(*i as usize)?.to_string()),
            Read::Kind(k) => Dep::Kind(*k, self.kind(*k)),
            Read::Name(t, h) => Dep::Name(*t, *h, self.name(*t, *h)),
            Read::Path(p) => Dep::Path(p.clone(), self.files.find(p).is_some()),
            Read::Anything => return None,
        })
    }

    /// Whether the read still gets the answer it got.
    fn holds(&self, d: &Dep) -> bool {
        match d {
            Dep::File(p, key) => {
                let keys = self.keys.get_or_init(|| (0..self.files.len()).map(|i| (self.files.path(i), self.files.key(i))).collect());
                keys.get(p.as_str()).is_some_and(|k| *k == Some(key.as_str()))
            }
            Dep::Kind(k, h) => self.kind(*k) == *h,
            Dep::Name(t, n, h) => self.name(*t, *n) == *h,
            Dep::Path(p, exists) => self.files.find(p).is_some() == *exists,
        }
    }

    /// A record of an evaluation (None when one of its reads cannot be kept).
    pub fn record(&self, rule: &str, origin: Option<&str>, reads: &[Read], findings: &[Finding], empty: bool) -> Option<Record> {
        let deps = reads.iter().map(|r| self.resolve(r)).collect::<Option<Vec<Dep>>>()?;
        let findings = findings.iter().map(SavedFinding::of).collect();
        Some(Record { rule: rule.to_string(), origin: origin.map(str::to_string), deps, findings, empty })
    }

    /// Finds the answers of the last run's name lookups in one pass over the digests (each
    /// looked up alone searches every digest).
    pub fn prepare(&self, previous: &Previous) {
        let mut wanted: HashMap<Table, Vec<u32>> = HashMap::new();
        for r in previous.by_rule.values().flat_map(|(s, o)| s.iter().chain(o.values())) {
            for d in &r.deps {
                if let Dep::Name(t, h, _) = d {
                    wanted.entry(*t).or_default().push(*h);
                }
            }
        }
        for hs in wanted.values_mut() {
            hs.sort_unstable();
            hs.dedup();
        }
        if wanted.is_empty() {
            return;
        }
        // the files in a few ranges, searched in parallel; each range's answers in file order
        let n = self.files.len();
        let ranges: Vec<std::ops::Range<usize>> = (0..n).step_by(512).map(|a| a..(a + 512).min(n)).collect();
        let parts: Vec<HashMap<(Table, u32), Vec<usize>>> = ranges
            .into_par_iter()
            .map(|range| {
                let mut found: HashMap<(Table, u32), Vec<usize>> = HashMap::new();
                for i in range {
                    let d = self.files.digest_of(i);
                    for (t, hs) in &wanted {
                        let have = d.of_table(*t);
                        // both sorted: walk them together
                        let (mut a, mut b) = (0, 0);
                        while a < have.len() && b < hs.len() {
                            match have[a].cmp(&hs[b]) {
                                std::cmp::Ordering::Less => a += 1,
                                std::cmp::Ordering::Greater => b += 1,
                                std::cmp::Ordering::Equal => {
                                    found.entry((*t, hs[b])).or_default().push(i);
                                    a += 1;
                                    b += 1;
                                }
                            }
                        }
                    }
                }
                found
            })
            .collect();
        let mut found: HashMap<(Table, u32), Vec<usize>> = HashMap::new();
        for part in parts {
            for (k, v) in part {
                found.entry(k).or_default().extend(v);
            }
        }
        let mut names = self.names.lock().unwrap_or_else(|e| e.into_inner());
        for (t, hs) in &wanted {
            for h in hs {
                let files = found.get(&(*t, *h)).map(Vec::as_slice).unwrap_or(&[]);
                names.insert((*t, *h), paths_hash(files.iter().map(|&i| self.files.path(i))));
            }
        }
    }

    /// Whether every read of a record still gets its answer.
    pub fn valid(&self, r: &Record) -> bool {
        r.deps.iter().all(|d| self.holds(d))
    }
}

impl Record {
    /// Its findings, as the rule made them (the rule's metadata from `rules`, the run's table).
    pub fn findings(&self, rules: &[RuleInfo]) -> Vec<Finding> {
        let Some(rule) = rules.iter().find(|r| r.code == self.rule) else { return Vec::new() };
        self.findings.iter().map(|f| f.finding(rule)).collect()
    }
}

/// The records of the last run, by rule and origin.
#[derive(Default)]
pub struct Previous {
    by_rule: HashMap<String, (Option<Record>, HashMap<String, Record>)>,
}

impl Previous {
    pub fn new(records: Vec<Record>) -> Self {
        let mut by_rule: HashMap<String, (Option<Record>, HashMap<String, Record>)> = HashMap::new();
        for r in records {
            let e = by_rule.entry(r.rule.clone()).or_default();
            match r.origin.clone() {
                None => e.0 = Some(r),
                Some(o) => {
                    e.1.insert(o, r);
                }
            }
        }
        Previous { by_rule }
    }

    pub fn shared(&self, rule: &str) -> Option<&Record> {
        self.by_rule.get(rule)?.0.as_ref()
    }

    pub fn origin(&self, rule: &str, path: &str) -> Option<&Record> {
        self.by_rule.get(rule)?.1.get(path)
    }
}
