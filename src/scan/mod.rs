//! Scanning a Python project with tree-sitter: files in parallel, one query pass per file,
//! facts collected across files. Knows nothing about logs.

pub mod cache;
pub mod chunks;
pub mod data;
pub mod facts;
pub mod fields;
pub mod files;
pub mod flow;
pub mod ini;
pub mod notebook;
pub mod python;
pub mod yaml;

use std::path::Path;

use rayon::prelude::*;

use cache::FactsStore;
use facts::{SkipReason, Skipped};

pub use facts::{Facts, FileFacts};

/// Files larger than this are skipped with a warning (generated code, data dumps).
const MAX_FILE_BYTES: u64 = 4 << 20;

/// Brackets nested deeper than this skip the file: CPython stops at 200, and the tree of a
/// file nested 100,000 deep is deeper than the stack a walk over it can use.
const MAX_NESTING: usize = 1000;

/// A syntax tree deeper than this skips the file (checked as the scan walks it): CPython's
/// compiler gives up far sooner (40,000 unary signs, a chain of 100,000 calls), and the
/// walks over deeper trees cost memory in proportion to depth times size.
pub const MAX_TREE_DEPTH: usize = 5000;

fn too_deep(rel: &str, code: &str) -> Result<(), Skipped> {
    match chunks::deepest_brackets(code) {
        d if d > MAX_NESTING => Err((rel.to_string(), SkipReason::TooDeep(d))),
        _ => Ok(()),
    }
}

fn tree_too_deep(rel: &str, facts: &FileFacts) -> Result<(), Skipped> {
    match facts.too_deep {
        0 => Ok(()),
        d => Err((rel.to_string(), SkipReason::TreeTooDeep(d))),
    }
}

pub fn scan_project(root: &Path, files: &files::ProjectFiles) -> Facts {
    scan_project_cached(root, files, None)
}

/// As `scan_project`, reusing cached facts of files whose bytes did not change.
pub fn scan_project_cached(root: &Path, files: &files::ProjectFiles, cache: Option<&dyn FactsStore>) -> Facts {
    let mut facts = scan_files(root, files.paths(), cache);
    read_referenced_data(root, &mut facts);
    facts
}

/// One file's scan: its facts (empty, without a path, for a JSON file) or why it was skipped,
/// and the cache key of its bytes when a cache is used.
pub type Scanned = (Result<FileFacts, Skipped>, Option<String>);

