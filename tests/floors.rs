//! The one-way floors (docs/architecture.md): every `crate::` path in a module of `src/` must
//! name its own module or one of the edges allowed below, one line an edge. An edge that is
//! not listed (a module reaching up a floor, or sideways where the table does not allow it)
//! fails the test with the file and line; so does a cycle in the table itself.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// (module, a module it may import). `timings` is a process utility that imports nothing of
/// the crate; any module may use it.
const ALLOWED: &[(&str, &str)] = &[
    // floor 1: log, kb, scan read the inputs into the model's types
    ("log", "model"),
    ("kb", "model"),
    ("scan", "model"),
    // floor 2: value tracing over the scan's facts
    ("analysis", "model"),
    ("analysis", "scan"),
    // floor 3: the rules, on the analysis
    ("rules", "model"),
    ("rules", "scan"),
    ("rules", "analysis"),
    // floor 4: the join of log, facts, findings and witness
    ("rank", "model"),
    ("rank", "log"),
    ("rank", "kb"),
    ("rank", "scan"),
    ("rank", "analysis"),
    ("rank", "rules"),
    // floor 5: running the command under the shim, and the replay
    ("repro", "model"),
    ("repro", "log"),
    ("repro", "kb"),
    ("repro", "scan"),
    ("repro", "rank"),
    // floor 6: rendering
    ("report", "model"),
    ("report", "log"),
    ("report", "kb"),
    ("report", "scan"),
    ("report", "rules"),
    ("report", "rank"),
    // floor 7: the front ends
    ("lint", "model"),
    ("lint", "scan"),
    ("lint", "analysis"),
    ("lint", "rules"),
    ("lint", "report"),
    ("explain", "model"),
    ("explain", "log"),
    ("explain", "kb"),
    ("explain", "scan"),
    ("explain", "rank"),
    ("explain", "repro"),
    ("explain", "report"),
];

const UTILITIES: &[&str] = &["timings", "progress"];

/// Every `crate::<module>` a source file names, with its line (comments skipped).
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let tail = &rest[at + "crate::".len()..];
            let name: String = tail.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if let Some(items) = tail.strip_prefix('{') {
                // `use crate::{a, b::c}`
                let inner = items.split('}').next().unwrap_or("");
                for part in inner.split(',') {
                    let m: String = part.trim().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                    if !m.is_empty() {
                        out.push((i + 1, m));
                    }
                }
            } else if !name.is_empty() {
                out.push((i + 1, name));
            }
            rest = tail;
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module a file of `src/` belongs to (`src/rank/confirm.rs` → `rank`); None for the
/// binary's own files (`main.rs`, `cli/`), which use the library through its public paths.
fn module_of(rel: &Path) -> Option<String> {
    let first = rel.components().next()?.as_os_str().to_string_lossy().to_string();
    let m = first.trim_end_matches(".rs").to_string();
    (m != "main" && m != "cli" && m != "lib").then_some(m)
}

#[test]
fn no_module_imports_from_a_floor_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let allowed: BTreeSet<(&str, &str)> = ALLOWED.iter().copied().collect();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut bad = Vec::new();
    let mut modules = BTreeSet::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let Some(from) = module_of(rel) else { continue };
        modules.insert(from.clone());
        let text = std::fs::read_to_string(f).unwrap();
        for (line, to) in crate_paths(&text) {
            if to == from || UTILITIES.contains(&to.as_str()) {
                continue;
            }
            if UTILITIES.contains(&from.as_str()) || !allowed.contains(&(from.as_str(), to.as_str())) {
                bad.push(format!("src/{}:{line}: {from} -> {to}", rel.display()));
            }
        }
    }
    assert!(bad.is_empty(), "imports not in the allowed edges (tests/floors.rs):\n{}", bad.join("\n"));
    // every module of the table exists, so the table cannot drift from the tree
    for (a, b) in ALLOWED {
        assert!(modules.contains(*a) && modules.contains(*b), "the table names a module src/ does not have: {a} -> {b}");
    }
}

#[test]
fn the_allowed_edges_have_no_cycle() {
    let mut graph: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in ALLOWED {
        graph.entry(a).or_default().push(b);
    }
    // depth-first search with colours: 1 on the path, 2 done
    fn visit<'a>(n: &'a str, g: &BTreeMap<&'a str, Vec<&'a str>>, colour: &mut BTreeMap<&'a str, u8>, path: &mut Vec<&'a str>) {
        match colour.get(n) {
            Some(2) => return,
            Some(1) => panic!("cycle in the allowed edges: {} -> {n}", path.join(" -> ")),
            _ => {}
        }
        colour.insert(n, 1);
        path.push(n);
        for m in g.get(n).into_iter().flatten() {
            visit(m, g, colour, path);
        }
        path.pop();
        colour.insert(n, 2);
    }
    let mut colour = BTreeMap::new();
    for n in graph.keys() {
        visit(n, &graph, &mut colour, &mut Vec::new());
    }
}

#[test]
fn the_checker_sees_an_upward_import() {
    // the scanner itself: a `crate::` path in code is found, one in a comment is not
    let found = crate_paths("use crate::report::human;\n// crate::lint\nlet x = crate::{model, rank::confirm};");
    assert_eq!(found, vec![(1, "report".into()), (3, "model".into()), (3, "rank".into())]);
    assert!(!ALLOWED.contains(&("log", "report")));
}

#[test]
fn the_report_floor_reads_nothing() {
    // rendering only: what the renderers quote from the project is read below them (`rank::quote`)
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/report");
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for io in ["std::fs", "canonicalize", "current_dir", "ProjectFiles::walk", "read_all("] {
                assert!(!code.contains(io), "{}:{}: the report floor reads `{io}`", f.display(), i + 1);
            }
        }
    }
}
