//! Inputs that once crashed the reader (found by `cargo fuzz`, kept in fuzz/regressions/):
//! each must now be read to a report without a panic.

mod common;

#[test]
fn fuzz_regressions_read_without_panic() {
    let dir = common::root().join("fuzz/regressions");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let incident = cudasleuth::log::read_from(Box::new(std::io::Cursor::new(bytes)));
        let report = cudasleuth::rank::assemble::assemble(&path.display().to_string(), &incident);
        common::check_schema(&serde_json::to_value(&report).unwrap(), &path.display().to_string());
        n += 1;
    }
    assert!(n > 0);
}

/// The memory-mapped reader (large plain files, two threads) and the streaming reader (stdin,
/// gzip, UTF-16, small files) must read every fixture the same way.
#[test]
fn mapped_and_streaming_readers_agree() {
    let mut n = 0;
    for dir in ["fixtures/public-logs", "fixtures/torch-2.11-h200", "fixtures/torch-2.11-h200-more", "fixtures/torch-2.11-h200-probe"] {
        for path in common::logs_in(dir) {
            let Some(mapped) = cudasleuth::log::read_mapped_file(&path).unwrap() else { continue };
            let bytes = std::fs::read(&path).unwrap();
            let streamed = cudasleuth::log::read_from(Box::new(std::io::Cursor::new(bytes)));
            let a = serde_json::to_value(cudasleuth::rank::assemble::assemble("x", &mapped)).unwrap();
            let b = serde_json::to_value(cudasleuth::rank::assemble::assemble("x", &streamed)).unwrap();
            assert_eq!(a, b, "{}", path.display());
            assert_eq!(mapped.lines, streamed.lines, "{}", path.display());
            n += 1;
        }
    }
    assert!(n > 200, "{n}");
}

#[test]
fn mapped_reader_handles_a_line_longer_than_its_window() {
    let path = std::env::temp_dir().join(format!("cudasleuth-long-line-{}.log", std::process::id()));
    let mut data = vec![b'#'; 20 << 20];
    data.extend_from_slice(b"\r/pytorch/aten/src/ATen/native/cuda/Loss.cu:245: k: block: [0,0,0], thread: [3,0,0] Assertion `t >= 0 && t < n_classes` failed.\nnext line\n");
    std::fs::write(&path, &data).unwrap();
    let inc = cudasleuth::log::read_mapped_file(&path).unwrap().unwrap();
    let _ = std::fs::remove_file(&path);
    let site = &inc.sites.sites[0];
    assert_eq!(site.count(), 1);
    assert_eq!(site.log_lines(), vec![1]);
    assert_eq!(inc.lines, 2);
}
