//! What to do next, in order, with the exact command where there is one.

use crate::log::collect::Incident;
use crate::model::{Platform, Report, Verdict};

/// The user's entry script, guessed from the outermost user frame.
pub fn user_command(report: &Report) -> String {
    report
        .frames
        .iter()
        .find(|f| f.user_code && f.file.ends_with(".py"))
        .map(|f| {
            let base = f.file.replace('\\', "/");
            let base = base.rsplit('/').next().unwrap_or(&base).to_string();
            // a name from the log, quoted for the shell the user pastes it into
            format!("python {}", shell_word(&base))
        })
        .unwrap_or_else(|| "python train.py".to_string())
}

/// Whether the user's code ran in Jupyter: its frames are cells (`Cell In[11]`,
/// `<ipython-input-…>`, IPython 7's `/tmp/ipykernel_…/….py`) and none is a script.
fn in_notebook(report: &Report) -> bool {
    let cell = |f: &crate::model::Frame| f.cell.is_some() || f.file.contains("ipykernel_");
    let user = || report.frames.iter().filter(|f| f.user_code);
    user().any(cell) && !user().any(|f| !cell(f) && f.file.ends_with(".py"))
}

pub fn next_steps(report: &Report, _incident: &Incident) -> Vec<String> {
    let mut steps = Vec::new();
    let cmd = user_command(report);
    let rocm = report.platform == Some(Platform::Rocm);
    let sync_env = if rocm { "AMD_SERIALIZE_KERNEL=3" } else { "CUDA_LAUNCH_BLOCKING=1" };
    let triton = report.asserts.iter().any(|a| a.shape == "triton");
    let notebook = in_notebook(report);
    let kind = report.error.as_ref().and_then(|e| e.kind.as_deref()).unwrap_or("");
    match report.verdict {
        Verdict::DeviceAssert => {
            if report.asserts.is_empty() && notebook {
                steps.push(
                    "The log has the error but not the GPU's own assert line (the GPU prints it on the process's own output: from a notebook, look also in the terminal or log of the Jupyter server). Paste the lines containing `Assertion`, or re-run synchronized as below".to_string(),
                );
            } else if report.asserts.is_empty() {
                steps.push(format!(
                    "The log has the error but not the GPU's own assert line (it goes to stdout, and is often lost or cut in a paste). Paste the lines containing `Assertion` from above the traceback, or capture them: `{sync_env} {cmd} 2>&1 | tee crash.log`"
                ));
            }
            if report.error.as_ref().and_then(|e| e.launch_blocking) != Some(true) && !report.frames.is_empty() {
                steps.push(if notebook {
                    format!(
                        "Restart the kernel (after a device-side assert its CUDA context is unusable), run `%env {sync_env}` in the first cell, before anything uses the GPU, and run the cells again: the traceback then ends at the failing call (`%load_ext cudasleuth_shim` in that cell also catches the first bad value)"
                    )
                } else {
                    format!("Re-run synchronized so the traceback ends at the failing call: `{sync_env} {cmd}` (or `cudasleuth repro -- {cmd}` to catch the first bad value)")
                });
            }
            if triton {
                steps.push(format!(
                    "The assert is in a torch.compile (Triton) kernel; run eagerly to get PyTorch's own check with a readable op: `TORCHDYNAMO_DISABLE=1 {sync_env} {cmd}`"
                ));
            }
            if let Some(sig) = report.asserts.iter().find_map(|a| a.signature.as_ref()) {
                for f in sig.fixes.iter().take(2) {
                    steps.push(capitalize(f));
                }
            }
        }
        Verdict::CudaError => {
            let kinds: Vec<&str> = report.secondary.iter().map(|s| s.kind.as_str()).collect();
            let msg = report.error.as_ref().map(|e| e.message.as_str()).unwrap_or("");
            if kind == "rocm_queue_abort" {
                steps.push(format!(
                    "ROCm builds of torch 2.8+ call abort() when a kernel assert fails, so no assert line is printed. Run the same script on the CPU to get PyTorch's readable error (`HIP_VISIBLE_DEVICES= {cmd}`), or synchronized (`AMD_SERIALIZE_KERNEL=3 {cmd}`) to find the call"
                ));
            } else if msg.contains("out of memory") || msg.contains("OutOfMemory") {
                steps.push(
                    "Out of GPU memory: lower the batch size or sequence length, or enable gradient checkpointing / mixed precision"
                        .to_string(),
                );
            } else if msg.contains("no kernel image") || msg.contains("invalid device function") {
                steps.push("This torch build has no kernels for this GPU's architecture: install a wheel built for it (check `torch.cuda.get_arch_list()` against `nvidia-smi`)".to_string());
            } else if let Some(explain) = own_advice(kind) {
                // an error of the GPU, the driver or CUDA's state, not of a value: its own advice
                steps.push(capitalize(explain));
                if kind == "invalid_launch_configuration" || kind == "cuda_error_other" {
                    steps.push(format!("Re-run synchronized to find the call: `{sync_env} {cmd}`"));
                }
            } else {
                steps.push(format!(
                    "An illegal access or launch failure is often an out-of-range index in disguise. Re-run synchronized to find the call: `{sync_env} {cmd}`, or on the CPU for a readable error"
                ));
            }
            if kinds.contains(&"cublas_error") || msg.contains("CUBLAS_STATUS") {
                steps.push("CUBLAS_STATUS_NOT_INITIALIZED / EXECUTION_FAILED usually follows an earlier device assert or an out-of-memory: look above it in the log, or re-run synchronized".to_string());
            }
        }
        Verdict::CpuEquivalent => {
            steps.push("This is the CPU version of a CUDA device assert: the message names the bad value. On the GPU the same bug prints `device-side assert triggered`".to_string());
        }
        Verdict::None => {
            steps.push("No device-side assert or CUDA error found. Paste the full output (stdout and stderr: `2>&1`), including the lines above the traceback".to_string());
        }
    }
    if report.verdict != Verdict::None && report.suspects.is_empty() && !NOT_A_VALUE.contains(&kind) {
        steps.push(format!(
            "Find the line in your code that made the bad value: `cudasleuth explain {} --project .`",
            shell_word(&report.source)
        ));
    }
    steps
}

