//! The files the rules read. Either every file's facts at hand (`explain`, a lint of the whole
//! project), or a *project* of digests: for each file a few bits saying which kinds of facts it
//! has and the (hashed) names it calls, defines, assigns at module level and imports, with the
//! file's facts read from the cache only when a rule asks for them. A lint of a few files
//! (pre-commit) runs the rules on those files' statements ("sites"), and reads other files
//! only where a rule's finding there depends on them: a digest tells which files can matter,
//! and only those are loaded.
//!
//! Digest lookups only narrow the files a rule reads: every kind bit is set by the same test the
//! rule applies, and a name found by its hash is checked against the loaded facts, so a rule
//! reads exactly the facts it would read with every file at hand.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::analysis::record::{self, Read, Table};
use crate::analysis::shared;
use crate::scan::facts::{Call, Facts, FileFacts};

/// A Dataset class (`ClassFact::is_dataset`).
pub const DATASET: u64 = 1;
/// A class-index loss call (`shared::is_loss_with_classes`).
pub const LOSS: u64 = 1 << 1;
/// A class-index loss or a gather at the labels (`shared::consumes_class_index`).
pub const CLASS_INDEX: u64 = 1 << 2;
/// A class-index loss called with `ignore_index=`.
pub const LOSS_IGNORE: u64 = 1 << 3;
/// A call that may be a classification head (`shared::head_calls_in`).
pub const HEAD_CALL: u64 = 1 << 4;
/// A head with a literal output size (`shared::heads_of`).
pub const HEAD: u64 = 1 << 5;
/// An `add_argument` call.
pub const ADD_ARGUMENT: u64 = 1 << 6;
/// A YAML or JSON config (`FileFacts::is_config`).
pub const CONFIG: u64 = 1 << 7;
/// A data file with integer columns.
pub const COLUMNS: u64 = 1 << 8;
/// A sigmoid or softmax call (CS106).
pub const SIGMOID: u64 = 1 << 9;
/// An embedding call (CS112).
pub const EMBEDDING: u64 = 1 << 10;
/// A `resize_token_embeddings` call.
pub const RESIZE: u64 = 1 << 11;
/// A function named `resize_token_embeddings`.
pub const DEFINES_RESIZE: u64 = 1 << 12;
/// An `add_tokens` / `add_special_tokens` call, not on `self`.
pub const ADD_TOKENS: u64 = 1 << 13;
/// A position table (CS113).
pub const POSITION_TABLE: u64 = 1 << 14;
/// A `multinomial` call.
pub const MULTINOMIAL: u64 = 1 << 15;
/// A one-hot width: `one_hot(...)` or `zeros(n, k).scatter_(...)` (CS115).
pub const ONE_HOT: u64 = 1 << 16;
/// A call passing a sample pipeline function: `collate_fn=`, `target_transform=`, `.map(f)`.
pub const PIPELINE_ARG: u64 = 1 << 17;
/// A stated class count (CS102): `num_classes = 10`, `--classes ... default=10`.
pub const COUNT: u64 = 1 << 18;

/// A kind of fact that one rule defines, with the test that finds it in a file: the rule
/// declares it in its own file (its prefilter), and the digests carry it without naming the rule.
pub type Mark = (u64, fn(&FileFacts) -> bool);

/// The kinds of facts a file has: the common kinds, and those of `marks` (the rules').
pub fn kinds_of(f: &FileFacts, marks: &[Mark]) -> u64 {
    let mut k = 0;
    if f.classes.iter().any(|c| c.is_dataset()) {
        k |= DATASET;
    }
    for c in &f.calls {
        if shared::is_loss_with_classes(c) {
            k |= LOSS | CLASS_INDEX;
            if c.kwarg("ignore_index").is_some() {
                k |= LOSS_IGNORE;
            }
        } else if shared::is_label_gather(c) {
            k |= CLASS_INDEX;
        }
        match c.name.as_str() {
            "add_argument" => k |= ADD_ARGUMENT,
            "sigmoid" | "Sigmoid" | "sigmoid_" | "softmax" | "Softmax" | "expit" => k |= SIGMOID,
            "Embedding" | "EmbeddingBag" | "embedding" => k |= EMBEDDING,
            "resize_token_embeddings" => k |= RESIZE,
            // (a tokenizer adding to itself is not a script extending a model's vocabulary)
            "add_tokens" | "add_special_tokens" if !c.func.starts_with("self.") => k |= ADD_TOKENS,
            "multinomial" => k |= MULTINOMIAL,
            _ => {}
        }
    }
    let heads = shared::head_calls_in(f);
    if !heads.is_empty() {
        k |= HEAD_CALL;
    }
    if heads.iter().any(|(c, a)| c.name.contains("Linear") && a.int.is_some()) {
        k |= HEAD;
    }
    if f.is_config() {
        k |= CONFIG;
    }
    if !f.columns.is_empty() {
        k |= COLUMNS;
    }
    if f.functions.iter().any(|d| d.name == "resize_token_embeddings") {
        k |= DEFINES_RESIZE;
    }
    for (kind, test) in marks {
        if k & kind == 0 && test(f) {
            k |= kind;
        }
    }
    k
}

