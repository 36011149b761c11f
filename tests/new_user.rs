//! As a new user would try it: for each real H200 log, the human report names the op (not only
//! the kernel) and, where the traceback shows it, the call the user wrote.

mod common;

use cudasleuth::log::{self, LogSource};
use cudasleuth::rank::assemble;
use cudasleuth::report::human;

#[test]
fn human_reports_name_the_op_and_the_users_call() {
    let mut checked = 0;
    let mut calls = 0;
    let mut problems = Vec::new();
    for dir in ["fixtures/torch-2.11-h200", "fixtures/torch-2.11-h200-more"] {
        for path in common::logs_in(dir) {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let incident = log::read_log(&LogSource::File(path.clone())).unwrap();
            let report = assemble::assemble(&name, &incident);
            let Some(sig) = report.asserts.first().and_then(|a| a.signature.as_ref()) else { continue };
            let text = human::render(&report, &human::Style { color: false, width: 200, quoted: Default::default() });
            checked += 1;
            if !text.contains(&format!("op         {}", sig.op)) {
                problems.push(format!("{name}: op {} not named", sig.op));
            }
            let sync = report.error.as_ref().and_then(|e| e.launch_blocking) == Some(true);
            let has_user_code = report.frames.iter().any(|f| f.user_code && f.code.is_some());
            match &report.call {
                Some(call) => {
                    calls += 1;
                    if !text.contains(&call.code) {
                        problems.push(format!("{name}: call `{}` not shown", call.code));
                    }
                }
                None if sync && has_user_code => problems.push(format!("{name}: synchronous run but no call found")),
                None => {}
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(checked > 100 && calls > 80, "checked {checked}, calls {calls}");
}
