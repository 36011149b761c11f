//! Logs come from other machines: `/home/u/job42/proj/data/dataset.py` in a traceback is
//! `data/dataset.py` in the project at hand. A frame maps to the project file that shares the
//! longest run of trailing path components with it; a tie maps to nothing rather than a guess.

use std::path::Path;

/// The project's Python files (and notebooks, YAML and small JSON configs), as POSIX paths
/// relative to its root.
pub struct ProjectFiles {
    files: Vec<String>,
    /// What the walk could not enter or read, or left out (path, why): said as warnings.
    pub problems: Vec<(String, String)>,
}

/// The most files a walk lists (a home directory given as the project would take minutes).
const MAX_FILES: usize = 200_000;

const SKIP_DIRS: &[&str] =
    &["site-packages", "dist-packages", "node_modules", "__pycache__", ".git", ".venv", "venv", ".tox", ".mypy_cache"];

/// The path an error of the walk is about.
fn error_path(e: &ignore::Error) -> Option<&Path> {
    match e {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => error_path(err),
        ignore::Error::Loop { child, .. } => Some(child),
        ignore::Error::Partial(errs) => errs.iter().find_map(error_path),
        _ => None,
    }
}

/// An error of the walk in a few words (the system's message, without the path).
fn walk_error_text(e: &ignore::Error) -> String {
    match e {
        ignore::Error::WithPath { err, .. } | ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            walk_error_text(err)
        }
        ignore::Error::Io(io) if io.kind() == std::io::ErrorKind::PermissionDenied => {
            "not readable (permission denied): its files were not scanned".into()
        }
        ignore::Error::Loop { .. } => "a link loop".into(),
        other => format!("not walked: {other}"),
    }
}

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
                !(e.file_type().is_some_and(|t| t.is_dir()) && (SKIP_DIRS.contains(&name.as_ref()) || e.path().join("pyvenv.cfg").exists()))
            })
            .build();
        let mut problems = Vec::new();
        for entry in walker {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    // an unreadable directory (or a link loop): said, not skipped silently
                    let path = error_path(&e).and_then(|p| p.strip_prefix(root).ok().map(|r| r.display().to_string()));
                    problems.push((path.unwrap_or_else(|| root.display().to_string()), walk_error_text(&e)));
                    continue;
                }
            };
            let p = entry.path();
            let rel = || {
                p.strip_prefix(root)
                    .ok()
                    .map(|r| r.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect::<Vec<_>>().join("/"))
            };
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
            if files.len() >= MAX_FILES {
                problems.push((root.display().to_string(), format!("more than {MAX_FILES} files: the rest of the tree was not walked")));
                break;
            }
        }
        files.sort();
        let ignores = ignore_files(root, dirs.iter().map(|(d, _)| d.as_str()));
        let settled = |t: Option<u64>| {
            t.is_some_and(|t| started.duration_since(std::time::UNIX_EPOCH).is_ok_and(|now| now.as_nanos() as u64 >= t + RACY_NS))
        };
        // the record's files are the walk's (`WalkRecord::with_files` writes them together)
        let record = WalkRecord { files: Vec::new(), dirs, json_over, ignores };
        let trusted = files.len() < MAX_FILES
            && problems.is_empty()
            && record.dirs.iter().all(|(_, t)| settled(*t))
            && record.ignores.iter().chain(&record.json_over).all(|(_, s)| s.map_or(true, |s| settled(Some(s.1))));
        (ProjectFiles { files, problems }, trusted.then_some(record))
    }

    pub fn from_list(mut files: Vec<String>) -> ProjectFiles {
        files.sort();
        ProjectFiles { files, problems: Vec::new() }
    }

    /// The files, in path order.
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

/// A project root held open, to look at files by their path relative to it: each look then
/// resolves the path's own components only, not the root's from `/` again (a tenth of the
/// time of statting a large project's files, a pre-commit run's largest fixed cost).
pub struct RootDir {
    path: std::path::PathBuf,
    #[cfg(unix)]
    dir: Option<std::fs::File>,
}

impl RootDir {
    pub fn open(root: &Path) -> RootDir {
        RootDir {
            path: root.to_path_buf(),
            #[cfg(unix)]
            dir: std::fs::File::open(root).ok(),
        }
    }

    /// The size and modification time (nanoseconds since the epoch) of `rel`, a relative POSIX
    /// path ("" is the root itself); `follow`: through a final symbolic link. None when it is
    /// not there (or older than the epoch).
    pub fn stat(&self, rel: &str, follow: bool) -> Option<(u64, u64)> {
        #[cfg(unix)]
        if let Some(dir) = &self.dir {
            use std::os::fd::AsRawFd;
            // the path NUL-terminated, on the stack when it fits
            let mut buf = [0u8; 512];
            let owned;
            let name: &std::ffi::CStr = if rel.is_empty() {
                c"."
            } else if rel.len() < buf.len() && !rel.as_bytes().contains(&0) {
                buf[..rel.len()].copy_from_slice(rel.as_bytes());
                std::ffi::CStr::from_bytes_until_nul(&buf).ok()?
            } else {
                owned = std::ffi::CString::new(rel).ok()?;
                &owned
            };
            let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
            let flags = if follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
            // SAFETY: `name` is NUL-terminated and `st` is written by the call before it is read
            if unsafe { libc::fstatat(dir.as_raw_fd(), name.as_ptr(), st.as_mut_ptr(), flags) } != 0 {
                return None;
            }
            let st = unsafe { st.assume_init() };
            let secs = u64::try_from(st.st_mtime).ok()?;
            return Some((st.st_size as u64, secs * 1_000_000_000 + st.st_mtime_nsec as u64));
        }
        let p = if rel.is_empty() { self.path.clone() } else { self.path.join(rel) };
        let m = if follow { std::fs::metadata(&p) } else { std::fs::symlink_metadata(&p) }.ok()?;
        Some((m.len(), m.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos() as u64))
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
    paths
        .into_iter()
        .map(|p| {
            let s = stamp(&p);
            (p.to_string_lossy().into_owned(), s)
        })
        .collect()
}

/// What a walk saw, to tell later without walking whether a walk would find the same files:
/// the modification time of every directory it entered (adding, removing or renaming an entry
/// changes it), the ignore files it honoured, and the JSON files it left out for their size.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct WalkRecord {
    files: Vec<String>,
    /// Project-relative directories ("" is the root) and their modification times.
    dirs: Vec<(String, Option<u64>)>,
    json_over: Vec<(String, Option<(u64, u64)>)>,
    ignores: Vec<(String, Option<(u64, u64)>)>,
}

