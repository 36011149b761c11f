//! Logs come from other machines: `/home/u/job42/proj/data/dataset.py` in a traceback is
//! `data/dataset.py` in the project at hand. A frame maps to the project file that shares the
//! longest run of trailing path components with it; a tie maps to nothing rather than a guess.

use std::path::Path;

/// The project's Python files (and notebooks, YAML and small JSON configs), as POSIX paths
/// relative to its root.
pub struct ProjectFiles {
    files: Vec<String>,
}

const SKIP_DIRS: &[&str] = &["site-packages", "dist-packages", "node_modules", "__pycache__", ".git", ".venv", "venv", ".tox", ".mypy_cache"];

impl ProjectFiles {
    /// Walks the project honouring .gitignore, skipping virtualenvs and never following a link.
    pub fn walk(root: &Path) -> ProjectFiles {
        Self::walk_recorded(root).0
    }

    /// `walk`, and what it saw (`WalkRecord`), when nothing it depends on changed in the last
    /// two seconds (a change within the file system's timestamp granularity could go unseen).
    pub fn walk_recorded(root: &Path) -> (ProjectFiles, Option<WalkRecord>) {
        let started = std::time::SystemTime::now();
        let mut files = Vec::new();
        let mut dirs = Vec::new();
        let mut json_over = Vec::new();
        let walker = ignore::WalkBuilder::new(root)
            .follow_links(false)
            .hidden(true)
            .filter_entry(|e| {
                let name = e.file_name().to_string_lossy();
                !(e.file_type().is_some_and(|t| t.is_dir())
                    && (SKIP_DIRS.contains(&name.as_ref()) || e.path().join("pyvenv.cfg").exists()))
            })
            .build();
        for entry in walker.flatten() {
            let p = entry.path();
            let rel = || p.strip_prefix(root).ok().map(|r| r.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect::<Vec<_>>().join("/"));
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                if let Some(r) = rel() {
                    dirs.push((r, mtime_ns(p)));
                }
                continue;
            }
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            match p.extension().and_then(|x| x.to_str()) {
                Some("py" | "ipynb" | "yaml" | "yml") => {}
                // small JSON files: configs, read when the code names them (crate::scan::data)
                Some("json") => {
                    if !entry.metadata().is_ok_and(|m| m.len() <= crate::scan::data::MAX_JSON_BYTES) {
                        if let Some(r) = rel() {
                            json_over.push((r, stamp(p)));
                        }
                        continue;
                    }
                }
                _ => continue,
            }
            if let Some(r) = rel() {
                files.push(r);
            }
            if files.len() >= 200_000 {
                break;
            }
        }
        files.sort();
        let ignores = ignore_files(root, dirs.iter().map(|(d, _)| d.as_str()));
        let settled = |t: Option<u64>| t.is_some_and(|t| started.duration_since(std::time::UNIX_EPOCH).is_ok_and(|now| now.as_nanos() as u64 >= t + RACY_NS));
        let record = WalkRecord { files: files.clone(), dirs, json_over, ignores };
        let trusted = files.len() < 200_000
            && record.dirs.iter().all(|(_, t)| settled(*t))
            && record.ignores.iter().chain(&record.json_over).all(|(_, s)| s.map_or(true, |s| settled(Some(s.1))));
        (ProjectFiles { files }, trusted.then_some(record))
    }

    pub fn from_list(files: Vec<String>) -> ProjectFiles {
        ProjectFiles { files }
    }

    pub fn paths(&self) -> &[String] {
        &self.files
    }

    /// The project path of a traceback file, if one file matches best.
    pub fn resolve(&self, frame_file: &str) -> Option<String> {
        let wanted: Vec<&str> = frame_file.split(['/', '\\']).filter(|c| !c.is_empty()).collect();
        let mut best: Option<(usize, &String)> = None;
        let mut tie = false;
        for f in &self.files {
            let n = f.rsplit('/').zip(wanted.iter().rev()).take_while(|(a, b)| a == *b).count();
            if n == 0 {
                continue;
            }
            match best {
                Some((b, _)) if n < b => {}
                Some((b, _)) if n == b => tie = true,
                _ => {
                    best = Some((n, f));
                    tie = false;
                }
            }
        }
        if tie {
            return None;
        }
        best.map(|(_, f)| f.clone())
    }
}

/// Timestamps this close to the walk are not trusted (see `walk_recorded`).
const RACY_NS: u64 = 2_000_000_000;

fn mtime_ns(p: &Path) -> Option<u64> {
    let t = std::fs::symlink_metadata(p).ok()?.modified().ok()?;
    Some(t.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos() as u64)
}

/// A file's size and modification time (None: absent).
fn stamp(p: &Path) -> Option<(u64, u64)> {
    let m = std::fs::metadata(p).ok()?;
    Some((m.len(), m.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos() as u64))
}

