//! `explain` in the CI formats: GitHub annotations, SARIF 2.1.0, Markdown, JSON Lines, globs.

mod common;

use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cudasleuth"))
}

const PROJ: &str = "fixtures/projects/000-seed-blog";

fn explain(args: &[&str]) -> (i32, String) {
    let out = bin().arg("explain").args(args).current_dir(common::root()).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap())
}

#[test]
fn github_puts_one_annotation_on_the_culprit_line() {
    let (code, text) = explain(&["--format", "github", "--project", PROJ, &format!("{PROJ}/crash.log")]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "{text}");
    let l = lines[0];
    assert!(l.starts_with("::error file=fixtures/projects/000-seed-blog/seed_blog_example.py,line=17,"), "{l}");
    assert!(l.contains("title=cudasleuth%3A device-side assert in nll_loss"), "{l}");
    assert!(!l[l.find("::").unwrap() + 2..].contains('\n'));
}

#[test]
fn github_without_a_project_is_one_plain_error() {
    let (code, text) = explain(&["--format", "github", "fixtures/torch-2.11-h200/seed_blog_example.async.log"]);
    assert_eq!(code, 1);
    assert_eq!(text.lines().count(), 1);
    assert!(text.starts_with("::error title=cudasleuth%3A device-side assert in nll_loss"), "{text}");
    assert!(!text.contains("file="));
}

