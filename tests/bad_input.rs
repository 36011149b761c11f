//! A project full of bad input: syntax errors, non-UTF-8, a huge generated file, a broken
//! notebook, a dangling link, a link loop, a FIFO. Each is a warning (or skipped), the scan
//! goes on, the real finding is still reported, nothing hangs or panics, and nothing is
//! written into the project.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const DATASET: &str = "import random\nfrom torch.utils.data import Dataset\n\nclass Shapes(Dataset):\n    def __init__(self, labels):\n        self.labels = labels\n\n    def __len__(self):\n        return len(self.labels)\n\n    def __getitem__(self, idx):\n        label = self.labels[idx]\n        if random.random() < 0.1:\n            label = label + 1\n        return label\n";

fn run_with_deadline(mut cmd: Command, limit: Duration) -> std::process::Output {
    let mut child = cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("the scan hung on bad input");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn listing(dir: &Path) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().to_string(), e.path().symlink_metadata().map(|m| m.len()).unwrap_or(0)))
        .collect();
    v.sort();
    v
}

#[test]
fn every_kind_of_bad_file_is_a_warning_and_the_scan_goes_on() {
    let dir = std::env::temp_dir().join(format!("cs-bad-input-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::write(dir.join("pyproject.toml"), "[project]\nname = \"bad\"\n").unwrap();
    std::fs::write(dir.join("data/dataset.py"), DATASET).unwrap();
    std::fs::write(dir.join("broken_syntax.py"), "def f(:\n    return (\nclass\n").unwrap();
    std::fs::write(dir.join("latin1.py"), b"# caf\xe9\nx = 1\n").unwrap();
    let mut huge = String::from("TABLE = [\n");
    while huge.len() < 12 << 20 {
        huge.push_str("    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,\n");
    }
    huge.push_str("]\n");
    std::fs::write(dir.join("generated_table.py"), huge).unwrap();
    std::fs::write(dir.join("broken.ipynb"), "{\"cells\": [ this is not json").unwrap();
    // brackets nested far deeper than CPython allows (200): skipped, not walked down the stack;
    // a chain of 20,000 calls (no nesting limit applies): scanned in linear time
    std::fs::write(dir.join("nested.py"), format!("x = {}1{}\n", "(".repeat(200_000), ")".repeat(200_000))).unwrap();
    std::fs::write(dir.join("chained.py"), format!("y = a{}\n", ".f()".repeat(20_000))).unwrap();
    // nested deeper than any notebook, under the 4 MiB limit: refused, not followed down the stack
    std::fs::write(dir.join("deep.ipynb"), format!("{{\"cells\": [], \"metadata\": {}{}}}", "[".repeat(1 << 20), "]".repeat(1 << 20)))
        .unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(dir.join("nowhere.py"), dir.join("dangling.py")).unwrap();
        std::os::unix::fs::symlink(&dir, dir.join("loop")).unwrap();
        std::os::unix::fs::symlink("/etc", dir.join("outside")).unwrap();
        let fifo = std::ffi::CString::new(dir.join("pipe.py").to_string_lossy().as_bytes()).unwrap();
        // SAFETY: creates a FIFO at a path in our temporary directory.
        unsafe {
            libc::mkfifo(fifo.as_ptr(), 0o644);
        }
    }
    let before = listing(&dir);

    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cudasleuth"));
    cmd.args(["lint", "--no-cache", "--format", "json", "."]).current_dir(&dir);
    let out = run_with_deadline(cmd, Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let diags = v["diagnostics"].as_array().unwrap();
    assert!(diags.iter().any(|d| d["rule"] == "CS101" && d["file"] == "data/dataset.py" && d["line"] == 14), "{v}");
    let warned: Vec<&str> = v["warnings"].as_array().unwrap().iter().filter_map(|w| w["file"].as_str()).collect();
    for f in ["latin1.py", "generated_table.py", "broken.ipynb", "deep.ipynb", "nested.py"] {
        assert!(warned.contains(&f), "no warning for {f}: {}", v["warnings"]);
    }
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));

    // explain with the same project: the suspects still come
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cudasleuth"));
    cmd.args(["explain", "--format", "json", "--project"])
        .arg(&dir)
        .arg(common::root().join("fixtures/torch-2.11-h200/seed_blog_example.async.log"));
    let out = run_with_deadline(cmd, Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    common::check_schema(&v, "bad-input project");
    assert_eq!(v["suspects"][0]["file"], "data/dataset.py");

    assert_eq!(before, listing(&dir), "the scan changed the project");
    let _ = std::fs::remove_dir_all(&dir);
}
