//! The run's part of a repro report: the witnesses and sweeps the shim wrote, merged over the
//! processes that wrote them, the run's facts, and repro's exit code. Confirming suspects from
//! the witness is the join's (`rank::confirm`).

use serde_json::Value;

use crate::model::witness::{show, Sweep, Unmapped};
use crate::model::{Report, RunInfo, Verdict};
use crate::repro::process::Ending;
use crate::repro::{Collected, Outcome};

/// Several processes (ranks) may each have written a witness: the earliest goes in `witness`,
/// the others are listed inside it under `other_ranks` (rank, sample, value).
fn merge_witnesses(c: &Collected) -> Option<Value> {
    let mut first = c.witnesses.first()?.clone();
    if c.witnesses.len() > 1 {
        let others: Vec<Value> = c.witnesses[1..]
            .iter()
            .map(|w| {
                let bad = w.get("bad").and_then(Value::as_array).and_then(|b| b.first());
                serde_json::json!({
                    "rank": w.get("rank").cloned().unwrap_or(Value::Null),
                    "pid": w.get("pid").cloned().unwrap_or(Value::Null),
                    "op": w.get("op").cloned().unwrap_or(Value::Null),
                    "sample": bad.and_then(|b| b.get("sample")).cloned().unwrap_or(Value::Null),
                    "value": bad.and_then(|b| b.get("value")).cloned().unwrap_or(Value::Null),
                })
            })
            .collect();
        if let Some(o) = first.as_object_mut() {
            o.insert("other_ranks".into(), Value::Array(others));
        }
    }
    Some(first)
}

/// Several processes may each have swept: their datasets are listed together.
fn merge_sweeps(c: &Collected) -> Option<Value> {
    let mut first = c.sweeps.first()?.clone();
    if c.sweeps.len() > 1 {
        let mut all: Vec<Value> = Vec::new();
        for s in &c.sweeps {
            if let Some(d) = s.get("datasets").and_then(Value::as_array) {
                all.extend(d.iter().cloned());
            }
        }
        if let Some(o) = first.as_object_mut() {
            o.insert("datasets".into(), Value::Array(all));
        }
    }
    Some(first)
}

/// Fill the run, witness and sweep parts of a report read from the run's output, and return
/// the exit code of `repro`.
pub fn finish(report: &mut Report, outcome: &Outcome, argv: &[String], sweep: bool, cpu: bool) -> u8 {
    use crate::repro::exit;
    report.kind = "repro";
    report.witness = merge_witnesses(&outcome.collected);
    report.sweep = merge_sweeps(&outcome.collected);
    let (exit_code, timed_out) = match outcome.ending {
        Ending::Exited(c) | Ending::Witness(c) => (c, false),
        Ending::TimedOut => (None, true),
        Ending::Interrupted => (None, false),
    };
    report.run = Some(RunInfo {
        command: argv.to_vec(),
        mode: if sweep { "sweep" } else { "guard" },
        cpu,
        exit_code,
        seconds: (outcome.seconds * 100.0).round() / 100.0,
        timed_out,
        out_dir: outcome.out_dir.display().to_string(),
        shim_processes: outcome.collected.loaded.len() as u32,
        environment: outcome.environment.clone(),
    });
    if report.witness.is_some() && report.verdict == Verdict::None {
        report.verdict = if cpu { Verdict::CpuEquivalent } else { Verdict::DeviceAssert };
        if !cpu {
            report.platform = Some(crate::model::Platform::Cuda);
        }
    }
    if report.witness.is_none() && report.sweep.is_none() {
        // a run that failed on its own: what it said last, not guesses
        let how = match outcome.ending {
            Ending::Exited(Some(0)) => None,
            Ending::Exited(Some(c)) => Some(format!("exited with code {c}")),
            Ending::Exited(None) => Some("was killed by a signal".to_string()),
            _ => None,
        };
        if let Some(how) = how {
            let tail = last_lines(&outcome.log, 8);
            report.warnings.push(if tail.is_empty() {
                format!("the command {how} without printing anything")
            } else {
                let help = cpu_hint(outcome, argv, cpu).map(|h| format!("\nhelp: {h}")).unwrap_or_default();
                format!("the command {how}; its last lines ({}):\n{}{help}", outcome.log.display(), tail.join("\n"))
            });
        }
    }
    if outcome.collected.loaded.is_empty() {
        report.warnings.push(
            "the shim never loaded: the command did not start Python, Python ran without site (-I/-E/-S), torch was never imported, or a launcher dropped PYTHONPATH; `cudasleuth repro --print-env` gives the variables to set by hand".into(),
        );
    }
    for u in outcome.collected.unmapped.iter().map(Unmapped::of) {
        report.warnings.push(format!("cannot map to CPU: {} at {}:{}", show(&u.call), show(&u.file), show(&u.line)));
    }
    match outcome.ending {
        Ending::Interrupted => exit::INTERRUPTED,
        _ if report.witness.is_some() => exit::VIOLATION,
        Ending::TimedOut => exit::TIMEOUT,
        _ if sweep && report.sweep.as_ref().is_some_and(|s| Sweep::of(s).bad_samples() > 0) => exit::VIOLATION,
        // a sweep that checked nothing is no clean bill: the script never reached a DataLoader
        _ if sweep && report.sweep.as_ref().is_some_and(|s| !Sweep::of(s).checked_any()) => exit::COMMAND_FAILED,
        _ if sweep && report.sweep.is_some() => exit::CLEAN,
        Ending::Exited(Some(0)) if outcome.collected.loaded.is_empty() => exit::SETUP,
        Ending::Exited(Some(0)) => exit::CLEAN,
        _ => exit::COMMAND_FAILED,
    }
}

/// The advice to run on the CPU, for a run without `--cpu` that ended in torch saying it has no
/// CUDA device (a CPU-only build, no driver, no visible GPU).
pub fn cpu_hint(outcome: &Outcome, argv: &[String], cpu: bool) -> Option<String> {
    let failed = matches!(outcome.ending, Ending::Exited(Some(c)) if c != 0);
    (failed && !cpu && last_lines(&outcome.log, 8).iter().any(|l| no_cuda_here(l))).then(|| {
        format!(
            "torch found no CUDA device on this machine: run it on the CPU, where the same bad value raises at the op: `cudasleuth repro --cpu -- {}`",
            argv.join(" ")
        )
    })
}

/// Whether a line of the command's output is torch saying there is no CUDA device to use (a
/// CPU-only build, no driver, no visible GPU).
fn no_cuda_here(line: &str) -> bool {
    [
        "Torch not compiled with CUDA enabled",
        "Found no NVIDIA driver on your system",
        "No CUDA GPUs are available",
        "no CUDA-capable device is detected",
        "CUDA driver initialization failed",
    ]
    .iter()
    .any(|m| line.contains(m))
}

/// The last `n` non-blank lines of a run's log (its last 64 KiB read), each cut to 300
/// characters, with control characters left out.
fn last_lines(log: &std::path::Path, n: usize) -> Vec<String> {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = std::fs::File::open(log) else { return Vec::new() };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let _ = f.seek(SeekFrom::Start(len.saturating_sub(64 << 10)));
    let mut bytes = Vec::new();
    let _ = f.take(64 << 10).read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes);
    let mut lines: Vec<String> = text
        .lines()
        .rev()
        .map(|l| l.chars().filter(|c| !c.is_control() || *c == '\t').take(300).collect::<String>())
        .filter(|l| !l.trim().is_empty())
        .take(n)
        .collect();
    lines.reverse();
    lines
}
