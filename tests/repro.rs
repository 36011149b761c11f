//! `cudasleuth repro` end to end on a CPU torch: the classic blog bug, the sweep, the fixture
//! projects, and the safety promises (timeout, no files touched, -I refused, --no-values).
//!
//! Needs a Python with torch: `$CUDASLEUTH_PYTHON`, else `/usr/bin/python3` or `python3` if
//! one of them imports torch. Without one these tests say so and pass (CI installs Debian's
//! CPU torch before running them).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn python() -> Option<&'static str> {
    static PY: OnceLock<Option<String>> = OnceLock::new();
    PY.get_or_init(|| {
        let mut candidates: Vec<String> = Vec::new();
        if let Ok(p) = std::env::var("CUDASLEUTH_PYTHON") {
            candidates.push(p);
        }
        candidates.extend(["/usr/bin/python3".to_string(), "python3".to_string()]);
        candidates.into_iter().find(|p| Command::new(p).args(["-c", "import torch"]).output().is_ok_and(|o| o.status.success()))
    })
    .as_deref()
}

macro_rules! need_torch {
    () => {
        match python() {
            Some(p) => p,
            None => {
                eprintln!("skipped: no Python with torch (set CUDASLEUTH_PYTHON)");
                return;
            }
        }
    };
}

fn tmp(name: &str) -> PathBuf {
    common::fresh_tmp("cs-repro", name)
}

fn repro(dir: &Path, args: &[&str], cmd: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cudasleuth")).arg("repro").args(args).arg("--").args(cmd).current_dir(dir).output().unwrap()
}

fn report(out: &Output) -> serde_json::Value {
    let text = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(text.lines().next().unwrap_or(""))
        .unwrap_or_else(|e| panic!("{e}: {text}\n{}", String::from_utf8_lossy(&out.stderr)));
    common::check_schema(&v, "repro");
    // what the shim wrote follows its schema, and the Rust side reads it typed (a relative
    // `--read DIR` is relative to the run's directory: that test checks it itself)
    if let Some(dir) = v["run"]["out_dir"].as_str().filter(|d| Path::new(d).is_absolute()) {
        let checked = common::check_shim_output(Path::new(dir));
        assert!(checked > 0 || v["run"]["shim_processes"] == 0, "no shim output checked in {dir}");
    }
    v
}

#[test]
fn the_shim_schema_refuses_a_witness_without_its_bad_values() {
    let w = serde_json::json!({"version": 1, "kind": "witness", "op": "nll_loss", "category": "label_out_of_range"});
    assert!(!common::shim_output_errors("witness", &w).is_empty());
}