/// The file's previous version, whose facts are reused for the top-level statements that did
/// not change: its cache key (its entry is read only if the file must be parsed), or its entry
/// already read.
#[derive(Clone, Copy)]
pub enum Prior<'a> {
    None,
    Key(&'a str),
    Entry(&'a crate::scan::cache::Entry),
}

/// One file's facts, through the content cache when there is one.
pub fn scan_file(root: &Path, rel: &String, cache: Option<&dyn FactsStore>, prior: Prior<'_>) -> Scanned {
    let mut key = None;
    let r = scan_one(root, rel, cache, prior, &mut key);
    (r, key)
}

fn scan_one(
    root: &Path,
    rel: &String,
    cache: Option<&dyn FactsStore>,
    prior: Prior<'_>,
    key: &mut Option<String>,
) -> Result<FileFacts, Skipped> {
    if rel.ends_with(".json") || ini::is_settings_path(rel) {
        // configs are read below, when the code names them
        return Ok(FileFacts::default());
    }
    let full = root.join(rel);
    let size = std::fs::metadata(&full).map(|m| m.len()).unwrap_or(0);
    if size > size_limit(rel) {
        return Err(too_large(rel));
    }
    let bytes = std::fs::read(&full).map_err(|e| (rel.clone(), SkipReason::Unreadable(e.to_string())))?;
    scan_read(rel, bytes, None, cache, prior, key)
}

fn too_large(rel: &str) -> Skipped {
    (rel.to_string(), SkipReason::TooLarge(size_limit(rel) >> 20))
}

/// The largest file read: a notebook's size is mostly its outputs (one plotted image is
/// megabytes), so its limit is higher and its code is held to `MAX_FILE_BYTES` once read.
fn size_limit(rel: &str) -> u64 {
    if rel.ends_with(".ipynb") {
        notebook::MAX_NOTEBOOK
    } else {
        MAX_FILE_BYTES
    }
}

/// `scan_file` of bytes already read, and their cache key when it is known (a file is read
/// and hashed once).
pub fn scan_bytes(rel: &str, bytes: Vec<u8>, known_key: Option<String>, cache: Option<&dyn FactsStore>, prior: Prior<'_>) -> Scanned {
    let mut key = None;
    let r =
        if bytes.len() as u64 > size_limit(rel) { Err(too_large(rel)) } else { scan_read(rel, bytes, known_key, cache, prior, &mut key) };
    (r, key)
}

fn scan_read(
    rel: &str,
    bytes: Vec<u8>,
    known_key: Option<String>,
    cache: Option<&dyn FactsStore>,
    prior: Prior<'_>,
    key: &mut Option<String>,
) -> Result<FileFacts, Skipped> {
    use crate::scan::cache::Entry;
    if let Some(c) = cache {
        let k = known_key.unwrap_or_else(|| c.key(rel, &bytes));
        let hit = c.get_key(&k);
        *key = Some(k);
        if let Some(hit) = hit {
            return Ok(hit);
        }
    }
    // the bytes become the text (the cache key, all they were still needed for, is taken)
    let text = String::from_utf8(bytes).map_err(|_| (rel.to_string(), SkipReason::NotUtf8))?;
    let put = |entry: Entry| {
        if let (Some(c), Some(k)) = (cache, key.as_deref()) {
            c.put(k, &entry);
        }
        Ok(entry.facts)
    };
    if rel.ends_with(".py") {
        too_deep(rel, &text)?;
    }
    if rel.ends_with(".yaml") || rel.ends_with(".yml") {
        return put(Entry { facts: yaml::scan_yaml(rel, &text), chunks: None });
    }
    if rel.ends_with(".ipynb") {
        let nb = notebook::Notebook::read(&text).ok_or_else(|| (rel.to_string(), SkipReason::NotNotebook))?;
        if nb.code.len() as u64 > MAX_FILE_BYTES {
            return Err((rel.to_string(), SkipReason::TooLarge(MAX_FILE_BYTES >> 20)));
        }
        too_deep(rel, &nb.code)?;
        let mut facts = python::scan_source(rel, &nb.code);
        tree_too_deep(rel, &facts)?;
        nb.place_facts(&mut facts);
        return put(Entry { facts, chunks: None });
    }
    // the previous version's unchanged statements keep their facts
    let read;
    let old = match prior {
        Prior::None => None,
        Prior::Key(k) => {
            read = cache.and_then(|c| c.get_entry(k));
            read.as_ref()
        }
        Prior::Entry(e) => Some(e),
    };
    if let Some((facts, chunks)) = old.and_then(|e| chunks::rescan(rel, &text, &e.facts, e.chunks.as_deref()?)) {
        return put(Entry { facts, chunks: Some(chunks) });
    }
    // chunks are only worth finding for a cache entry
    let (facts, chunks) = if cache.is_some() { python::scan_source_chunked(rel, &text) } else { (python::scan_source(rel, &text), None) };
    tree_too_deep(rel, &facts)?;
    put(Entry { facts, chunks })
}

/// The files' scans gathered into facts (skipped files become warnings; JSON files, read
/// later when named, leave nothing), and each file's cache key in order.
pub fn gather(scanned: Vec<Scanned>) -> (Facts, Vec<Option<String>>) {
    let mut facts = Facts::default();
    let mut keys = Vec::with_capacity(scanned.len());
    for (r, key) in scanned {
        keys.push(key);
        match r {
            Ok(f) if f.path.is_empty() => {}
            Ok(f) => facts.files.push(f),
            Err(w) => facts.warnings.push(w),
        }
    }
    (facts, keys)
}

/// The facts of the given files, without the data files they name.
pub fn scan_files(root: &Path, paths: &[String], cache: Option<&dyn FactsStore>) -> Facts {
    // a line on the terminal when the scan takes more than a second (a large project)
    let progress = crate::progress::Progress::new("files read", paths.len());
    let scanned = paths
        .par_iter()
        .map(|rel| {
            let r = scan_file(root, rel, cache, Prior::None);
            progress.step();
            r
        })
        .collect();
    drop(progress);
    gather(scanned).0
}

/// JSON configs and CSV/TSV files the Python code names by a literal path.
pub fn read_referenced_data(root: &Path, facts: &mut Facts) {
    let refs: Vec<(&str, String)> = facts
        .files
        .iter()
        .filter(|f| !f.path.ends_with(".yaml") && !f.path.ends_with(".yml"))
        .flat_map(|f| data::referenced_paths(f).into_iter().map(move |p| (f.path.as_str(), p)))
        .collect();
    // configs and data the project's run scripts pass on a command line (`python -m pkg.train
    // --config configs/small.json` in run.sh or a Makefile): a flag with no default takes them
    let scripts = run_script_refs(root);
    let mut refs = refs;
    refs.extend(scripts.iter().map(|(rel, p)| (rel.as_str(), p.clone())));
    // a data path held in a config (`data_path: data/intents.csv`, `intents: data/intents.json`)
    for f in facts.files.iter().filter(|f| f.path.ends_with(".yaml") || f.path.ends_with(".yml") || f.is_config()) {
        for a in &f.assigns {
            let v = a.value.trim().trim_matches(|c| c == '"' || c == '\'');
            if data::names_data_file(v) && !v.contains(['{', '*', '\n']) {
                refs.push((f.path.as_str(), v.to_string()));
            }
        }
    }
    let data = read_data(root, refs.iter().map(|(f, p)| (*f, p.as_str())));
    facts.files.extend(data);
}

/// The config and data paths the project's run scripts pass on their command lines, each with
/// the script that names it (read by the scan and by the cached lint alike).
pub fn run_script_refs(root: &Path) -> Vec<(String, String)> {
    // (each script names itself: its flags are read as the run's settings)
    run_script_paths(root)
        .into_iter()
        .flat_map(|(rel, text)| {
            let own = rel.clone();
            data::script_paths(&text).into_iter().chain(std::iter::once(own)).map(move |p| (rel.clone(), p))
        })
        .collect()
}

/// The project's run scripts, with their text: shell scripts and Makefiles at the top level and
/// in `scripts/` (at most 32, each at most 256 KB).
fn run_script_paths(root: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in ["", "scripts"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
        let mut names: Vec<String> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".sh") || matches!(n.as_str(), "Makefile" | "makefile" | "GNUmakefile" | "justfile"))
            .collect();
        names.sort();
        for name in names {
            let rel = if dir.is_empty() { name } else { format!("{dir}/{name}") };
            let full = root.join(&rel);
            if out.len() >= 32 || !std::fs::metadata(&full).is_ok_and(|m| m.len() <= 256 << 10) || !data::inside(root, &full) {
                continue;
            }
            if let Some(text) = std::fs::read(&full).ok().and_then(|b| String::from_utf8(b).ok()) {
                out.push((rel, text));
            }
        }
    }
    out
}

