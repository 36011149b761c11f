//! `cudasleuth lint` as pre-commit and CI run it: cross-file facts, reporting only the files
//! given, configuration, suppressions, formats, and the facts cache.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cudasleuth"))
}

struct Project {
    dir: PathBuf,
    cache: PathBuf,
}

impl Project {
    fn new(name: &str) -> Project {
        let dir = std::env::temp_dir().join(format!("cudasleuth-lint-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("data")).unwrap();
        std::fs::write(dir.join("pyproject.toml"), "[project]\nname = \"demo\"\n").unwrap();
        let cache = dir.with_extension("cache");
        let _ = std::fs::remove_dir_all(&cache);
        Project { dir, cache }
    }
    fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.dir.join(rel), text).unwrap();
    }
    /// Makes `files` and the project's directories an hour old: the tree and its walk are then
    /// recorded (nothing in it changed within the last two seconds).
    fn settle(&self, files: &[&str]) {
        for f in files {
            age(&self.dir.join(f), 3600);
        }
        for d in ["data", ""] {
            let t = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
            std::fs::File::open(self.dir.join(d)).unwrap().set_modified(t).unwrap();
        }
    }
    fn lint(&self, args: &[&str]) -> Output {
        bin().arg("lint").args(args).current_dir(&self.dir).env("CUDASLEUTH_CACHE_DIR", &self.cache).output().unwrap()
    }
    fn json(&self, args: &[&str]) -> (serde_json::Value, i32) {
        let mut a = vec!["--format", "json"];
        a.extend_from_slice(args);
        let out = self.lint(&a);
        let v: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
        common::check_lint_schema(&v);
        (v, out.status.code().unwrap())
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
        let _ = std::fs::remove_dir_all(&self.cache);
    }
}

const DATASET: &str = "import torch\nfrom torch.utils.data import Dataset\n\nclass Shapes(Dataset):\n    def __init__(self, xs, ys):\n        self.xs, self.ys = xs, ys\n\n    def __len__(self):\n        return len(self.xs)\n\n    def __getitem__(self, i):\n        x, label = self.xs[i], self.ys[i]\n        if torch.rand(1) < 0.1:\n            label = label + 1\n        return x, label\n";
const MODEL: &str = "import torch.nn as nn\nfrom config import NUM_CLASSES\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(512, 9)\n\ncriterion = nn.CrossEntropyLoss()\n";

fn rules_of(v: &serde_json::Value) -> Vec<(String, String, u64)> {
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["rule"].as_str().unwrap().to_string(), d["file"].as_str().unwrap().to_string(), d["line"].as_u64().unwrap()))
        .collect()
}

#[test]
fn reports_only_the_files_given_with_cross_file_facts() {
    let p = Project::new("files");
    p.write("data/dataset.py", DATASET);
    p.write("model.py", MODEL);
    p.write("config.py", "NUM_CLASSES = 9\n");
    let (v, code) = p.json(&["data/dataset.py"]);
    assert_eq!(code, 1);
    assert_eq!(rules_of(&v), [("CS101".to_string(), "data/dataset.py".to_string(), 14)]);
    // the head in model.py is evidence for the finding in data/dataset.py
    let out = p.lint(&["--color", "never", "data/dataset.py"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("head: nn.Linear(9 outputs) at model.py:7"), "{text}");
    let (clean, code) = p.json(&["model.py", "config.py"]);
    assert_eq!((rules_of(&clean).len(), code), (0, 0), "clean files pass silently");
    let quiet = String::from_utf8(p.lint(&["model.py"]).stdout).unwrap();
    assert_eq!(quiet, "Checked 1 file: no problems found.\n", "a clean run prints its one-line summary only");
}

#[test]
fn cache_follows_a_constant_in_another_file() {
    let p = Project::new("cache");
    p.write("model.py", MODEL);
    p.write("config.py", "NUM_CLASSES = 10\n");
    let (v, _) = p.json(&["model.py"]);
    assert_eq!(rules_of(&v), [("CS102".to_string(), "model.py".to_string(), 7)]);
    assert!(std::fs::read_dir(&p.cache).map(|d| d.count() > 0).unwrap_or(false), "cache written");
    p.write("config.py", "NUM_CLASSES = 9\n");
    let (v, _) = p.json(&["model.py"]);
    assert!(rules_of(&v).is_empty(), "fixing the constant clears the finding: {v}");
    p.write("config.py", "NUM_CLASSES = 12\n");
    let (v, _) = p.json(&["model.py"]);
    assert_eq!(rules_of(&v).len(), 1);
    let (nc, _) = p.json(&["--no-cache", "model.py"]);
    assert_eq!(rules_of(&nc), rules_of(&v));
}

/// Sets a file's modification time `secs_ago` seconds in the past.
fn age(path: &std::path::Path, secs_ago: u64) {
    let t = std::time::SystemTime::now() - std::time::Duration::from_secs(secs_ago);
    std::fs::File::options().write(true).open(path).unwrap().set_modified(t).unwrap();
}

#[test]
fn summary_follows_a_constant_in_another_file() {
    let p = Project::new("summary");
    p.write("model.py", MODEL);
    p.write("config.py", "NUM_CLASSES = 10\n");
    p.write("data/dataset.py", DATASET);
    for f in ["model.py", "config.py", "data/dataset.py"] {
        age(&p.dir.join(f), 3600);
    }
    // the first run records every file's stamp and the project's results
    let (all, _) = p.json(&[]);
    let summary = std::fs::read_dir(p.cache.join(format!("facts-v5-{}", cudasleuth::scan::cache::CACHE_VERSION)))
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("summary-"))
        .expect("summary written");
    let (v, _) = p.json(&["model.py"]);
    assert_eq!(rules_of(&v), [("CS102".to_string(), "model.py".to_string(), 7)]);
    assert_eq!(rules_of(&all).len(), 2, "{all}");
    // the same size, an older time: the stamp differs, the file is read again
    p.write("config.py", "NUM_CLASSES = 9\n");
    age(&p.dir.join("config.py"), 1800);
    let (v, _) = p.json(&["model.py"]);
    assert!(rules_of(&v).is_empty(), "fixing the constant clears the finding: {v}");
    let (v, _) = p.json(&["model.py"]);
    assert!(rules_of(&v).is_empty(), "and stays cleared when the summary's results are used: {v}");
    // an edit just now is read whatever its stamp
    p.write("config.py", "NUM_CLASSES = 12\n");
    let (v, _) = p.json(&["model.py"]);
    assert_eq!(rules_of(&v).len(), 1, "{v}");
    let (v, _) = p.json(&["model.py"]);
    assert_eq!(rules_of(&v).len(), 1, "{v}");
    // a corrupt summary is rebuilt
    std::fs::write(summary.path(), "{").unwrap();
    let (v, _) = p.json(&["model.py"]);
    assert_eq!(rules_of(&v).len(), 1, "{v}");
    // a removed file takes its facts with it
    std::fs::remove_file(p.dir.join("config.py")).unwrap();
    let (v, _) = p.json(&["model.py"]);
    assert!(rules_of(&v).is_empty(), "{v}");
    let (nc, _) = p.json(&["--no-cache", "model.py"]);
    assert_eq!(rules_of(&nc), rules_of(&v));
}

#[test]
fn a_file_added_to_a_recorded_tree_is_seen() {
    let p = Project::new("walk");
    p.write("model.py", MODEL);
    p.write("config.py", "NUM_CLASSES = 9\n");
    // files and directories an hour old: the walk is recorded, and reused while no directory changes
    let settle = || p.settle(&["model.py", "config.py", "pyproject.toml"]);
    settle();
    let (v, _) = p.json(&[]);
    assert!(rules_of(&v).is_empty(), "{v}");
    let (v, _) = p.json(&[]);
    assert!(rules_of(&v).is_empty(), "{v}");
    p.write("data/dataset.py", DATASET);
    let (v, _) = p.json(&["data/dataset.py"]);
    assert_eq!(rules_of(&v), [("CS101".to_string(), "data/dataset.py".to_string(), 14)], "{v}");
    settle();
    age(&p.dir.join("data/dataset.py"), 3600);
    let (v, _) = p.json(&[]);
    assert_eq!(rules_of(&v).len(), 1, "{v}");
    std::fs::remove_file(p.dir.join("data/dataset.py")).unwrap();
    let (v, _) = p.json(&[]);
    assert!(rules_of(&v).is_empty(), "a removed file's findings go with it: {v}");
}

