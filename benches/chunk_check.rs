//! Checks the chunked re-scan against whole-file parses over a real tree: for every `.py`
//! file, (1) whether its chunks are recorded (`scan_source_chunked`), and (2) whether parsing
//! every chunk on its own (`chunks::rescan` with nothing to reuse) gives the same facts, byte
//! for byte, as the whole-file parse. Prints the counts, the files that differ, and the time of
//! both ways. Usage: cargo bench --bench chunk_check -- TREE

use std::path::{Path, PathBuf};
use std::time::Instant;

use cudasleuth::scan::{chunks, python};
use rayon::prelude::*;

fn python_files(root: &Path, out: &mut Vec<PathBuf>) {
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

fn main() {
    let Some(root) = std::env::args().skip(1).find(|a| !a.starts_with('-')) else {
        eprintln!("usage: cargo bench --bench chunk_check -- TREE");
        std::process::exit(2);
    };
    let mut paths = Vec::new();
    python_files(Path::new(&root), &mut paths);
    let texts: Vec<(String, String)> =
        paths.iter().filter_map(|p| Some((p.to_string_lossy().into_owned(), String::from_utf8(std::fs::read(p).ok()?).ok()?))).collect();
    let t = Instant::now();
    let whole: Vec<_> = texts.par_iter().map(|(p, s)| python::scan_source_chunked(p, s)).collect();
    let whole_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let parts: Vec<_> = texts.par_iter().map(|(p, s)| chunks::rescan(p, s, &Default::default(), &[])).collect();
    let parts_s = t.elapsed().as_secs_f64();
    let (mut recorded, mut clean, mut same, mut differ) = (0, 0, 0, Vec::new());
    for (((p, _), (facts, ch)), part) in texts.iter().zip(&whole).zip(&parts) {
        recorded += ch.is_some() as usize;
        clean += !facts.parse_errors as usize;
        if let (Some(_), Some((got, _))) = (ch, part) {
            if bincode::serialize(got).unwrap() == bincode::serialize(facts).unwrap() {
                same += 1;
            } else {
                differ.push(p.clone());
            }
        }
    }
    println!("{} files; {clean} parse cleanly; chunks recorded for {recorded}", texts.len());
    println!("chunk by chunk == whole file: {same} of {recorded} recorded; differ: {}", differ.len());
    for p in differ.iter().take(20) {
        println!("  differs: {p}");
    }
    println!("whole-file scan {whole_s:.2} s; every chunk on its own {parts_s:.2} s");
}
