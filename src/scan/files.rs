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
        let mut files = Vec::new();
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
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let p = entry.path();
            match p.extension().and_then(|x| x.to_str()) {
                Some("py" | "ipynb" | "yaml" | "yml") => {}
                // small JSON files: configs, read when the code names them (crate::scan::data)
                Some("json") if entry.metadata().is_ok_and(|m| m.len() <= crate::scan::data::MAX_JSON_BYTES) => {}
                _ => continue,
            }
            if let Ok(rel) = p.strip_prefix(root) {
                let rel: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
                files.push(rel.join("/"));
            }
            if files.len() >= 200_000 {
                break;
            }
        }
        files.sort();
        ProjectFiles { files }
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
}