#[test]
fn github_is_silent_on_a_clean_log() {
    let dir = std::env::temp_dir().join(format!("cs-ci-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("ok.log");
    std::fs::write(&log, "epoch 1 loss 0.3\nepoch 2 loss 0.2\n").unwrap();
    let out = bin().args(["explain", "--format", "github"]).arg(&log).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sarif_validates_and_names_repository_paths() {
    let (code, text) = explain(&["--format", "sarif", "--project", PROJ, &format!("{PROJ}/crash.log")]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    common::check_sarif(&v);
    let run = &v["runs"][0];
    assert_eq!(run["automationDetails"]["id"], "cudasleuth/explain/");
    let r0 = &run["results"][0];
    assert_eq!(r0["ruleId"], "CS101");
    assert_eq!(r0["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "fixtures/projects/000-seed-blog/seed_blog_example.py");
    assert_eq!(r0["locations"][0]["physicalLocation"]["region"]["startLine"], 17);
    assert_eq!(r0["partialFingerprints"]["cudasleuth/v1"], "CS101:seed_blog_example.py:CustomDataset.__getitem__:y+1");
    // where `%SRCROOT%` is, for a viewer away from the working directory
    let root = std::fs::canonicalize(common::root()).unwrap();
    let want = format!("file://{}/", root.display());
    assert_eq!(run["originalUriBaseIds"]["%SRCROOT%"]["uri"], want.as_str());
    // a project outside the working directory: absolute `file:` URIs (a relative path would
    // name a file in the working directory); GitHub annotations get the absolute path
    let abs = root.join(PROJ);
    // (a directory of its own: the repository itself may sit under the temp directory)
    let away = std::env::temp_dir().join(format!("cs-away-{}", std::process::id()));
    std::fs::create_dir_all(&away).unwrap();
    let run_away = |format: &str| {
        let out = bin()
            .args(["explain", "--format", format, "--project"])
            .arg(&abs)
            .arg(abs.join("crash.log"))
            .current_dir(&away)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let v: serde_json::Value = serde_json::from_str(&run_away("sarif")).unwrap();
    common::check_sarif(&v);
    let at = &v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(at["uri"], format!("file://{}/seed_blog_example.py", abs.display()).as_str(), "{at}");
    assert!(at.get("uriBaseId").is_none(), "{at}");
    assert!(run_away("github").starts_with(&format!("::error file={}/seed_blog_example.py,line=17,", abs.display())));
    let _ = std::fs::remove_dir_all(&away);
    // no project: nothing located, an empty but valid run
    let (_, text) = explain(&["--format", "sarif", "fixtures/torch-2.11-h200/seed_blog_example.async.log"]);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    common::check_sarif(&v);
    assert_eq!(v["runs"][0]["results"].as_array().unwrap().len(), 0);
}

#[test]
fn markdown_summary_and_redaction() {
    let (code, text) = explain(&["--format", "markdown", "--project", PROJ, &format!("{PROJ}/crash.log")]);
    assert_eq!(code, 1);
    assert!(text.starts_with("### cudasleuth: device-side assert in nll_loss"), "{text}");
    assert!(text.contains("| `nll_loss_forward_reduce_cuda_kernel_2d` | nll_loss |"), "{text}");
    assert!(text.contains("1. `fixtures/projects/000-seed-blog/seed_blog_example.py:17`"), "{text}");
    assert!(text.contains("y = y + 1"), "{text}");
    // the value's chain drawn as a flowchart, from the line that made the value to the op, the
    // code in its labels escaped (a backtick would end a Markdown code span GitHub renders)
    let chart = text.split("```mermaid\n").nth(1).and_then(|c| c.split("```").next()).unwrap_or_else(|| panic!("no flowchart: {text}"));
    assert!(chart.starts_with("flowchart"), "{chart}");
    let first = chart.lines().find(|l| l.trim_start().starts_with("v0[")).unwrap_or_default();
    assert!(first.contains("seed_blog_example.py:17"), "the chain starts where the value was made: {chart}");
    assert!(chart.contains(" --> ") && !chart.contains('`'), "{chart}");
    // a log whose paths hold a home directory
    let (_, plain) = explain(&["--format", "markdown", "fixtures/torch-2.11-h200/seed_blog_example.async.log"]);
    let (_, red) = explain(&["--format", "markdown", "--redact", "fixtures/torch-2.11-h200/seed_blog_example.async.log"]);
    assert!(!red.contains("/home/") && !red.contains("/root/"), "{red}");
    assert!(plain.len() >= red.len());
}

/// `--redact` holds in every format that shows paths, not only in Markdown.
#[test]
fn redact_applies_to_every_format() {
    // the H200 log with its script moved under a home directory
    let text = std::fs::read_to_string(common::root().join("fixtures/torch-2.11-h200/seed_blog_example.sync.log")).unwrap();
    let dir = common::fresh_tmp("cudasleuth-ci-formats", "redact");
    let path = dir.join("home.log");
    std::fs::write(&path, text.replace("/tmp/triggers/", "/home/alice/proj/")).unwrap();
    let log = path.to_str().unwrap();
    for format in ["human", "json", "github", "sarif", "markdown"] {
        let (_, plain) = explain(&["--format", format, "--color", "never", log]);
        let (code, red) = explain(&["--format", format, "--color", "never", "--redact", log]);
        assert_eq!(code, 1, "{format}");
        let home = |t: &str| t.contains("/home/") || t.contains("/root/");
        assert!(home(&plain) || ["sarif", "github"].contains(&format), "{format}: the log's paths hold a home directory: {plain}");
        assert!(!home(&red), "{format}: {red}");
        if format == "json" || format == "sarif" {
            let v: serde_json::Value = serde_json::from_str(red.lines().next().filter(|_| format == "json").unwrap_or(&red)).unwrap();
            if format == "json" {
                common::check_schema(&v, "redacted json");
            }
        }
    }
}

#[test]
fn globs_expand_and_json_lines_give_one_verdict_per_log() {
    let (code, text) = explain(&["--format", "json", "fixtures/projects/000-seed-blog/crash*.log"]);
    assert_eq!(code, 1);
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "{text}");
    for v in &lines {
        common::check_schema(v, "glob");
        assert_eq!(v["verdict"], "device_assert");
    }
    assert!(lines[0]["source"].as_str().unwrap().ends_with("crash.log"));
    assert!(lines[1]["source"].as_str().unwrap().ends_with("crash.sync.log"));
}
