// Lists grammars/kernels/*.toml so that adding a site file needs no code change.
use std::fmt::Write as _;
use std::path::Path;

fn main() {
    // The executable at a fixed address on Linux: a position-independent one spends part of
    // every start relocating some 16,000 pointers (and copying the pages they sit on), a
    // noticeable share of a pre-commit run on a few files.
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    let dir = Path::new("grammars/kernels");
    println!("cargo:rerun-if-changed=grammars/kernels");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).filter(|n| n.ends_with(".toml")).collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut out = String::from("pub const FILES: &[(&str, &str)] = &[\n");
    for n in &names {
        println!("cargo:rerun-if-changed=grammars/kernels/{n}");
        let abs = std::fs::canonicalize(dir.join(n)).expect("kernel file path");
        writeln!(out, "    ({n:?}, include_str!({:?})),", abs.display().to_string()).unwrap();
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("kernel_files.rs");
    std::fs::write(dest, out).unwrap();
    embed_shim();
}

/// Lists the shim package's modules (python/cudasleuth_shim/*.py) for `repro` to write out, so
/// that splitting or adding a module needs no code change.
fn embed_shim() {
    let dir = Path::new("python/cudasleuth_shim");
    println!("cargo:rerun-if-changed=python/cudasleuth_shim");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).filter(|n| n.ends_with(".py")).collect())
        .unwrap_or_default();
    names.sort();
    let mut out = String::from("pub const SHIM_FILES: &[(&str, &str)] = &[\n");
    for n in &names {
        println!("cargo:rerun-if-changed=python/cudasleuth_shim/{n}");
        let abs = std::fs::canonicalize(dir.join(n)).expect("shim file path");
        writeln!(out, "    ({n:?}, include_str!({:?})),", abs.display().to_string()).unwrap();
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("shim_files.rs");
    std::fs::write(dest, out).unwrap();
}
