//! A content-hash cache of per-file facts, so a pre-commit run re-parses only what changed.
//! Location: `$CUDASLEUTH_CACHE_DIR`, else `$XDG_CACHE_HOME/cudasleuth`, else
//! `~/.cache/cudasleuth`. Entries are keyed by the tool version, the file's path and its bytes;
//! a stale or corrupt entry is simply re-parsed. An entry also holds the file's chunks (its
//! top-level statements, `scan::chunks`): a changed file is parsed again only where it changed.
//! The project summary (`lint::incremental::summary`) sits in the same directory.

use std::hash::{Hash, Hasher};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::scan::chunks::Chunk;
use crate::scan::facts::FileFacts;

/// Where the scan keeps and finds per-file facts by a key of the file's path and bytes: the
/// scan takes its store through this trait (`Cache` below is the one on disk; the front end
/// chooses whether there is one).
pub trait FactsStore: Sync {
    /// The entry name of a file's facts: its path and bytes, hashed.
    fn key(&self, path: &str, bytes: &[u8]) -> String;
    /// The facts and chunks stored under `key`.
    fn get_entry(&self, key: &str) -> Option<Entry>;
    /// Stores an entry under its key.
    fn put(&self, key: &str, entry: &Entry);
    /// The facts stored under `key`, when the entry is there.
    fn get_key(&self, key: &str) -> Option<FileFacts> {
        self.get_entry(key).map(|e| e.facts)
    }
}

pub struct Cache {
    dir: PathBuf,
}

impl FactsStore for Cache {
    fn key(&self, path: &str, bytes: &[u8]) -> String {
        Cache::key(path, bytes)
    }
    fn get_entry(&self, key: &str) -> Option<Entry> {
        Cache::get_entry(self, key)
    }
    fn put(&self, key: &str, entry: &Entry) {
        Cache::put(self, key, entry)
    }
}

/// Entries this large are mapped rather than copied into fresh memory (a large file's facts
/// are hundreds of kilobytes, read once).
const MAP_AT_LEAST: u64 = 64 << 10;

/// cudasleuth's cache directory: `$CUDASLEUTH_CACHE_DIR`, else `$XDG_CACHE_HOME/cudasleuth`, else
/// `~/.cache/cudasleuth`; always an absolute path, so the cache never lands in the directory
/// cudasleuth runs in (the user's project). An empty variable counts as unset; a relative
/// `XDG_CACHE_HOME` is ignored (the XDG rule); a relative `CUDASLEUTH_CACHE_DIR` turns the cache
/// off, with a warning once per run.
pub fn base_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = var("CUDASLEUTH_CACHE_DIR") {
        if dir.is_absolute() {
            return Some(dir);
        }
        static WARNED: std::sync::Once = std::sync::Once::new();
        WARNED.call_once(|| {
            eprintln!(
                "cudasleuth: warning: CUDASLEUTH_CACHE_DIR={} is not an absolute path; running without a cache (set an absolute path, or unset it for ~/.cache/cudasleuth)",
                dir.display()
            )
        });
        return None;
    }
    var("XDG_CACHE_HOME")
        .filter(|x| x.is_absolute())
        .map(|x| x.join("cudasleuth"))
        .or_else(|| var("HOME").filter(|h| h.is_absolute()).map(|h| h.join(".cache/cudasleuth")))
}

// The version a cache entry is written for: the package version and a hash of the sources
// it was built from (two builds of one version may lower Python differently).
include!(concat!(env!("OUT_DIR"), "/source_stamp.rs"));

impl Cache {
    pub fn open() -> Option<Cache> {
        Cache::open_at(&base_dir()?)
    }

    /// The cache under `base` (a cache directory as `base_dir` gives it).
    pub fn open_at(base: &std::path::Path) -> Option<Cache> {
        let dir = base.join(format!("facts-v5-{CACHE_VERSION}"));
        std::fs::create_dir_all(&dir).ok()?;
        Some(Cache { dir })
    }

    /// The entry name of a file's facts: its path and bytes, hashed.
    pub fn key(path: &str, bytes: &[u8]) -> String {
        // std's SipHash with fixed keys: stable across runs of the same build
        #[allow(deprecated)]
        let mut h = std::hash::SipHasher::new();
        path.hash(&mut h);
        bytes.hash(&mut h);
        let a = h.finish();
        let mut h2 = std::hash::DefaultHasher::new();
        (a, bytes.len(), path).hash(&mut h2);
        format!("{a:016x}{:016x}", h2.finish())
    }

    /// The facts stored under `key` (from `Cache::key`), when the entry is there.
    pub fn get_key(&self, key: &str) -> Option<FileFacts> {
        self.get_entry(key).map(|e| e.facts)
    }

    /// The facts and chunks stored under `key`.
    pub fn get_entry(&self, key: &str) -> Option<Entry> {
        use std::io::Read;
        let mut file = std::fs::File::open(self.dir.join(key)).ok()?;
        let len = file.metadata().ok()?.len();
        if len >= MAP_AT_LEAST {
            // SAFETY: an entry is never written in place (a new one is written beside it and
            // renamed over it), so the mapped bytes do not change while they are read
            let bytes = unsafe { memmap2::Mmap::map(&file) }.ok()?;
            return bincode::deserialize(&bytes).ok();
        }
        let mut bytes = Vec::with_capacity(len as usize);
        file.read_to_end(&mut bytes).ok()?;
        bincode::deserialize(&bytes).ok()
    }

    /// Where the cache lives (the project summaries sit beside the facts).
    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// Stores an entry under its key (`Cache::key` of the file's path and bytes).
    pub fn put(&self, key: &str, entry: &Entry) {
        let tmp = self.dir.join(format!("{key}.tmp{}", std::process::id()));
        if write_encoded(&tmp, entry) {
            let _ = std::fs::rename(&tmp, self.dir.join(key));
        } else {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

/// A new file at `path`, never through a link: a name left there (a stale temporary file, or a
/// link planted in a shared cache directory) is removed first, and the create fails rather than
/// follow a link made in between (O_EXCL).
pub(crate) fn create_fresh(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    let _ = std::fs::remove_file(path);
    std::fs::OpenOptions::new().write(true).create_new(true).open(path)
}

/// Writes `value` encoded (bincode) to a new file at `path`, through a small buffer rather than
/// a whole encoded copy in memory (a large file's facts are hundreds of kilobytes: fresh pages
/// to fault in, for bytes written once). Whether it was written whole.
pub(crate) fn write_encoded<T: Serialize>(path: &std::path::Path, value: &T) -> bool {
    use std::io::Write;
    let Ok(file) = create_fresh(path) else { return false };
    let mut out = std::io::BufWriter::with_capacity(64 << 10, file);
    bincode::serialize_into(&mut out, value).is_ok() && out.flush().is_ok()
}

/// One cache entry: a file's facts and, for a Python file that parsed cleanly, its chunks
/// (`scan::chunks`), so that the next version of the file is parsed only where it changed.
#[derive(Serialize, Deserialize, Default)]
pub struct Entry {
    pub facts: FileFacts,
    pub chunks: Option<Vec<Chunk>>,
}
