// Lists the embedded files (grammars/kernels/*.toml, the shim package's modules) so that adding one needs no code change.
use std::fmt::Write as _;
use std::path::Path;

fn main() {
    // The executable at a fixed address on Linux: a position-independent one spends part of
    // every start relocating some 16,000 pointers (and copying the pages they sit on), a
    // noticeable share of a pre-commit run on a few files.
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    embed("grammars/kernels", ".toml", "FILES", "kernel_files.rs");
    // the shim package's modules, for `repro` to write out: splitting or adding a module needs
    // no code change
    embed("python/cudasleuth_shim", ".py", "SHIM_FILES", "shim_files.rs");
    source_stamp();
}

/// Writes `OUT_DIR/source_stamp.rs`: `CACHE_VERSION`, the package version and a hash of every file under `src/` and `grammars/`, so a lint
/// cache written by another build of the same version (whose scan may lower Python differently)
/// is read as stale, not trusted.
fn source_stamp() {
    use std::hash::{Hash, Hasher};
    fn walk(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
        println!("cargo:rerun-if-changed={}", dir.display());
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        for e in rd.filter_map(|e| e.ok()) {
            let p = e.path();
            if p.is_dir() {
                walk(&p, files);
            } else {
                files.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(Path::new("src"), &mut files);
    walk(Path::new("grammars"), &mut files);
    files.sort();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for f in &files {
        f.hash(&mut h);
        std::fs::read(f).unwrap_or_default().hash(&mut h);
    }
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("source_stamp.rs");
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    std::fs::write(dest, format!("pub const CACHE_VERSION: &str = \"{version}+{:016x}\";\n", h.finish())).unwrap();
}

/// Writes `OUT_DIR/<out_name>`: a constant `name` listing every file of `dir` whose name ends with
/// `ext`, as (file name, its text through include_str!), sorted by name.
fn embed(dir: &str, ext: &str, name: &str, out_name: &str) {
    let dir = Path::new(dir);
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).filter(|n| n.ends_with(ext)).collect())
        .unwrap_or_default();
    names.sort();
    let mut out = format!("pub const {name}: &[(&str, &str)] = &[\n");
    for n in &names {
        println!("cargo:rerun-if-changed={}/{n}", dir.display());
        let abs = std::fs::canonicalize(dir.join(n)).expect("embedded file path");
        writeln!(out, "    ({n:?}, include_str!({:?})),", abs.display().to_string()).unwrap();
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join(out_name);
    std::fs::write(dest, out).unwrap();
}
