//! How much of a cold scan is tree-sitter itself: over every `.py` file of a tree (read into
//! memory first), on all cores, (1) parse only, (2) parse and run the queries of
//! `grammars/python/*.scm` without building facts, (3) the full per-file scan
//! (`scan::python::scan_source`). bench/lint.sh runs it beside ruff on the same tree.
//! Usage: cargo bench --bench scan_floor -- TREE

mod common;

use std::path::Path;
use std::time::Instant;

use common::python_files;

use rayon::prelude::*;
use tree_sitter::{Parser, Query, QueryCursor, StreamingIterator};

fn parser() -> Parser {
    let mut p = Parser::new();
    p.set_language(&tree_sitter_python::LANGUAGE.into()).expect("grammar matches tree-sitter");
    p
}

fn main() {
    let Some(root) = std::env::args().skip(1).find(|a| !a.starts_with('-')) else {
        eprintln!("usage: cargo bench --bench scan_floor -- TREE");
        std::process::exit(2);
    };
    let mut paths = Vec::new();
    python_files(Path::new(&root), &mut paths);
    let texts: Vec<String> = paths.iter().filter_map(|p| std::fs::read(p).ok()).filter_map(|b| String::from_utf8(b).ok()).collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    let scm: Vec<String> = ["calls", "definitions", "assignments", "flow"]
        .iter()
        .map(|f| std::fs::read_to_string(format!("{}/grammars/python/{f}.scm", env!("CARGO_MANIFEST_DIR"))).expect("query file"))
        .collect();
    let query = Query::new(&tree_sitter_python::LANGUAGE.into(), &scm.join("\n")).expect("queries compile");
    println!("{} files, {:.1} MB, {} threads", texts.len(), bytes as f64 / 1e6, rayon::current_num_threads());

    let t = Instant::now();
    let nodes: usize = texts.par_iter().map_init(parser, |p, s| p.parse(s, None).map_or(0, |t| t.root_node().child_count())).sum();
    println!("parse only: {:.2} s ({nodes} top-level nodes)", t.elapsed().as_secs_f64());

    let t = Instant::now();
    let captures: usize = texts
        .par_iter()
        .map_init(parser, |p, s| {
            let Some(tree) = p.parse(s, None) else { return 0 };
            let mut cursor = QueryCursor::new();
            let mut m = cursor.matches(&query, tree.root_node(), s.as_bytes());
            let mut n = 0;
            while let Some(x) = m.next() {
                n += x.captures.len();
            }
            n
        })
        .sum();
    println!("parse + queries: {:.2} s ({captures} captures)", t.elapsed().as_secs_f64());

    let t = Instant::now();
    let facts: usize =
        texts.par_iter().enumerate().map(|(i, s)| cudasleuth::scan::python::scan_source(&i.to_string(), s).calls.len()).sum();
    println!("full scan (facts): {:.2} s ({facts} calls)", t.elapsed().as_secs_f64());
}
