//! A lint run on some files (pre-commit) reads the other files' facts only where a rule needs
//! them. It must find exactly what a whole-project run finds in those files: checked here on
//! every project of the recall corpus, with each file in turn as the one given, and with all
//! files given at once.

mod common;

use common::{key, lazy, projects};
use cudasleuth::analysis::project::Files;
use cudasleuth::rules::{self, Finding};
use cudasleuth::scan::{self, facts::Facts, files::ProjectFiles};

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v.dedup();
    v
}

/// A run with file `i` given: its findings in that file (whole: the whole-project run's), and how
/// many files it read.
fn given(facts: &Facts, whole: &[Finding], i: usize) -> (Vec<String>, Vec<String>, usize) {
    let project = lazy(facts);
    let mut focus = vec![false; facts.files.len()];
    focus[i] = true;
    let got = rules::run(&Files::of_project(&project, Some(focus)));
    let path = &facts.files[i].path;
    let in_file = |v: &[Finding]| sorted(v.iter().filter(|f| &f.file == path).map(key).collect());
    (in_file(&got), in_file(whole), project.loaded())
}

#[test]
fn a_run_on_some_files_finds_what_a_whole_project_run_finds_there() {
    let mut compared = 0;
    let mut found = 0;
    for root in projects() {
        let facts = scan::scan_project(&root, &ProjectFiles::walk(&root));
        let whole: Vec<Finding> = rules::run_all(&facts);
        let n = facts.files.len();
        for i in 0..n {
            let (got, want, _) = given(&facts, &whole, i);
            assert_eq!(got, want, "{} with {} given", root.display(), facts.files[i].path);
            compared += 1;
            found += want.len();
        }
        // every file given: the same findings as the whole-project run
        let project = lazy(&facts);
        let got = rules::run(&Files::of_project(&project, Some(vec![true; n])));
        assert_eq!(sorted(got.iter().map(key).collect()), sorted(whole.iter().map(key).collect()), "{}", root.display());
    }
    assert!(compared > 50 && found > 15, "{compared} files compared, {found} findings");
}

#[test]
fn a_run_on_one_file_reads_few_others() {
    // a fixture project among many modules no rule needs: giving one file reads a few others
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/projects/001-unet-mask-classes");
    let mut facts = scan::scan_project(&root, &ProjectFiles::walk(&root));
    let own = facts.files.len();
    for k in 0..60 {
        let src = format!("import torch.nn as nn\nfrom .common import helper\nSCALE = {k}\n\ndef step(x, n=2):\n    y = helper(x) * SCALE\n    for i in range(n):\n        y = y + i\n    return y\n\nclass Block{k}(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.proj = nn.Linear(8, 8)\n");
        facts.files.push(cudasleuth::scan::python::scan_source(&format!("pkg/block{k}.py"), &src));
    }
    let whole = rules::run_all(&facts);
    let n = facts.files.len();
    for i in 0..own {
        let (got, want, read) = given(&facts, &whole, i);
        assert_eq!(got, want);
        assert!(read <= own, "{} given: {read} of {n} files read", facts.files[i].path);
    }
}
