//! The fixture corpus (fixtures/projects/*/EXPECTED.json): `explain LOG --project .` run in each
//! project must name the expected culprit line first, for the plain GPU log, the synchronous
//! one and the CPU one; the clean controls must stay quiet, in `explain` and in `lint --preview`
//! (run on a copy of the control in its own directory, as a user's project would be).

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cudasleuth"))
}

fn projects() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/projects");
    let mut out: Vec<PathBuf> =
        std::fs::read_dir(&root).unwrap().flatten().map(|e| e.path()).filter(|p| p.join("EXPECTED.json").is_file()).collect();
    out.sort();
    out
}

fn suspects(dir: &Path, log: &str) -> Vec<(String, u64, String)> {
    let out = bin().args(["explain", log, "--project", ".", "--format", "json"]).current_dir(dir).output().unwrap();
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}: {}", dir.display(), String::from_utf8_lossy(&out.stderr)));
    v["suspects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["file"].as_str().unwrap().to_string(), s["line"].as_u64().unwrap(), s["rule"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn every_culprit_is_ranked_first() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for dir in projects() {
        let expected: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("EXPECTED.json")).unwrap()).unwrap();
        let Some(culprit) = expected["culprit"].as_object() else { continue };
        let (file, line) = (culprit["file"].as_str().unwrap(), culprit["line"].as_u64().unwrap());
        for log in ["crash.log", "crash.sync.log", "cpu.log"] {
            if !dir.join(log).is_file() {
                continue;
            }
            checked += 1;
            let s = suspects(&dir, log);
            if s.first().map(|(f, l, _)| (f.as_str(), *l)) != Some((file, line)) {
                failures.push(format!(
                    "{} {log}: expected {file}:{line} first, got {:?}",
                    dir.file_name().unwrap().to_string_lossy(),
                    s.iter().take(3).collect::<Vec<_>>()
                ));
            }
        }
    }
    assert!(checked >= 39, "only {checked} logs found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn controls_stay_quiet() {
    for dir in projects() {
        let expected: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("EXPECTED.json")).unwrap()).unwrap();
        if !expected["culprit"].is_null() {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        for log in ["run.log", "cpu.log"] {
            if dir.join(log).is_file() {
                assert_eq!(suspects(&dir, log), [], "{name} {log}");
            }
        }
        // lint with every rule, on a copy that is its own project
        let copy = std::env::temp_dir().join(format!("cudasleuth-corpus-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&copy);
        std::fs::create_dir_all(&copy).unwrap();
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            if e.path().is_file() {
                std::fs::copy(e.path(), copy.join(e.file_name())).unwrap();
            }
        }
        std::fs::write(copy.join("pyproject.toml"), "[project]\nname = \"control\"\n").unwrap();
        let out = bin().args(["lint", "--preview", "--no-cache", "--format", "json"]).current_dir(&copy).output().unwrap();
        let _ = std::fs::remove_dir_all(&copy);
        let v: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{name}: {}", String::from_utf8_lossy(&out.stderr)));
        assert_eq!(v["diagnostics"].as_array().unwrap().len(), 0, "{name}: {}", v["diagnostics"]);
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_tree(&p, &to.join(e.file_name()));
        } else if p.is_file() {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// Recall of `lint` without a log: each bug project, copied into its own project, gets a
/// diagnostic on the line the hand-written answer names.
#[test]
fn lint_flags_every_culprit() {
    let mut checked = 0;
    for dir in projects() {
        let expected: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("EXPECTED.json")).unwrap()).unwrap();
        let culprit = &expected["culprit"];
        if culprit.is_null() {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let copy = std::env::temp_dir().join(format!("cudasleuth-recall-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&copy);
        copy_tree(&dir, &copy);
        if !copy.join("pyproject.toml").exists() {
            std::fs::write(copy.join("pyproject.toml"), "[project]\nname = \"recall\"\n").unwrap();
        }
        let out = bin().args(["lint", "--preview", "--no-cache", "--format", "json"]).current_dir(&copy).output().unwrap();
        let _ = std::fs::remove_dir_all(&copy);
        let v: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{name}: {}", String::from_utf8_lossy(&out.stderr)));
        let hit = v["diagnostics"].as_array().unwrap().iter().any(|d| d["file"] == culprit["file"] && d["line"] == culprit["line"]);
        assert!(hit, "{name}: no diagnostic at {}:{}: {}", culprit["file"], culprit["line"], v["diagnostics"]);
        // a finding in a notebook points at the line of the .ipynb file that holds the code,
        // one the hand-written answer names (the culprit or a supporting line)
        let named: Vec<(&serde_json::Value, &serde_json::Value)> = std::iter::once(culprit)
            .chain(expected["supporting"].as_array().into_iter().flatten())
            .map(|e| (&e["file"], &e["line"]))
            .collect();
        for d in v["diagnostics"].as_array().unwrap().iter().filter(|d| d["file"].as_str().is_some_and(|f| f.ends_with(".ipynb"))) {
            assert!(named.contains(&(&d["file"], &d["line"])), "{name}: {}:{} is not a line the answer names", d["file"], d["line"]);
        }
        checked += 1;
    }
    assert!(checked >= 13, "{checked}");
}
