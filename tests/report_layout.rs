//! What a user reads: the human report of each verdict kind (a device assert explained with a
//! project, from the log alone, synchronized; another CUDA error; a CPU error; a log with no
//! error), and lint's two text formats, at 80 columns and piped (plain ASCII), held as
//! snapshots. A change to any of them shows up in review as the text a user would see; update
//! with `cargo insta review` (CI never writes them).

use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The report as a user in an 80-column terminal reads it, paths under the checkout written
/// relative to it (the snapshot is the same on every machine).
fn report(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_cudasleuth"))
        .args(args)
        .current_dir(root())
        .env("COLUMNS", "80")
        .env("TERM", "xterm")
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap();
    let root = format!("{}/", root().display());
    format!("exit {}\n{}", out.status.code().unwrap_or(-1), text.replace(&root, ""))
}

#[test]
fn a_device_assert_explained_with_its_project() {
    let r = report(&["explain", "fixtures/projects/000-seed-blog/crash.log", "--project", "fixtures/projects/000-seed-blog"]);
    insta::assert_snapshot!(r);
}

#[test]
fn a_device_assert_from_the_log_alone() {
    insta::assert_snapshot!(report(&["explain", "fixtures/torch-2.11-h200/ce_1d_over.async.log"]));
}

#[test]
fn a_synchronized_device_assert() {
    insta::assert_snapshot!(report(&["explain", "fixtures/torch-2.11-h200/embedding_over.sync.log"]));
}

#[test]
fn another_cuda_error() {
    insta::assert_snapshot!(report(&["explain", "fixtures/public-logs/235.log"]));
}

#[test]
fn the_cpu_error_of_the_same_bug() {
    insta::assert_snapshot!(report(&["explain", "fixtures/public-logs/225.log"]));
}

#[test]
fn a_log_without_an_error() {
    insta::assert_snapshot!(report(&["explain", "fixtures/torch-2.11-h200-probe/kl_div_ok.log"]));
}

#[test]
fn lint_findings_graphical_and_concise() {
    let dir = "fixtures/projects/001-unet-mask-classes";
    let graphical = report(&["lint", dir, "--no-cache"]);
    let concise = report(&["lint", dir, "--no-cache", "--format", "concise"]);
    insta::assert_snapshot!(format!("{graphical}\n---- concise\n{concise}"));
}
