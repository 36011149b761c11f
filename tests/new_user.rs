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

/// The answer first: for every fixture project whose culprit `explain --project` finds, the
/// culprit's `file:line` is on one of the first 8 lines of the human report in an 80-column
/// terminal, before the assert's own diagnostic.
#[test]
fn the_culprit_is_on_the_first_lines_of_the_report() {
    let mut found = 0;
    let mut problems = Vec::new();
    for dir in common::projects() {
        let Ok(text) = std::fs::read_to_string(dir.join("EXPECTED.json")) else { continue };
        let expected: serde_json::Value = serde_json::from_str(&text).unwrap();
        let (Some(file), Some(line)) = (expected["culprit"]["file"].as_str(), expected["culprit"]["line"].as_u64()) else { continue };
        let log = dir.join(expected["log"].as_str().unwrap_or("crash.log"));
        let run = |format: &str| {
            std::process::Command::new(env!("CARGO_BIN_EXE_cudasleuth"))
                .args(["explain", log.to_str().unwrap(), "--project", dir.to_str().unwrap(), "--format", format])
                .env("COLUMNS", "80")
                .env("TERM", "xterm")
                .env_remove("NO_COLOR")
                .output()
                .unwrap()
        };
        let json: serde_json::Value = serde_json::from_slice(&run("json").stdout).unwrap();
        let place = format!("{file}:{line}");
        let top = json["suspects"].get(0).map(|s| format!("{}:{}", s["file"].as_str().unwrap_or(""), s["line"]));
        if top.as_deref() != Some(place.as_str()) {
            continue;
        }
        found += 1;
        let human = String::from_utf8(run("human").stdout).unwrap();
        let first: Vec<&str> = human.lines().take(8).collect();
        if !first.iter().any(|l| l.contains(&place)) {
            problems.push(format!("{}: {place} not in the first 8 lines:\n{}", dir.display(), first.join("\n")));
        }
        if let Some(long) = human.lines().take(8).find(|l| l.chars().count() > 80) {
            problems.push(format!("{}: a line of the answer is wider than 80 columns: {long}", dir.display()));
        }
    }
    assert!(found >= 10, "only {found} fixture projects have their culprit found");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// Piped, the human report is plain ASCII in its own marks (docs/ci.md says so): no arrows,
/// dashes, bullets, ellipses or times signs, for any fixture project.
#[test]
fn piped_reports_use_ascii_marks() {
    for dir in common::projects() {
        let Some(log) = ["crash.log", "cpu.log"].iter().map(|l| dir.join(l)).find(|p| p.is_file()) else { continue };
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_cudasleuth"))
            .args(["explain", log.to_str().unwrap(), "--project", dir.to_str().unwrap()])
            .env_remove("FORCE_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let marks: Vec<char> = text.chars().filter(|c| "→—–•…×".contains(*c)).collect();
        assert!(marks.is_empty(), "{}: {marks:?}\n{text}", dir.display());
    }
}

/// The same answer in a real terminal: the report under a pseudo-terminal of 80 and then 60
/// columns, `COLUMNS` unset and `TERM=xterm`, so the width comes from the terminal itself
/// (TIOCGWINSZ). The culprit is on the first 8 lines and no line is wider than the terminal.
#[test]
fn in_a_real_terminal_the_report_fits_its_width() {
    let dir = common::root().join("fixtures/projects/000-seed-blog");
    let expected: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("EXPECTED.json")).unwrap()).unwrap();
    let place = format!("{}:{}", expected["culprit"]["file"].as_str().unwrap(), expected["culprit"]["line"]);
    // a pseudo-terminal of the given size: the child writes to it, everything is read back
    let script = r#"
import fcntl, os, pty, struct, sys, termios
cols = int(sys.argv[1])
size = struct.pack("HHHH", 50, cols, 0, 0)
pid, fd = pty.fork()
if pid == 0:
    # sized before the report starts (set from the parent, a busy machine raced it)
    fcntl.ioctl(1, termios.TIOCSWINSZ, size)
    os.execv(sys.argv[2], sys.argv[2:])
out = b""
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
"#;
    let colours = regex::Regex::new("\x1b\\[[0-9;]*m").unwrap();
    for cols in [80usize, 60] {
        let out = std::process::Command::new("python3")
            .args(["-c", script, &cols.to_string(), env!("CARGO_BIN_EXE_cudasleuth"), "explain"])
            .args(["fixtures/projects/000-seed-blog/crash.log", "--project", "fixtures/projects/000-seed-blog"])
            .current_dir(common::root())
            .env_remove("COLUMNS")
            .env_remove("NO_COLOR")
            .env("TERM", "xterm")
            .output()
            .expect("python3 runs");
        let text = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
        // colours are on in a terminal: measure the text without them
        let plain = colours.replace_all(&text, "").to_string();
        assert!(plain.lines().take(8).any(|l| l.contains(&place)), "{cols} columns: {place} not in the first 8 lines:\n{plain}");
        if let Some(long) = plain.lines().find(|l| l.chars().count() > cols) {
            panic!("{cols} columns: a line is wider: {long:?}\n{plain}");
        }
    }
}
