//! The binary as a user runs it: exit codes, stdin, several logs, bad input, encodings.

mod common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cudasleuth"))
}

fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = bin().args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let data = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn json_lines(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            common::check_schema(&v, "cli output");
            v
        })
        .collect()
}

const SEED: &str = "fixtures/torch-2.11-h200/seed_blog_example.async.log";

#[test]
fn explains_a_file_and_exits_1() {
    let out = bin().args(["explain", "--color", "never", SEED]).current_dir(common::root()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let raw = String::from_utf8(out.stdout).unwrap();
    // help text is wrapped to the terminal width
    let text = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(text.contains("nll_loss"), "{text}");
    assert!(text.contains("torch.nn.functional.cross_entropy"), "{text}");
    assert!(text.contains("CUDA_LAUNCH_BLOCKING=1 python seed_blog_example.py"), "{text}");
    assert!(!raw.contains('\x1b'), "no colour when asked not to");
}

#[test]
fn stdin_dash_and_json_lines_for_several_logs() {
    let log = std::fs::read(common::root().join(SEED)).unwrap();
    let out = run_stdin(&["explain", "--format", "json", "-"], &log);
    assert_eq!(out.status.code(), Some(1));
    let v = json_lines(&out);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0]["source"], "<stdin>");
    assert_eq!(v[0]["asserts"][0]["signature"]["op"], "nll_loss");

    let out = bin()
        .args(["explain", "--format", "json", SEED, "fixtures/torch-2.11-h200/ctc_target_over.async.log"])
        .current_dir(common::root())
        .output()
        .unwrap();
    let v = json_lines(&out);
    assert_eq!(v.len(), 2);
    assert_eq!(v[1]["verdict"], "none");
    assert_eq!(out.status.code(), Some(1), "one log explained → 1");
}

#[test]
fn nothing_found_exits_0() {
    let out = run_stdin(&["explain", "--format", "json"], b"epoch 1 loss 0.5\nepoch 2 loss 0.4\n");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json_lines(&out)[0]["verdict"], "none");
    let empty = run_stdin(&["explain", "--format", "json"], b"");
    assert_eq!(empty.status.code(), Some(0));
}