/// Every file's path and contents under `dir` (to prove a run changed nothing).
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in ignore::WalkBuilder::new(dir).standard_filters(false).build().flatten() {
        if e.file_type().is_some_and(|t| t.is_file()) {
            out.push((e.path().to_path_buf(), std::fs::read(e.path()).unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn classic_blog_bug_is_caught_at_its_line_on_the_cpu() {
    let py = need_torch!();
    let proj = common::root().join("fixtures/projects/000-seed-blog");
    let before = snapshot(&proj);
    let out_dir = tmp("classic");
    let out =
        repro(&proj, &["--cpu", "--format", "json", "--project", ".", "--out", out_dir.to_str().unwrap()], &[py, "seed_blog_example.py"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let v = report(&out);
    assert_eq!(v["kind"], "repro");
    assert_eq!(v["verdict"], "cpu_equivalent");
    let w = &v["witness"];
    assert_eq!(w["op"], "nll_loss");
    assert_eq!(w["bound"]["value"], 3);
    assert_eq!(w["bad"][0]["value"], 3);
    assert!(w["bad"][0]["sample"].is_u64());
    assert_eq!(w["provenance"]["kind"], "code_line");
    assert_eq!((w["provenance"]["before"].as_i64(), w["provenance"]["after"].as_i64()), (Some(2), Some(3)));
    let s = &v["suspects"][0];
    assert_eq!((s["file"].as_str(), s["line"].as_u64()), (Some("seed_blog_example.py"), Some(17)));
    assert_eq!(s["confirmed"], true);
    assert_eq!(s["tier"], "confirmed");
    assert_eq!(s["rule"], "CS101");
    assert!(v["run"]["environment"].as_array().unwrap().iter().any(|e| e == "TORCHDYNAMO_DISABLE=1"));
    // the failing batch's tensors are beside the witness; the project is untouched
    let names: Vec<String> = std::fs::read_dir(&out_dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().to_string()).collect();
    assert!(names.iter().any(|n| n.ends_with(".npy")), "{names:?}");
    assert!(names.iter().any(|n| n == "run.log"));
    assert_eq!(before, snapshot(&proj), "repro changed files in the project");
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn human_report_says_which_line_turned_which_label() {
    let py = need_torch!();
    let proj = common::root().join("fixtures/projects/000-seed-blog");
    let out = repro(&proj, &["--cpu", "-q", "--color", "never"], &[py, "seed_blog_example.py"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    // the born-at pass: the line, the value before and after, and the chain to the loss call
    assert!(text.contains("born at seed_blog_example.py:17: `y = y + 1` gave y = 3 (before: y = 2)"), "{text}");
    assert!(text.contains("confirmed  seed_blog_example.py:17"), "{text}");
    assert!(text.contains("chain      seed_blog_example.py:17 -> "), "{text}");
    assert!(text.contains("(n_classes = 3)"), "{text}");
    assert!(text.contains("17 |             y = y + 1"), "{text}");
}

#[test]
fn sweep_lists_bad_samples_without_training() {
    let py = need_torch!();
    let proj = common::root().join("fixtures/projects/000-seed-blog");
    let out = repro(&proj, &["--cpu", "--sweep", "--format", "json"], &[py, "seed_blog_example.py"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let v = report(&out);
    let sweep = &v["sweep"];
    assert_eq!(sweep["bounds"]["n_classes"], 3);
    let d = &sweep["datasets"][0];
    assert_eq!(d["length"], 100);
    assert_eq!(d["checked"], 100);
    let bad = d["bad"].as_array().unwrap();
    assert!(!bad.is_empty() && bad.len() < 40, "about one sample in ten goes bad: {}", bad.len());
    for b in bad {
        assert_eq!(b["value"], 3);
        assert_eq!(b["bound"], 3);
    }
    // the training loop never ran: the script prints 'done' at its end
    assert!(!String::from_utf8_lossy(&out.stderr).contains("\ndone"));
}

#[test]
fn a_sweep_that_iterated_no_loader_says_so_and_exits_3() {
    let py = need_torch!();
    let d = tmp("sweep-nothing");
    std::fs::write(d.join("t.py"), "import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(list(range(8)), batch_size=4)\nprint('built, never iterated')\n").unwrap();
    let out = repro(&d, &["--cpu", "--sweep", "-q", "--color", "never"], &[py, "t.py"]);
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("sweep: nothing was checked (the script never iterated a DataLoader"), "{text}");
    assert!(!text.contains("every sample is within"), "{text}");
}

/// A Dataset that caches its preprocessing: the first run of `repro` builds and pickles it, so
/// the born-at pass (a second run) would load the pickle and never run the line that made the
/// label. The pass does not see what the first run created: it finds the label's line,
/// confirms it, and the user's cache is left as the user's program wrote it.
#[test]
fn a_cache_the_first_run_wrote_does_not_hide_where_the_label_was_made() {
    let py = need_torch!();
    let proj = tmp("cached-project");
    std::fs::write(
        proj.join("shapes.py"),
        r#"import os
import pickle

import numpy as np
from torch.utils.data import Dataset

SHAPES = ("circle", "square", "hexagon")
FILLS = ("solid", "hollow")


def describe(i):
    return {"shape": SHAPES[i % 3], "fill": FILLS[(i // 3) % 2], "edges": [0, 4, 6][i % 3]}


class ShapeSet(Dataset):
    def __init__(self, cache_dir):
        cache = os.path.join(cache_dir, "shapes.pkl")
        if os.path.isfile(cache):
            with open(cache, "rb") as fh:
                self.rows = pickle.load(fh)
            return
        self.rows = []
        for i in range(60):
            d = describe(i)
            joint = SHAPES.index(d["shape"]) * len(SHAPES) + FILLS.index(d["fill"])
            self.rows.append((np.full(4, d["edges"], dtype=np.float32), joint))
        os.makedirs(cache_dir, exist_ok=True)
        with open(cache, "wb") as fh:
            pickle.dump(self.rows, fh)

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        feats, joint = self.rows[i]
        return feats, joint
"#,
    )
    .unwrap();
    std::fs::write(
        proj.join("fit.py"),
        r#"import torch
from torch.utils.data import DataLoader

from shapes import FILLS, SHAPES, ShapeSet

net = torch.nn.Linear(4, len(SHAPES) * len(FILLS))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for feats, joint in DataLoader(ShapeSet("cache"), batch_size=12, shuffle=True):
    loss = torch.nn.functional.cross_entropy(net(feats), joint)
    opt.zero_grad()
    loss.backward()
    opt.step()
"#,
    )
    .unwrap();
    let out_dir = tmp("cached-out");
    let out = repro(&proj, &["--cpu", "--format", "json", "--project", ".", "--out", out_dir.to_str().unwrap()], &[py, "fit.py"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let v = report(&out);
    let born = &v["witness"]["born"]["value_chain"]["born"];
    assert!(born["file"].as_str().unwrap_or("").ends_with("shapes.py") && born["line"] == 25, "{born}");
    let s = &v["suspects"][0];
    assert_eq!((s["file"].as_str(), s["line"].as_u64(), s["confirmed"].as_bool()), (Some("shapes.py"), Some(25), Some(true)), "{s}");
    assert!(proj.join("cache/shapes.pkl").is_file(), "the user's cache is the user's program's to keep");
    let _ = std::fs::remove_dir_all(&out_dir);
    let _ = std::fs::remove_dir_all(&proj);
}

/// A `collate_fn` pads with its own default (`fill=-1`), which the DataLoader leaves as it is:
/// no line of the project passes the -1, so the run cannot follow it upstream. The line that
/// put it into the ids the embedding reads is where it joined the data: that line is confirmed,
/// and the default's line, which the run did not follow, is not refuted.
#[test]
fn a_marker_a_collate_default_pads_with_joins_the_data_where_it_is_padded_in() {
    let py = need_torch!();
    let proj = tmp("collate-default");
    std::fs::write(
        proj.join("tags.py"),
        r#"import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

SENTENCES = [[3, 1, 4, 1, 5], [9, 2, 6], [5, 3, 5, 8, 9, 7, 9], [3, 2]]


def pad_batch(rows, fill=-1):
    words = [torch.tensor(r) for r in rows]
    ids = pad_sequence(words, batch_first=True, padding_value=fill)
    return ids


embed = torch.nn.Embedding(10, 8)
for ids in DataLoader(SENTENCES, batch_size=4, collate_fn=pad_batch):
    embed(ids).sum().backward()
"#,
    )
    .unwrap();
    let out_dir = tmp("collate-default-out");
    let out = repro(&proj, &["--cpu", "--format", "json", "--project", ".", "--out", out_dir.to_str().unwrap()], &[py, "tags.py"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let v = report(&out);
    let born = &v["witness"]["born"]["value_chain"]["born"];
    assert_eq!((born["line"].as_u64(), born["kind"].as_str()), (Some(10), Some("joined")), "{born}");
    let s = &v["suspects"][0];
    assert_eq!((s["file"].as_str(), s["line"].as_u64(), s["confirmed"].as_bool()), (Some("tags.py"), Some(10), Some(true)), "{s}");
    assert!(!v["suspects"].as_array().unwrap().iter().any(|s| s["repro"] == "refuted"), "{}", v["suspects"]);
    let _ = std::fs::remove_dir_all(&out_dir);
    let _ = std::fs::remove_dir_all(&proj);
}

#[test]
fn every_fixture_bug_is_caught_and_the_controls_pass() {
    let py = need_torch!();
    let root = common::root().join("fixtures/projects");
    let mut checked = 0;
    for entry in std::fs::read_dir(&root).unwrap().flatten() {
        let dir = entry.path();
        let Ok(exp) = std::fs::read_to_string(dir.join("EXPECTED.json")) else { continue };
        let exp: serde_json::Value = serde_json::from_str(&exp).unwrap();
        let script = if dir.join("train.py").exists() { "train.py" } else { "seed_blog_example.py" };
        if !dir.join(script).exists() {
            // a notebook-only project (015): its cells run under IPython, not `python`
            continue;
        }
        let out = repro(&dir, &["--cpu", "--format", "json", "--timeout", "120"], &[py, script]);
        let v = report(&out);
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        match exp["bug_class"].as_str() {
            Some(class) => {
                assert_eq!(out.status.code(), Some(1), "{name}: {}", String::from_utf8_lossy(&out.stderr));
                let caught = v["witness"]["category"].as_str().unwrap_or("");
                // one_hot of labels trips scatter's index check, and a gather at the labels its
                // own: the kernel calls it an index
                let by_label = (v["witness"]["op"] == "one_hot" || v["witness"]["op"] == "gather") && caught == "index_out_of_range";
                assert!(caught == class || by_label, "{name}: caught {caught}, expected {class}");
                // the culprit first; the run confirms no other line (it confirms the culprit
                // only where it proved it: the value computed there from good inputs, or an
                // origin the static ranking put first)
                let culprit = &exp["culprit"];
                let at = |s: &serde_json::Value| (s["file"].as_str().map(String::from), s["line"].as_u64());
                let want = (culprit["file"].as_str().map(String::from), culprit["line"].as_u64());
                assert_eq!(at(&v["suspects"][0]), want, "{name}: {}", v["suspects"][0]);
                for s in v["suspects"].as_array().unwrap() {
                    assert!(s["confirmed"] != true || at(s) == want, "{name}: confirmed a line that is not the culprit: {s}");
                }
                if ["000-seed-blog", "002-semseg-void-250", "006-csv-one-based-labels", "011-mlm-minus-one-labels"].contains(&name.as_str())
                {
                    assert_eq!(v["suspects"][0]["confirmed"], true, "{name}: {}", v["suspects"][0]);
                    assert_eq!(v["suspects"][0]["repro"], "confirmed", "{name}");
                }
                // the born-at pass met the same violation (it follows integers: ids, labels)
                if v["witness"]["bad"][0]["value"].is_i64() {
                    assert_eq!(v["witness"]["born"]["same_witness"], true, "{name}");
                }
                // each provenance outcome, from a project that shows it
                let kind = v["witness"]["provenance"]["kind"].as_str().unwrap_or("");
                let expected_kind = match name.as_str() {
                    "000-seed-blog" | "002-semseg-void-250" => Some("code_line"),
                    "001-unet-mask-classes" | "004-yaml-nc-mismatch" => Some("raw_data"),
                    "005-movielens-one-based-ids" => Some("outside_getitem"),
                    "003-tokenizer-added-tokens" => Some("not_replayable"),
                    _ => None,
                };
                if let Some(k) = expected_kind {
                    assert_eq!(kind, k, "{name}: {}", v["witness"]["provenance"]);
                }
                if name == "005-movielens-one-based-ids" {
                    // made in the model's forward: the line of the step that changed the ids
                    let p = &v["witness"]["provenance"];
                    assert!(p["file"].as_str().is_some_and(|f| f.ends_with("model.py")) && p["line"] == 13, "{p}");
                }
            }
            None => {
                assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
                assert!(v.get("witness").is_none(), "{name}");
            }
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} fixture projects");
}

#[test]
fn a_healthy_run_exits_0_and_a_failing_one_without_violation_exits_3() {
    let py = need_torch!();
    let d = tmp("healthy");
    std::fs::write(d.join("ok.py"), "import torch\nx = torch.nn.functional.cross_entropy(torch.randn(4, 3), torch.tensor([0, 1, 2, -100]))\nprint('ok', float(x) > 0)\n").unwrap();
    let out = repro(&d, &["--cpu", "--format", "json"], &[py, "ok.py"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = report(&out);
    assert_eq!(v["run"]["shim_processes"], 1);
    assert!(v.get("witness").is_none());
    std::fs::write(d.join("bad.py"), "import torch\nraise ValueError('not a device assert')\n").unwrap();
    let out = repro(&d, &["--cpu", "--format", "json"], &[py, "bad.py"]);
    assert_eq!(out.status.code(), Some(3));
    let _ = std::fs::remove_dir_all(&d);
}

/// A run without `--cpu` on a machine whose torch has no CUDA device ends in torch's own error;
/// the report says to run it with `--cpu`, in the human report and first in the next steps.
#[test]
fn a_run_that_finds_no_cuda_suggests_cpu() {
    let py = need_torch!();
    let has_cuda = Command::new(py).args(["-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"]).status();
    if has_cuda.is_ok_and(|s| s.success()) {
        eprintln!("skipped: this torch has a CUDA device");
        return;
    }
    let d = tmp("nocuda");
    std::fs::write(
        d.join("gpu.py"),
        "import torch
x = torch.zeros(3).to('cuda')
",
    )
    .unwrap();
    let out = repro(&d, &["--format", "json"], &[py, "gpu.py"]);
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    let v = report(&out);
    let first = v["next_steps"][0].as_str().unwrap_or_default();
    assert!(first.contains("repro --cpu --") && first.contains("gpu.py"), "{v}");
    let out = repro(&d, &["--color", "never"], &[py, "gpu.py"]);
    let human = String::from_utf8_lossy(&out.stdout);
    assert!(human.contains("help: torch found no CUDA device"), "{human}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn no_values_keeps_tensors_out() {
    let py = need_torch!();
    let proj = common::root().join("fixtures/projects/000-seed-blog");
    let out_dir = tmp("novalues");
    let out =
        repro(&proj, &["--cpu", "--no-values", "--format", "json", "--out", out_dir.to_str().unwrap()], &[py, "seed_blog_example.py"]);
    assert_eq!(out.status.code(), Some(1));
    let v = report(&out);
    assert!(v["witness"]["bad"][0]["value"].is_null());
    let npy = std::fs::read_dir(&out_dir).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().ends_with(".npy")).count();
    assert_eq!(npy, 0);
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn timeout_kills_the_whole_process_group() {
    let d = tmp("timeout");
    let marker = d.join("child.pid");
    // a shell that starts a grandchild and waits: both must be gone after the timeout
    let script = format!("sleep 60 & echo $! > {}; wait", marker.display());
    let start = std::time::Instant::now();
    let out = repro(&d, &["--timeout", "1", "-q", "--format", "json"], &["sh", "-c", &script]);
    assert_eq!(out.status.code(), Some(4));
    assert!(start.elapsed().as_secs() < 20);
    let v = report(&out);
    assert_eq!(v["run"]["timed_out"], true);
    let pid = std::fs::read_to_string(&marker).unwrap().trim().to_string();
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| s.contains(") Z")),
        "grandchild {pid} survived"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn python_flags_that_skip_the_shim_are_refused() {
    let d = tmp("isolated");
    let out = repro(&d, &[], &["python3", "-I", "train.py"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("python -I") && err.contains("sitecustomize"), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_cudasleuth")).args(["repro"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn print_env_arms_a_run_that_read_turns_into_a_report() {
    let py = need_torch!();
    let cache = tmp("printenv-cache");
    let results = tmp("printenv-out");
    let out = Command::new(env!("CARGO_BIN_EXE_cudasleuth"))
        .args(["repro", "--cpu", "--print-env", "--out"])
        .arg(&results)
        .env("CUDASLEUTH_CACHE_DIR", &cache)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("export PYTHONPATH=") && text.contains("export CUDA_LAUNCH_BLOCKING=1\n"), "{text}");
    // run the script the way a launcher would: a shell that sources the variables
    let proj = common::root().join("fixtures/projects/000-seed-blog");
    let env_file = results.join("env.sh");
    std::fs::write(&env_file, &text).unwrap();
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!(". {} && exec {py} seed_blog_example.py", env_file.display()))
        .current_dir(&proj)
        .output()
        .unwrap();
    assert_eq!(status.status.code(), Some(86), "{}", String::from_utf8_lossy(&status.stderr));
    let out = Command::new(env!("CARGO_BIN_EXE_cudasleuth"))
        .args(["repro", "--format", "json", "--project"])
        .arg(&proj)
        .arg("--read")
        .arg(&results)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let v = report(&out);
    assert_eq!(v["suspects"][0]["line"], 17);
    let _ = std::fs::remove_dir_all(&cache);
    let _ = std::fs::remove_dir_all(&results);
}

#[test]
fn replay_against_the_original_log_names_the_same_failure_or_a_different_batch() {
    let py = need_torch!();
    let proj = common::root().join("fixtures/projects/000-seed-blog");
    let out = repro(&proj, &["--cpu", "--format", "json", "--replay", "cpu", "--log", "crash.log"], &[py, "seed_blog_example.py"]);
    assert_eq!(out.status.code(), Some(1));
    let v = report(&out);
    let r = &v["replay"];
    assert_eq!(r["verdict"], "same_failure", "{r}");
    assert_eq!(r["geometry"], "nll_reduce_block");
    assert_eq!(r["predicted"], r["logged"]);
    // the same log with another thread printed: not the batch the run caught
    let d = tmp("otherlog");
    let text = std::fs::read_to_string(proj.join("crash.log")).unwrap();
    let thread = v["replay"]["logged"][0][1].as_u64().unwrap();
    let moved = text.replace(&format!("thread: [{thread},0,0]"), &format!("thread: [{},0,0]", (thread + 7) % 32));
    assert_ne!(moved, text);
    std::fs::write(d.join("other.log"), moved).unwrap();
    let out = repro(
        &proj,
        &["--cpu", "--format", "json", "--replay", "cpu", "--log", d.join("other.log").to_str().unwrap()],
        &[py, "seed_blog_example.py"],
    );
    let v = report(&out);
    assert_eq!(v["replay"]["verdict"], "different_batch", "{}", v["replay"]);
    let _ = std::fs::remove_dir_all(&d);
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_the_command_and_everything_it_started() {
    let d = tmp("sigint");
    let marker = d.join("child.pid");
    let script = format!("sleep 60 & echo $! > {}; wait", marker.display());
    let child = Command::new(env!("CARGO_BIN_EXE_cudasleuth"))
        .args(["repro", "-q", "--format", "json", "--", "sh", "-c", &script])
        .current_dir(&d)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while !marker.exists() && start.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    // SAFETY: sends SIGINT to the repro process we started (as a terminal's Ctrl-C would).
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(start.elapsed().as_secs() < 20);
    let pid = std::fs::read_to_string(&marker).unwrap().trim().to_string();
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| s.contains(") Z")),
        "grandchild {pid} survived Ctrl-C"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// A notebook whose first cell is `%load_ext cudasleuth_shim`, run cell by cell under IPython
/// (`fixtures/projects/run_notebook.py`, as Jupyter's Run All): the training cell raises at the
/// first bad label, and `repro --read` names the lines of the notebook file, not the cells'
/// names (`<ipython-input-8-…>`); with no born-at pass the static culprit leads, unchecked. Needs IPython beside torch (`.ci/run` installs it into
/// `$CUDASLEUTH_TEST_PYTHONPATH`).
#[test]
fn a_notebook_run_with_the_shim_extension_points_into_the_notebook() {
    let py = need_torch!();
    let extra = std::env::var("CUDASLEUTH_TEST_PYTHONPATH").unwrap_or_default();
    let shim_dir = common::root().join("python");
    let pythonpath = std::env::join_paths([shim_dir.as_os_str(), std::ffi::OsStr::new(&extra)]).unwrap();
    if !Command::new(py).args(["-c", "import IPython"]).env("PYTHONPATH", &pythonpath).output().is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: no IPython (set CUDASLEUTH_TEST_PYTHONPATH)");
        return;
    }
    let d = tmp("notebook");
    let fixture = common::root().join("fixtures/projects/015-notebook-one-based-classes/reviews.ipynb");
    let mut nb: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    let cells = nb["cells"].as_array_mut().unwrap();
    cells.insert(0, serde_json::json!({"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": ["%load_ext cudasleuth_shim"]}));
    let mut n = 0;
    for c in cells.iter_mut().filter(|c| c["cell_type"] == "code") {
        n += 1;
        c["execution_count"] = n.into();
    }
    let text = serde_json::to_string_pretty(&nb).unwrap();
    std::fs::write(d.join("shim.ipynb"), &text).unwrap();
    let line_of = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() as u64 + 1;

    let runner = common::root().join("fixtures/projects/run_notebook.py");
    let out = Command::new(py)
        .arg(&runner)
        .arg("shim.ipynb")
        .current_dir(&d)
        .env("PYTHONPATH", &pythonpath)
        .env("CUDASLEUTH_OUT", d.join("out"))
        .env("CUDA_VISIBLE_DEVICES", "")
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.contains("cudasleuth: nll_loss violates"), "{printed}\n{}", String::from_utf8_lossy(&out.stderr));

    let out = Command::new(env!("CARGO_BIN_EXE_cudasleuth"))
        .args(["repro", "--read", "out", "--project", ".", "--format", "json"])
        .current_dir(&d)
        .output()
        .unwrap();
    let v = report(&out);
    assert!(common::check_shim_output(&d.join("out")) > 0, "the notebook run's witness follows the shim's schema");
    let first = &v["suspects"][0];
    assert_eq!(
        (first["file"].as_str(), first["line"].as_u64()),
        (Some("shim.ipynb"), Some(line_of("\"class_to_idx = {c: i + 1"))),
        "{}",
        v["suspects"]
    );
    // a notebook run is not re-run (no born-at pass): the run proves the class of bug and where
    // the value was read, not which line made it, so the static first suspect stays unchecked
    assert_eq!((&first["confirmed"], first["repro"].as_str()), (&serde_json::json!(false), Some("unchecked")), "{first}");
    // where the value came from: the line of __getitem__, in the notebook
    let read_at = format!("as read at shim.ipynb:{}", line_of("return self.x[i], class_to_idx"));
    assert!(first["evidence"].as_array().unwrap().iter().any(|e| e.as_str().unwrap().contains(&read_at)), "{}", first["evidence"]);
    let _ = std::fs::remove_dir_all(&d);
}

/// A bird-call classifier whose labels are read one-based from its annotation list and used as
/// they are (deterministic: every run catches the same sample).
const CALLS: &str = r#"import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

ANNOTATIONS = [(0.1, 1), (0.4, 2), (0.9, 3), (0.3, 1)]


class Calls(Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        energy, species = self.rows[i]
        return torch.tensor([energy, 1.0 - energy]), species


head = nn.Linear(2, 3)
loss_fn = nn.CrossEntropyLoss()
for x, y in DataLoader(Calls(ANNOTATIONS), batch_size=4):
    loss_fn(head(x), y).backward()
"#;

/// repro's human report, one per verdict, as a user reads it (80 columns, no colour); the
/// run's duration and its results directory are the only parts that change between runs.
#[test]
fn repro_reports_read_as_a_user() {
    let py = need_torch!();
    let dir = tmp("layout");
    let clean = CALLS.replace("species = self.rows[i]", "species = self.rows[i]\n        species -= 1");
    let failing = CALLS.replace("head = nn.Linear(2, 3)", "head = nn.Linear(2, 3)\nraise SystemExit('no GPU quota left')");
    let secs = regex::Regex::new(r"\b\d+(\.\d+)? s\b").unwrap();
    // the command as a user types it, whichever Python runs the tests
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join("python"), format!("#!/bin/sh\nexec '{py}' \"$@\"\n")).unwrap();
    let mut mode = std::fs::metadata(bin.join("python")).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
    std::fs::set_permissions(bin.join("python"), mode).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut got = Vec::new();
    // each script a project of its own
    for (name, text, code) in [("caught", CALLS, 1), ("clean", clean.as_str(), 0), ("failed", failing.as_str(), 3)] {
        let proj = dir.join(name);
        std::fs::create_dir_all(&proj).unwrap();
        std::fs::write(proj.join("train.py"), text).unwrap();
        let out_dir = dir.join(format!("{name}-out"));
        let out = Command::new(env!("CARGO_BIN_EXE_cudasleuth"))
            .args(["repro", "--cpu", "-q", "--color", "never", "--project", ".", "--out"])
            .arg(&out_dir)
            .args(["--", "python", "train.py"])
            .current_dir(&proj)
            .env("COLUMNS", "80")
            .env("PATH", &path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout).replace(out_dir.to_str().unwrap(), "<results>");
        got.push((name, secs.replace_all(&text, "<t> s").to_string()));
    }
    for (name, text) in got {
        insta::assert_snapshot!(format!("repro_{name}"), text);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--redact` takes home directories out of the report in every format (the run's results
/// directory is under the cache directory, in the user's home by default).
#[test]
fn redact_applies_to_repro_reports() {
    let py = need_torch!();
    let dir = tmp("redact");
    std::fs::write(dir.join("caught.py"), CALLS).unwrap();
    let home = dir.join("home").join("alice");
    std::fs::create_dir_all(&home).unwrap();
    for format in ["human", "json", "markdown"] {
        let out_dir = home.join(format!("out-{format}"));
        let out = Command::new(env!("CARGO_BIN_EXE_cudasleuth"))
            .args(["repro", "--cpu", "-q", "--redact", "--color", "never", "--format", format, "--out"])
            .arg(&out_dir)
            .args(["--project", ".", "--", py, "caught.py"])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout);
        // (the Markdown summary does not name it)
        assert!(format == "markdown" || text.contains("out-"), "{format}: the results directory is named\n{text}");
        assert!(!text.contains("/home/alice"), "{format}:\n{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