/// A name's hash in a digest (a match is checked against the facts, so collisions only cost a
/// file read).
pub fn name_hash(s: &str) -> u32 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    s.hash(&mut h);
    let x = h.finish();
    (x ^ (x >> 32)) as u32
}

fn hashed(names: impl Iterator<Item = impl AsRef<str>>) -> Vec<u32> {
    let mut v: Vec<u32> = names.map(|n| name_hash(n.as_ref())).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// What the rules need to know of a file without reading its facts (shared: the summary, the
/// project and the next summary hold the same digest).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digest(std::sync::Arc<DigestData>);

impl std::ops::Deref for Digest {
    type Target = DigestData;

    fn deref(&self) -> &DigestData {
        &self.0
    }
}

/// A digest's name tables: hashes of names, each table sorted and free of repeats, all in
/// one array (one allocation per digest, read and written as one run of bytes).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DigestData {
    pub kinds: u64,
    /// The tables one after another: calls, defined, module targets, imports, flags, config keys.
    #[serde(with = "hash_bytes")]
    hashes: Vec<u32>,
    /// Where each table ends in `hashes`.
    ends: [u32; 6],
    /// The data files (CSV, JSON) it names by a literal path (`scan::data::referenced_paths`).
    pub data_refs: Vec<String>,
}

impl DigestData {
    fn table(&self, n: usize) -> &[u32] {
        let start = if n == 0 { 0 } else { self.ends[n - 1] as usize };
        // a digest read back from a damaged summary must not panic: an empty table then
        self.hashes.get(start..self.ends[n] as usize).unwrap_or(&[])
    }
    /// Hashes of the names of the calls (`fc` for `self.fc(x)`), sorted.
    pub fn calls(&self) -> &[u32] {
        self.table(0)
    }
    /// Hashes of the functions and classes it defines.
    pub fn defined(&self) -> &[u32] {
        self.table(1)
    }
    /// Hashes of its module-level assignment targets.
    pub fn module_targets(&self) -> &[u32] {
        self.table(2)
    }
    /// Hashes of the words of its import statements (`FileFacts::imports_module`).
    pub fn imports(&self) -> &[u32] {
        self.table(3)
    }
    /// Hashes of the command-line flags its `add_argument` calls define (`values::flag_dest`).
    pub fn flags(&self) -> &[u32] {
        self.table(4)
    }
    /// Hashes of the last segments of a config file's keys.
    pub fn config_keys(&self) -> &[u32] {
        self.table(5)
    }
    /// The table a lookup searches.
    pub fn of_table(&self, t: Table) -> &[u32] {
        match t {
            Table::Calls => self.calls(),
            Table::Defined => self.defined(),
            Table::Targets => self.module_targets(),
            Table::Flags => self.flags(),
            Table::Config => self.config_keys(),
        }
    }
}

/// The hash tables as little-endian bytes: bincode writes a byte string in one copy, where a
/// sequence of integers goes number by number (the digests are most of a large project's
/// summary).
mod hash_bytes {
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[u32], s: S) -> Result<S::Ok, S::Error> {
        let bytes: Vec<u8> = v.iter().flat_map(|h| h.to_le_bytes()).collect();
        s.serialize_bytes(&bytes)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
        struct Bytes;
        impl<'de> serde::de::Visitor<'de> for Bytes {
            type Value = Vec<u32>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("hashes as bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, b: &[u8]) -> Result<Vec<u32>, E> {
                if b.len() % 4 != 0 {
                    return Err(E::invalid_length(b.len(), &self));
                }
                Ok(b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
            }
            fn visit_byte_buf<E: serde::de::Error>(self, b: Vec<u8>) -> Result<Vec<u32>, E> {
                self.visit_bytes(&b)
            }
        }
        d.deserialize_bytes(Bytes)
    }
}

