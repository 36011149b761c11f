#![allow(dead_code)]
//! Shared by the integration tests: run `explain` in-process, validate its JSON against the
//! committed schema, and list fixture files; and, for the tests of runs on some files, a finding
//! as one comparable line, a project as a lint run sees it, and the recall corpus.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cudasleuth::analysis::project::{Digest, Project};
use cudasleuth::log::{self, LogSource};
use cudasleuth::rank::assemble;
use cudasleuth::rules::Finding;
use cudasleuth::scan::facts::{Facts, FileFacts};

/// A fresh, empty directory of its own under the system's temporary directory
/// (`<prefix>-<pid>-<name>`; an older one of that name is removed first).
pub fn fresh_tmp(prefix: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("{prefix}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Fails the test if `lint --format json`'s output does not follow docs/lint.schema.json.
pub fn check_lint_schema(output: &serde_json::Value) {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    let v = V.get_or_init(|| {
        let text = std::fs::read_to_string(root().join("docs/lint.schema.json")).unwrap();
        jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).expect("docs/lint.schema.json is a valid schema")
    });
    let errors: Vec<String> = v.iter_errors(output).map(|e| format!("{} at {}", e, e.instance_path)).collect();
    assert!(errors.is_empty(), "lint output does not match docs/lint.schema.json:\n{}\n{output}", errors.join("\n"));
}

fn validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        let text = std::fs::read_to_string(root().join("docs/report.schema.json")).unwrap();
        let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
        jsonschema::validator_for(&schema).expect("docs/report.schema.json is a valid schema")
    })
}

/// Fails the test if the report does not follow docs/report.schema.json.
pub fn check_schema(report: &serde_json::Value, what: &str) {
    let errors: Vec<String> = validator().iter_errors(report).map(|e| format!("{} at {}", e, e.instance_path)).collect();
    assert!(errors.is_empty(), "{what}: report does not match docs/report.schema.json:\n{}", errors.join("\n"));
}

/// Runs explain on a file and returns the JSON report, schema-checked.
pub fn explain(path: &Path) -> serde_json::Value {
    let rel = path.strip_prefix(root()).unwrap_or(path).display().to_string();
    let incident = log::read_log(&LogSource::File(path.to_path_buf())).expect("fixture readable");
    let report = assemble::assemble(&rel, &incident);
    let value = serde_json::to_value(&report).unwrap();
    check_schema(&value, &rel);
    value
}

pub fn logs_in(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    v.sort();
    v
}

pub fn ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A compact, reviewable reading of a report: what a person checks by hand.
pub fn reading(r: &serde_json::Value) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(out, "verdict={} platform={}", r["verdict"].as_str().unwrap_or("?"), r["platform"]);
    for a in r["asserts"].as_array().unwrap() {
        let sig = &a["signature"];
        let _ = writeln!(
            out,
            "  assert {}:{} kernel={} block={} thread={} count={} distinct={} ranks={} assertion={:?}",
            a["file"].as_str().unwrap_or("-").rsplit(['/', '\\']).next().unwrap_or(""),
            a["line"],
            a["kernel"].as_str().map(|k| k.chars().take(60).collect::<String>()).unwrap_or("-".into()),
            a["block"],
            a["thread"],
            a["count"],
            a["hits"]["distinct"],
            a["ranks"].as_array().map(|v| v.len()).unwrap_or(0),
            a["assertion"].as_str().unwrap_or("-"),
        );
        let _ = writeln!(
            out,
            "    signature={} category={} match={}",
            sig["id"].as_str().unwrap_or("-"),
            sig["category"].as_str().unwrap_or("-"),
            sig["match"].as_str().unwrap_or("-")
        );
        if let Some(el) = a["candidates"]["elements"].as_str() {
            let el: String = el.chars().take(120).collect();
            let _ = writeln!(out, "    candidates exact={} {el}", a["candidates"]["exact"]);
        }
    }
    let e = &r["error"];
    if !e.is_null() {
        let _ = writeln!(
            out,
            "  error type={} launch_blocking={} message={:?}",
            e["type"],
            e["launch_blocking"],
            e["message"].as_str().unwrap_or("")
        );
    }
    let user: Vec<String> = r["frames"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["user_code"].as_bool() == Some(true))
        .map(|f| format!("{}:{}", f["file"].as_str().unwrap().rsplit(['/', '\\']).next().unwrap(), f["line"]))
        .collect();
    let _ = writeln!(out, "  user_frames={:?} traceback={}", user, r["traceback"]["level"].as_str().unwrap_or("?"));
    let kinds = |k: &str| -> Vec<String> { r[k].as_array().unwrap().iter().map(|n| n["kind"].as_str().unwrap().to_string()).collect() };
    let (s, ev) = (kinds("secondary"), kinds("evidence"));
    if !s.is_empty() || !ev.is_empty() {
        let _ = writeln!(out, "  secondary={s:?} evidence={ev:?}");
    }
    out
}

