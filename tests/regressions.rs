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
        let report = cudasleuth::report::assemble::assemble(&path.display().to_string(), &incident);
        common::check_schema(&serde_json::to_value(&report).unwrap(), &path.display().to_string());
        n += 1;
    }
    assert!(n > 0);
}
