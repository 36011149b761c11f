//! The line a failing GPU thread prints. PyTorch does not format it: CUDA's device runtime,
//! HIP, SYCL and Triton each print their own variant of
//! `FILE:LINE: FUNCTION: block: [x,y,z], thread: [x,y,z] Assertion `EXPR` failed.`
//! (see docs/log-formats.md for every shape this module reads).

/// How a report was printed; decides which fields can exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// CUDA `__assert_fail` with a short `__func__` (ATen, 1.6+).
    Cuda,
    /// The extra `[CUDA_KERNEL_ASSERT] ...: Assertion failed: `EXPR`: message` line (2.11+).
    CudaPrintf,
    /// MSVC builds: no function name.
    Windows,
    /// Plain `assert()` with `__PRETTY_FUNCTION__` (THC/THCUNN era, early ATen).
    Pretty,
    /// Triton / torch.compile generated kernels.
    Triton,
    /// HIP's `Device-side assertion `EXPR' failed.` (no block/thread).
    Rocm,
    /// SYCL (Intel XPU): `global id: [..], local id: [..]`.
    Xpu,
}

impl Shape {
    pub fn as_str(self) -> &'static str {
        match self {
            Shape::Cuda => "cuda",
            Shape::CudaPrintf => "cuda_printf",
            Shape::Windows => "windows",
            Shape::Pretty => "pretty_function",
            Shape::Triton => "triton",
            Shape::Rocm => "rocm",
            Shape::Xpu => "xpu",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawAssert {
    pub file: Option<String>,
    pub line: Option<u32>,
    pub kernel: Option<String>,
    pub block: Option<[u32; 3]>,
    pub thread: Option<[u32; 3]>,
    pub assertion: Option<String>,
    /// The text ended before ``` ` failed```: the line was cut or wrapped.
    pub truncated: bool,
    pub shape: Shape,
    /// The message after the condition on `[CUDA_KERNEL_ASSERT]` lines.
    pub message: Option<String>,
}

const ANCHOR_CUDA: &str = "Assertion `";
/// Pastes into GitHub issues often lose the backticks (markdown) or turn them into quotes.
const ANCHOR_BARE: &str = "] Assertion ";
const ANCHOR_PRINTF: &str = "Assertion failed: `";
const ANCHOR_HIP: &str = "Device-side assertion `";
const PRINTF_TAG: &str = "[CUDA_KERNEL_ASSERT]";

/// Does this segment hold the start of a device assert report (even a cut one)?
pub fn has_anchor(s: &str) -> bool {
    s.contains(ANCHOR_CUDA) || s.contains(ANCHOR_HIP) || s.contains(ANCHOR_PRINTF) || s.contains(ANCHOR_BARE)
}

/// Could this segment be the first half of a report whose anchor was wrapped to the next line?
pub fn looks_like_report_head(s: &str) -> bool {
    match s.find("block: [").or_else(|| s.find("global id: [")) {
        Some(at) => parse_location(head_window(s, at)).is_some(),
        None => false,
    }
}

/// Reads every report in one segment (device printf output is sometimes glued together).
pub fn parse_all(s: &str) -> Vec<RawAssert> {
    let mut out = Vec::new();
    // Where each kind of anchor occurs next (absolute; usize::MAX: nowhere further). Searched
    // again only once the reading has passed it, so a line of thousands of glued reports stays
    // linear.
    const KINDS: [&str; 4] = [ANCHOR_CUDA, ANCHOR_BARE, ANCHOR_HIP, PRINTF_TAG];
    let mut next = [0usize; 4];
    let mut known = [false; 4];
    let mut from = 0usize;
    while from < s.len() {
        for k in 0..4 {
            if !known[k] || (next[k] != usize::MAX && next[k] < from) {
                next[k] = s[from..].find(KINDS[k]).map_or(usize::MAX, |p| from + p);
                known[k] = true;
            }
        }
        let rest = &s[from..];
        let rel = |k: usize| (next[k] != usize::MAX).then(|| next[k] - from);
        let Some((found, consumed)) = parse_one(rest, rel(0).or_else(|| rel(1).map(|p| p + 2)), rel(2), rel(3)) else { break };
        out.push(found);
        from += consumed.max(1);
        while from < s.len() && !s.is_char_boundary(from) {
            from += 1;
        }
    }
    out
}

/// Parses the first report in `s`, given where each anchor kind first occurs in it; returns
/// the report and how many bytes it used.
fn parse_one(s: &str, cuda: Option<usize>, hip: Option<usize>, printf_tag: Option<usize>) -> Option<(RawAssert, usize)> {
    // the printf line's anchor follows its tag within a head's length
    let printf = printf_tag.filter(|p| {
        let mut end = (*p + MAX_HEAD).min(s.len());
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s[*p..end].contains(ANCHOR_PRINTF)
    });
    // Take the earliest anchor.
    let mut best: Option<(usize, u8)> = None;
    for (pos, kind) in [(printf, 2u8), (hip, 1u8), (cuda, 0u8)] {
        if let Some(p) = pos {
            if best.map_or(true, |(bp, _)| p < bp) {
                best = Some((p, kind));
            }
        }
    }
    let (pos, kind) = best?;
    match kind {
        2 => parse_printf(s, pos),
        1 => parse_hip(s, pos),
        _ => parse_cuda(s, pos),
    }
}

/// The part of `s` before `end` that a report's head can occupy (`FILE:LINE: FUNC: block:...`,
/// a few KB at most even with a C++ signature): bounding it keeps garbage lines linear.
fn head_window(s: &str, end: usize) -> &str {
    let mut start = end.saturating_sub(MAX_HEAD);
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..end]
}

/// How host-side lines begin that can be spliced into a report by another stream.
const HOST_LINE_STARTS: &[&str] =
    &["THCudaCheck FAIL", "RuntimeError: ", "Traceback (most recent call last)", "terminate called ", "CUDA error: "];

const MAX_HEAD: usize = 8 << 10;
const MAX_PATH: usize = 1 << 10;

fn parse_cuda(s: &str, anchor: usize) -> Option<(RawAssert, usize)> {
    let head = head_window(s, anchor);
    // A paste through markdown can put emphasis or an escape before the quote:
    // "Assertion **`x` failed**." or "Assertion \\`x\\` failed."
    let mut body_start = anchor + "Assertion ".len();
    body_start += markdown_debris_len(&s[body_start..]);
    let (open, close) = match s[body_start..].chars().next() {
        Some('`') => ("`", "` failed"),
        Some('"') => ("\"", "\" failed"),
        _ => ("", " failed"),
    };
    body_start += open.len();
    let (mut assertion, truncated, consumed) = read_until(s, body_start, close);
    // Two reports spliced mid-line: "...DimSize] Assertion `srcIndex < ..." keeps the last text.
    if let Some(p) = assertion.rfind(ANCHOR_CUDA) {
        assertion = assertion[p + ANCHOR_CUDA.len()..].to_string();
    }
    // Another stream's line spliced into the assertion before its closing quote (a host error
    // printed while the report was written, the report's end on a later line): the assertion
    // is the text before it; a kernel's condition never holds these.
    if let Some(p) = HOST_LINE_STARTS.iter().filter_map(|h| assertion.find(h)).min() {
        assertion.truncate(p);
    }
    let assertion = strip_markdown_debris(&assertion).to_string();
    let mut found = RawAssert {
        file: None,
        line: None,
        kernel: None,
        block: None,
        thread: None,
        assertion: Some(assertion),
        truncated,
        shape: Shape::Cuda,
        message: None,
    };
    let (prefix, xpu) = if let Some(b) = head.rfind("block: [") {
        let (block, after) = coords(&head[b + "block: [".len()..])?;
        found.block = Some(block);
        if let Some(t) = after.find("thread: [") {
            found.thread = coords(&after[t + "thread: [".len()..]).map(|c| c.0);
        }
        (&head[..b], false)
    } else if let Some(g) = head.rfind("global id: [") {
        // SYCL prints work-item ids, which are not CUDA blocks; kept apart.
        (&head[..g], true)
    } else {
        // Not a device report (a host `assert`, a Python AssertionError) unless the caller
        // finds the missing head on the previous line.
        return None;
    };
    let loc = parse_location(prefix)?;
    found.file = Some(loc.file);
    found.line = Some(loc.line);
    found.kernel = loc.kernel;
    found.shape = if xpu { Shape::Xpu } else { classify_shape(found.file.as_deref().unwrap_or(""), found.kernel.as_deref()) };
    Some((found, consumed))
}

fn parse_hip(s: &str, anchor: usize) -> Option<(RawAssert, usize)> {
    let head = head_window(s, anchor);
    let loc = parse_location(head)?;
    let (assertion, truncated, consumed) = read_until(s, anchor + ANCHOR_HIP.len(), "' failed");
    Some((
        RawAssert {
            file: Some(loc.file),
            line: Some(loc.line),
            kernel: loc.kernel,
            block: None,
            thread: None,
            assertion: Some(assertion),
            truncated,
            shape: Shape::Rocm,
            message: None,
        },
        consumed,
    ))
}

fn parse_printf(s: &str, tag: usize) -> Option<(RawAssert, usize)> {
    let after_tag = tag + PRINTF_TAG.len();
    let anchor = after_tag + s[after_tag..].find(ANCHOR_PRINTF)?;
    let head = head_window(s, anchor);
    if head.len() < anchor - after_tag {
        return None;
    }
    let head = &s[after_tag..anchor];
    let b = head.rfind("block: [")?;
    let (block, after) = coords(&head[b + 8..])?;
    let thread = after.find("thread: [").and_then(|t| coords(&after[t + 9..])).map(|c| c.0);
    let loc = parse_location(&head[..b])?;
    let body = anchor + ANCHOR_PRINTF.len();
    let (assertion, truncated, _) = read_until(s, body, "`: ");
    let message = if truncated {
        None
    } else {
        let end = body + assertion.len() + 3;
        Some(s[end..].trim_end().to_string())
    };
    // A printf report runs to the end of its line.
    Some((
        RawAssert {
            file: Some(loc.file),
            line: Some(loc.line),
            kernel: loc.kernel,
            block: Some(block),
            thread,
            assertion: Some(assertion),
            truncated,
            shape: Shape::CudaPrintf,
            message,
        },
        s.len(),
    ))
}

/// Reads the assertion text from `start` up to `end_marker` ("` failed"), returning the text,
/// whether the end was missing, and where the next report may begin. Nested backticks (the
/// multinomial message ``probability tensor contains either `inf`, `nan` or element < 0``)
/// are kept because only the backtick right before " failed" closes the text.
fn read_until(s: &str, start: usize, end_marker: &str) -> (String, bool, usize) {
    match s[start..].find(end_marker) {
        Some(rel) => {
            let text = s[start..start + rel].to_string();
            let mut next = start + rel + end_marker.len();
            if s[next..].starts_with('.') {
                next += 1;
            }
            (text, false, next)
        }
        None => (s[start..].trim_end().to_string(), true, s.len()),
    }
}

/// How many bytes of markdown debris start `s`: emphasis markers (`**`, `__`) and a backslash
/// that escapes the quote after it.
fn markdown_debris_len(s: &str) -> usize {
    let mut n = 0;
    loop {
        let rest = &s[n..];
        if rest.starts_with("**") || rest.starts_with("__") {
            n += 2;
        } else if rest.starts_with("\\`") {
            n += 1;
        } else {
            return n;
        }
    }
}

/// An assertion's text without the markdown debris a paste left around it (`**x`, `x\\`,
/// `x**`). No kernel's condition starts or ends with two asterisks or underscores, or ends in a
/// backslash.
fn strip_markdown_debris(a: &str) -> &str {
    let mut a = &a[markdown_debris_len(a)..];
    // ``x`` (a double-backtick code span) leaves one backtick on each side
    if a.len() > 1 && a.starts_with('`') && a.ends_with('`') {
        a = &a[1..a.len() - 1];
    }
    loop {
        let before = a.len();
        a = a.strip_suffix("**").or_else(|| a.strip_suffix("__")).or_else(|| a.strip_suffix('\\')).unwrap_or(a);
        if a.len() == before {
            return a;
        }
    }
}

/// Parses up to three comma-separated integers closed by `]`.
fn coords(s: &str) -> Option<([u32; 3], &str)> {
    let close = s.find(']')?;
    let mut out = [0u32; 3];
    let mut n = 0;
    for part in s[..close].split(',') {
        if n == 3 {
            return None;
        }
        out[n] = part.trim().parse().ok()?;
        n += 1;
    }
    if n == 0 {
        return None;
    }
    Some((out, &s[close + 1..]))
}

pub struct Location {
    pub file: String,
    pub line: u32,
    pub kernel: Option<String>,
}

/// Splits `FILE:LINE: FUNCTION: ` (FUNCTION may be absent, or a whole C++ signature).
pub fn parse_location(prefix: &str) -> Option<Location> {
    let p = prefix.trim_end();
    let p = p.strip_suffix(':').unwrap_or(p).trim_end();
    let bytes = p.as_bytes();
    let mut i = 0;
    while let Some(rel) = memchr::memchr(b':', &bytes[i..]) {
        let colon = i + rel;
        let d = bytes[colon + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        let end = colon + 1 + d;
        let closes = end == bytes.len() || bytes[end] == b':';
        if d > 0 && d <= 9 && closes {
            if let Some(file) = file_token(&p[..colon]) {
                let line = p[colon + 1..end].parse().ok()?;
                let kernel = p.get(end + 1..).map(str::trim).filter(|k| !k.is_empty()).map(str::to_string);
                return Some(Location { file, line, kernel });
            }
        }
        i = colon + 1;
    }
    None
}

/// The path right before `:LINE`, without whatever text a progress bar glued in front of it.
fn file_token(before: &str) -> Option<String> {
    // a path is never longer than this; looking further back only costs time
    let mut cut = before.len().saturating_sub(MAX_PATH);
    while !before.is_char_boundary(cut) {
        cut += 1;
    }
    let before = &before[cut..];
    // `<frozen importlib._bootstrap_external>` has a space inside its brackets
    let start = if before.ends_with('>') { before.rfind('<').unwrap_or(0) } else { after_last_whitespace(before) };
    let mut tok = &before[start..];
    if !tok.starts_with('<') {
        // "it/s]/pytorch/aten/..." or "|/pytorch/...": cut after glued punctuation.
        if let Some(cut) = tok.rfind([']', '|', ',', '"', '\'', '(', ')', '{', '}', '`']) {
            tok = &tok[cut + 1..];
        }
        // A repr'd message or a log pasted with its line breaks escaped: "...\n/opt/conda/…
        // /triton_helpers.py", "failed.\n../aten/src/…/ScatterGatherKernel.cu". A Windows path
        // written with backslashes has `\n` inside it (`…\native\cuda\Loss.cu`): the rest of
        // such a path keeps backslashes and no slashes, so it is not cut.
        if let Some(p) = tok.rfind("\\n") {
            let rest = &tok[p + 2..];
            if rest.contains('/') && !rest.contains('\\') {
                tok = rest;
            }
        }
        // Markdown emphasis or a quote marker ("**/pytorch/...", ">/pytorch/..."), or a line
        // number a viewer or `grep -n` put in front ("14633:/pytorch/..."), before an absolute
        // or relative path.
        let debris = tok.trim_start_matches(['*', '_', '>', '~']);
        let debris = match debris.find(|c: char| !c.is_ascii_digit()) {
            Some(d) if d > 0 && debris[d..].starts_with(':') => &debris[d + 1..],
            _ => debris,
        };
        if debris.len() < tok.len()
            && (debris.starts_with('/') || debris.starts_with("../") || debris.starts_with("./") || is_drive(debris))
        {
            tok = debris;
        }
        // Prose glued in front of an absolute path ("我能够帮助您解答/pytorch/...").
        if let Some((p, c)) = tok.char_indices().rfind(|(_, c)| !c.is_ascii()) {
            let rest = &tok[p + c.len_utf8()..];
            if rest.starts_with('/') || is_drive(rest) {
                tok = rest;
            }
        }
    } else if let Some(open) = tok.rfind('<') {
        tok = &tok[open..];
    }
    let plausible =
        tok.contains('/') || tok.contains('\\') || tok.contains('.') || tok == "unknown" || (tok.starts_with('<') && tok.ends_with('>'));
    if tok.is_empty() || !plausible {
        return None;
    }
    Some(tok.to_string())
}

/// The byte offset right after the last whitespace character (which may be multi-byte, such
/// as U+3000).
pub fn after_last_whitespace(s: &str) -> usize {
    s.char_indices().rfind(|(_, c)| c.is_whitespace()).map_or(0, |(p, c)| p + c.len_utf8())
}

fn is_drive(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() > 2 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'\\' || b[2] == b'/')
}

fn classify_shape(file: &str, kernel: Option<&str>) -> Shape {
    let is_windows = file.contains('\\') || (file.len() > 2 && file.as_bytes()[1] == b':' && file.as_bytes()[0].is_ascii_alphabetic());
    if file == "unknown" || file.contains("torchinductor") || kernel == Some("unknown") || file.starts_with('<') || file.ends_with(".py") {
        Shape::Triton
    } else if kernel.is_none() && is_windows {
        Shape::Windows
    } else if kernel.is_some_and(|k| k.contains(" [with ") || k.contains("(") && k != "operator()") {
        Shape::Pretty
    } else {
        Shape::Cuda
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &str) -> RawAssert {
        let v = parse_all(s);
        assert_eq!(v.len(), 1, "{s}: {v:?}");
        v.into_iter().next().unwrap()
    }

    #[test]
    fn aten_line() {
        let a = one("/pytorch/aten/src/ATen/native/cuda/Loss.cu:245: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [1,0,0] Assertion `t >= 0 && t < n_classes` failed.");
        assert_eq!(a.file.as_deref(), Some("/pytorch/aten/src/ATen/native/cuda/Loss.cu"));
        assert_eq!(a.line, Some(245));
        assert_eq!(a.kernel.as_deref(), Some("nll_loss_forward_reduce_cuda_kernel_2d"));
        assert_eq!(a.block, Some([0, 0, 0]));
        assert_eq!(a.thread, Some([1, 0, 0]));
        assert_eq!(a.assertion.as_deref(), Some("t >= 0 && t < n_classes"));
        assert_eq!(a.shape, Shape::Cuda);
        assert!(!a.truncated);
    }

    #[test]
    fn windows_without_function() {
        let a = one(
            r"C:\w\b\windows\pytorch\aten\src\ATen\native\cuda\Loss.cu:247: block: [0,0,0], thread: [3,0,0] Assertion `t >= 0 && t < n_classes` failed.",
        );
        assert_eq!(a.kernel, None);
        assert_eq!(a.line, Some(247));
        assert_eq!(a.file.as_deref(), Some(r"C:\w\b\windows\pytorch\aten\src\ATen\native\cuda\Loss.cu"));
        assert_eq!(a.shape, Shape::Windows);
    }

    #[test]
    fn progress_bar_glued_in_front() {
        let a = one("  5/10  2.11G  640:  30%|██  | 319/1075 [00:56<02:08, C:/cb/pytorch_1000000000000/work\\c10/core/DynamicCast.h:78: block: [38,0,0], thread: [96,0,0] Assertion `false` failed.");
        assert_eq!(a.file.as_deref(), Some("C:/cb/pytorch_1000000000000/work\\c10/core/DynamicCast.h"));
        assert_eq!(a.assertion.as_deref(), Some("false"));
    }

    #[test]
    fn nested_backticks_and_empty() {
        let a = one("/pytorch/aten/src/ATen/native/cuda/TensorCompare.cu:112: _assert_async_cuda_kernel: block: [0,0,0], thread: [0,0,0] Assertion `probability tensor contains either `inf`, `nan` or element < 0` failed.");
        assert_eq!(a.assertion.as_deref(), Some("probability tensor contains either `inf`, `nan` or element < 0"));
        let e = one("/pytorch/aten/src/ATen/native/cuda/TensorCompare.cu:112: _assert_async_cuda_kernel: block: [0,0,0], thread: [0,0,0] Assertion `` failed.");
        assert_eq!(e.assertion.as_deref(), Some(""));
    }

    #[test]
    fn pretty_function_signature() {
        let a = one("/opt/conda/conda-bld/pytorch_1/work/aten/src/THCUNN/BCECriterion.cu:30: Acctype bce_functor<Dtype, Acctype>::operator()(Tuple) [with Tuple = thrust::null_type, Dtype = float, Acctype = float]: block: [2,0,0], thread: [117,0,0] Assertion `input >= 0. && input <= 1.` failed.");
        assert_eq!(
            a.kernel.as_deref(),
            Some("Acctype bce_functor<Dtype, Acctype>::operator()(Tuple) [with Tuple = thrust::null_type, Dtype = float, Acctype = float]")
        );
        assert_eq!(a.shape, Shape::Pretty);
    }

    #[test]
    fn triton_shapes() {
        let a = one("unknown:0: unknown: block: [0,0,0], thread: [162,0,0] Assertion `index out of bounds: 0 <= tmp4 < 32000` failed.");
        assert_eq!((a.file.as_deref(), a.line, a.kernel.as_deref()), (Some("unknown"), Some(0), Some("unknown")));
        assert_eq!(a.shape, Shape::Triton);
        let b = one("<frozen importlib._bootstrap_external>:843: _call_with_frames_removed: block: [45,2,0], thread: [32,0,0] Assertion `index out of bounds: 0 <= tmp4 < 24` failed.");
        assert_eq!(b.file.as_deref(), Some("<frozen importlib._bootstrap_external>"));
        assert_eq!(b.block, Some([45, 2, 0]));
    }

    #[test]
    fn hip_and_xpu() {
        let a = one("/pytorch/aten/src/ATen/native/hip/Loss.hip:250: nll_loss_forward_reduce_cuda_kernel_2d: Device-side assertion `t >= 0 && t < n_classes' failed.");
        assert_eq!(a.shape, Shape::Rocm);
        assert_eq!(a.assertion.as_deref(), Some("t >= 0 && t < n_classes"));
        assert_eq!(a.block, None);
        let x = one("/x/triton_helpers.py:248: unknown: global id: [0,0,0], local id: [0,0,0] Assertion `injected assert fail` failed.");
        assert_eq!(x.shape, Shape::Xpu);
        assert_eq!(x.block, None);
    }

    #[test]
    fn printf_variant() {
        let a = one("[CUDA_KERNEL_ASSERT] /pytorch/aten/src/ATen/native/cuda/Repeat.cu:20: compute_cuda_kernel: block: [0,0,0], thread: [0,0,0]: Assertion failed: `result_size == cumsum_ptr[size - 1]`: Invalid input! In `repeat_interleave`, the `output_size` argument (5) must be the same as the sum of the elements in the `repeats` tensor (6).");
        assert_eq!(a.shape, Shape::CudaPrintf);
        assert_eq!(a.assertion.as_deref(), Some("result_size == cumsum_ptr[size - 1]"));
        assert!(a.message.unwrap().starts_with("Invalid input!"));
    }

    #[test]
    fn glued_reports_and_cut_lines() {
        let s = "/p/a/Loss.cu:245: k: block: [0,0,0], thread: [1,0,0] Assertion `t >= 0` failed./p/a/Loss.cu:245: k: block: [0,0,0], thread: [2,0,0] Assertion `t >= 0` failed.";
        let v = parse_all(s);
        assert_eq!(v.len(), 2);
        assert_eq!(v[1].thread, Some([2, 0, 0]));
        let cut = one("/p/a/Loss.cu:245: k: block: [0,0,0], thread: [1,0,0] Assertion `t >= 0 && t <");
        assert!(cut.truncated);
        assert_eq!(cut.assertion.as_deref(), Some("t >= 0 && t <"));
        let no_period = one("/pytorch/aten/src/THCUNN/SpatialClassNLLCriterion.cu:106: cunn_SpatialClassNLLCriterion_updateOutput_kernel: block: [0,0,0], thread: [725,0,0] Assertion `t >= 0 && t < n_classes` failed");
        assert!(!no_period.truncated);
    }

    #[test]
    fn pasted_without_backticks_or_with_quotes() {
        let a = one("/opt/conda/conda-bld/pytorch_1/work/aten/src/ATen/native/cuda/Indexing.cu:1146: indexSelectLargeIndex: block: [58,0,0], thread: [21,0,0] Assertion srcIndex < srcSelectDimSize failed. 请问");
        assert_eq!(a.assertion.as_deref(), Some("srcIndex < srcSelectDimSize"));
        let x = one("`torch-xpu-ops/src/aten/sycl/Indexing.h:615: operator(): global id: [19,0,0], local id: [19,0,0] Assertion \"index >= -sizes_[i] && index < sizes_[i] && \"index out of bounds\"\" failed.`.");
        assert_eq!(x.assertion.as_deref(), Some("index >= -sizes_[i] && index < sizes_[i] && \"index out of bounds\""));
        assert_eq!(x.file.as_deref(), Some("torch-xpu-ops/src/aten/sycl/Indexing.h"));
    }

    /// As pasted in Megvii-BaseDetection/YOLOX#813: bold markers around and inside the quotes.
    #[test]
    fn markdown_emphasis_and_escapes_around_the_assertion() {
        let want = Some("input_val >= zero && input_val <= one");
        for line in [
            "/pytorch/aten/src/ATen/native/cuda/Loss.cu:111: operator(): block: [62,0,0], thread: [0,0,0] Assertion **`input_val >= zero && input_val <= one` failed**.",
            "/pytorch/aten/src/ATen/native/cuda/Loss.cu:111: operator(): block: [62,0,0], thread: [2,0,0] Assertion `**input_val >= zero && input_val <= one` failed.**",
            "/pytorch/aten/src/ATen/native/cuda/Loss.cu:111: operator(): block: [62,0,0], thread: [2,0,0] Assertion \\`input_val >= zero && input_val <= one\\` failed.",
        ] {
            let a = one(line);
            assert_eq!((a.assertion.as_deref(), a.file.as_deref()), (want, Some("/pytorch/aten/src/ATen/native/cuda/Loss.cu")), "{line}");
        }
        let bold = one("**/pytorch/aten/src/ATen/native/cuda/Loss.cu:111: operator(): block: [62,0,0], thread: [3,0,0] Assertion `input_val >= zero && input_val <= one` failed.**");
        assert_eq!((bold.file.as_deref(), bold.assertion.as_deref()), (Some("/pytorch/aten/src/ATen/native/cuda/Loss.cu"), want));
    }

    /// A log viewer's or `grep -n`'s line number glued in front of the path.
    #[test]
    fn a_line_number_glued_in_front_of_the_path() {
        let a = one("14633:/pytorch/aten/src/ATen/native/cuda/Loss.cu:240: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.");
        assert_eq!((a.file.as_deref(), a.line), (Some("/pytorch/aten/src/ATen/native/cuda/Loss.cu"), Some(240)));
        let rel = one("7:../aten/src/ATen/native/cuda/Loss.cu:94: operator(): block: [90,0,0], thread: [15,0,0] Assertion `input_val >= zero && input_val <= one` failed.");
        assert_eq!(rel.file.as_deref(), Some("../aten/src/ATen/native/cuda/Loss.cu"));
    }

    #[test]
    fn glued_prose_and_punctuation() {
        assert_eq!(one("我能够帮助您解答/pytorch/aten/src/ATen/native/cuda/TensorCompare.cu:112: f: block: [0,0,0], thread: [0,0,0] Assertion `x` failed.").file.as_deref(), Some("/pytorch/aten/src/ATen/native/cuda/TensorCompare.cu"));
        assert_eq!(
            one("}C:\\w\\Loss.cu:247: block: [0,0,0], thread: [0,0,0] Assertion `x` failed.").file.as_deref(),
            Some("C:\\w\\Loss.cu")
        );
        assert_eq!(
            one("RuntimeError: boom\\n/opt/x/triton_helpers.py:248: unknown: global id: [0,0,0], local id: [0,0,0] Assertion `y` failed.")
                .file
                .as_deref(),
            Some("/opt/x/triton_helpers.py")
        );
    }

    /// A log pasted with its line breaks written as `\n` (one physical line): the path after
    /// an escaped break, relative or absolute, is the path; a Windows path whose backslashes
    /// happen to spell `\n` (`\native`) is kept whole.
    #[test]
    fn a_path_after_an_escaped_line_break() {
        let a = one("failed.\\n../aten/src/ATen/native/cuda/ScatterGatherKernel.cu:144: operator(): block: [51,0,0], thread: [45,0,0] Assertion `idx_dim >= 0` failed.");
        assert_eq!((a.file.as_deref(), a.line), (Some("../aten/src/ATen/native/cuda/ScatterGatherKernel.cu"), Some(144)));
        let w = one("C:\\w\\aten\\src\\ATen\\native\\cuda\\Loss.cu:247: block: [0,0,0], thread: [0,0,0] Assertion `x` failed.");
        assert_eq!(w.file.as_deref(), Some("C:\\w\\aten\\src\\ATen\\native\\cuda\\Loss.cu"));
    }

    /// A host error line written into the middle of a report's assertion by another stream (the
    /// report's closing quote and `failed.` come after it): the assertion ends where that line
    /// begins.
    #[test]
    fn a_host_line_spliced_into_the_assertion_is_left_out() {
        let a = one("/w/THCUNN/BCECriterion.cu:57: void f(const float *) [with Dtype = float]: block: [33,0,0], thread: [193,0,0] Assertion `*input >= 0. && *input <= 1.THCudaCheck FAIL file=/w/THC/THCReduceAll.cuh line=317 error=59 : device-side assert triggered` failed.");
        assert_eq!(a.assertion.as_deref(), Some("*input >= 0. && *input <= 1."));
        let b = one("/w/Loss.cu:240: k: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classesRuntimeError: CUDA error: device-side assert triggered` failed.");
        assert_eq!(b.assertion.as_deref(), Some("t >= 0 && t < n_classes"));
    }

    /// fuzz/regressions/file_token-ideographic-space-min.log
    #[test]
    fn multibyte_whitespace_before_the_path() {
        assert!(parse_all("\u{3000}:8:block: [0,0,0] Assertion `x` failed.").is_empty());
        let a = one("x\u{3000}/p/Loss.cu:8: k: block: [0,0,0], thread: [1,0,0] Assertion `x` failed.");
        assert_eq!(a.file.as_deref(), Some("/p/Loss.cu"));
    }

    /// Thousands of reports glued on one line: each anchor kind is searched for once per
    /// occurrence, not once per report (fuzz/regressions/slow-parse_all-glued-reports-2m.log.gz).
    #[test]
    fn many_glued_reports() {
        let line = "/x/Idx.cu:92: k: block: [0,0,0], thread: [1,0,0] Assertion `x` failed.".repeat(20_000);
        assert_eq!(parse_all(&line).len(), 20_000);
    }

    /// Used to take quadratic time (every colon looked back over the whole line); the input
    /// is also in fuzz/regressions/.
    #[test]
    fn a_line_of_many_colons_before_an_anchor() {
        let line = format!("{} block: [0,0,0], thread: [0,0,0] Assertion `x` failed.", "x:1:".repeat(200_000));
        assert!(parse_all(&line).is_empty());
    }

    #[test]
    fn host_asserts_are_not_device_reports() {
        assert!(parse_all("python: /src/foo.c:12: main: Assertion `x' failed.").is_empty());
        assert!(parse_all("AssertionError: Assertion `x` failed").is_empty());
    }
}
