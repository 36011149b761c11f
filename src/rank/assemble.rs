//! From what the log says (`Incident`) and what the knowledge base knows, to the report.

use crate::kb::{self, Printed};
use crate::log::assert_line::Shape;
use crate::log::collect::{HostNote, Incident};
use crate::log::host::Role;
use crate::log::sites::Site;
use crate::log::traceback::{is_library_path, Traceback};
use crate::model::*;

pub fn assemble(source: &str, incident: &Incident) -> Report {
    assemble_with(source, incident, kb::kb(), None)
}

/// With a knowledge base that holds the project's own sites, and the project's files to map
/// traceback paths into.
pub fn assemble_with(
    source: &str,
    incident: &Incident,
    kb: &kb::Kb,
    project: Option<(&std::path::Path, &crate::scan::files::ProjectFiles)>,
) -> Report {
    let context = context_words(incident);
    let asserts: Vec<AssertSite> = incident.sites.sites.iter().map(|s| assert_site(s, &context, kb)).collect();
    let verdict = verdict(incident, &asserts);
    let platform = platform(incident, verdict);
    let error = main_error(incident, verdict);
    let mut frames = frames(incident);
    if let Some((root, p)) = project {
        for f in &mut frames {
            f.path = p.resolve(&f.file);
        }
        place_cells(&mut frames, root, p);
    }
    let traceback = if verdict == Verdict::CpuEquivalent && !frames.is_empty() {
        // a CPU kernel raises as it runs: nothing is asynchronous
        TracebackTrust {
            level: "trusted",
            reason: "a CPU error is raised by the op as it runs, so the traceback ends at the failing call".to_string(),
        }
    } else {
        trust(&frames, error.as_ref(), &asserts)
    };
    let call = user_call(&frames, &asserts, traceback.level);

    let mut secondary = Vec::new();
    let mut evidence = Vec::new();
    for n in &incident.notes {
        let is_main = error.as_ref().is_some_and(|e| e.line == n.line);
        match n.role {
            Role::Secondary => secondary.push(note(n)),
            Role::CudaError if verdict == Verdict::DeviceAssert => secondary.push(note(n)),
            Role::AssertError if !is_main && n.kind != "device_assert" => secondary.push(note(n)),
            Role::Evidence => evidence.push(note(n)),
            Role::CpuEquivalent if verdict != Verdict::CpuEquivalent => {
                let mut e = note(n);
                e.kind = format!("cpu_error:{}", n.kind);
                evidence.push(e);
            }
            _ => {}
        }
    }
    let mut warnings = incident.warnings.clone();
    if asserts.iter().any(|a| a.truncated) {
        warnings.push("an assertion text is cut off in the log; it was matched by its beginning".to_string());
    }
    let mut report = Report {
        version: REPORT_VERSION,
        kind: "explain",
        source: source.to_string(),
        verdict,
        platform,
        asserts,
        error,
        secondary,
        evidence,
        frames,
        suspects: Vec::new(),
        traceback,
        call,
        next_steps: Vec::new(),
        warnings,
        run: None,
        witness: None,
        sweep: None,
        replay: None,
    };
    report.next_steps = crate::rank::advice::next_steps(&report, incident);
    report
}

fn note(n: &HostNote) -> LogNote {
    LogNote { kind: n.kind.clone(), line: n.line, message: n.message.clone(), count: (n.count > 1).then_some(n.count) }
}

/// Words from the traceback and error lines that tell which of a kernel's several uses this was.
fn context_words(incident: &Incident) -> String {
    let mut s = String::new();
    for tb in &incident.tracebacks {
        for f in &tb.frames {
            s.push_str(f.function.as_deref().unwrap_or(""));
            s.push(' ');
            s.push_str(f.code.as_deref().unwrap_or(""));
            s.push(' ');
        }
    }
    for n in &incident.notes {
        s.push_str(&n.message);
        s.push(' ');
    }
    s
}