impl Digest {
    pub fn of(f: &FileFacts, marks: &[Mark]) -> Digest {
        let module_level = f.assigns.iter().filter(|a| a.scope.function.is_none() && a.scope.class.is_none());
        // (a config or data file names none: only code is searched for data paths)
        let code = !(f.path.ends_with(".yaml") || f.path.ends_with(".yml") || f.is_config() || !f.columns.is_empty());
        let data_refs = if code { crate::scan::data::referenced_paths(f).into_iter().collect() } else { Vec::new() };
        let tables = [
            hashed(f.calls.iter().map(|c| c.name.as_str())),
            hashed(f.functions.iter().map(|d| d.name.as_str()).chain(f.classes.iter().map(|c| c.name.as_str()))),
            hashed(module_level.map(|a| a.target.as_str())),
            hashed(f.import_word_iter()),
            hashed(f.calls.iter().filter(|c| c.name == "add_argument").filter_map(crate::analysis::values::flag_dest)),
            if f.is_config() { hashed(f.assigns.iter().map(|a| a.target.rsplit('.').next().unwrap_or(&a.target))) } else { Vec::new() },
        ];
        let mut hashes = Vec::with_capacity(tables.iter().map(Vec::len).sum());
        let mut ends = [0u32; 6];
        for (t, end) in tables.iter().zip(&mut ends) {
            hashes.extend_from_slice(t);
            *end = hashes.len() as u32;
        }
        Digest(std::sync::Arc::new(DigestData { kinds: kinds_of(f, marks), hashes, ends, data_refs }))
    }

    pub fn has(set: &[u32], name: &str) -> bool {
        set.binary_search(&name_hash(name)).is_ok()
    }
}

/// Reads file `i`'s facts, given its path and its content key (`Project::with_keys`).
pub type Loader<'l> = Box<dyn Fn(usize, &str, Option<&str>) -> FileFacts + Send + Sync + 'l>;

/// A project whose files' facts are read when first asked for.
pub struct Project<'l> {
    pub paths: Vec<String>,
    pub digests: Vec<Digest>,
    slots: Vec<OnceLock<Box<FileFacts>>>,
    load: Loader<'l>,
    loaded: std::sync::atomic::AtomicUsize,
    /// Each file's content key (`record::Dep::File`), when known.
    keys: Vec<Option<String>>,
}

impl<'l> Project<'l> {
    /// `facts[i]`, when given, is file `i`'s facts already at hand; the others are read by `load`.
    /// (Boxed: a large project has thousands of files, most of them never read, and a slot
    /// is a pointer rather than a whole `FileFacts`.)
    pub fn new(paths: Vec<String>, digests: Vec<Digest>, facts: Vec<Option<Box<FileFacts>>>, load: Loader<'l>) -> Project<'l> {
        let slots = facts
            .into_iter()
            .map(|f| {
                let s = OnceLock::new();
                if let Some(f) = f {
                    let _ = s.set(f);
                }
                s
            })
            .collect();
        Project { paths, digests, slots, load, loaded: Default::default(), keys: Vec::new() }
    }

    /// The files' content keys: what a record of a rule's reads names a file's contents by.
    pub fn with_keys(mut self, keys: Vec<Option<String>>) -> Self {
        self.keys = keys;
        self
    }

    /// How many files' facts were read on demand.
    pub fn loaded(&self) -> usize {
        self.loaded.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn file(&self, i: usize) -> &FileFacts {
        self.slots[i].get_or_init(|| {
            self.loaded.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Box::new((self.load)(i, &self.paths[i], self.keys.get(i).and_then(|k| k.as_deref())))
        })
    }
}

enum Source<'a> {
    Facts { facts: &'a Facts, digests: Vec<OnceLock<Digest>>, marks: &'a [Mark] },
    Project(&'a Project<'a>),
}

/// The files as the rules see them, and which of them are sites (all, or the files a lint was
/// given).
pub struct Files<'a> {
    source: Source<'a>,
    focus: Option<Vec<bool>>,
    by_path: OnceLock<FxHashMap<String, usize>>,
    /// Each table's index (by `Table as usize`), built after its first lookups.
    indexes: [OnceLock<FxHashMap<u32, Vec<u32>>>; 5],
    /// Lookups made in each table without its index.
    searches: [std::sync::atomic::AtomicUsize; 5],
}