/// Fails the test if the value is not SARIF 2.1.0: it must read into the typed SARIF model of
/// the `serde-sarif` crate (generated from the OASIS schema) and write back unchanged, so a
/// misspelt or misplaced key, a wrong type or a missing required field fails. Where the official
/// schema file is at hand (`$SHARED/schemas`, default `../shared/schemas`; not needed), the value
/// is validated against it as well.
pub fn check_sarif(sarif: &serde_json::Value) {
    let typed: serde_sarif::sarif::Sarif = match serde_json::from_value(sarif.clone()) {
        Ok(t) => t,
        Err(e) => panic!("SARIF does not read as SARIF 2.1.0: {e}"),
    };
    let back = serde_json::to_value(&typed).unwrap();
    assert_eq!(&back, sarif, "SARIF holds keys the SARIF 2.1.0 model does not know (left: as the model reads it)");
    let shared = std::env::var("SHARED").map(PathBuf::from).unwrap_or_else(|_| root().join("../shared"));
    let Ok(schema_text) = std::fs::read_to_string(shared.join("schemas/sarif-schema-2.1.0.json")) else { return };
    let schema: serde_json::Value = serde_json::from_str(&schema_text).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(sarif).map(|e| format!("{e} at {}", e.instance_path)).collect();
    assert!(errors.is_empty(), "SARIF does not validate: {errors:?}");
}

/// The shim's output schema (`python/cudasleuth_shim/output.schema.json`), pointed at one of
/// its definitions (`witness`, `sweep`, `loaded`, `unmapped`).
pub fn shim_schema(def: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(root().join("python/cudasleuth_shim/output.schema.json")).expect("the shim's output schema");
    let mut schema: serde_json::Value = serde_json::from_str(&text).expect("the shim's output schema is JSON");
    assert!(schema["$defs"][def].is_object(), "the shim's output schema has no $defs/{def}");
    schema["$ref"] = serde_json::Value::String(format!("#/$defs/{def}"));
    schema
}

/// Why a file the shim wrote does not follow its definition in the shim's schema (empty: it does).
pub fn shim_output_errors(def: &str, value: &serde_json::Value) -> Vec<String> {
    let schema = shim_schema(def);
    let validator = jsonschema::validator_for(&schema).expect("the shim's output schema compiles");
    validator.iter_errors(value).map(|e| format!("{e} at {}", e.instance_path)).collect()
}

/// Fails the test unless every file the shim wrote in `dir` (witness-*, sweep-*, loaded-*,
/// unmapped-*.json) follows the shim's schema and reads into the Rust side's typed view.
/// Returns how many files were checked.
pub fn check_shim_output(dir: &Path) -> usize {
    let mut checked = 0;
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let Some(def) =
            ["witness", "sweep", "loaded", "unmapped"].into_iter().find(|d| name.starts_with(&format!("{d}-")) && name.ends_with(".json"))
        else {
            continue;
        };
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(e.path()).unwrap()).unwrap();
        let errors = shim_output_errors(def, &v);
        assert!(errors.is_empty(), "{name} does not follow the shim's schema: {errors:?}");
        use cudasleuth::model::witness::{Loaded, Sweep, Unmapped, Witness};
        let typed = match def {
            "witness" => serde_json::from_value::<Witness>(v).err(),
            "sweep" => serde_json::from_value::<Sweep>(v).err(),
            "loaded" => serde_json::from_value::<Loaded>(v).err(),
            _ => serde_json::from_value::<Unmapped>(v).err(),
        };
        assert!(typed.is_none(), "{name} does not read into the typed {def}: {typed:?}");
        checked += 1;
    }
    checked
}

/// Everything a finding says, as one line.
pub fn key(f: &Finding) -> String {
    format!("{} {} {:?} {} {:?} {} {}", f.rule, f.file, f.span, f.message, f.evidence, f.fingerprint, f.lint)
}

/// A content key for a file's facts.
fn content_key(f: &FileFacts) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_string(f).unwrap().hash(&mut h);
    format!("{}:{:x}", f.path, h.finish())
}

/// The project as a lint of some files sees it: digests and content keys, facts read on demand.
pub fn lazy(facts: &Facts) -> Project<'_> {
    let paths = facts.files.iter().map(|f| f.path.clone()).collect();
    let digests = facts.files.iter().map(|f| Digest::of(f, cudasleuth::rules::MARKS)).collect();
    let none = facts.files.iter().map(|_| None).collect();
    let keys = facts.files.iter().map(|f| Some(content_key(f))).collect();
    Project::new(paths, digests, none, Box::new(move |i, _, _| facts.files[i].clone())).with_keys(keys)
}