/// The data files named by `refs` (naming file, literal path), in path order: JSON, INI and
/// TOML configs and CSV/TSV files.
pub fn read_data<'a>(root: &Path, refs: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<FileFacts> {
    let mut wanted = std::collections::BTreeSet::new();
    for (from, p) in refs {
        if let Some(rel) = data::resolve_reference(root, from, p) {
            wanted.insert(rel);
        }
    }
    let mut out = Vec::new();
    for rel in wanted {
        let full = root.join(&rel);
        // configs read whole as text (JSON, INI, TOML), up to the same size
        let config: Option<fn(&str, &str) -> FileFacts> = if rel.ends_with(".json") {
            Some(data::scan_json)
        } else if facts::is_run_script_path(&rel) {
            Some(data::scan_script)
        } else if ini::is_settings_path(&rel) {
            Some(ini::scan_settings)
        } else {
            None
        };
        if let Some(scan) = config {
            if std::fs::metadata(&full).map_or(true, |m| m.len() > data::MAX_JSON_BYTES) {
                continue;
            }
            if let Some(text) = std::fs::read(&full).ok().and_then(|b| String::from_utf8(b).ok()) {
                out.push(scan(&rel, &text));
            }
        } else if let Some(f) = data::scan_csv(&rel, &full) {
            out.push(f);
        }
    }
    out
}