fn assert_site(site: &Site, context: &str, kb: &kb::Kb) -> AssertSite {
    let a = &site.first;
    let printed = Printed {
        file: a.file.as_deref(),
        line: a.line,
        kernel: a.kernel.as_deref(),
        assertion: a.assertion.as_deref(),
        truncated: site.truncated,
    };
    let signature = kb.lookup(&printed).map(|(entry, m)| Signature {
        id: entry.id.clone(),
        op: entry.op.clone(),
        category: pick_class(entry, context),
        python_apis: entry.python_apis.clone(),
        operand: entry.operand.clone(),
        explanation: entry.explanation.clone(),
        causes: entry.causes.clone(),
        fixes: entry.fixes.clone(),
        match_kind: m.as_str(),
        geometry: entry.geometry.clone(),
    });
    let candidates = signature.as_ref().and_then(|sig| {
        let mut pairs: Vec<([u32; 3], [u32; 3])> = site.distinct.iter().map(|k| ([k[0], k[1], k[2]], [k[3], k[4], k[5]])).collect();
        pairs.sort_unstable();
        let operand = sig.operand.as_deref().unwrap_or("input");
        let operand = operand.split_whitespace().next().unwrap_or("input");
        kb::geometry::Geometry::from_id(sig.geometry.as_deref()?)?.candidates(operand, &pairs)
    });
    AssertSite {
        kernel: a.kernel.clone(),
        file: a.file.clone(),
        line: a.line,
        assertion: a.assertion.clone(),
        block: a.block,
        thread: a.thread,
        count: site.count(),
        hits: Hits {
            distinct: site.distinct.len() as u64,
            threads: site.threads.iter().copied().collect(),
            blocks: site.blocks.iter().copied().collect(),
            truncated: site.distinct_capped || site.samples_capped,
            distinct_capped: site.distinct_capped,
        },
        ranks: site.ranks.iter().cloned().collect(),
        log_lines: site.log_lines(),
        signature,
        candidates,
        shape: a.shape.as_str(),
        truncated: site.truncated,
        message: site.message.clone(),
        work_item: None,
        launch: site.launch.clone(),
    }
}

/// One kernel can serve several failure classes (a scatter is a one_hot, a gather an
/// embedding lookup); the user's code around the error says which.
fn pick_class(entry: &kb::KernelSite, context: &str) -> String {
    if entry.classes.len() > 1 {
        let ctx = context.to_ascii_lowercase();
        let wants = |class: &str| entry.classes.iter().any(|c| c == class);
        if wants("label_out_of_range")
            && ["one_hot", "cross_entropy", "nll_loss", "crossentropy", "nllloss", "criterion", "loss_fn", "labels"]
                .iter()
                .any(|w| ctx.contains(w))
        {
            return "label_out_of_range".to_string();
        }
        if wants("embedding_index_out_of_range")
            && ["embedding", "embed", "emb(", "emb.", "wte", "input_ids", "token"].iter().any(|w| ctx.contains(w))
        {
            return "embedding_index_out_of_range".to_string();
        }
    }
    entry.category.clone()
}

fn verdict(incident: &Incident, asserts: &[AssertSite]) -> Verdict {
    if !asserts.is_empty() || incident.has(Role::AssertError) || incident.dsa_header && incident.has(Role::CudaError) {
        Verdict::DeviceAssert
    } else if incident.has(Role::CudaError) {
        Verdict::CudaError
    } else if incident.has(Role::CpuEquivalent) {
        Verdict::CpuEquivalent
    } else if incident.notes.iter().any(|n| matches!(n.kind.as_str(), "cublas_error" | "cudnn_error" | "thcudacheck")) {
        // a symptom alone still tells that CUDA failed
        Verdict::CudaError
    } else {
        Verdict::None
    }
}

fn platform(incident: &Incident, verdict: Verdict) -> Option<Platform> {
    if verdict == Verdict::None || verdict == Verdict::CpuEquivalent {
        return None;
    }
    for s in &incident.sites.sites {
        match s.first.shape {
            Shape::Rocm => return Some(Platform::Rocm),
            Shape::Xpu => return Some(Platform::Xpu),
            _ => {}
        }
        let f = s.first.file.as_deref().unwrap_or("");
        if f.contains("/hip/") || f.ends_with(".hip") {
            return Some(Platform::Rocm);
        }
        if f.contains("xpu") || f.contains("sycl") {
            return Some(Platform::Xpu);
        }
    }
    if incident.platforms.contains(&Platform::Rocm) {
        return Some(Platform::Rocm);
    }
    if incident.platforms.contains(&Platform::Xpu) {
        return Some(Platform::Xpu);
    }
    Some(Platform::Cuda)
}