/// The files of the project's summary in the cache: (the summary itself, its recent changes).
fn summary_files(p: &Project) -> (bool, bool) {
    let names: Vec<String> = std::fs::read_dir(p.cache.join(format!("facts-v5-{}", cudasleuth::scan::cache::CACHE_VERSION)))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    (
        names.iter().any(|n| n.starts_with("summary-") && !n.contains('.')),
        names.iter().any(|n| n.starts_with("summary-") && n.ends_with(".recent")),
    )
}

/// How many project files a run on `args` finds changed since the summary (and its recent
/// changes) recorded them.
fn changed_files(p: &Project, args: &[&str]) -> usize {
    let out = bin()
        .arg("lint")
        .args(args)
        .current_dir(&p.dir)
        .env("CUDASLEUTH_CACHE_DIR", &p.cache)
        .env("CUDASLEUTH_TIMINGS", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err.lines().find_map(|l| l.strip_prefix("count files changed since the summary: ")).unwrap_or_else(|| panic!("{err}"));
    line.trim().parse().unwrap()
}

#[test]
fn runs_on_some_files_record_their_changes_beside_the_summary() {
    let p = Project::new("recent");
    p.write("model.py", MODEL);
    p.write("config.py", "NUM_CLASSES = 9\n");
    p.write("data/dataset.py", DATASET);
    // an hour-old tree: its walk is recorded, so runs on some files can record only changes
    p.settle(&["model.py", "config.py", "data/dataset.py", "pyproject.toml"]);
    let (v, _) = p.json(&[]);
    assert_eq!(rules_of(&v).len(), 1, "{v}");
    assert_eq!(summary_files(&p), (true, false), "a whole-project run writes the summary whole");
    // a run on model.py after config.py changed: the head now disagrees with config.py
    p.write("config.py", "NUM_CLASSES = 10\n");
    age(&p.dir.join("config.py"), 1800);
    assert_eq!(changed_files(&p, &["model.py"]), 1);
    let (v, _) = p.json(&["model.py"]);
    assert_eq!(rules_of(&v), [("CS102".to_string(), "model.py".to_string(), 7)], "{v}");
    assert_eq!(summary_files(&p), (true, true), "a run on some files writes its changes beside the summary");
    // the next runs read the summary with those changes: config.py is known as it is now, the
    // answer is the same, and a further change to the same file is seen
    assert_eq!(changed_files(&p, &["model.py"]), 0);
    let (v, _) = p.json(&["model.py"]);
    assert_eq!(rules_of(&v).len(), 1, "{v}");
    p.write("config.py", "NUM_CLASSES = 9\n\n");
    age(&p.dir.join("config.py"), 900);
    let (v, _) = p.json(&["model.py"]);
    assert!(rules_of(&v).is_empty(), "{v}");
    // a change to another file on top of the recorded ones
    p.write("data/dataset.py", &DATASET.replace("label + 1", "label"));
    age(&p.dir.join("data/dataset.py"), 900);
    let (v, _) = p.json(&["data/dataset.py"]);
    assert!(rules_of(&v).is_empty(), "{v}");
    let (v, _) = p.json(&["model.py", "data/dataset.py"]);
    assert!(rules_of(&v).is_empty(), "{v}");
    assert_eq!(changed_files(&p, &["model.py"]), 0, "both changes are recorded");
    // the cache entries of the versions edited away are kept until the summary is written whole
    let dir = p.cache.join(format!("facts-v5-{}", cudasleuth::scan::cache::CACHE_VERSION));
    let entries =
        || std::fs::read_dir(&dir).unwrap().flatten().filter(|e| !e.file_name().to_string_lossy().starts_with("summary-")).count();
    assert_eq!(entries(), 6);
    // the whole project agrees with the cache off, and its run folds the changes into the summary
    let (all, _) = p.json(&[]);
    let (nc, _) = p.json(&["--no-cache"]);
    assert_eq!(rules_of(&all), rules_of(&nc));
    assert!(rules_of(&all).is_empty(), "{all}");
    assert_eq!(summary_files(&p), (true, false));
    assert_eq!(entries(), 3, "one cache entry per file once the summary is written whole");
    // a file back at a version edited away (a revert) keeps that version's entry
    p.write("config.py", "NUM_CLASSES = 12\n");
    age(&p.dir.join("config.py"), 700);
    let (v, _) = p.json(&["model.py"]);
    assert_eq!(rules_of(&v).len(), 1, "{v}");
    p.write("config.py", "NUM_CLASSES = 9\n\n");
    age(&p.dir.join("config.py"), 650);
    let (all, _) = p.json(&[]);
    assert!(rules_of(&all).is_empty(), "{all}");
    assert_eq!(entries(), 3);
    // a damaged file of changes is of no use, and no harm
    p.write("config.py", "NUM_CLASSES = 11\n");
    age(&p.dir.join("config.py"), 600);
    let (v, _) = p.json(&["model.py"]);
    assert_eq!(rules_of(&v).len(), 1, "{v}");
    let recent = std::fs::read_dir(&dir).unwrap().flatten().find(|e| e.file_name().to_string_lossy().ends_with(".recent")).unwrap();
    std::fs::write(recent.path(), b"\x01\x02").unwrap();
    let (v, _) = p.json(&["model.py"]);
    assert_eq!(rules_of(&v).len(), 1, "{v}");
}

#[test]
fn a_run_on_some_files_reports_their_warnings_and_findings_from_other_files() {
    let p = Project::new("focus");
    p.write("model.py", MODEL);
    p.write("config.py", "NUM_CLASSES = 9\n");
    p.write("data/dataset.py", DATASET);
    std::fs::write(p.dir.join("latin1.py"), b"# caf\xe9\nx = 1\n").unwrap();
    for f in ["model.py", "config.py", "data/dataset.py", "latin1.py"] {
        age(&p.dir.join(f), 3600);
    }
    // the whole project, recorded
    let (v, _) = p.json(&[]);
    assert_eq!(rules_of(&v).len(), 1, "{v}");
    // a code edit in one file and a run on two: the head in model.py now disagrees with
    // config.py (read from the cache, not given), and the unreadable file keeps its warning
    p.write("config.py", "NUM_CLASSES = 10\nSEED = 1\n");
    age(&p.dir.join("config.py"), 1800);
    let (v, code) = p.json(&["model.py", "latin1.py"]);
    assert_eq!(code, 1);
    assert_eq!(rules_of(&v), [("CS102".to_string(), "model.py".to_string(), 7)], "{v}");
    let warnings: Vec<&str> = v["warnings"].as_array().unwrap().iter().map(|w| w["code"].as_str().unwrap()).collect();
    assert_eq!(warnings, ["not-utf8"], "{v}");
    // the same files with the cache off agree
    let (nc, _) = p.json(&["--no-cache", "model.py", "latin1.py"]);
    assert_eq!(rules_of(&nc), rules_of(&v));
    // and the whole project again finds both
    let (all, _) = p.json(&[]);
    assert_eq!(rules_of(&all).len(), 2, "{all}");
}

#[test]
fn summary_sees_a_data_file_appear() {
    let p = Project::new("summary-data");
    p.write("train.py", "import csv\nlabels = []\nfor row in csv.DictReader(open('grades.csv')):\n    labels.append(int(row['grade']))\nnum_classes = len(set(labels))\n");
    age(&p.dir.join("train.py"), 3600);
    let (v, _) = p.json(&["--preview", "train.py"]);
    assert!(rules_of(&v).is_empty(), "{v}");
    let (v, _) = p.json(&["--preview", "train.py"]);
    assert!(rules_of(&v).is_empty(), "{v}");
    p.write("grades.csv", "name,grade\na,1\nb,2\nc,3\nd,4\n");
    let (v, _) = p.json(&["--preview", "train.py"]);
    assert_eq!(rules_of(&v), [("CS111".to_string(), "train.py".to_string(), 4)], "{v}");
}

#[test]
fn configuration_and_suppressions() {
    let p = Project::new("config");
    p.write("data/dataset.py", DATASET);
    p.write("model.py", MODEL);
    p.write("config.py", "NUM_CLASSES = 10\n");
    let (v, _) = p.json(&[]);
    assert_eq!(rules_of(&v).len(), 2);
    // the command line: --select in place of the configuration's, --ignore and --extend-select added
    let codes = |args: &[&str]| -> Vec<String> { rules_of(&p.json(args).0).into_iter().map(|(r, _, _)| r).collect() };
    assert_eq!(codes(&["--select", "CS101"]), ["CS101"]);
    assert_eq!(codes(&["--select", "CS101", "--extend-select", "CS102"]).len(), 2);
    assert!(rules_of(&p.json(&["--ignore", "CS101,CS102"]).0).is_empty());
    let out = p.lint(&["--select", "CS1O1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`CS1O1` in `--select` is not a rule code"));
    std::fs::write(p.dir.join("pyproject.toml"), "[project]\nname='d'\n[tool.cudasleuth]\nignore = [\"CS102\"]\n").unwrap();
    assert_eq!(rules_of(&p.json(&[]).0).len(), 1);
    std::fs::write(
        p.dir.join("pyproject.toml"),
        "[tool.cudasleuth]\nselect = [\"CS102\"]\n[tool.cudasleuth.per-file-ignores]\n\"model.py\" = [\"CS102\"]\n",
    )
    .unwrap();
    assert!(rules_of(&p.json(&[]).0).is_empty());
    std::fs::write(p.dir.join("pyproject.toml"), "[tool.cudasleuth]\nexclude = [\"data/\"]\n").unwrap();
    assert_eq!(rules_of(&p.json(&[]).0), [("CS102".to_string(), "model.py".to_string(), 7)]);
    std::fs::write(p.dir.join("pyproject.toml"), "[tool.cudasleuth]\nselct = [\"CS1\"]\n").unwrap();
    let out = p.lint(&[]);
    assert_eq!(out.status.code(), Some(2), "a typo in the config is an error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("selct"));
    std::fs::write(p.dir.join("pyproject.toml"), "[tool.cudasleuth]\nignore = [\"CS1O2\"]\n").unwrap();
    let out = p.lint(&[]);
    assert_eq!(out.status.code(), Some(2), "a code that names no rule would silently ignore nothing");
    assert!(String::from_utf8_lossy(&out.stderr).contains("`CS1O2` in `ignore` is not a rule code"));

    std::fs::write(p.dir.join("pyproject.toml"), "[project]\nname='d'\n").unwrap();
    p.write("data/dataset.py", &DATASET.replace("label = label + 1\n", "label = label + 1  # cudasleuth: ignore[CS101]\n"));
    p.write("config.py", "NUM_CLASSES = 9  # cudasleuth: ignore\n");
    let (v, code) = p.json(&[]);
    assert_eq!((rules_of(&v).len(), code), (0, 0));
    let warnings: Vec<&str> = v["warnings"].as_array().unwrap().iter().map(|w| w["code"].as_str().unwrap()).collect();
    assert_eq!(warnings, ["unused-suppression"], "the comment on config.py suppresses nothing");
    assert_eq!(p.lint(&["--exit-zero", "--no-cache"]).status.code(), Some(0));
}

/// Suppressions as ruff users write them: any spacing or case, `# noqa: CS101`, a file-level
/// `ignore-file`; an unknown code is named as such, an unused one has a clickable place, and
/// both reach the JSON and GitHub outputs. A clean run says how many files it checked.
#[test]
fn suppressions_like_ruffs() {
    let p = Project::new("suppress");
    let lines = |v: &serde_json::Value| -> Vec<(String, u64, u64)> {
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| (w["code"].as_str().unwrap().to_string(), w["line"].as_u64().unwrap_or(0), w["column"].as_u64().unwrap_or(0)))
            .collect()
    };
    for comment in
        ["#cudasleuth:ignore[CS101]", "# CudaSleuth: Ignore[cs101]", "# cudasleuth : ignore [ CS101 , CS102 ]", "# noqa: E501, CS101"]
    {
        p.write("data/dataset.py", &DATASET.replace("label = label + 1\n", &format!("label = label + 1  {comment}\n")));
        let (v, code) = p.json(&[]);
        assert_eq!((rules_of(&v).len(), code), (0, 0), "{comment}: {v}");
        assert!(lines(&v).is_empty(), "{comment}: {v}");
    }
    // a file-level suppression, anywhere in the file
    p.write("data/dataset.py", &format!("# cudasleuth: ignore-file[CS101]\n{DATASET}"));
    let (v, _) = p.json(&[]);
    assert!(rules_of(&v).is_empty(), "{v}");
    // another tool's noqa is not ours; an unknown code is named; an unused one has its place
    p.write("data/dataset.py", &DATASET.replace("label = label + 1\n", "label = label + 1  # noqa: E501\n"));
    p.write("config.py", "NUM_CLASSES = 9  # cudasleuth: ignore[CS999]\nLR = 0.1  # cudasleuth: ignore[CS102]\n");
    let (v, _) = p.json(&[]);
    assert_eq!(rules_of(&v).len(), 1, "{v}");
    assert_eq!(lines(&v), [("unknown-rule".to_string(), 1, 18), ("unused-suppression".to_string(), 2, 11)], "{v}");
    let gh = String::from_utf8(p.lint(&["--format", "github"]).stdout).unwrap();
    assert!(gh.contains("::warning file=config.py,line=2,col=11,title=cudasleuth unused-suppression::"), "{gh}");
    let out = p.lint(&["--exit-zero"]);
    let human = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(human.contains("config.py:1:18: `CS999`"), "{human}");
    // a clean run: a one-line summary
    p.write("data/dataset.py", &DATASET.replace("label = label + 1\n", "label = label\n"));
    p.write("config.py", "NUM_CLASSES = 9\n");
    let out = p.lint(&[]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("no problems found"), "{}", String::from_utf8_lossy(&out.stdout));
}

/// Configuration found as ruff finds its own: a pyproject.toml without our table is passed over
/// for the parent's; `--config` names another file, `--isolated` reads none; a config that is
/// not UTF-8 is an error, never skipped.
#[test]
fn config_discovery_config_and_isolated() {
    let p = Project::new("discover");
    std::fs::write(p.dir.join("pyproject.toml"), "[tool.cudasleuth]\nignore = [\"CS101\"]\n").unwrap();
    std::fs::create_dir_all(p.dir.join("inner/data")).unwrap();
    std::fs::write(p.dir.join("inner/pyproject.toml"), "[project]\nname = \"inner\"\n").unwrap();
    p.write("inner/data/dataset.py", DATASET);
    let inner = |args: &[&str]| -> (serde_json::Value, i32) {
        let out = bin()
            .args(["lint", "--format", "json", "--no-cache"])
            .args(args)
            .current_dir(p.dir.join("inner"))
            .env("CUDASLEUTH_CACHE_DIR", &p.cache)
            .output()
            .unwrap();
        let v = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
        (v, out.status.code().unwrap())
    };
    let (v, code) = inner(&[]);
    assert_eq!((rules_of(&v).len(), code), (0, 0), "the parent's [tool.cudasleuth] applies: {v}");
    let (v, _) = inner(&["--isolated"]);
    assert_eq!(rules_of(&v).len(), 1, "no configuration read: {v}");
    std::fs::write(p.dir.join("strict.toml"), "select = [\"CS101\"]\n").unwrap();
    let strict = p.dir.join("strict.toml");
    let (v, _) = inner(&["--config", strict.to_str().unwrap()]);
    assert_eq!(rules_of(&v).len(), 1, "--config in place of the one found: {v}");
    std::fs::write(p.dir.join("inner/pyproject.toml"), b"[tool.cudasleuth]\nignore = [\"CS10\xff\"]\n").unwrap();
    let out = bin().args(["lint", "--no-cache"]).current_dir(p.dir.join("inner")).env("CUDASLEUTH_CACHE_DIR", &p.cache).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not UTF-8"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn github_and_sarif_formats() {
    let p = Project::new("formats");
    p.write("data/dataset.py", DATASET);
    let gh = String::from_utf8(p.lint(&["--format", "github"]).stdout).unwrap();
    assert!(gh.starts_with("::error file=data/dataset.py,line=14,col=13,"), "{gh}");
    assert!(gh.contains("title=CS101 label-shift-in-getitem::"), "{gh}");

    let out = p.lint(&["--format", "sarif"]);
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    common::check_sarif(&sarif);
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "data/dataset.py");
    assert_eq!(result["partialFingerprints"]["cudasleuth/v1"], "CS101:data/dataset.py:Shapes.__getitem__:label+1");
    assert!(sarif["runs"][0]["tool"]["driver"]["rules"][0]["help"]["markdown"].as_str().unwrap().contains("## Why is this bad?"));

    // a suppression that suppresses nothing is a notification of the run, at its place
    p.write("data/other.py", "x = 1  # cudasleuth: ignore[CS102]\n");
    let out = p.lint(&["--format", "sarif"]);
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    common::check_sarif(&sarif);
    let notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"].as_array().cloned().unwrap_or_default();
    let note = notes.iter().find(|n| n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "data/other.py");
    let note = note.unwrap_or_else(|| panic!("no notification of the unused suppression: {notes:?}"));
    assert_eq!(note["locations"][0]["physicalLocation"]["region"]["startLine"], 1, "{note}");
    assert_eq!(note["level"], "warning");
}

