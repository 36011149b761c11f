//! What the benches share.

use std::path::{Path, PathBuf};

/// Every `.py` file below `root`, without following links.
pub fn python_files(root: &Path, out: &mut Vec<PathBuf>) {
    let Ok(dir) = std::fs::read_dir(root) else { return };
    for e in dir.flatten() {
        let p = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => python_files(&p, out),
            Ok(t) if t.is_file() && p.extension().is_some_and(|x| x == "py") => out.push(p),
            _ => {}
        }
    }
}