fn main_error(incident: &Incident, verdict: Verdict) -> Option<ErrorInfo> {
    let role = match verdict {
        Verdict::DeviceAssert => Role::AssertError,
        Verdict::CudaError => Role::CudaError,
        Verdict::CpuEquivalent => Role::CpuEquivalent,
        Verdict::None => return None,
    };
    let pick = incident
        .notes_with(role)
        .find(|n| n.exception_type.is_some() && !is_secondary_kind(incident, n))
        .or_else(|| incident.notes_with(role).find(|n| !is_secondary_kind(incident, n)))
        .or_else(|| incident.notes_with(role).next())
        .or_else(|| incident.notes.iter().find(|n| matches!(n.kind.as_str(), "cublas_error" | "cudnn_error" | "thcudacheck")));
    let launch_blocking = if incident.has(Role::AsyncHint) {
        Some(false)
    } else if incident.has(Role::SyncEnv) || incident.has(Role::SyncMarker) && pick.is_some() {
        Some(true)
    } else {
        None
    };
    match pick {
        Some(n) => {
            let message = match (&n.exception_type, n.message.split_once(": ")) {
                (Some(_), Some((_, rest))) => rest.to_string(),
                _ => n.message.clone(),
            };
            Some(ErrorInfo { message, kind: Some(n.kind.clone()), type_: n.exception_type.clone(), launch_blocking, line: n.line })
        }
        None if verdict == Verdict::DeviceAssert => Some(ErrorInfo {
            message: "device-side assert (no host error text in the log)".to_string(),
            kind: None,
            type_: None,
            launch_blocking,
            line: 0,
        }),
        None => None,
    }
}

/// Lines that carry the error text but belong to a symptom (a watchdog, a terminate).
fn is_secondary_kind(incident: &Incident, n: &HostNote) -> bool {
    incident.notes.iter().any(|o| o.line == n.line && o.role == Role::Secondary && o.kind != "copy_if_failed" && o.kind != "thcudacheck")
}

/// A traceback that ends in the CUDA failure, or whose end was cut off in the paste.
fn relevant(tb: &Traceback) -> bool {
    tb.exception.as_ref().map_or(true, |(ty, msg, _)| {
        msg.contains("CUDA")
            || msg.contains("device-side")
            || msg.contains("HIP error")
            || msg.contains("cuda runtime error")
            || msg.contains("out of bounds")
            || msg.contains("out of range")
            || msg.contains("num_classes")
            || ty.contains("AcceleratorError")
            || msg.contains("CUBLAS")
            || msg.contains("cuDNN")
            || msg.contains("copy_if")
    })
}

fn frames(incident: &Incident) -> Vec<Frame> {
    let mut chosen: Vec<&Traceback> = incident.tracebacks.iter().filter(|t| relevant(t)).collect();
    if chosen.is_empty() {
        chosen.extend(incident.tracebacks.last());
    }
    let mut out: Vec<Frame> = Vec::new();
    for tb in chosen {
        for f in &tb.frames {
            if out.iter().any(|o| o.file == f.file && o.line == f.line && o.function == f.function) {
                continue;
            }
            if out.len() >= 200 {
                break;
            }
            let user = !is_library_path(&f.file);
            out.push(Frame {
                file: f.file.clone(),
                path: None,
                line: f.line,
                function: f.function.clone(),
                user_code: user,
                rank: f.rank.or(tb.rank),
                cell: f.cell.clone(),
                code: f.code.clone(),
                focus: f.focus.clone(),
                log_line: f.log_line,
                notebook: None,
            });
        }
    }
    out
}

/// Frames in Jupyter cells (`Cell In[11], line 13`, `<ipython-input-11-…>`) placed in the
/// project's notebook that holds the cell (docs/scan.md).
fn place_cells(frames: &mut [Frame], root: &std::path::Path, files: &crate::scan::files::ProjectFiles) {
    if !frames.iter().any(|f| crate::scan::notebook::cell_number(&f.file).is_some()) {
        return;
    }
    let notebooks = crate::scan::notebook::read_all(root, files.paths().iter().map(String::as_str));
    for f in frames.iter_mut() {
        let Some(count) = crate::scan::notebook::cell_number(&f.file) else { continue };
        f.notebook = crate::scan::notebook::find_frame(&notebooks, count, f.line, f.code.as_deref());
    }
}