#[test]
fn fingerprints_survive_unrelated_edits() {
    let p = Project::new("fingerprint");
    p.write("data/dataset.py", DATASET);
    let before = p.json(&[]).0["diagnostics"][0]["fingerprint"].clone();
    p.write("data/dataset.py", &format!("# a comment\n\n{DATASET}"));
    let (after, _) = p.json(&[]);
    assert_eq!(after["diagnostics"][0]["fingerprint"], before);
    assert_eq!(after["diagnostics"][0]["line"], 16);
}

#[test]
fn yaml_class_count_disagreeing_with_names() {
    let p = Project::new("yaml");
    p.write("data.yaml", "path: ../datasets/ppe\ntrain: images/train\nnc: 3\nnames: ['helmet', 'head', 'person', 'vest']\n");
    let (v, _) = p.json(&["--preview"]);
    assert_eq!(rules_of(&v), [("CS109".to_string(), "data.yaml".to_string(), 3)]);
    p.write("data.yaml", "nc: 4\nnames:\n  0: helmet\n  1: head\n  2: person\n  3: vest\n");
    assert!(rules_of(&p.json(&["--preview"]).0).is_empty());
}

#[test]
fn embedding_sized_with_vocab_size_after_adding_tokens() {
    let p = Project::new("vocab");
    p.write(
        "train.py",
        "import torch.nn as nn\nfrom transformers import AutoTokenizer\n\ntokenizer = AutoTokenizer.from_pretrained('gpt2')\ntokenizer.add_special_tokens({'pad_token': '[PAD]'})\nembed = nn.Embedding(tokenizer.vocab_size, 512)\n",
    );
    let (v, _) = p.json(&["--preview"]);
    assert_eq!(rules_of(&v), [("CS110".to_string(), "train.py".to_string(), 6)]);
    p.write("train.py", "import torch.nn as nn\nfrom transformers import AutoTokenizer\n\ntokenizer = AutoTokenizer.from_pretrained('gpt2')\ntokenizer.add_special_tokens({'pad_token': '[PAD]'})\nembed = nn.Embedding(len(tokenizer), 512)\n");
    assert!(rules_of(&p.json(&["--preview"]).0).is_empty());
}