/// Lookups of a table made by searching the digests, before its index is built.
const SEARCHES_BEFORE_INDEX: usize = 64;

fn index_of<'d>(n: usize, digest: impl Fn(usize) -> &'d [u32]) -> FxHashMap<u32, Vec<u32>> {
    let mut m: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    for i in 0..n {
        for &h in digest(i) {
            m.entry(h).or_default().push(i as u32);
        }
    }
    m
}

impl<'a> Files<'a> {
    /// Every file's facts at hand; every file is a site.
    pub fn of_facts(facts: &'a Facts, marks: &'a [Mark]) -> Files<'a> {
        let digests = facts.files.iter().map(|_| OnceLock::new()).collect();
        Files::with_source(Source::Facts { facts, digests, marks }, None)
    }

    /// A project read on demand; the sites are the files `focus` marks (all when None).
    pub fn of_project(project: &'a Project<'a>, focus: Option<Vec<bool>>) -> Files<'a> {
        Files::with_source(Source::Project(project), focus)
    }

    fn with_source(source: Source<'a>, focus: Option<Vec<bool>>) -> Files<'a> {
        Files { source, focus, by_path: OnceLock::new(), indexes: Default::default(), searches: Default::default() }
    }

    pub fn len(&self) -> usize {
        match &self.source {
            Source::Facts { facts, .. } => facts.files.len(),
            Source::Project(p) => p.paths.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn path(&self, i: usize) -> &'a str {
        match &self.source {
            Source::Facts { facts, .. } => &facts.files[i].path,
            Source::Project(p) => &p.paths[i],
        }
    }

    pub fn digest(&self, i: usize) -> &Digest {
        record::note(Read::File(i as u32));
        self.digest_of(i)
    }

    /// `digest`, unrecorded (the answers records are checked against).
    pub(crate) fn digest_of(&self, i: usize) -> &Digest {
        match &self.source {
            Source::Facts { facts, digests, marks } => digests[i].get_or_init(|| Digest::of(&facts.files[i], marks)),
            Source::Project(p) => &p.digests[i],
        }
    }

    /// File `i`'s facts (read now if they were not).
    pub fn file(&self, i: usize) -> &'a FileFacts {
        record::note(Read::File(i as u32));
        match &self.source {
            Source::Facts { facts, .. } => &facts.files[i],
            Source::Project(p) => p.file(i),
        }
    }

    /// Every file, in order (all are read).
    pub fn all(&self) -> impl Iterator<Item = (usize, &'a FileFacts)> + '_ {
        record::note(Read::Anything);
        (0..self.len()).map(move |i| (i, self.file(i)))
    }

    /// The files with facts of `kind`, in order.
    pub fn with(&self, kind: u64) -> impl Iterator<Item = (usize, &'a FileFacts)> + '_ {
        self.indices_with(kind).map(move |i| (i, self.file(i)))
    }

    /// The indices of the files with facts of `kind` (none is read).
    pub fn indices_with(&self, kind: u64) -> impl Iterator<Item = usize> + '_ {
        record::note(Read::Kind(kind));
        self.indices_of_kind(kind)
    }

    /// `indices_with`, unrecorded (the answers records are checked against).
    pub(crate) fn indices_of_kind(&self, kind: u64) -> impl Iterator<Item = usize> + '_ {
        (0..self.len()).filter(move |&i| self.digest_of(i).kinds & kind != 0)
    }

    /// File `i`'s content key, when known.
    pub fn key(&self, i: usize) -> Option<&'a str> {
        match &self.source {
            Source::Facts { .. } => None,
            Source::Project(p) => p.keys.get(i)?.as_deref(),
        }
    }

    /// The calls of the files with facts of `kind`, in order, with their files.
    pub fn calls_with(&self, kind: u64) -> impl Iterator<Item = (&'a FileFacts, &'a Call)> + '_ {
        self.with(kind).flat_map(|(_, f)| f.calls.iter().map(move |c| (f, c)))
    }

    /// The project's first call that passes `test`, among the files with facts of `kind` (only
    /// the files up to it are read).
    pub fn first_call(&self, kind: u64, test: impl Fn(&Call) -> bool) -> Option<(&'a FileFacts, &'a Call)> {
        self.calls_with(kind).find(|(_, c)| test(c))
    }

    /// Whether any file has facts of `kind`.
    pub fn any(&self, kind: u64) -> bool {
        record::note(Read::Kind(kind));
        self.indices_of_kind(kind).next().is_some()
    }

    /// Whether the file at `i` is one the run reports on.
    pub fn is_site(&self, i: usize) -> bool {
        self.focus.as_ref().map_or(true, |f| f[i])
    }

    /// The sites: the files whose findings are wanted (every file, or those a lint was given).
    pub fn sites(&self) -> impl Iterator<Item = (usize, &'a FileFacts)> + '_ {
        record::note(Read::Anything);
        (0..self.len()).filter(move |&i| self.is_site(i)).map(move |i| (i, self.file(i)))
    }

    /// The sites with facts of `kind`.
    pub fn sites_with(&self, kind: u64) -> impl Iterator<Item = (usize, &'a FileFacts)> + '_ {
        record::note(Read::Anything);
        (0..self.len()).filter(move |&i| self.is_site(i) && self.digest_of(i).kinds & kind != 0).map(move |i| (i, self.file(i)))
    }

    /// The index of the file at `path`.
    pub fn index(&self, path: &str) -> Option<usize> {
        record::note(Read::Path(path.to_string()));
        self.find(path)
    }

    /// `index`, unrecorded.
    pub(crate) fn find(&self, path: &str) -> Option<usize> {
        self.by_path.get_or_init(|| (0..self.len()).map(|i| (self.path(i).to_string(), i)).collect()).get(path).copied()
    }

    /// The files whose digest table `t` holds hash `h`, in order (unrecorded). The first
    /// lookups of a table search the digests one by one (a run on a few files makes a few
    /// dozen); later ones build an index of the table.
    pub(crate) fn lookup_hash(&self, t: Table, h: u32) -> Box<dyn Iterator<Item = usize> + '_> {
        let index = &self.indexes[t as usize];
        if index.get().is_none() && self.searches[t as usize].fetch_add(1, std::sync::atomic::Ordering::Relaxed) < SEARCHES_BEFORE_INDEX {
            return Box::new((0..self.len()).filter(move |&i| self.digest_of(i).of_table(t).binary_search(&h).is_ok()));
        }
        let m = index.get_or_init(|| index_of(self.len(), |i| self.digest_of(i).of_table(t)));
        Box::new(m.get(&h).into_iter().flatten().map(|&i| i as usize))
    }

    fn lookup(&self, t: Table, name: &str) -> impl Iterator<Item = usize> + '_ {
        let h = name_hash(name);
        record::note(Read::Name(t, h));
        self.lookup_hash(t, h)
    }

    /// Files that may call `name` (check the facts), in order.
    pub fn calling(&self, name: &str) -> impl Iterator<Item = usize> + '_ {
        self.lookup(Table::Calls, name)
    }

    /// Files that may define a function or class `name`, in order.
    pub fn defining(&self, name: &str) -> impl Iterator<Item = usize> + '_ {
        self.lookup(Table::Defined, name)
    }

    /// Files that may assign `target` at module level, in order.
    pub fn assigning(&self, target: &str) -> impl Iterator<Item = usize> + '_ {
        self.lookup(Table::Targets, target)
    }

    /// Files that may define the command-line flag `dest`, in order.
    pub fn flagging(&self, dest: &str) -> impl Iterator<Item = usize> + '_ {
        self.lookup(Table::Flags, dest)
    }

    /// Config files that may have a key ending in `last`, in order.
    pub fn configuring(&self, last: &str) -> impl Iterator<Item = usize> + '_ {
        self.lookup(Table::Config, last)
    }

    /// Whether the project defines a function or class `name`.
    pub fn defines(&self, name: &str) -> bool {
        self.defining(name).any(|i| {
            let f = self.file(i);
            f.functions.iter().any(|d| d.name == name) || f.classes.iter().any(|c| c.name == name)
        })
    }

    /// Whether file `fi` imports the module of file `gi` (`shared::imports`), reading `fi` only
    /// when its import words include that module's name.
    pub fn imports(&self, fi: usize, gi: usize) -> bool {
        let module = shared::module_name(self.path(gi));
        Digest::has(self.digest(fi).imports(), module) && self.file(fi).imports_module(module)
    }
}
