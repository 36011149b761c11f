//! Checks runs on some files (as `cudasleuth lint FILE...` makes them) against the whole-project
//! run over a real tree: the tree's files are taken 20 at a time (every file once), each batch
//! given as the files of a run that reads the others' facts only when a rule asks, and its
//! findings in those files must equal the whole-project run's there — every finding, also those
//! a lint does not report (`lint: false`). Prints the batches and findings compared, the files
//! that differ, how many files the runs read on demand, and the time of a run.
//! Usage: cargo bench --bench focus_check -- TREE [BATCH]

use std::path::Path;
use std::time::Instant;

use cudasleuth::analysis::project::{Digest, Files, Project};
use cudasleuth::rules::{self, Finding};
use cudasleuth::scan::{self, files::ProjectFiles};

fn key(f: &Finding) -> String {
    format!("{} {} {:?} {} {:?} {} {}", f.rule, f.file, f.span, f.message, f.evidence, f.fingerprint, f.lint)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let Some(root) = args.first() else {
        eprintln!("usage: cargo bench --bench focus_check -- TREE [BATCH]");
        std::process::exit(2);
    };
    let batch: usize = args.get(1).and_then(|b| b.parse().ok()).unwrap_or(20);
    let root = Path::new(root);
    let facts = scan::scan_project(root, &ProjectFiles::walk(root));
    let t = Instant::now();
    let whole = rules::run_all(&facts);
    let whole_s = t.elapsed().as_secs_f64();
    let n = facts.files.len();
    let digests: Vec<Digest> = facts.files.iter().map(|f| Digest::of(f, cudasleuth::rules::MARKS)).collect();
    // batches of files spread over the tree, as a commit touches them: file i goes to batch i % k
    let k = n.div_ceil(batch).max(1);
    let (mut compared, mut findings, mut read, mut differ) = (0, 0, Vec::new(), Vec::new());
    let mut times = Vec::new();
    for b in 0..k {
        let focus: Vec<bool> = (0..n).map(|i| i % k == b).collect();
        let project = Project::new(
            facts.files.iter().map(|f| f.path.clone()).collect(),
            digests.clone(),
            (0..n).map(|_| None).collect(),
            Box::new(|i, _, _| facts.files[i].clone()),
        );
        let t = Instant::now();
        let got = rules::run(&Files::of_project(&project, Some(focus.clone())));
        times.push(t.elapsed().as_secs_f64());
        read.push(project.loaded());
        for i in (0..n).filter(|&i| focus[i]) {
            let path = &facts.files[i].path;
            let mut want: Vec<String> = whole.iter().filter(|f| &f.file == path).map(key).collect();
            let mut have: Vec<String> = got.iter().filter(|f| &f.file == path).map(key).collect();
            want.sort();
            want.dedup();
            have.sort();
            have.dedup();
            findings += want.len();
            if want != have {
                differ.push((path.clone(), want, have));
            }
            compared += 1;
        }
    }
    times.sort_by(f64::total_cmp);
    read.sort_unstable();
    println!("tree: {} ({n} files, {} findings in the whole-project run, {whole_s:.3} s)", root.display(), whole.len());
    println!("runs on {batch} files: {k}, files compared: {compared}, findings compared: {findings}, files that differ: {}", differ.len());
    println!(
        "files read on demand per run: median {}, max {} (the {batch} given are read too)",
        read[read.len() / 2],
        read[read.len() - 1]
    );
    println!("rules per run: median {:.3} s, max {:.3} s", times[times.len() / 2], times[times.len() - 1]);
    for (p, want, have) in differ.iter().take(10) {
        println!("DIFFERS {p}\n  whole: {want:?}\n  given: {have:?}");
    }
    if !differ.is_empty() {
        std::process::exit(1);
    }
}