#[test]
fn corrupt_fact_cache_entries_are_parsed_again() {
    let p = Project::new("corrupt-facts");
    p.write("model.py", MODEL);
    p.write("config.py", "NUM_CLASSES = 10\n");
    p.write("data/dataset.py", DATASET);
    let (first, _) = p.json(&["model.py"]);
    assert_eq!(rules_of(&first).len(), 1, "{first}");
    let dir = p.cache.join(format!("facts-v5-{}", cudasleuth::scan::cache::CACHE_VERSION));
    let (summaries, entries): (Vec<_>, Vec<_>) =
        std::fs::read_dir(&dir).unwrap().flatten().partition(|e| e.file_name().to_string_lossy().starts_with("summary-"));
    assert!(entries.len() >= 3, "one entry per file");
    // truncated, garbage, and a length prefix that claims 2^62 elements
    for (i, e) in entries.iter().enumerate() {
        let bytes = std::fs::read(e.path()).unwrap();
        let bad = match i % 3 {
            0 => bytes[..bytes.len() / 2].to_vec(),
            1 => b"\xff\xfe garbage \x00\x01".to_vec(),
            _ => [(1u64 << 62).to_le_bytes().to_vec(), bytes].concat(),
        };
        std::fs::write(e.path(), bad).unwrap();
    }
    // without the summary every file is read and looked up by its bytes: each corrupt entry
    // is decoded, fails, and the file is parsed again
    for s in summaries {
        std::fs::remove_file(s.path()).unwrap();
    }
    let (v, code) = p.json(&["model.py"]);
    assert_eq!(code, 1);
    assert_eq!(rules_of(&v), rules_of(&first), "{v}");
}

#[test]
fn touched_files_with_the_same_bytes_or_facts_keep_the_stored_results() {
    let p = Project::new("touched");
    p.write("model.py", MODEL);
    p.write("config.py", "NUM_CLASSES = 10\n");
    p.write("data/dataset.py", DATASET);
    for f in ["model.py", "config.py", "data/dataset.py"] {
        age(&p.dir.join(f), 3600);
    }
    let (first, _) = p.json(&["model.py"]);
    assert_eq!(rules_of(&first).len(), 1, "{first}");
    let timed = |args: &[&str]| {
        let out = bin()
            .arg("lint")
            .args(args)
            .current_dir(&p.dir)
            .env("CUDASLEUTH_CACHE_DIR", &p.cache)
            .env("CUDASLEUTH_TIMINGS", "1")
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (v, String::from_utf8_lossy(&out.stderr).contains("timing rules"))
    };
    // new stamps, same bytes (a checkout, `touch`): the rules do not run again
    for f in ["model.py", "config.py"] {
        age(&p.dir.join(f), 1800);
    }
    let (v, ran) = timed(&["--format", "json", "model.py"]);
    assert!(!ran, "the stored results are used");
    assert_eq!(rules_of(&v), rules_of(&first));
    // and the new stamps are recorded: the next run matches by stamp
    let (_, ran) = timed(&["--format", "json", "model.py"]);
    assert!(!ran);
    // new bytes, same facts (a comment): the stored results still hold
    p.write("config.py", "NUM_CLASSES = 10\n# ten classes\n");
    age(&p.dir.join("config.py"), 1200);
    let (v, ran) = timed(&["--format", "json", "model.py"]);
    assert!(!ran, "a comment changes no fact");
    assert_eq!(rules_of(&v), rules_of(&first));
    // new bytes: the rules run again and see the change
    p.write("config.py", "NUM_CLASSES = 9\n");
    age(&p.dir.join("config.py"), 900);
    let (v, ran) = timed(&["--format", "json", "model.py"]);
    assert!(ran);
    assert!(rules_of(&v).is_empty(), "{v}");
}

#[test]
fn an_edited_file_is_read_right_where_its_statements_moved_or_changed() {
    let p = Project::new("chunks");
    p.write("model.py", MODEL);
    p.write("config.py", "NUM_CLASSES = 10\n");
    p.write("data/dataset.py", DATASET);
    age(&p.dir.join("data/dataset.py"), 3600);
    let (v, _) = p.json(&["data/dataset.py"]);
    assert_eq!(rules_of(&v), [("CS101".to_string(), "data/dataset.py".to_string(), 14)], "{v}");
    // a statement added above: the class is unchanged but two lines lower
    p.write("data/dataset.py", &DATASET.replace("import torch\n", "import torch\nimport os\n\n"));
    age(&p.dir.join("data/dataset.py"), 1800);
    let (v, _) = p.json(&["data/dataset.py"]);
    assert_eq!(rules_of(&v), [("CS101".to_string(), "data/dataset.py".to_string(), 16)], "{v}");
    // the class itself changed: the shift is gone
    p.write(
        "data/dataset.py",
        &DATASET.replace("import torch\n", "import torch\nimport os\n\n").replace("label = label + 1", "x = x.flip(-1)"),
    );
    age(&p.dir.join("data/dataset.py"), 900);
    let (v, _) = p.json(&["data/dataset.py"]);
    assert!(rules_of(&v).is_empty(), "{v}");
}

#[test]
fn a_label_shift_in_a_module_without_torch_is_reported_where_it_is_made() {
    // the label map never names torch; the loss is two modules away, behind a Dataset and a loader
    let p = Project::new("shift");
    p.write("labels.py", "GENRES = [\"jazz\", \"rock\", \"folk\", \"metal\", \"blues\"]\n\n\ndef encode(names):\n    return [GENRES.index(n) + 1 for n in names]\n");
    p.write(
        "data.py",
        "import torch\nfrom torch.utils.data import Dataset\n\nfrom labels import encode\n\n\nclass Clips(Dataset):\n    def __init__(self, feats, names):\n        self.feats = feats\n        self.targets = encode(names)\n\n    def __len__(self):\n        return len(self.targets)\n\n    def __getitem__(self, i):\n        return torch.tensor(self.feats[i]), self.targets[i]\n",
    );
    p.write(
        "train.py",
        "import torch\nfrom torch import nn\nfrom torch.utils.data import DataLoader\n\nfrom data import Clips\nfrom labels import GENRES\n\n\ndef main(feats, names):\n    loader = DataLoader(Clips(feats, names), batch_size=8, shuffle=True)\n    model = nn.Sequential(nn.Linear(40, 64), nn.ReLU(), nn.Linear(64, len(GENRES)))\n    loss_fn = nn.CrossEntropyLoss()\n    for x, y in loader:\n        loss = loss_fn(model(x), y)\n        loss.backward()\n",
    );
    assert_eq!(rules_of(&p.json(&[]).0), [("CS118".to_string(), "labels.py".to_string(), 5)]);
    p.write("labels.py", "GENRES = [\"jazz\", \"rock\", \"folk\", \"metal\", \"blues\"]\n\n\ndef encode(names):\n    return [GENRES.index(n) for n in names]\n");
    assert!(rules_of(&p.json(&[]).0).is_empty());
}