/// The projects of the recall corpus.
pub fn projects() -> Vec<std::path::PathBuf> {
    let dir = root().join("fixtures/projects");
    let mut out: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    out.sort();
    out
}

/// A small text classifier over three files, shared by the tracing tests: a tokenizer that cuts
/// ids to `max_len` and then frames them with [CLS]/[SEP] (one past a position table of
/// `max_len` rows), its Dataset and collate function, and the training script.
pub const REVIEWS_TOK: &str = r#"class Tokenizer:
    def __init__(self, words):
        self.itos = ["[PAD]", "[CLS]", "[SEP]"] + sorted(set(words))
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def encode(self, text, max_len):
        ids = [self.stoi[w] for w in text.split()]
        ids = ids[:max_len]
        return [self.stoi["[CLS]"]] + ids + [self.stoi["[SEP]"]]
"#;

pub const REVIEWS_DATA: &str = r#"import torch
from torch.utils.data import Dataset


class Reviews(Dataset):
    def __init__(self, texts, labels, tok, max_len):
        self.rows = [(tok.encode(t, max_len), y) for t, y in zip(texts, labels)]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


def collate(batch):
    seqs, labels = zip(*batch)
    width = max(len(s) for s in seqs)
    ids = torch.zeros((len(seqs), width), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.tensor(s)
    return ids, torch.tensor(labels)
"#;

pub const REVIEWS_TRAIN: &str = r#"import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from data import Reviews, collate
from model import Encoder
from tok import Tokenizer

MAX_LEN = 16


def main():
    texts = ["good film " * 20, "bad film"]
    tok = Tokenizer(" ".join(texts).split())
    ds = Reviews(texts, [1, 0], tok, MAX_LEN)
    loader = DataLoader(ds, batch_size=2, collate_fn=collate)
    model = Encoder(len(tok.itos), MAX_LEN, 2).cuda()
    for ids, y in loader:
        loss = F.cross_entropy(model(ids.cuda()), y.cuda())
        loss.backward()


main()
"#;

/// `explain --format json` of a real H200 log (`fixtures/torch-2.11-h200/LOG`) on a project made
/// of `files` in a directory of its own: the report, checked against the schema.
pub fn explain_project(files: &[(&str, &str)], log: &str) -> serde_json::Value {
    explain_project_log(files, &root().join("fixtures/torch-2.11-h200").join(log))
}

/// [`explain_project`] of the log at `log`.
pub fn explain_project_log(files: &[(&str, &str)], log: &Path) -> serde_json::Value {
    // a directory of its own per call: the tests run in parallel, several on the same file names
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("cudasleuth-flow-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (name, text) in files {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
    }
    std::fs::write(dir.join("pyproject.toml"), "[project]\nname = \"case\"\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cudasleuth"))
        .args(["explain", &log.display().to_string(), "--project", &dir.display().to_string(), "--format", "json"])
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    check_schema(&v, "flow case");
    v
}

/// The suspects of a real CPU run's log (`fixtures/cpu-pypi-torch/LOG`) on a project made of
/// `files`, as `file:line` in order, with the report's suspects themselves.
pub fn cpu_run_suspects(files: &[(&str, &str)], log: &str) -> (Vec<String>, Vec<serde_json::Value>) {
    log_suspects(files, &root().join("fixtures/cpu-pypi-torch").join(log))
}

/// The suspects of the real log at `log` on a project made of `files`, as `file:line` in order,
/// with the report's suspects themselves.
pub fn log_suspects(files: &[(&str, &str)], log: &Path) -> (Vec<String>, Vec<serde_json::Value>) {
    let v = explain_project_log(files, log);
    let all = v["suspects"].as_array().cloned().unwrap_or_default();
    (all.iter().map(|s| format!("{}:{}", s["file"].as_str().unwrap_or(""), s["line"])).collect(), all)
}

/// [`explain_project`]'s suspects as `file:line`, in order.
pub fn top_suspects(files: &[(&str, &str)], log: &str) -> Vec<String> {
    let v = explain_project(files, log);
    v["suspects"].as_array().unwrap().iter().map(|s| format!("{}:{}", s["file"].as_str().unwrap(), s["line"])).collect()
}

/// [`explain_project`]'s suspects as `file:line tier`, in order.
pub fn tiered_suspects(files: &[(&str, &str)], log: &str) -> Vec<String> {
    let v = explain_project(files, log);
    v["suspects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{}:{} {}", s["file"].as_str().unwrap(), s["line"], s["tier"].as_str().unwrap_or("")))
        .collect()
}