/// Whether the traceback points at the failing op: only a synchronous run's does for sure.
fn trust(frames: &[Frame], error: Option<&ErrorInfo>, asserts: &[AssertSite]) -> TracebackTrust {
    if frames.is_empty() {
        return TracebackTrust { level: "unknown", reason: "the log has no Python traceback".to_string() };
    }
    let op_apis: Vec<String> = asserts
        .iter()
        .filter_map(|a| a.signature.as_ref())
        .flat_map(|s| {
            let mut v: Vec<String> = s.python_apis.iter().map(|p| p.rsplit('.').next().unwrap_or(p).to_string()).collect();
            v.push(s.op.clone());
            v
        })
        .collect();
    let innermost_mentions_op = frames.iter().rev().take(3).any(|f| {
        let hay =
            format!("{} {} {}", f.function.as_deref().unwrap_or(""), f.code.as_deref().unwrap_or(""), f.focus.as_deref().unwrap_or(""));
        op_apis.iter().any(|a| a.len() > 2 && hay.contains(a.as_str()))
    });
    match error.and_then(|e| e.launch_blocking) {
        Some(true) => TracebackTrust {
            level: "trusted",
            reason: "the run was synchronous (CUDA_LAUNCH_BLOCKING=1), so the traceback ends at the failing call".to_string(),
        },
        Some(false) if innermost_mentions_op => TracebackTrust {
            level: "consistent",
            reason: "the run was asynchronous, but the innermost frames are in the failing op's Python API".to_string(),
        },
        Some(false) => TracebackTrust {
            level: "untrusted",
            reason: "the run was asynchronous: the traceback shows where the error was noticed (the next synchronizing call), not the call that launched the failing kernel".to_string(),
        },
        None => TracebackTrust {
            level: "unknown",
            reason: "the log does not show whether kernel launches were synchronous".to_string(),
        },
    }
}

/// Short names a user's line would use to reach the op: `cross_entropy`, `CrossEntropyLoss`, ...
fn api_names(asserts: &[AssertSite]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for sig in asserts.iter().filter_map(|a| a.signature.as_ref()) {
        for api in &sig.python_apis {
            let last = api.rsplit('.').next().unwrap_or(api);
            if last.len() > 2 && !last.starts_with("__") {
                names.push(last.to_string());
            }
        }
        if sig.op.len() > 2 && sig.op != "unknown" {
            names.push(sig.op.clone());
        }
        // what people name the objects that wrap these ops
        match sig.category.as_str() {
            "label_out_of_range" => names.extend(["criterion", "loss_fn", "loss_func", "lossfn", "compute_loss"].map(String::from)),
            "embedding_index_out_of_range" => names.extend(["emb(", "embed", "embedding"].map(String::from)),
            _ => {}
        }
    }
    names.sort();
    names.dedup();
    names
}

fn user_call(frames: &[Frame], asserts: &[AssertSite], level: &str) -> Option<UserCall> {
    let user: Vec<&Frame> = frames.iter().filter(|f| f.user_code && f.code.is_some()).collect();
    let names = api_names(asserts);
    let mk = |f: &Frame, how| UserCall {
        file: f.file.clone(),
        line: f.line,
        code: f.focus.clone().unwrap_or_else(|| f.code.clone().unwrap_or_default()),
        how,
    };
    // A user line that names the op wins: in an asynchronous run it is the call that launched
    // the kernel even when the traceback stops elsewhere.
    for f in user.iter().rev() {
        let code = f.code.as_deref().unwrap_or("");
        if let Some(n) = names.iter().find(|n| code.contains(n.as_str())) {
            let mut call = mk(f, "names_the_op");
            // on a line with several statements, show the one that calls the op
            if f.focus.as_deref().map_or(true, |x| !x.contains(n.as_str())) {
                call.code = code.split(';').map(str::trim).find(|part| part.contains(n.as_str())).unwrap_or(code).to_string();
            }
            return Some(call);
        }
    }
    if level == "trusted" {
        return user.last().map(|f| mk(f, "synchronous_frame"));
    }
    None
}
