//! The reading of every real log we generated on the device machine, snapshotted. The
//! snapshots were checked by hand when first written; a change shows as a diff to review with
//! `cargo insta review` (CI never writes them).

mod common;

use common::*;

fn snapshot_dir(dir: &str) -> String {
    let mut out = String::new();
    for log in logs_in(dir) {
        let r = explain(&log);
        out.push_str(&format!("{}\n{}\n", log.file_name().unwrap().to_string_lossy(), reading(&r)));
    }
    out
}

#[test]
fn torch_2_11_h200() {
    insta::assert_snapshot!(snapshot_dir("fixtures/torch-2.11-h200"));
}

#[test]
fn public_logs() {
    insta::assert_snapshot!(snapshot_dir("fixtures/public-logs"));
}

#[test]
fn torch_2_11_h200_more() {
    insta::assert_snapshot!(snapshot_dir("fixtures/torch-2.11-h200-more"));
}

#[test]
fn torch_2_11_h200_probe() {
    insta::assert_snapshot!(snapshot_dir("fixtures/torch-2.11-h200-probe"));
}