/// The ignore files a walk of `root` honours, present or not: `.gitignore` and `.ignore` in
/// each directory walked and in each directory above the root, `.git` above the root (a
/// repository boundary), the repository's `info/exclude`, and git's global configuration and
/// excludes file.
fn ignore_files<'a>(root: &Path, dirs: impl Iterator<Item = &'a str>) -> Vec<(String, Option<(u64, u64)>)> {
    let mut paths: Vec<std::path::PathBuf> = Vec::new();
    for d in dirs {
        let dir = if d.is_empty() { root.to_path_buf() } else { root.join(d) };
        // a new ignore file changes its directory's time: only the present ones are recorded
        for name in [".gitignore", ".ignore"] {
            let p = dir.join(name);
            if p.exists() {
                paths.push(p);
            }
        }
    }
    for anc in root.ancestors().skip(1) {
        paths.extend([".gitignore", ".ignore", ".git"].map(|n| anc.join(n)));
    }
    paths.push(root.join(".git/info/exclude"));
    paths.extend(ignore::gitignore::gitconfig_excludes_path());
    if let Some(home) = std::env::var_os("HOME") {
        paths.push(Path::new(&home).join(".gitconfig"));
        paths.push(Path::new(&home).join(".config/git/config"));
    }
    if let Some(x) = std::env::var_os("XDG_CONFIG_HOME") {
        paths.push(Path::new(&x).join("git/config"));
    }
    if let Some(g) = std::env::var_os("GIT_CONFIG_GLOBAL") {
        paths.push(g.into());
    }
    paths.into_iter().map(|p| { let s = stamp(&p); (p.to_string_lossy().into_owned(), s) }).collect()
}

/// What a walk saw, to tell later without walking whether a walk would find the same files:
/// the modification time of every directory it entered (adding, removing or renaming an entry
/// changes it), the ignore files it honoured, and the JSON files it left out for their size.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct WalkRecord {
    files: Vec<String>,
    /// Project-relative directories ("" is the root) and their modification times.
    dirs: Vec<(String, Option<u64>)>,
    json_over: Vec<(String, Option<(u64, u64)>)>,
    ignores: Vec<(String, Option<(u64, u64)>)>,
}

impl WalkRecord {
    /// The files of the recorded walk, when no directory, ignore file or large JSON file it saw
    /// has changed.
    pub fn files_if_unchanged(&self, root: &Path) -> Option<ProjectFiles> {
        use rayon::prelude::*;
        let dirs_same = self.dirs.par_iter().all(|(d, t)| mtime_ns(&if d.is_empty() { root.to_path_buf() } else { root.join(d) }) == *t);
        let ignores_same = self.ignores.par_iter().all(|(p, s)| stamp(Path::new(p)) == *s);
        let json_same = self.json_over.iter().all(|(p, s)| stamp(&root.join(p)) == *s);
        (dirs_same && ignores_same && json_same).then(|| ProjectFiles { files: self.files.clone() })
    }
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_suffix_wins_and_ties_stay_unknown() {
        let p = ProjectFiles::from_list(vec!["train.py".into(), "data/dataset.py".into(), "tools/dataset.py".into(), "model.py".into()]);
        assert_eq!(p.resolve("/home/u/job42/proj/train.py").as_deref(), Some("train.py"));
        assert_eq!(p.resolve("/home/u/job42/proj/data/dataset.py").as_deref(), Some("data/dataset.py"));
        assert_eq!(p.resolve("C:\\work\\proj\\data\\dataset.py").as_deref(), Some("data/dataset.py"));
        assert_eq!(p.resolve("/elsewhere/dataset.py"), None, "two files named dataset.py: no guess");
        assert_eq!(p.resolve("/x/y/unrelated.py"), None);
    }

    /// Sets a path's modification time an hour back (so a record of it is trusted).
    fn age(p: &Path) {
        let t = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::open(p).unwrap().set_modified(t).unwrap();
    }

    #[test]
    fn a_recorded_walk_is_reused_until_a_directory_or_an_ignore_file_changes() {
        let root = std::env::temp_dir().join(format!("cudasleuth-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("a.py"), "x = 1\n").unwrap();
        std::fs::write(root.join("sub/b.py"), "y = 2\n").unwrap();
        std::fs::write(root.join(".gitignore"), "*.tmp\n").unwrap();
        let settle = || ["a.py", "sub/b.py", ".gitignore", "sub", ""].iter().for_each(|p| age(&root.join(p)));
        settle();
        let (files, record) = ProjectFiles::walk_recorded(&root);
        assert_eq!(files.paths(), ["a.py", "sub/b.py"]);
        let record = record.expect("an hour-old tree is recorded");
        assert_eq!(record.files_if_unchanged(&root).unwrap().paths(), ["a.py", "sub/b.py"]);
        // an edited file changes no directory: the list stands (its stamp is the summary's business)
        std::fs::write(root.join("a.py"), "x = 2\n").unwrap();
        assert!(record.files_if_unchanged(&root).is_some());
        // a new file in a subdirectory
        std::fs::write(root.join("sub/c.py"), "z = 3\n").unwrap();
        assert!(record.files_if_unchanged(&root).is_none());
        settle();
        age(&root.join("sub/c.py"));
        let record = ProjectFiles::walk_recorded(&root).1.unwrap();
        assert_eq!(record.files_if_unchanged(&root).unwrap().paths(), ["a.py", "sub/b.py", "sub/c.py"]);
        // an edited .gitignore (its directory's time unchanged) can hide files
        std::fs::write(root.join(".gitignore"), "sub/\n").unwrap();
        age(&root);
        assert!(record.files_if_unchanged(&root).is_none());
        // a tree changed just now is not recorded at all
        std::fs::write(root.join("d.py"), "w = 4\n").unwrap();
        assert!(ProjectFiles::walk_recorded(&root).1.is_none());
        let _ = std::fs::remove_dir_all(&root);
    }
}