impl WalkRecord {
    /// Whether no directory, ignore file or large JSON file the walk saw has changed.
    pub fn unchanged(&self, root: &RootDir) -> bool {
        use rayon::prelude::*;
        self.dirs.par_iter().all(|(d, t)| root.stat(d, false).map(|s| s.1) == *t)
            && self.ignores.par_iter().all(|(p, s)| stamp(Path::new(p)) == *s)
            && self.json_over.iter().all(|(p, s)| root.stat(p, true) == *s)
    }

    /// The files the walk found (none once taken).
    pub fn files(&self) -> &[String] {
        &self.files
    }

    /// The files the walk found, taken from the record.
    pub fn take_files(&mut self) -> ProjectFiles {
        ProjectFiles { files: std::mem::take(&mut self.files), problems: Vec::new() }
    }

    /// The record with the files of its walk, to write (in `WalkRecord`'s layout).
    pub fn with_files<'a>(&'a self, files: &'a ProjectFiles) -> WalkOut<'a> {
        WalkOut { files: &files.files, dirs: &self.dirs, json_over: &self.json_over, ignores: &self.ignores }
    }
}

/// A `WalkRecord` as it is written, with the files of its walk.
#[derive(serde::Serialize)]
pub struct WalkOut<'a> {
    files: &'a [String],
    dirs: &'a [(String, Option<u64>)],
    json_over: &'a [(String, Option<(u64, u64)>)],
    ignores: &'a [(String, Option<(u64, u64)>)],
}

/// Simple globs: `*` within a path segment, `**` across, a trailing `/` for a directory.
pub fn glob_match(pattern: &str, path: &str) -> bool {
    if let Some(dir) = pattern.strip_suffix('/') {
        return path == dir || path.starts_with(&format!("{dir}/")) || glob_match(&format!("{dir}/**"), path);
    }
    // a pattern without a directory matches a file's name anywhere (`*_pb2.py`)
    shell_glob_match(pattern, path) || (!pattern.contains('/') && shell_glob_match(pattern, path.rsplit('/').next().unwrap_or(path)))
}

/// A glob as the shell matches it (bash with globstar): `*` and `?` stay within a directory,
/// `**` is zero or more of them; the whole path must match.
pub fn shell_glob_match(pattern: &str, path: &str) -> bool {
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .is_ok_and(|g| g.compile_matcher().is_match(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_errors_name_their_path_and_say_why() {
        let denied = ignore::Error::WithPath {
            path: std::path::PathBuf::from("/p/secret"),
            err: Box::new(ignore::Error::Io(std::io::Error::from(std::io::ErrorKind::PermissionDenied))),
        };
        let deep = ignore::Error::WithDepth { depth: 2, err: Box::new(denied) };
        assert_eq!(error_path(&deep), Some(Path::new("/p/secret")));
        assert!(walk_error_text(&deep).contains("permission denied"), "{}", walk_error_text(&deep));
    }

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
        // a record as a summary keeps it: written with the walk's files, read back
        let recorded = |root: &Path| -> Option<WalkRecord> {
            let (files, record) = ProjectFiles::walk_recorded(root);
            Some(bincode::deserialize(&bincode::serialize(&record?.with_files(&files)).unwrap()).unwrap())
        };
        assert_eq!(ProjectFiles::walk_recorded(&root).0.paths(), ["a.py", "sub/b.py"]);
        let mut record = recorded(&root).expect("an hour-old tree is recorded");
        let dir = RootDir::open(&root);
        assert!(record.unchanged(&dir));
        assert_eq!(record.take_files().paths(), ["a.py", "sub/b.py"]);
        // an edited file changes no directory: the list stands (its stamp is the summary's business)
        std::fs::write(root.join("a.py"), "x = 2\n").unwrap();
        assert!(record.unchanged(&dir));
        // a new file in a subdirectory
        std::fs::write(root.join("sub/c.py"), "z = 3\n").unwrap();
        assert!(!record.unchanged(&dir));
        settle();
        age(&root.join("sub/c.py"));
        let mut record = recorded(&root).unwrap();
        assert!(record.unchanged(&dir));
        assert_eq!(record.take_files().paths(), ["a.py", "sub/b.py", "sub/c.py"]);
        // an edited .gitignore (its directory's time unchanged) can hide files
        std::fs::write(root.join(".gitignore"), "sub/\n").unwrap();
        age(&root);
        assert!(!record.unchanged(&dir));
        // a tree changed just now is not recorded at all
        std::fs::write(root.join("d.py"), "w = 4\n").unwrap();
        assert!(ProjectFiles::walk_recorded(&root).1.is_none());
        let _ = std::fs::remove_dir_all(&root);
    }
}