const TAGGER: &str = "from torch import nn\n\n\nclass Tagger(nn.Module):\n    def __init__(self, n_feats, n_tags):\n        super().__init__()\n        self.body = nn.Sequential(nn.Linear(n_feats, 128), nn.ReLU(), nn.Linear(128, n_tags))\n        self.loss_fn = nn.BCELoss()\n\n    def forward(self, x, tags=None):\n        scores = self.body(x)\n        loss = None\n        if tags is not None:\n            loss = self.loss_fn(scores, tags.float())\n        return loss, scores\n";

#[test]
fn raw_scores_into_a_loss_inside_forward_are_reported_at_the_loss() {
    // the loss is computed in the model's forward, the way Hugging Face style models do
    let p = Project::new("bce");
    p.write("model.py", TAGGER);
    p.write(
        "train.py",
        "import torch\nfrom torch.utils.data import DataLoader, TensorDataset\n\nfrom model import Tagger\n\n\ndef fit(x, y):\n    model = Tagger(x.shape[1], y.shape[1])\n    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)\n    for xb, yb in loader:\n        loss, _ = model(xb, yb)\n        loss.backward()\n",
    );
    let found = rules_of(&p.json(&[]).0);
    assert!(found.contains(&("CS118".to_string(), "model.py".to_string(), 8)), "{found:?}");
    p.write("model.py", &TAGGER.replace("scores = self.body(x)", "scores = self.body(x).sigmoid()"));
    assert!(rules_of(&p.json(&[]).0).is_empty());
}

#[test]
fn a_head_size_held_in_a_yaml_config_is_reported_at_its_key() {
    let p = Project::new("yamlbound");
    std::fs::create_dir_all(p.dir.join("configs")).unwrap();
    p.write("configs/base.yaml", "model:\n  hidden: 64\n  num_intents: 4\ntrain:\n  lr: 0.001\n");
    p.write("train.py", TRAIN_YAML);
    assert_eq!(rules_of(&p.json(&[]).0), [("CS118".to_string(), "configs/base.yaml".to_string(), 3)]);
    // a run on the Python file alone reports only that file; a run on the config, the config
    assert!(rules_of(&p.json(&["train.py"]).0).is_empty());
    assert_eq!(rules_of(&p.json(&["configs/base.yaml"]).0), [("CS118".to_string(), "configs/base.yaml".to_string(), 3)]);
    p.write("configs/base.yaml", "model:\n  hidden: 64\n  num_intents: 5\ntrain:\n  lr: 0.001\n");
    assert!(rules_of(&p.json(&[]).0).is_empty());
}

const TRAIN_YAML: &str = r#"import torch
import yaml
from torch import nn
from torch.utils.data import DataLoader, Dataset

INTENTS = ["greet", "refund", "track", "cancel", "other"]


class Utterances(Dataset):
    def __init__(self, rows):
        self.rows = [(feats, INTENTS.index(intent)) for feats, intent in rows]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        feats, label = self.rows[i]
        return torch.tensor(feats), label


def main(rows):
    with open("configs/base.yaml") as f:
        cfg = yaml.safe_load(f)
    model = nn.Sequential(nn.Linear(32, cfg["model"]["hidden"]), nn.ReLU(), nn.Linear(cfg["model"]["hidden"], cfg["model"]["num_intents"]))
    loss_fn = nn.CrossEntropyLoss()
    for x, y in DataLoader(Utterances(rows), batch_size=16):
        loss_fn(model(x), y).backward()
"#;

/// A text classifier as a package: the cut to the position table's size in the tokenizer, the
/// table three imports away (train → the `nets` package → its encoder → its layers).
const NETS: &[(&str, &str)] = &[
    (
        "nets/__init__.py",
        r#"from .encoder import Encoder
"#,
    ),
    (
        "nets/encoder.py",
        r#"import torch.nn as nn

from .layers import TokenAndPosition


class Encoder(nn.Module):
    def __init__(self, vocab, max_len, n_classes):
        super().__init__()
        self.embed = TokenAndPosition(vocab, max_len, 32)
        self.head = nn.Linear(32, n_classes)

    def forward(self, ids):
        return self.head(self.embed(ids).mean(1))
"#,
    ),
    (
        "nets/layers.py",
        r#"import torch
import torch.nn as nn


class TokenAndPosition(nn.Module):
    def __init__(self, vocab, max_len, dim):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_len, dim)

    def forward(self, ids):
        positions = torch.arange(ids.size(1), device=ids.device).unsqueeze(0)
        return self.tok(ids) + self.pos(positions)
"#,
    ),
];

#[test]
fn a_cut_that_fills_the_position_table_is_reported_three_imports_away() {
    let p = Project::new("positions");
    std::fs::create_dir_all(p.dir.join("nets")).unwrap();
    p.write("tok.py", common::REVIEWS_TOK);
    p.write("data.py", common::REVIEWS_DATA);
    p.write("train.py", &common::REVIEWS_TRAIN.replace("from model import Encoder", "from nets import Encoder"));
    for (f, text) in NETS {
        p.write(f, text);
    }
    assert_eq!(rules_of(&p.json(&[]).0), [("CS118".to_string(), "tok.py".to_string(), 8)]);
    assert_eq!(rules_of(&p.json(&["tok.py"]).0), [("CS118".to_string(), "tok.py".to_string(), 8)]);
    p.write("tok.py", &common::REVIEWS_TOK.replace("ids = ids[:max_len]", "ids = ids[: max_len - 2]"));
    assert!(rules_of(&p.json(&[]).0).is_empty());
}

