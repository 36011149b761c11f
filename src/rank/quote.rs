//! What the renderers will quote from the project, read here so that rendering reads nothing:
//! the files of the top suspects, the witness's places, the repository prefix.

use std::path::Path;

use crate::model::witness::Witness;
use crate::model::{Quoted, Report};

/// How many suspects a renderer shows with their source.
const QUOTED_SUSPECTS: usize = 3;

/// The quotes for `report`, from the project at `root` (None: nothing to quote).
pub fn quote(report: &Report, root: Option<&Path>) -> Quoted {
    let mut q = Quoted::default();
    if let Some(w) = report.witness.as_ref().map(Witness::of) {
        q.caught_at = w.user_frame().and_then(|f| crate::rank::confirm::frame_place(f, root, None));
        q.origin = crate::rank::confirm::provenance_line(&w, root, None).map(|(sentence, _)| sentence);
    }
    let Some(root) = root else { return q };
    for s in report.suspects.iter().take(QUOTED_SUSPECTS) {
        if !q.sources.contains_key(&s.file) {
            if let Ok(text) = std::fs::read_to_string(root.join(&s.file)) {
                q.sources.insert(s.file.clone(), text);
            }
        }
    }
    q
}

/// Where the project sits relative to the repository root (the working directory in CI), so
/// that suspects' paths (relative to `--project`) become repository paths; its absolute path
/// when it is not under the working directory.
pub fn repo_prefix(project: Option<&Path>) -> String {
    let Some(p) = project else { return String::new() };
    let cwd = std::env::current_dir().ok().and_then(|c| std::fs::canonicalize(c).ok());
    let abs = std::fs::canonicalize(p).ok();
    let rel = match (cwd, abs) {
        (Some(c), Some(a)) => a.strip_prefix(&c).map(|r| r.to_path_buf()).ok(),
        _ => None,
    };
    match rel {
        Some(r) if r.as_os_str().is_empty() => String::new(),
        Some(r) => format!("{}/", r.to_string_lossy().replace('\\', "/")),
        // a project outside the working directory: its absolute path (a path relative to the
        // project would name a file in the working directory)
        None => std::fs::canonicalize(p).map(|a| format!("{}/", a.to_string_lossy().replace('\\', "/"))).unwrap_or_default(),
    }
}