#[test]
fn missing_file_and_directory_are_clear_errors_with_exit_2() {
    let out = bin().args(["explain", "/nonexistent/crash.log"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("no such file"), "{err}");
    assert!(err.contains("cudasleuth::input"), "{err}");
    assert!(err.to_lowercase().contains("help"), "{err}");

    let out = bin().args(["explain", "/tmp"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("directory"));
}

#[test]
fn unreadable_input_is_exit_2() {
    // /proc/self/mem opens but every read at offset 0 fails, even for root.
    let out = bin().args(["explain", "/proc/self/mem"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn usage_error_is_exit_2() {
    let out = bin().args(["explain", "--format", "yaml"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// `repro --timeout inf` (or `1e999`) panicked with exit 101; `nan`, `0` and `-1` silently meant
/// no limit. Each is a usage error now (exit 2, the flag named), and nothing is run.
#[test]
fn repro_timeout_that_is_not_a_positive_finite_number_is_a_usage_error() {
    for bad in ["inf", "1e999", "nan", "0", "-1", "soon"] {
        let out = bin().args(["repro", &format!("--timeout={bad}"), "--", "true"]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(err.contains("--timeout"), "{bad}: {err}");
    }
}

#[test]
fn binary_garbage_and_invalid_utf8_do_not_panic() {
    let mut data = Vec::new();
    let mut x: u32 = 12345;
    for _ in 0..200_000 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        data.push((x >> 16) as u8);
    }
    data.extend_from_slice(b"\n\xff\xfe/pytorch/aten/src/ATen/native/cuda/Loss.cu:245: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [1,0,0] Assertion `t >= 0 && t < n_classes` failed.\xc3\x28\n");
    let out = run_stdin(&["explain", "--format", "json"], &data);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json_lines(&out);
    assert_eq!(v[0]["asserts"][0]["line"], 245);
}

#[test]
fn a_50_mb_single_line_is_read() {
    let mut data = vec![b'#'; 50 << 20];
    data.extend_from_slice(b"\r/pytorch/aten/src/ATen/native/cuda/Loss.cu:245: k: block: [0,0,0], thread: [3,0,0] Assertion `t >= 0 && t < n_classes` failed.\n");
    let out = run_stdin(&["explain", "--format", "json"], &data);
    assert_eq!(out.status.code(), Some(1));
    let v = json_lines(&out);
    assert_eq!(v[0]["asserts"][0]["thread"], serde_json::json!([3, 0, 0]));
    assert_eq!(v[0]["asserts"][0]["log_lines"], serde_json::json!([1]));
}

#[test]
fn gzip_and_utf16_logs() {
    let log = std::fs::read(common::root().join(SEED)).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&log).unwrap();
    let out = run_stdin(&["explain", "--format", "json"], &gz.finish().unwrap());
    assert_eq!(json_lines(&out)[0]["asserts"][0]["kernel"], "nll_loss_forward_reduce_cuda_kernel_2d");

    let text = String::from_utf8(log).unwrap();
    let mut utf16 = vec![0xff, 0xfe];
    for u in text.encode_utf16() {
        utf16.extend_from_slice(&u.to_le_bytes());
    }
    let out = run_stdin(&["explain", "--format", "json"], &utf16);
    let v = json_lines(&out);
    assert_eq!(v[0]["asserts"][0]["thread"], serde_json::json!([1, 0, 0]));
    assert_eq!(v[0]["frames"][0]["line"], 31);
}

#[test]
fn ci_noise_around_a_report() {
    let log = "2024-05-01T12:00:00.1234567Z \x1b[36m[rank3]:\x1b[0m /pytorch/aten/src/ATen/native/cuda/Loss.cu:245: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [7,0,0] Assertion `t >= 0 && t < n_classes` failed.\n\
2024-05-01T12:00:00.1234568Z [rank3]: Traceback (most recent call last):\n\
2024-05-01T12:00:00.1234569Z [rank3]:   File \"/home/ci/job/train.py\", line 30, in <module>\n\
2024-05-01T12:00:00.1234570Z [rank3]:     loss = criterion(out, y)\n\
2024-05-01T12:00:00.1234571Z [rank3]: RuntimeError: CUDA error: device-side assert triggered\n";
    let out = run_stdin(&["explain", "--format", "json"], log.as_bytes());
    let v = &json_lines(&out)[0];
    assert_eq!(v["asserts"][0]["ranks"], serde_json::json!([{"kind": "rank", "id": 3}]));
    assert_eq!(v["frames"][0]["line"], 30);
    assert_eq!(v["frames"][0]["rank"], 3);
    assert_eq!(v["frames"][0]["code"], "loss = criterion(out, y)");
}

#[test]
fn hard_wrapped_report_counts_once() {
    let log = "/pytorch/aten/src/ATen/native/cuda/Loss.cu:245: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thr\n\
ead: [1,0,0] Assertion `t >= 0 && t < n_cla\n\
sses` failed.\n";
    let out = run_stdin(&["explain", "--format", "json"], log.as_bytes());
    let v = &json_lines(&out)[0];
    assert_eq!(v["asserts"].as_array().unwrap().len(), 1);
    assert_eq!(v["asserts"][0]["count"], 1);
    assert_eq!(v["asserts"][0]["assertion"], "t >= 0 && t < n_classes");
    assert_eq!(v["asserts"][0]["thread"], serde_json::json!([1, 0, 0]));
}

#[test]
fn a_signature_wrapped_before_a_pointer_keeps_its_space() {
    // cunn#448: the wrap fell on the space of `Dtype *` and swallowed it
    let log = "/build/lib/THCUNN/ClassNLLCriterion.cu:52: void cunn_ClassNLLCriterion_updateOutput_kernel(Dtype *, Dtype *, Dtype\n\
*, long *, Dtype *, int, int, int, int) [with Dtype = float, Acctype = float]: block: [0,0,0], thread: [2,0,0] Assertion `t >= 0 && t < n_classes` fail\n\
ed.\n";
    let out = run_stdin(&["explain", "--format", "json"], log.as_bytes());
    let v = &json_lines(&out)[0];
    assert_eq!(
        v["asserts"][0]["kernel"],
        "void cunn_ClassNLLCriterion_updateOutput_kernel(Dtype *, Dtype *, Dtype *, long *, Dtype *, int, int, int, int) [with Dtype = float, Acctype = float]"
    );
    assert_eq!(v["asserts"][0]["assertion"], "t >= 0 && t < n_classes");
}

#[test]
fn secondary_symptoms_are_never_the_error() {
    let log = "/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1422: indexSelectLargeIndex: block: [15,0,0], thread: [96,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n\
RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`\n\
[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1) ran for 1800000 milliseconds before timing out.\n\
terminate called after throwing an instance of 'c10::DistBackendError'\n";
    let out = run_stdin(&["explain", "--format", "json"], log.as_bytes());
    let v = &json_lines(&out)[0];
    assert_eq!(v["verdict"], "device_assert");
    let kinds: Vec<&str> = v["secondary"].as_array().unwrap().iter().map(|n| n["kind"].as_str().unwrap()).collect();
    assert!(kinds.contains(&"cublas_error") && kinds.contains(&"nccl_watchdog") && kinds.contains(&"terminate_called"), "{kinds:?}");
    assert_eq!(v["asserts"][0]["signature"]["category"], "embedding_index_out_of_range");
}

#[test]
fn kernels_lists_and_filters() {
    let out = bin().args(["kernels", "--op", "nll_loss"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("nll_loss_forward_reduce_cuda_kernel_2d"));
    assert!(!text.contains("vectorized_gather_kernel"));
}

/// The record layout printed by c10/cuda/CUDADeviceAssertionHost.cpp (torch 2.x, DSA builds).
#[test]
fn dsa_block_becomes_a_site_with_its_launch() {
    let log = "RuntimeError: CUDA error: device-side assert triggered\n\
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n\
Looking for device-side assertion failure information...\n\
1 CUDA device-side assertion failures were found on GPU #0!\n\
Assertion failure 0\n\
  GPU assertion failure message = t >= 0 && t < n_classes\n\
  File containing assertion = /pytorch/aten/src/ATen/native/cuda/Loss.cu:250\n\
  Device function containing assertion = nll_loss_forward_reduce_cuda_kernel_2d\n\
  Thread ID that failed assertion = [5,0,0]\n\
  Block ID that failed assertion = [0,0,0]\n\
  File containing kernel launch = /pytorch/aten/src/ATen/native/cuda/Loss.cu:385\n\
  Function containing kernel launch = nll_loss_forward_out_cuda_template\n\
  Name of kernel launched that led to failure = nll_loss_forward_reduce_cuda_kernel_2d\n\
  Device that launched kernel = 0\n\
  Stream kernel was launched on = 0\n\
  Backtrace of kernel launch site = Launch stacktracing disabled.\n";
    let out = run_stdin(&["explain", "--format", "json"], log.as_bytes());
    let v = &json_lines(&out)[0];
    let a = &v["asserts"][0];
    assert_eq!(a["line"], 250);
    assert_eq!(a["thread"], serde_json::json!([5, 0, 0]));
    assert_eq!(a["count"], 1);
    assert_eq!(a["launch"]["function"], "nll_loss_forward_out_cuda_template");
    assert_eq!(a["signature"]["op"], "nll_loss");
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("cudasleuth-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn project_sites_from_pyproject() {
    let dir = temp_dir("pyproject");
    std::fs::write(
        dir.join("pyproject.toml"),
        r#"[project]
name = "asr"

[[tool.cudasleuth.kernels.site]]
id = "k2.intersect_dense.bad_state"
op = "k2.intersect_dense"
kernels = ["operator()"]
file = "k2/csrc/intersect_dense.cu"
assertions = ["Some bad things happened"]
python_apis = ["k2.intersect_dense"]
category = "other"
explanation = "k2's dense intersection found an inconsistent state: usually the supervision segments do not fit the network output"
checked = ["our crash of 2024-03"]
"#,
    )
    .unwrap();
    let log = common::root().join("fixtures/public-logs/250.log");
    let out = bin().args(["explain", "--format", "json", "--project"]).arg(&dir).arg(&log).output().unwrap();
    let v = &json_lines(&out)[0];
    assert_eq!(v["asserts"][0]["signature"]["id"], "k2.intersect_dense.bad_state");
    // without the project the same log gets only the generic reading
    let out = bin().args(["explain", "--format", "json"]).arg(&log).output().unwrap();
    assert_eq!(json_lines(&out)[0]["asserts"][0]["signature"]["match"], "generic");

    // a broken table (or a broken pyproject.toml) does not stop the explanation: a warning
    // says what is left out
    for broken in ["[[tool.cudasleuth.kernels.site]]\nid = 3\n", "[tool.cudasleuth\nselect = [\n"] {
        std::fs::write(dir.join("pyproject.toml"), broken).unwrap();
        let out = bin().args(["explain", "--format", "json", "--project"]).arg(&dir).arg(&log).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(json_lines(&out)[0]["asserts"][0]["signature"]["match"], "generic");
        assert!(String::from_utf8_lossy(&out.stderr).contains("warning:"), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn project_maps_traceback_paths() {
    let dir = temp_dir("paths");
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::write(dir.join("train.py"), "print(1)\n").unwrap();
    std::fs::write(dir.join("data/dataset.py"), "x = 1\n").unwrap();
    let log = "Traceback (most recent call last):\n  File \"/home/u/job42/proj/train.py\", line 30, in <module>\n    loss = criterion(out, y)\n  File \"/home/u/job42/proj/data/dataset.py\", line 23, in __getitem__\n    y = y + 1\nRuntimeError: CUDA error: device-side assert triggered\n";
    let out = run_stdin(&["explain", "--format", "json", "--project", dir.to_str().unwrap()], log.as_bytes());
    let v = &json_lines(&out)[0];
    assert_eq!(v["frames"][0]["path"], "train.py");
    assert_eq!(v["frames"][1]["path"], "data/dataset.py");
    let out = bin().args(["explain", "--project", "/nonexistent-dir", "-"]).stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn project_suspects_name_the_line_that_made_the_bad_label() {
    let proj = common::root().join("fixtures/projects/000-seed-blog");
    let out = bin().args(["explain", "--format", "json", "--project"]).arg(&proj).arg(proj.join("crash.log")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = &json_lines(&out)[0];
    let s = &v["suspects"][0];
    assert_eq!(s["file"], "seed_blog_example.py");
    assert_eq!(s["line"], 17);
    assert_eq!(s["rule"], "CS101");
    assert_eq!(s["confirmed"], serde_json::Value::Null);
    assert_eq!(v["frames"][0]["path"], "seed_blog_example.py");
    let human = bin().args(["explain", "--color", "never", "--project"]).arg(&proj).arg(proj.join("crash.log")).output().unwrap();
    let text = String::from_utf8(human.stdout).unwrap();
    assert!(text.contains("17 |             y = y + 1"), "{text}");
}

/// A crash pasted from Jupyter (the verbatim public log 097, VS Code's notebook format) and the
/// notebook it ran in: the traceback's cells are found in the .ipynb by their `In[n]` and line.
#[test]
fn jupyter_frames_are_found_in_the_project_notebook() {
    let dir = std::env::temp_dir().join(format!("cudasleuth-nb-frames-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let cell = |count: u32, lines: &[&str]| {
        let n = lines.len();
        let source: Vec<String> = lines.iter().enumerate().map(|(i, l)| if i + 1 < n { format!("{l}\n") } else { l.to_string() }).collect();
        serde_json::json!({"cell_type": "code", "execution_count": count, "metadata": {}, "outputs": [], "source": source})
    };
    let nb = serde_json::json!({
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# Multi-class classification\n"]},
            cell(8, &["def accuracy_cal(y_pred, y_true):", "    correct = torch.eq(y_true, y_pred).sum().item()", "    return (correct / len(y_pred))*100"]),
            cell(11, &[
                "for epoch in range(epochs):", "    model.train()", "    y_logits = model(X_train)", "    y_pred = torch.softmax(y_logits, dim=1).argmax(dim=1)",
                "", "", "", "", "", "",
                "# 2. Calculate loss and accuracy", "loss = loss_func(y_logits, y_train)", "acc = accuracy_cal(y_pred, y_train)", "",
                "# 3. Back propagation", "optimizer.zero_grad()",
            ]),
        ],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5
    });
    // indented one space per level, as Jupyter saves
    let mut text = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut text, serde_json::ser::PrettyFormatter::with_indent(b" "));
    serde::Serialize::serialize(&nb, &mut ser).unwrap();
    let text = String::from_utf8(text).unwrap();
    std::fs::write(dir.join("classify.ipynb"), &text).unwrap();
    let line_of = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let eq_line = line_of("correct = torch.eq");

    let log = common::root().join("fixtures/public-logs/097.log");
    let out = bin().args(["explain", log.to_str().unwrap(), "--project", dir.to_str().unwrap(), "--color", "never"]).output().unwrap();
    let text_out = String::from_utf8_lossy(&out.stdout);
    assert!(text_out.contains(&format!("Cell In[8]:2 (classify.ipynb:{eq_line})")), "{text_out}");
    // the advice is for a notebook, not for a script that does not exist (read as one text: the
    // steps are wrapped to the terminal)
    let flat = text_out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("run `%env CUDA_LAUNCH_BLOCKING=1` in the first cell") && !flat.contains("python train.py"), "{text_out}");
    // the JSON contract's frames keep the printed file and line, with no project path
    let out = bin().args(["explain", log.to_str().unwrap(), "--project", dir.to_str().unwrap(), "--format", "json"]).output().unwrap();
    let v = &json_lines(&out)[0];
    assert_eq!(v["frames"][0]["file"], "Cell In[11]");
    assert_eq!(v["frames"][0]["line"], 13);
    assert!(v["frames"][0]["path"].is_null());
    assert!(v["frames"][0].get("notebook").is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The notebook-only fixture project: its synchronous log's failing call (`Cell In[7], line 7`)
/// is named by the notebook line the hand-written answer gives for it.
#[test]
fn a_cell_frame_becomes_the_notebook_line_in_the_evidence() {
    let dir = common::root().join("fixtures/projects/015-notebook-one-based-classes");
    let exp: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("EXPECTED.json")).unwrap()).unwrap();
    let call = exp["supporting"].as_array().unwrap().iter().find(|s| s["what"].as_str().unwrap().contains("failing call")).unwrap();
    let out = bin().args(["explain", "crash.sync.log", "--project", ".", "--format", "json"]).current_dir(&dir).output().unwrap();
    let v = &json_lines(&out)[0];
    let evidence: Vec<&str> = v["suspects"][0]["evidence"].as_array().unwrap().iter().map(|e| e.as_str().unwrap()).collect();
    let want = format!("at {}:{}", call["file"].as_str().unwrap(), call["line"]);
    assert!(evidence.iter().any(|e| e.starts_with("call:") && e.ends_with(&want)), "{evidence:?}");
    assert_eq!(v["suspects"][0]["tier"], "strong");
}

/// `kernels --op bogus` and `--category bogus` printed nothing and exited 0; `--op
/// CrossEntropyLoss` (a Python API, not an op) found nothing.
#[test]
fn kernels_filters_that_select_nothing_are_usage_errors_and_apis_select_their_ops() {
    for args in [&["kernels", "--op", "bogus"][..], &["kernels", "--category", "bogus"][..]] {
        let out = bin().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("label_out_of_range") && err.contains("--op matches"), "{err}");
    }
    // the API's class name, and the names code writes after the usual imports
    for op in ["CrossEntropyLoss", "F.cross_entropy", "nn.NLLLoss", "torch.nn.functional.nll_loss"] {
        let out = bin().args(["kernels", "--op", op]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{op}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stdout).contains("nll_loss"), "{op}");
    }
}

/// `lint --output-format json` (ruff's flag) was refused with a misleading tip.
#[test]
fn lint_takes_ruffs_output_format_flag() {
    let out = bin()
        .args(["lint", "--no-cache", "--exit-zero", "--output-format", "json", "fixtures/projects/000-seed-blog"])
        .current_dir(common::root())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["kind"], "lint");
}

/// A quoted `**` glob matches zero or more directories, as bash's globstar does: the log
/// directly in `logs/` is found with the one a level down.
#[test]
fn a_double_star_glob_matches_zero_or_more_directories() {
    let dir = common::fresh_tmp("cudasleuth-glob", "logs");
    std::fs::create_dir_all(dir.join("x")).unwrap();
    let log = common::root().join("fixtures/torch-2.11-h200/ce_1d_over.async.log");
    std::fs::copy(&log, dir.join("a.log")).unwrap();
    std::fs::copy(&log, dir.join("x/b.log")).unwrap();
    let pattern = format!("{}/**/*.log", dir.display());
    let out = bin().args(["explain", "--format", "json", &pattern]).output().unwrap();
    let sources: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["source"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(sources.len(), 2, "{sources:?} {}", String::from_utf8_lossy(&out.stderr));
    assert!(sources[0].ends_with("/a.log") && sources[1].ends_with("x/b.log"), "{sources:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn repro_without_the_separator_says_where_the_command_goes() {
    let out = bin().args(["repro", "python", "train.py", "--epochs", "3"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("cudasleuth repro [OPTIONS] -- python train.py --epochs 3"), "{err}");
}

#[test]
fn lint_of_a_missing_path_gives_lint_advice() {
    let out = bin().args(["lint", "/nonexistent/train.py"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("no such file") && err.contains("lint takes Python files"), "{err}");
    assert!(!err.contains("stdin"), "{err}");
    // `-` without a name for the code: how to give one
    let out = bin().args(["lint", "-"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("--stdin-filename") && !err.contains("explain"), "{err}");
}