/// ruff's habits: `--format concise` (a line per finding), `--statistics` (text and JSON),
/// `--quiet` (no summary line), quoted globs with `**` as zero or more directories, and
/// `--stdin-filename` (the code on stdin linted as that project file, its suppressions honoured,
/// the files on disk around it still read).
#[test]
fn concise_statistics_quiet_globs_and_stdin() {
    let p = Project::new("conventions");
    p.write("data/dataset.py", DATASET);
    p.write("data/__init__.py", "");
    let text = |o: &Output| String::from_utf8_lossy(&o.stdout).into_owned();
    let out = p.lint(&["--format", "concise"]);
    let concise = text(&out);
    assert_eq!(out.status.code(), Some(1), "{concise}");
    let first = concise.lines().next().unwrap();
    assert!(first.starts_with("data/dataset.py:14:") && first.contains(": CS101 "), "{concise}");
    assert!(concise.lines().last().unwrap().starts_with("Found "), "{concise}");
    assert!(!text(&p.lint(&["--format", "concise", "--quiet"])).contains("Found "));

    let stats = text(&p.lint(&["--statistics"]));
    assert!(stats.lines().any(|l| l.split('\t').collect::<Vec<_>>()[1..] == ["CS101", "label-shift-in-getitem"]), "{stats}");
    let out = p.lint(&["--statistics", "--format", "json"]);
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(rows.as_array().unwrap().iter().any(|r| r["code"] == "CS101" && r["count"].as_u64() >= Some(1)), "{rows}");

    // globs the shell left quoted: `**` also matches no directory at all
    for (glob, found) in [("**/*.py", true), ("data/**/*.py", true), ("*.py", false), ("nowhere/**", false)] {
        let (v, code) = p.json(&[glob]);
        assert_eq!(!rules_of(&v).is_empty(), found, "{glob}: {v}");
        assert_eq!(code, i32::from(found), "{glob}: {v}");
        let unmatched = v["warnings"].as_array().unwrap().iter().any(|w| w["code"] == "not-linted");
        assert_eq!(unmatched, !found, "{glob}: {v}");
    }

    // the code on stdin, not the file on disk; a new file need not exist
    let stdin = |name: &str, code: &str, extra: &[&str]| {
        use std::io::Write;
        let mut child = bin()
            .args(["lint", "--format", "json", "--stdin-filename", name])
            .args(extra)
            .current_dir(&p.dir)
            .env("CUDASLEUTH_CACHE_DIR", &p.cache)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // a refused command line exits before it reads: a closed pipe is not the test's failure
        match child.stdin.take().unwrap().write_all(code.as_bytes()) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            r => r.unwrap(),
        }
        child.wait_with_output().unwrap()
    };
    let fixed = DATASET.replace("label = label + 1\n", "label = label\n");
    let out = stdin("data/dataset.py", &fixed, &[]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((rules_of(&v).len(), out.status.code()), (0, Some(1 - 1)), "{v}");
    let out = stdin("data/other.py", DATASET, &[]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    common::check_lint_schema(&v);
    assert!(rules_of(&v).iter().all(|(_, f, _)| f == "data/other.py") && !rules_of(&v).is_empty(), "{v}");
    let suppressed = DATASET.replace("label = label + 1\n", "label = label + 1  # noqa: CS101\n");
    let v: serde_json::Value = serde_json::from_slice(&stdin("data/other.py", &suppressed, &[]).stdout).unwrap();
    assert!(!rules_of(&v).iter().any(|(r, _, _)| r == "CS101"), "{v}");
    let out = stdin("data/other.py", DATASET, &["data/dataset.py"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("give no paths"), "{}", String::from_utf8_lossy(&out.stderr));
}

/// The progress line of a long scan is for a terminal only: with stderr piped (CI, a pre-commit
/// hook, a redirect), a scan of many files writes nothing there, not even after a second.
#[test]
fn a_piped_scan_draws_no_progress_line() {
    let dir = std::env::temp_dir().join(format!("cudasleuth-progress-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("pyproject.toml"), "[project]\nname = \"many\"\n").unwrap();
    for i in 0..600 {
        let body = format!("import torch\n\n\ndef f{i}(x):\n    return torch.nn.functional.relu(x) + {i}\n");
        std::fs::write(dir.join(format!("m{i}.py")), body.repeat(20)).unwrap();
    }
    let out = bin().args(["lint", dir.to_str().unwrap(), "--no-cache", "--format", "concise"]).env("TERM", "xterm").output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains('\r') && !err.contains("files read"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("Checked 600 files"), "{}", String::from_utf8_lossy(&out.stdout));
}

const CROPS_DATA: &str = r#"import json
import random

import torch
from torch.utils.data import Dataset


def speaker_of(name):
    return int(name.split("_")[0][3:]) - 1


def load_settings(path):
    with open(path) as f:
        return json.load(f)


class SpeakerCrops(Dataset):
    def __init__(self, names, n_crops, width):
        self.utts = []
        for name in names:
            self.utts.append((torch.randn(16000), speaker_of(name)))
        self.width = width
        self.crops = [self.pick() for _ in range(n_crops)]

    def pick(self):
        u = random.randrange(len(self.utts))
        start = random.randrange(16000 - self.width)
        return u, start

    def __len__(self):
        return len(self.crops)

    def __getitem__(self, i):
        u, start = self.crops[i]
        wav, speaker = self.utts[u]
        return wav[start:start + self.width], torch.tensor(speaker)
"#;

const CROPS_TRAIN: &str = r#"import torch.nn as nn
from torch.utils.data import DataLoader

from data import SpeakerCrops, load_settings

cfg = load_settings("settings.json")
ds = SpeakerCrops(cfg["utterances"], cfg["crops_per_epoch"], cfg["width"])
voices = nn.Embedding(4, 32)
for wav, speaker in DataLoader(ds, batch_size=16):
    voices(speaker).sum().backward()
"#;

/// A clean project whose samples are random crops, as many as a setting says: the crop's index
/// into the utterances is no id of the lookup, and the setting that counts the crops is no
/// value of it (the count of a list met while tracing an index stays aside).
#[test]
fn a_count_of_crops_from_the_settings_is_no_value_of_the_lookup() {
    let p = Project::new("crops");
    p.write("data.py", CROPS_DATA);
    p.write("train.py", CROPS_TRAIN);
    p.write("settings.json", r#"{"utterances": ["spk1_a.wav", "spk2_b.wav", "spk4_c.wav"], "crops_per_epoch": 512, "width": 4000}"#);
    let (v, code) = p.json(&["--no-cache", "."]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["diagnostics"].as_array().unwrap().len(), 0, "{v}");
}

const TAGS_DATA: &str = r#"import json

import torch
from torch.utils.data import Dataset

LOW, HIGH = -2, 3
N_LEVELS = HIGH - LOW + 1
UNRATED = -100


class Ratings(Dataset):
    def __init__(self, path):
        with open(path) as fh:
            self.rows = json.load(fh)

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        row = self.rows[i]
        levels = [UNRATED if r is None else r - LOW for r in row["ratings"]]
        return torch.tensor(row["features"]), torch.tensor(levels)
"#;

const TAGS_TRAIN: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from ratings import N_LEVELS, UNRATED, Ratings


def masked_nll(scores, target):
    rated = target != UNRATED
    logp = F.log_softmax(scores[rated], dim=-1)
    return -logp.gather(1, target[rated].unsqueeze(1)).mean()


def main():
    data = DataLoader(Ratings("ratings.json"), batch_size=1)
    head = nn.Linear(8, N_LEVELS)
    for x, y in data:
        loss = masked_nll(head(x[0]), y[0])
        loss.backward()


main()
"#;

/// A clean project that shifts ratings from -2..3 to 0..5 by taking away a negative constant
/// and marks unrated items with -100, which a hand-written loss selects out through a mask
/// bound to a name: neither the constant taken away nor the marker reaches the gather.
#[test]
fn a_constant_taken_away_and_a_marker_a_named_mask_drops_reach_no_gather() {
    let p = Project::new("ratings");
    p.write("ratings.py", TAGS_DATA);
    // the marker kept (no mask) is found
    let unmasked = TAGS_TRAIN.replace("scores[rated]", "scores").replace("target[rated]", "target");
    clean_until_changed(&p, "train.py", TAGS_TRAIN, &unmasked, "-100");
}

/// Lints `p` with `file` holding `clean`: no finding; then with `file` holding `changed`: a
/// finding whose message says `says`.
fn clean_until_changed(p: &Project, file: &str, clean: &str, changed: &str, says: &str) {
    p.write(file, clean);
    let (v, code) = p.json(&["--no-cache", "."]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["diagnostics"].as_array().unwrap().len(), 0, "{v}");
    p.write(file, changed);
    let (v, _) = p.json(&["--no-cache", "."]);
    assert!(v["diagnostics"].as_array().unwrap().iter().any(|d| d["message"].as_str().unwrap_or("").contains(says)), "{v}");
}

const READINGS_DATA: &str = r#"import json

import torch
from torch.utils.data import Dataset

MISSING = -1


def plant_codes(n=5):
    # sensor codes as the plant numbers them: from 7000 up, with gaps where sensors retired
    codes, code = [], 7000
    for k in range(n):
        code += 1 + k % 3
        codes.append(code)
    return codes


CODES = plant_codes()


def code_rows():
    return {code: row for row, code in enumerate(CODES)}


class Readings(Dataset):
    def __init__(self, path):
        with open(path) as fh:
            self.rows = json.load(fh)
        self.table = code_rows()

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        r = self.rows[i]
        fault = MISSING if r["fault"] is None else r["fault"]
        return {
            "sensor": torch.tensor(self.table[r["sensor"]]),
            "fault": torch.tensor(fault),
            "x": torch.tensor(r["values"], dtype=torch.float32),
        }


def collate(batch):
    out = {"sensor": [], "fault": [], "x": []}
    for item in batch:
        out["sensor"].append(item["sensor"])
        out["fault"].append(item["fault"])
        out["x"].append(item["x"])
    return {k: torch.stack(v) for k, v in out.items()}
"#;

const READINGS_TRAIN: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from data import CODES, Readings, collate

N_FAULTS = 4


class Net(nn.Module):
    def __init__(self, n_sensors, n_faults):
        super().__init__()
        self.emb = nn.Embedding(n_sensors, 4)
        self.head = nn.Linear(4 + 6, n_faults)

    def forward(self, batch):
        return self.head(torch.cat([self.emb(batch["sensor"]), batch["x"]], 1))


def step(model, batch):
    scores = model(batch)
    fault = batch["fault"]
    seen = fault >= 0
    return F.cross_entropy(scores[seen], fault[seen])


def main():
    model = Net(len(CODES), N_FAULTS)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for batch in DataLoader(Readings("readings.json"), batch_size=4, collate_fn=collate):
        loss = step(model, batch)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
"#;

/// A clean project: sensor codes from 7000 up are numbered by `enumerate` for the embedding (a
/// collate keeps each field's samples in a dict of lists and stacks them by key), and unknown
/// faults are marked -1 and kept out of the loss by a `>= 0` mask. The codes are no value of the
/// counter, and the mask drops the marker.
#[test]
fn an_enumerate_counter_and_a_nonnegative_mask_carry_no_other_values() {
    let p = Project::new("readings");
    p.write("data.py", READINGS_DATA);
    // without the mask the marker reaches the loss
    let unmasked = READINGS_TRAIN.replace("F.cross_entropy(scores[seen], fault[seen])", "F.cross_entropy(scores, fault)");
    clean_until_changed(&p, "train.py", READINGS_TRAIN, &unmasked, "-1");
}

const TILES_CONFIG: &str = r#"void: 255
n_classes: 4
classes:
  10: 0
  11: 1
  20: 2
  31: 3
"#;

const TILES_DATA: &str = r#"import glob

import numpy as np
import torch
from torch.utils.data import Dataset


class Tiles(Dataset):
    def __init__(self, root, cfg):
        self.files = sorted(glob.glob(f"{root}/*.npy"))
        self.lut = np.full(256, cfg["void"], dtype=np.int64)
        for raw, cls in cfg["classes"].items():
            self.lut[raw] = cls

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        tile = np.load(self.files[i])
        return torch.from_numpy(tile[0]).float(), torch.from_numpy(self.lut[tile[1]])
"#;

const TILES_FIT: &str = r#"import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

from tiles import Tiles


def masked_loss(scores, labels, void):
    keep = labels != void
    return F.cross_entropy(scores[keep], labels[keep])


def main():
    with open("config.yaml") as fh:
        cfg = yaml.safe_load(fh)
    net = nn.Linear(1, cfg["n_classes"])
    opt = torch.optim.Adam(net.parameters())
    for x, y in DataLoader(Tiles("tiles", cfg), batch_size=2):
        scores = net(x.reshape(-1, 1))
        loss = masked_loss(scores, y.reshape(-1), cfg["void"])
        opt.zero_grad()
        loss.backward()
        opt.step()


main()
"#;

/// A clean project: a lookup table fills unmapped codes with the config's `void` (255), and the
/// loss drops them through a mask comparing with the same setting passed in as a parameter:
/// neither the config key nor the loss is reported.
#[test]
fn a_marker_from_a_config_key_dropped_by_a_mask_on_the_same_setting_is_not_reported() {
    let p = Project::new("tiles");
    p.write("config.yaml", TILES_CONFIG);
    p.write("tiles.py", TILES_DATA);
    // without the mask the loss is the line to change
    let unmasked = TILES_FIT.replace("F.cross_entropy(scores[keep], labels[keep])", "F.cross_entropy(scores, labels)");
    clean_until_changed(&p, "fit.py", TILES_FIT, &unmasked, "ignore_index=255");
}

#[test]
fn a_csv_pipeline_is_checked_and_a_product_of_probabilities_stays_one() {
    // a project that reads its rows with csv.DictReader (no DataLoader) is a data pipeline;
    // the chance of at least one event, `1 - prod(1 - h)`, is a probability, a sum of them is not
    let p = Project::new("hazard");
    p.write(
        "rows.py",
        "import csv\n\n\ndef read_rows(path):\n    with open(path, newline=\"\") as fh:\n        return list(csv.DictReader(fh))\n",
    );
    let fit = |pooled: &str| {
        format!(
            "import torch\nimport torch.nn as nn\n\nfrom rows import read_rows\n\n\nclass Hazard(nn.Module):\n    def __init__(self, n_in, steps):\n        super().__init__()\n        self.head = nn.Linear(n_in, steps)\n\n    def forward(self, x):\n        h = torch.sigmoid(self.head(x))\n        return {pooled}\n\n\ndef main():\n    rows = read_rows(\"data/policies.csv\")\n    x = torch.tensor([[float(r[\"age\"]), float(r[\"premium\"])] for r in rows])\n    y = torch.tensor([float(r[\"claimed\"]) for r in rows])\n    model = Hazard(2, 6)\n    loss = nn.BCELoss()(model(x), y)\n    loss.backward()\n\n\nmain()\n"
        )
    };
    p.write("fit.py", &fit("1.0 - torch.prod(1.0 - h, dim=1)"));
    assert!(rules_of(&p.json(&["--no-cache"]).0).is_empty());
    p.write("fit.py", &fit("h.sum(dim=1)"));
    assert_eq!(rules_of(&p.json(&["--no-cache"]).0), [("CS118".to_string(), "fit.py".to_string(), 14)]);
}

#[test]
fn a_hand_batched_script_whose_ids_the_code_proves_past_the_table() {
    // no DataLoader: the batches are slices of one stream and the step calls `backward()`; the
    // duration ids are `base + steps` with steps up to the block's size (one past its last id)
    let p = Project::new("events");
    p.write("vocab.py", VOCAB_PY);
    p.write("train.py", EVENTS_TRAIN);
    assert_eq!(rules_of(&p.json(&[]).0), [("CS118".to_string(), "vocab.py".to_string(), 8)]);
    p.write("vocab.py", &VOCAB_PY.replace("return DUR_BASE + steps", "return DUR_BASE + steps - 1"));
    assert!(rules_of(&p.json(&[]).0).is_empty());
}

const VOCAB_PY: &str = r#"N_PITCH = 12
N_DUR = 8
DUR_BASE = N_PITCH
VOCAB = N_PITCH + N_DUR


def dur_token(steps):
    return DUR_BASE + steps


def encode(notes):
    out = []
    for pitch, steps in notes:
        out.append(pitch % N_PITCH)
        out.append(dur_token(min(steps, N_DUR)))
    return out
"#;

const EVENTS_TRAIN: &str = r#"import random

import torch
from torch import nn

from vocab import VOCAB, encode


def make_song(n):
    return [(random.randrange(60, 72), random.randint(1, 8)) for _ in range(n)]


def main():
    stream = torch.tensor(encode(make_song(400)))
    emb = nn.Embedding(VOCAB, 32)
    head = nn.Linear(32, VOCAB)
    opt = torch.optim.SGD(list(emb.parameters()) + list(head.parameters()), lr=0.1)
    for i in range(0, len(stream) - 17, 16):
        x = stream[i:i + 16]
        y = stream[i + 1:i + 17]
        loss = nn.functional.cross_entropy(head(emb(x)), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


main()
"#;

#[test]
fn a_head_size_held_in_a_toml_experiment_is_reported_at_its_key() {
    // the experiment file is named by the run script only; its section is read with an empty
    // default (`raw.get("model", {})`) and spread into a dataclass whose default differs
    let p = Project::new("tomlbound");
    std::fs::create_dir_all(p.dir.join("exp")).unwrap();
    p.write("exp/small.toml", SMALL_TOML);
    p.write("settings.py", LEVEL_SETTINGS);
    p.write("train.py", LEVEL_TRAIN);
    p.write("run.sh", "#!/bin/bash\nset -e\npython3 train.py exp/small.toml\n");
    p.write("essays.csv", "words,errors,level\n120,4,A2\n340,1,C1\n80,9,A1\n");
    assert_eq!(rules_of(&p.json(&[]).0), [("CS118".to_string(), "exp/small.toml".to_string(), 3)]);
    p.write("exp/small.toml", &SMALL_TOML.replace("n_levels = 4", "n_levels = 5"));
    assert!(rules_of(&p.json(&[]).0).is_empty());
}

const SMALL_TOML: &str = r#"[model]
hidden = 32
n_levels = 4

[train]
lr = 0.05
"#;

const LEVEL_SETTINGS: &str = r#"import tomllib
from dataclasses import dataclass, fields


@dataclass
class ModelCfg:
    hidden: int = 16
    n_levels: int = 6


def load(path):
    with open(path, "rb") as fh:
        raw = tomllib.load(fh)
    section = raw.get("model", {})
    names = {f.name for f in fields(ModelCfg)}
    return ModelCfg(**{k: v for k, v in section.items() if k in names})
"#;

const LEVEL_TRAIN: &str = r#"import argparse
import csv

import torch
from torch import nn

from settings import load

LEVELS = ["A1", "A2", "B1", "B2", "C1"]


def read(path):
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    x = torch.tensor([[float(r["words"]), float(r["errors"])] for r in rows])
    y = torch.tensor([LEVELS.index(r["level"]) for r in rows])
    return x, y


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("experiment")
    args = ap.parse_args()
    cfg = load(args.experiment)
    x, y = read("essays.csv")
    model = nn.Sequential(nn.Linear(2, cfg.hidden), nn.ReLU(), nn.Linear(cfg.hidden, cfg.n_levels))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(3):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
"#;

#[test]
fn what_a_script_beside_the_trainer_saves_is_what_the_trainer_reads() {
    // make_data.py (imported by nothing) saves the expert's moves with np.savez; train.py reads
    // them back with np.load and its config from `sys.argv[1] if … else "config.yaml"`: the
    // "stay" move (`size * size`) is one past the head the config sizes
    let p = Project::new("writer");
    p.write("config.yaml", GRID_CONFIG);
    p.write("grid.py", GRID_PY);
    p.write("make_data.py", GRID_MAKE);
    p.write("train.py", GRID_TRAIN);
    let found = rules_of(&p.json(&[]).0);
    assert_eq!(found, [("CS118".to_string(), "grid.py".to_string(), 6)]);
    p.write("config.yaml", &GRID_CONFIG.replace("n_actions: 16", "n_actions: 17"));
    assert!(rules_of(&p.json(&[]).0).is_empty());
}

const GRID_CONFIG: &str = r#"grid: 4
policy:
  hidden: 32
  n_actions: 16
train:
  lr: 0.01
"#;

const GRID_PY: &str = r#"def cell(r, c, size):
    return r * size + c


def stay(size):
    return size * size
"#;

const GRID_MAKE: &str = r#"import sys

import numpy as np
import yaml

from grid import cell, stay


def main(cfg_path):
    with open(cfg_path) as fh:
        cfg = yaml.safe_load(fh)
    size = cfg["grid"]
    states, moves = [], []
    for r in range(size):
        for c in range(size):
            states.append([r / size, c / size])
            moves.append(cell(r, (c + 1) % size, size))
    states.append([1.0, 1.0])
    moves.append(stay(size))
    np.savez("demos.npz", state=np.array(states, dtype=np.float32), move=np.array(moves, dtype=np.int64))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "config.yaml")
"#;

const GRID_TRAIN: &str = r#"import sys

import numpy as np
import torch
import yaml
from torch import nn


def load_demos(path="demos.npz"):
    d = np.load(path)
    return torch.from_numpy(d["state"]), torch.from_numpy(d["move"])


def main(cfg_path):
    with open(cfg_path) as fh:
        cfg = yaml.safe_load(fh)
    pc = cfg["policy"]
    states, moves = load_demos()
    policy = nn.Sequential(nn.Linear(2, pc["hidden"]), nn.Tanh(), nn.Linear(pc["hidden"], pc["n_actions"]))
    opt = torch.optim.Adam(policy.parameters(), lr=cfg["train"]["lr"])
    for _ in range(20):
        logp = torch.log_softmax(policy(states), dim=1)
        loss = -logp.gather(1, moves[:, None]).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "config.yaml")
"#;

#[test]
fn markers_taken_out_before_the_op_are_not_reported() {
    // the marker -100 is selected out by a mask kept in a name (`batch["start"][has]`),
    // replaced by `torch.where`, or clamped away; `cal.weekday(day)` is a method, not the
    // model's `self.weekday` table
    let p = Project::new("narrowed");
    p.write("make_data.py", SESSIONS_MAKE);
    p.write("model.py", SESSIONS_MODEL);
    p.write("train.py", SESSIONS_TRAIN);
    assert!(rules_of(&p.json(&[]).0).is_empty(), "{}", p.json(&[]).0);
    // each narrowing taken away, the marker is found
    for (narrowed, plain) in [
        ("gold = batch[\"start\"][has]", "gold = batch[\"start\"]"),
        ("safe = torch.where(batch[\"start\"] != IGNORE, batch[\"start\"], torch.zeros_like(batch[\"start\"]))", "safe = batch[\"start\"]"),
        ("batch[\"start\"].clamp(min=0)", "batch[\"start\"]"),
    ] {
        assert!(SESSIONS_TRAIN.contains(narrowed));
        p.write("train.py", &SESSIONS_TRAIN.replace(narrowed, plain));
        let found = rules_of(&p.json(&[]).0);
        // (the script makes its sessions up: the line that takes `start` as it is out of
        // what was loaded is the finding, not the script's draw)
        assert_eq!(found, [("CS118".to_string(), "train.py".to_string(), 13)], "{plain}");
    }
}

const SESSIONS_MAKE: &str = r#"import argparse
import json
import random

from model import IGNORE


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n-items", type=int, default=90)
    ap.add_argument("--sessions", type=int, default=200)
    args = ap.parse_args()
    rows = []
    for _ in range(args.sessions):
        items = [random.randrange(args.n_items) for _ in range(8)]
        start = IGNORE if random.random() < 0.3 else random.randrange(8)
        rows.append({"items": items, "start": start, "day": random.randint(0, 59)})
    with open("sessions.json", "w") as fh:
        json.dump(rows, fh)


if __name__ == "__main__":
    main()
"#;

const SESSIONS_MODEL: &str = r#"import torch
from torch import nn

IGNORE = -100


class Calendar:
    def __init__(self, first_weekday):
        self.first_weekday = first_weekday

    def weekday(self, day):
        return (day + self.first_weekday) % 7


class SessionModel(nn.Module):
    def __init__(self, n_items, dim=16):
        super().__init__()
        self.items = nn.Embedding(n_items, dim)
        self.weekday = nn.Embedding(7, dim)
        self.out = nn.Linear(dim, 8)

    def forward(self, items, weekday):
        h = self.items(items).mean(1) + self.weekday(weekday)
        return self.out(h)
"#;

const SESSIONS_TRAIN: &str = r#"import json

import torch

from model import IGNORE, Calendar, SessionModel


def batches(rows, size):
    for i in range(0, len(rows), size):
        part = rows[i:i + size]
        yield {
            "items": torch.tensor([r["items"] for r in part]),
            "start": torch.tensor([r["start"] for r in part]),
            "day": torch.tensor([r["day"] for r in part]),
        }


def main():
    with open("sessions.json") as fh:
        rows = json.load(fh)
    n_items = max(i for r in rows for i in r["items"]) + 1
    model = SessionModel(n_items)
    cal = Calendar(first_weekday=3)
    order = torch.arange(8)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for batch in batches(rows, 32):
        logits = model(batch["items"], cal.weekday(batch["day"]))
        logp = logits.log_softmax(-1)
        has = batch["start"] != IGNORE
        gold = batch["start"][has]
        picked = logp[has].gather(1, gold[:, None])
        safe = torch.where(batch["start"] != IGNORE, batch["start"], torch.zeros_like(batch["start"]))
        ranks = order.index_select(0, safe)
        kept = logp.gather(1, batch["start"].clamp(min=0)[:, None])
        loss = -(picked.sum() + kept[has].sum()) / max(int(has.sum()), 1) + 0.0 * ranks.float().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
"#;

/// A marker (-1 for reviews the raters split on) that the loss ignores, saved as unsigned bytes
/// by the data script and read back by the training script as 255: the cast is the line that
/// made the value, and lint names it without a crash (the code proves 255 against two classes).
#[test]
fn a_marker_saved_as_unsigned_bytes_is_reported_at_the_cast() {
    let p = Project::new("reviews");
    p.write("prepare.py", REVIEWS_PREP);
    p.write("train.py", REVIEWS_TRAIN);
    assert_eq!(rules_of(&p.json(&[]).0), [("CS118".to_string(), "prepare.py".to_string(), 19)]);
    p.write("prepare.py", &REVIEWS_PREP.replace("np.uint8", "np.int16"));
    assert!(rules_of(&p.json(&[]).0).is_empty());
}

const REVIEWS_PREP: &str = r#"import numpy as np

SPLIT = -1


def rater_label(scores):
    pos = (scores >= 4).mean(axis=1)
    out = np.where(pos > 0.5, 1, 0)
    out[np.abs(pos - 0.5) < 0.2] = SPLIT
    return out


def main():
    rng = np.random.default_rng(7)
    scores = rng.integers(1, 6, size=(800, 5))
    emb = rng.normal(size=(800, 16)).astype(np.float32)
    np.save("emb.npy", emb)
    labels = rater_label(scores)
    np.save("labels.npy", labels.astype(np.uint8))


if __name__ == "__main__":
    main()
"#;

const REVIEWS_TRAIN: &str = r#"import numpy as np
import torch
import torch.nn as nn

from prepare import SPLIT


def main():
    emb = torch.from_numpy(np.load("emb.npy"))
    labels = torch.from_numpy(np.load("labels.npy")).long()
    clf = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 2))
    loss_fn = nn.CrossEntropyLoss(ignore_index=SPLIT)
    opt = torch.optim.Adam(clf.parameters(), lr=1e-3)
    for start in range(0, len(emb), 32):
        loss = loss_fn(clf(emb[start:start + 32]), labels[start:start + 32])
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
"#;
