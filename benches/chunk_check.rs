//! Checks the chunked re-scan against whole-file parses over a real tree: for every `.py`
//! file, (1) whether its chunks are recorded (`scan_source_chunked`), and (2) whether parsing
//! every chunk on its own (`chunks::rescan` with nothing to reuse) gives the same facts, byte
//! for byte, as the whole-file parse, and (3) whether an edited version of the file (a statement
//! added at the top, so every line moves, and the last chunk changed) re-scanned from the
//! cached facts and chunks (`chunks::rescan`) equals the whole-file parse of the edited text.
//! Prints the counts, the files that differ, and the time of the whole-file and chunk-by-chunk
//! scans. Usage: cargo bench --bench chunk_check -- TREE

mod common;

use std::path::Path;
use std::time::Instant;

use common::python_files;
use cudasleuth::scan::{chunks, python};
use rayon::prelude::*;

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
    // an edit: a statement added at the top and one at the end (the last chunk changes when the
    // file ends without a newline, else a new chunk)
    let edited: Vec<(usize, bool)> = texts
        .par_iter()
        .zip(&whole)
        .enumerate()
        .filter_map(|(i, ((p, s), (facts, ch)))| {
            let ch = ch.as_ref()?;
            let new = format!("import os\n{s}{}x_edited = 1\n", if s.ends_with('\n') || s.is_empty() { "" } else { "\n" });
            let (got, _) = chunks::rescan(p, &new, facts, ch)?;
            let want = python::scan_source(p, &new);
            Some((i, bincode::serialize(&got).unwrap() == bincode::serialize(&want).unwrap()))
        })
        .collect();
    let edited_same = edited.iter().filter(|e| e.1).count();
    println!("{} files; {clean} parse cleanly; chunks recorded for {recorded}", texts.len());
    println!("edited and re-scanned from the cached chunks == whole parse of the edited file: {edited_same} of {}", edited.len());
    for (i, _) in edited.iter().filter(|e| !e.1).take(20) {
        println!("  differs after the edit: {}", texts[*i].0);
    }
    println!("chunk by chunk == whole file: {same} of {recorded} recorded; differ: {}", differ.len());
    for p in differ.iter().take(20) {
        println!("  differs: {p}");
    }
    println!("whole-file scan {whole_s:.2} s; every chunk on its own {parts_s:.2} s");
}
