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