/// A sentence with its first letter upper-case, unless it starts with code
/// (`model.resize_token_embeddings(...)`, `ignore_index=-100`), which keeps its case.
fn capitalize(s: &str) -> String {
    let first = s.split(' ').next().unwrap_or("");
    if !first.chars().all(|c| c.is_alphabetic() || matches!(c, '-' | ',' | ':')) {
        return s.to_string();
    }
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// CUDA errors whose cause is the GPU, the driver, the build or CUDA's state, not a bad value
/// in the user's data: no "find the line that made the bad value".
const NOT_A_VALUE: &[&str] = &[
    "gpu_hardware_fault",
    "launch_timeout",
    "device_unavailable",
    "cuda_graph_capture",
    "cuda_state_error",
    "ptx_jit_failure",
    "driver_error",
    "out_of_memory",
    "no_kernel_image",
];

/// The knowledge base's advice for the kinds of CUDA error that have their own (the message
/// table's `explain`), for the kinds in `NOT_A_VALUE` and the launch configuration.
fn own_advice(kind: &str) -> Option<&'static str> {
    if !(NOT_A_VALUE.contains(&kind) || kind == "invalid_launch_configuration" || kind == "cuda_error_other") {
        return None;
    }
    crate::log::host::signatures().iter().find(|s| s.kind == kind).and_then(|s| s.explain.as_deref())
}

fn shell_word(s: &str) -> String {
    if s == "<stdin>" {
        "crash.log".to_string()
    } else {
        let s: String = s.chars().filter(|c| !c.is_control()).collect();
        shlex::try_quote(&s).map(|q| q.into_owned()).unwrap_or(s)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn capitalize_leaves_code_alone() {
        assert_eq!(super::capitalize("check input.min() >= 0"), "Check input.min() >= 0");
        assert_eq!(super::capitalize("re-run synchronized"), "Re-run synchronized");
        assert_eq!(
            super::capitalize("model.resize_token_embeddings(len(tokenizer)) after adding tokens"),
            "model.resize_token_embeddings(len(tokenizer)) after adding tokens"
        );
        assert_eq!(super::capitalize("ignore_index=-100 on the loss"), "ignore_index=-100 on the loss");
    }
}
