//! The report for a person: a miette diagnostic for what failed (with the log line it came
//! from), one for the user's frame and whether to trust it, then what to check and do next.

use std::fmt::{self, Write as _};

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents, Severity, SourceCode, SourceSpan,
    SpanContents,
};

use super::clip;
use crate::kb;
use crate::model::witness::{ProvenanceKind, Sweep, Witness};
use crate::model::*;

pub struct Style {
    pub color: bool,
    pub width: usize,
    /// What the report quotes from the project (`rank::quote`).
    pub quoted: Quoted,
}

/// A few source lines that know which line of the original file they start at.
struct Snippet {
    name: String,
    text: String,
    first_line: usize,
    /// Characters cut from the front of the labelled line to fit the terminal: the column shown
    /// is still the file's.
    col_shift: usize,
}

impl SourceCode for Snippet {
    fn read_span<'a>(&'a self, span: &SourceSpan, before: usize, after: usize) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self.text.read_span(span, before, after)?;
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            *inner.span(),
            inner.line() + self.first_line.saturating_sub(1),
            inner.column() + self.col_shift,
            inner.line_count(),
        )))
    }
}

struct Diag {
    message: String,
    code: String,
    severity: Severity,
    help: Option<String>,
    snippet: Option<Snippet>,
    labels: Vec<LabeledSpan>,
    related: Vec<Diag>,
}

impl fmt::Debug for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diag {}

impl Diagnostic for Diag {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.code))
    }
    fn severity(&self) -> Option<Severity> {
        Some(self.severity)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help.as_ref().map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.snippet.as_ref().map(|s| s as &dyn SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.labels.is_empty() {
            None
        } else {
            Some(Box::new(self.labels.iter().cloned()))
        }
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        if self.related.is_empty() {
            None
        } else {
            Some(Box::new(self.related.iter().map(|d| d as &dyn Diagnostic)))
        }
    }
}

pub fn render(report: &Report, style: &Style) -> String {
    let mut out = String::new();
    let theme = if style.color { GraphicalTheme::unicode() } else { GraphicalTheme::none() };
    let handler = super::unbroken(GraphicalReportHandler::new_themed(theme).with_width(style.width).with_links(false));
    let h = |s: &str| if style.color { format!("\x1b[1m{s}\x1b[0m") } else { s.to_string() };

    let head = format!("cudasleuth: {}", headline(report));
    let head = if style.color { head } else { super::ascii_marks(&head) };
    let opts = textwrap::Options::new(style.width.max(40)).subsequent_indent("  ");
    for (i, l) in textwrap::wrap(&head, opts).iter().enumerate() {
        match l.strip_prefix("cudasleuth:").filter(|_| i == 0) {
            Some(rest) => writeln!(out, "{}{rest}", h("cudasleuth:")),
            None => writeln!(out, "{l}"),
        }
        .ok();
    }
    if report.kind != "repro" {
        answer(&mut out, report, style);
    }
    out.push('\n');
    if report.kind == "repro" {
        // each row wrapped to the width, continued under its text (the labels are 11 wide)
        let mut rows = String::new();
        repro_section(&mut rows, report, style, &h);
        for row in rows.lines() {
            if row.is_empty() {
                out.push('\n');
            } else {
                wrapped(&mut out, row, 13, style);
            }
        }
    }
    let ellipsis = if style.color { "…" } else { "..." };
    for mut diag in diagnostics(report) {
        fit_snippet(&mut diag, style.width, ellipsis);
        let _ = handler.render_report(&mut out, &diag);
    }
    if !report.suspects.is_empty() {
        let _ = writeln!(out, "\n{}", h("The suspects in detail"));
        for mut d in suspect_diags(report, &style.quoted) {
            fit_snippet(&mut d, style.width, ellipsis);
            let _ = handler.render_report(&mut out, &d);
        }
    }

    for (i, a) in report.asserts.iter().enumerate() {
        let _ = writeln!(out, "\n{}", h(&format!("Assert site {} of {}", i + 1, report.asserts.len())));
        // each field wrapped to the terminal, continued under its text
        let mut field = |name: &str, text: &str| wrapped(&mut out, &format!("  {name:<10} {text}"), 13, style);
        let place = match (&a.file, a.line) {
            (Some(f), Some(l)) => format!("{}:{l}", kb::source_relative(f)),
            _ => "?".to_string(),
        };
        field("kernel", &format!("{} ({place})", a.kernel.as_deref().unwrap_or("(not printed by this build)")));
        field(
            "assertion",
            &format!("`{}`{}", a.assertion.as_deref().unwrap_or(""), if a.truncated { " (cut off in the log)" } else { "" }),
        );
        field("reports", &format!("{}{}", a.count, hits_summary(a)));
        if !a.ranks.is_empty() {
            let ranks: Vec<String> = a.ranks.iter().map(|r| format!("{}{}", r.kind, r.id)).collect();
            field("processes", &ranks.join(", "));
        }
        const UNKNOWN_OP: &str = "not in cudasleuth's knowledge base (a third-party or newer kernel?)";
        match &a.signature {
            Some(sig) if sig.match_kind == "generic" => {
                field("op", UNKNOWN_OP);
                field("reading", &format!("{} — {}", sig.category.replace('_', " "), sig.explanation));
            }
            Some(sig) => {
                field("op", &format!("{} — {}", sig.op, sig.category.replace('_', " ")));
                if let (0, Some(call)) = (i, &report.call) {
                    field("your call", &format!("{}  ({}:{})", call.code, call.file, call.line));
                }
                if !sig.python_apis.is_empty() {
                    field("reached by", &sig.python_apis.join(", "));
                }
                if !sig.causes.is_empty() {
                    field("check", "");
                    for c in &sig.causes {
                        wrapped(&mut out, &format!("    • {c}"), 6, style);
                    }
                }
            }
            None => field("op", UNKNOWN_OP),
        }
        let mut field = |name: &str, text: &str| wrapped(&mut out, &format!("  {name:<10} {text}"), 13, style);
        if let Some(c) = &a.candidates {
            let kind = if c.exact { "exactly" } else { "among" };
            field("look at", &format!("{kind} {}", c.elements));
            field("", &format!("({}; a failed warp stops printing, so other elements may be bad too)", c.assumes));
        } else if let Some(reason) = a
            .signature
            .as_ref()
            .and_then(|s| s.geometry.as_deref())
            .and_then(kb::geometry::Geometry::from_id)
            .and_then(kb::geometry::Geometry::no_position_reason)
        {
            field("position", &format!("no position information: {reason}"));
        }
        if let Some(m) = &a.message {
            field("message", m);
        }
        out.push('\n');
    }

    // the error the report is about is shown above already
    let shown = report.error.as_ref().map(|e| e.line);
    let secondary: Vec<_> = report.secondary.iter().filter(|s| Some(s.line) != shown).collect();
    if !secondary.is_empty() {
        blank_line(&mut out);
        let _ = writeln!(out, "{}", h("Also in the log (consequences, not the cause)"));
        for s in secondary.into_iter().take(8) {
            let times = s.count.map(|c| format!(" ×{c}")).unwrap_or_default();
            wrapped(&mut out, &format!("  line {:<6} {}{times}: {}", s.line, s.kind, clip(&s.message, 110)), 14, style);
        }
        out.push('\n');
    }
    if !report.evidence.is_empty() {
        blank_line(&mut out);
        let _ = writeln!(out, "{}", h("Clues elsewhere in the log"));
        for e in report.evidence.iter().take(8) {
            wrapped(&mut out, &format!("  line {:<6} {}: {}", e.line, e.kind, clip(&e.message, 110)), 14, style);
        }
        out.push('\n');
    }
    // the first step is the diagnostic's help already
    if report.next_steps.len() > 1 {
        blank_line(&mut out);
        let _ = writeln!(out, "{}", h("Then"));
        for (i, s) in report.next_steps.iter().skip(1).enumerate() {
            wrapped(&mut out, &format!("  {}. {s}", i + 1), 5, style);
        }
    }
    for w in &report.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    if style.color {
        out
    } else {
        super::ascii_marks(&out)
    }
}

/// One empty line before a section, however the part above ended.
fn blank_line(out: &mut String) {
    if !out.is_empty() && !out.ends_with("\n\n") {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
}

/// `text` wrapped to `width` (at spaces: a path or a code word is never cut), its continuation
/// lines indented by `indent`.
fn wrapped(out: &mut String, text: &str, indent: usize, style: &Style) {
    let pad = " ".repeat(indent);
    let opts = textwrap::Options::new(style.width.max(40))
        .subsequent_indent(&pad)
        .break_words(false)
        .word_separator(textwrap::WordSeparator::AsciiSpace)
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    // the marks in the width they are shown in (ASCII when not a terminal)
    let text = if style.color { text.to_string() } else { super::ascii_marks(text) };
    for l in textwrap::wrap(text.trim_end(), opts) {
        let _ = writeln!(out, "{l}");
    }
    if text.trim_end().is_empty() {
        let _ = writeln!(out);
    }
}

/// The answer under the headline, before any detail: the line that made the bad value, why,
/// the chain from it to the op in one line, the bound, and how to confirm it.
fn answer(out: &mut String, report: &Report, style: &Style) {
    let Some(s) = report.suspects.first() else { return };
    let width = style.width.max(40);
    let field = |out: &mut String, name: &str, text: &str| {
        let opts = textwrap::Options::new(width).initial_indent("").subsequent_indent("           ");
        // the marks in the width they are shown in (ASCII when not a terminal)
        let body = format!("  {name:<8} {text}");
        let body = if style.color { body } else { super::ascii_marks(&body) };
        for l in textwrap::wrap(&body, opts) {
            let _ = writeln!(out, "{l}");
        }
    };
    let (name, strength) = match s.tier.as_str() {
        "strong" | "likely" => ("culprit", s.tier.as_str()),
        _ => ("suspect", "possible"),
    };
    let code = style.quoted.line(&s.file, s.line).map(str::trim).filter(|c| !c.is_empty());
    let place = match code {
        Some(c) => format!("{}:{}  {}", s.file, s.line, clip(c, width.saturating_sub(s.file.len() + 20).max(24))),
        None => format!("{}:{}", s.file, s.line),
    };
    field(out, name, &format!("{place}  ({strength})"));
    // the message without the place it repeats
    let why = s.message.split_once(": ").filter(|(head, _)| !head.contains(' ')).map_or(s.message.as_str(), |(_, rest)| rest);
    field(out, "", why);
    let short = |c: &ChainStep| if c.file == s.file { format!(":{}", c.line) } else { format!("{}:{}", c.file, c.line) };
    let steps: Vec<String> = s
        .chain
        .iter()
        .filter(|c| !(c.file == s.file && c.line == s.line))
        .map(|c| match c.role.as_str() {
            "pass" => short(c),
            _ => format!("{} {}", short(c), clip(&c.what, 40)),
        })
        .collect();
    if !steps.is_empty() {
        field(out, "chain", &format!(":{} → {}", s.line, steps.join(" → ")));
    }
    if let Some(b) = s.bound_chain.first() {
        field(out, "bound", &format!("{}:{} {}", b.file, b.line, b.what));
    }
    if let Some(step) = confirm_step(report) {
        field(out, "confirm", &step);
    }
    let others = report.suspects.len() - 1;
    if others > 0 {
        field(out, "also", &format!("{others} other suspect(s), below"));
    }
}

/// With a culprit found, the command that confirms it (the repro command of the next steps),
/// which replaces the advice to re-run synchronized.
fn confirm_step(report: &Report) -> Option<String> {
    if report.suspects.first().map_or(true, |s| s.tier == "possible") {
        return None;
    }
    let step = report.next_steps.iter().find(|n| n.contains("cudasleuth repro"))?;
    let cmd = step.split('`').find(|part| part.starts_with("cudasleuth repro")).unwrap_or(step);
    Some(format!("`{cmd}`"))
}

fn headline(report: &Report) -> String {
    let src = &report.source;
    if report.kind == "repro" {
        if let Some(w) = &report.witness {
            return format!("repro caught {}", Witness::of(w).caught_line());
        }
        if let Some(s) = &report.sweep {
            let sweep = Sweep::of(s);
            if !sweep.checked_any() {
                let why = sweep.note.unwrap_or_else(|| "no dataset was recorded".into());
                return format!("sweep: nothing was checked ({why})");
            }
            let n = sweep.bad_samples();
            return if n == 0 {
                "sweep: every sample is within the model's bounds".to_string()
            } else {
                format!("sweep: {n} bad sample(s)")
            };
        }
    }
    match report.verdict {
        Verdict::DeviceAssert => {
            let ops: Vec<String> = report
                .asserts
                .iter()
                .filter_map(|a| a.signature.as_ref().map(|s| s.op.clone()))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            if ops.is_empty() {
                format!("{src}: a CUDA device-side assert")
            } else {
                format!("{src}: a device-side assert in {}", ops.join(", "))
            }
        }
        Verdict::CudaError => format!("{src}: a CUDA error that is not a device assert"),
        Verdict::CpuEquivalent => format!("{src}: the CPU version of a device-assert bug"),
        Verdict::None => format!("{src}: no device-side assert or CUDA error found"),
    }
}

fn hits_summary(a: &AssertSite) -> String {
    if a.hits.distinct <= 1 {
        return match (a.block, a.thread) {
            (Some(b), Some(t)) => format!(" (block {b:?}, thread {t:?})"),
            _ => String::new(),
        };
    }
    let threads: Vec<String> = a.hits.threads.iter().take(8).map(|t| t[0].to_string()).collect();
    let more = if a.hits.threads.len() > 8 || a.hits.truncated { ", …" } else { "" };
    // past its cap the count is a floor, and said so
    let at_least = if a.hits.distinct_capped { "at least " } else { "" };
    // the blocks are samples (32 at most): a full sample is a floor too
    let blocks = if a.hits.distinct_capped || (a.hits.truncated && a.hits.blocks.len() >= 32) {
        format!("at least {}", a.hits.blocks.len())
    } else {
        a.hits.blocks.len().to_string()
    };
    format!(" from {at_least}{} distinct GPU threads in {blocks} block(s); thread x = {}{more}", a.hits.distinct, threads.join(", "))
}

fn diagnostics(report: &Report) -> Vec<Diag> {
    let mut out = Vec::new();
    // with a culprit found, the answer says how to confirm it
    let help = if confirm_step(report).is_some() { None } else { report.next_steps.first().cloned() };
    if let Some(a) = report.asserts.first() {
        let (message, code) = match &a.signature {
            Some(sig) if sig.match_kind == "generic" => (
                format!("unknown kernel {}: {}", a.kernel.as_deref().unwrap_or("?"), sig.explanation),
                format!("device_assert::{}", sig.category),
            ),
            Some(sig) => (format!("{}: {}", sig.op, sig.explanation), format!("device_assert::{}", sig.category)),
            None => (format!("unknown kernel {}", a.kernel.as_deref().unwrap_or("?")), "device_assert".to_string()),
        };
        let file = a.file.as_deref().map(kb::source_relative).unwrap_or_default();
        let short = format!("{}:{}: Assertion `{}` failed", file, a.line.unwrap_or(0), a.assertion.as_deref().unwrap_or(""));
        let start = short.find('`').map_or(0, |p| p + 1);
        let len = a.assertion.as_deref().map_or(0, str::len);
        let operand = a.signature.as_ref().and_then(|s| s.operand.clone());
        let label = match operand {
            Some(o) => format!("false for some element of `{o}`"),
            None => "this condition was false".to_string(),
        };
        let mut d = Diag {
            message,
            code,
            severity: Severity::Error,
            help,
            snippet: Some(Snippet {
                name: report.source.clone(),
                text: short,
                first_line: a.log_lines.first().copied().unwrap_or(1) as usize,
                col_shift: 0,
            }),
            labels: vec![LabeledSpan::new(Some(label), start, len)],
            related: Vec::new(),
        };
        d.related.extend(frame_diag(report));
        out.push(d);
    } else if let Some(e) = &report.error {
        let code = match report.verdict {
            Verdict::DeviceAssert => "device_assert",
            Verdict::CudaError => "cuda_error",
            Verdict::CpuEquivalent => "cpu_equivalent",
            Verdict::None => "none",
        };
        let text = match &e.type_ {
            Some(t) => format!("{t}: {}", e.message),
            None => e.message.clone(),
        };
        let text = clip(&text, 140);
        let len = text.len();
        let explain =
            e.kind.as_deref().and_then(|k| crate::log::host::signatures().iter().find(|s| s.kind == k)).and_then(|s| s.explain.clone());
        let message = match (&e.kind, explain) {
            (Some(k), Some(x)) => format!("{}: {x}", k.replace('_', " ")),
            (Some(k), None) if k != "device_assert" => k.replace('_', " "),
            _ if report.verdict == Verdict::DeviceAssert => {
                "a device-side assert, but the log has no assert line naming the kernel".to_string()
            }
            _ => e.message.clone(),
        };
        let mut d = Diag {
            message,
            code: code.to_string(),
            severity: Severity::Error,
            help,
            snippet: (e.line > 0).then(|| Snippet { name: report.source.clone(), text, first_line: e.line as usize, col_shift: 0 }),
            labels: if e.line > 0 { vec![LabeledSpan::new(Some("the error".into()), 0, len)] } else { vec![] },
            related: Vec::new(),
        };
        d.related.extend(frame_diag(report));
        out.push(d);
    }
    out
}

/// Cuts the lines of a diagnostic's snippet (and its related ones') to the room the terminal
/// leaves beside the gutter (` 12 │ `), keeping each label's span and its text in view: a long
/// log line or code line is shown from a little before what the label points at, its cut ends
/// marked with `ellipsis`.
fn fit_snippet(d: &mut Diag, width: usize, ellipsis: &str) {
    for r in &mut d.related {
        fit_snippet(r, width, ellipsis);
    }
    let Some(sn) = d.snippet.as_mut() else { return };
    let last = sn.first_line + sn.text.matches('\n').count();
    let gutter = last.to_string().len() + 4;
    let room = width.saturating_sub(gutter).max(24);
    let mut spans: Vec<(usize, usize)> = d.labels.iter().map(|l| (l.offset(), l.len())).collect();
    let label_chars: Vec<usize> = d.labels.iter().map(|l| l.label().map_or(0, |t| t.chars().count())).collect();
    let mut text = String::with_capacity(sn.text.len());
    let mut old = 0;
    let mut changed = false;
    for (i, line) in sn.text.split('\n').enumerate() {
        if i > 0 {
            text.push('\n');
        }
        let (start_old, end_old, start_new) = (old, old + line.len(), text.len());
        old = end_old + 1;
        let within = |o: usize| o >= start_old && o <= end_old;
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        let char_at = |byte: usize| chars.iter().position(|(b, _)| *b >= byte).unwrap_or(chars.len());
        let label = spans.iter().position(|(o, _)| within(*o));
        let (sc, ec) = label.map_or((0, 0), |k| (char_at(spans[k].0 - start_old), char_at(spans[k].0 - start_old + spans[k].1)));
        // miette draws the label's text from the middle of its span
        let label_end = label.map_or(0, |k| gutter + sc + (ec - sc) / 2 + 5 + label_chars[k]);
        if chars.len() <= room && label_end <= width {
            text.push_str(line);
            for (o, _) in spans.iter_mut().filter(|(o, _)| within(*o)) {
                *o = *o - start_old + start_new;
            }
            continue;
        }
        changed = true;
        let budget = room.saturating_sub(2 * ellipsis.chars().count()).max(8);
        // a word of context before the span; the label's text then fits after it
        let from = match chars[..sc].iter().rposition(|(_, c)| c.is_whitespace()) {
            Some(w) if sc - w <= 16 && w > 0 => match chars[..w].iter().rposition(|(_, c)| c.is_whitespace()) {
                Some(w2) if sc - w2 <= 16 => w2 + 1,
                _ => w + 1,
            },
            _ => sc.saturating_sub(4),
        };
        if label.is_some() && from > 0 {
            sn.col_shift = from.saturating_sub(ellipsis.chars().count());
        }
        let to = (from + budget).min(chars.len());
        let byte = |c: usize| chars.get(c).map_or(line.len(), |(b, _)| *b);
        if from > 0 {
            text.push_str(ellipsis);
        }
        let kept_at = text.len();
        text.push_str(&line[byte(from)..byte(to)]);
        if to < chars.len() {
            text.push_str(ellipsis);
        }
        for (o, len) in spans.iter_mut().filter(|(o, _)| within(*o)) {
            let (s, e) = (char_at(*o - start_old).clamp(from, to), char_at(*o - start_old + *len).clamp(from, to));
            *o = kept_at + byte(s) - byte(from);
            *len = (byte(e) - byte(s)).max(1);
        }
    }
    if changed {
        sn.text = text;
    }
    // a label whose text still runs past the edge is cut to fit
    let text = &sn.text;
    let fitted = |l: &LabeledSpan, (o, len): (usize, usize)| {
        let col = text[..o].rsplit('\n').next().unwrap_or("").chars().count();
        let mid = col + text[o..(o + len).min(text.len())].chars().count() / 2;
        let room = width.saturating_sub(gutter + mid + 5);
        let label_len = l.label().map_or(0, |t| t.chars().count());
        if label_len > room {
            // a long span: underline its first part, so the label starts in time
            let spare = width.saturating_sub(gutter + col + 5 + label_len);
            if spare >= 2 {
                let keep: usize = text[o..].chars().take(2 * spare).map(char::len_utf8).sum();
                return LabeledSpan::new(l.label().map(String::from), o, keep.min(len).max(1));
            }
        }
        let label = l.label().map(|t| match t.chars().count() > room {
            true => t.chars().take(room.saturating_sub(ellipsis.chars().count()).max(1)).collect::<String>() + ellipsis,
            false => t.to_string(),
        });
        LabeledSpan::new(label, o, len)
    };
    d.labels = d.labels.iter().zip(spans).map(|(l, span)| fitted(l, span)).collect();
}

/// The user's innermost frame, labelled with whether the traceback can be trusted.
fn frame_diag(report: &Report) -> Option<Diag> {
    let f = report.frames.iter().rev().find(|f| f.user_code)?;
    let code = f.code.clone().unwrap_or_default();
    let trusted = report.traceback.level == "trusted";
    let mut place = format!("{}:{}{}", f.file, f.line, f.function.as_deref().map(|n| format!(" in {n}")).unwrap_or_default());
    if let Some((notebook, line)) = &f.notebook {
        place.push_str(&format!(" ({notebook}:{line})"));
    }
    let message = match report.traceback.level {
        "trusted" => format!("the failing call in your code: {place}"),
        "consistent" => format!("your code, probably the failing call: {place}"),
        "untrusted" => format!("where Python noticed the error (not where it happened): {place}"),
        _ => format!("your code in the traceback (it may not be the failing call): {place}"),
    };
    let (start, len) = match &f.focus {
        Some(focus) if code.contains(focus.as_str()) => (code.find(focus.as_str()).unwrap_or(0), focus.len()),
        _ => (0, code.len()),
    };
    let op = report.asserts.iter().find_map(|a| a.signature.as_ref()).map(|s| s.op.clone());
    let label = if trusted {
        "the failing call".to_string()
    } else {
        match &op {
            Some(op) => format!("noticed here; {op} was launched earlier"),
            None => "noticed here; the failing kernel ran earlier".to_string(),
        }
    };
    Some(Diag {
        message,
        code: "traceback".to_string(),
        severity: if trusted { Severity::Advice } else { Severity::Warning },
        help: Some(report.traceback.reason.clone()),
        snippet: (!code.is_empty()).then(|| Snippet {
            name: f.file.clone(),
            text: code.clone(),
            first_line: f.line as usize,
            col_shift: 0,
        }),
        labels: if code.is_empty() { vec![] } else { vec![LabeledSpan::new(Some(label), start, len)] },
        related: Vec::new(),
    })
}

/// The top suspects, each with the line from the project it names.
fn suspect_diags(report: &Report, quoted: &Quoted) -> Vec<Diag> {
    let mut out = Vec::new();
    for s in report.suspects.iter().take(3) {
        let snippet = quoted.sources.get(&s.file).and_then(|text| {
            let start = s.line.saturating_sub(2).max(1);
            let lines: Vec<&str> = text.lines().skip(start as usize - 1).take((s.line - start + 2) as usize).collect();
            if lines.is_empty() {
                return None;
            }
            let body = lines.join("\n");
            // byte offset of the span inside the excerpt
            let mut offset = 0;
            for (i, l) in lines.iter().enumerate() {
                if start as usize + i == s.line as usize {
                    let col: usize = l.chars().take(s.column.saturating_sub(1) as usize).map(char::len_utf8).sum();
                    let len = if s.end_line == s.line {
                        l.chars()
                            .skip(s.column.saturating_sub(1) as usize)
                            .take((s.end_column - s.column) as usize)
                            .map(char::len_utf8)
                            .sum()
                    } else {
                        l.len() - col
                    };
                    return Some((
                        Snippet { name: s.file.clone(), text: body.clone(), first_line: start as usize, col_shift: 0 },
                        offset + col,
                        len.max(1),
                    ));
                }
                offset += l.len() + 1;
            }
            None
        });
        let help = if s.evidence.is_empty() { None } else { Some(s.evidence.join("\n")) };
        let (snippet, labels) = match snippet {
            Some((sn, at, len)) => (Some(sn), vec![LabeledSpan::new(Some(format!("{} ({})", s.rule, s.tier)), at, len)]),
            None => (None, vec![]),
        };
        out.push(Diag {
            message: format!("{}:{}: {}", s.file, s.line, s.message),
            code: format!("suspect::{}", s.rule),
            // the culprit is the error; the symptom above it only says where it showed
            severity: match s.tier.as_str() {
                "strong" => Severity::Error,
                "likely" => Severity::Warning,
                _ => Severity::Advice,
            },
            help,
            snippet,
            labels,
            related: Vec::new(),
        });
    }
    out
}

/// What a `repro` run did and proved: the catch, the line that made the value, the sweep.
fn repro_section(out: &mut String, report: &Report, style: &Style, h: &dyn Fn(&str) -> String) {
    use serde_json::Value;
    if let Some(run) = &report.run {
        let how = match (run.mode, run.cpu) {
            ("sweep", _) => "swept the datasets (no training)",
            (_, true) => "ran on the CPU, guarded",
            _ => "ran synchronized (CUDA_LAUNCH_BLOCKING=1), guarded",
        };
        let status = if run.timed_out {
            "timed out".to_string()
        } else {
            match run.exit_code {
                Some(86) if report.witness.is_some() => "stopped at the violation".to_string(),
                Some(c) => format!("exit {c}"),
                None => "stopped".to_string(),
            }
        };
        if run.command.is_empty() {
            // `--read`: a run made elsewhere (a job script, a notebook with %load_ext)
            let synced = report.witness.as_ref().and_then(|w| Witness::of(w).cuda_launch_blocking);
            let how = match (run.mode, synced) {
                ("sweep", _) => "a sweep of the datasets",
                (_, Some(false)) => "a guarded run (not synchronized: the guard checked each op before it ran)",
                _ => "a guarded run",
            };
            let _ = writeln!(out, "  run        {how}, read from its results");
        } else {
            let _ = writeln!(out, "  run        {how} in {:.1} s ({status})", run.seconds);
        }
        if run.environment.iter().any(|e| e == "TORCHDYNAMO_DISABLE=1") {
            let _ = writeln!(out, "  note       torch.compile was disabled for the run (TORCHDYNAMO_DISABLE=1)");
        }
        let _ = writeln!(out, "  results    {}", run.out_dir);
    }
    if let Some(w) = report.witness.as_ref().map(Witness::of) {
        let _ = writeln!(out, "  caught     {}", w.caught_line());
        if let Some(f) = w.user_frame() {
            let code = f.code.as_deref().unwrap_or("").trim();
            let file = f.file.as_deref().unwrap_or("?");
            let line = f.line.map(|l| l.to_string()).unwrap_or_default();
            let at = match &style.quoted.caught_at {
                // a notebook cell: the cell as the run named it, and the notebook line
                Some((path, l)) if crate::scan::notebook::cell_number(file).is_some() => format!("{file}:{line} ({path}:{l})"),
                Some((path, l)) => format!("{path}:{l}"),
                None => format!("{file}:{line}"),
            };
            let _ = writeln!(out, "  at         {at}  {code}");
        }
        if let Some(b) = &w.batch {
            let idx: Vec<String> = b.indices.iter().take(12).map(|v| v.to_string()).collect();
            let more = b.indices.len() > 12;
            let _ = writeln!(out, "  batch      dataset indices [{}{}]", idx.join(", "), if more { ", …" } else { "" });
        }
        let born = w.born.as_ref().filter(|b| b.same_witness).is_some();
        let first = report.suspects.first().filter(|s| s.repro.as_deref() == Some("confirmed"));
        if let (true, Some(s)) = (born, first) {
            // the born-at pass: what it proved, in the words the join wrote
            for e in &s.evidence {
                if let Some(chain) = e.strip_prefix("repro chain: ") {
                    let _ = writeln!(out, "  chain      {chain}");
                } else if let Some(t) = e.strip_prefix("repro: ") {
                    let _ = writeln!(
                        out,
                        "  {}  {t}",
                        if t.contains(" came from ") { "bound    ".to_string() } else { "born     ".to_string() }
                    );
                }
            }
            let _ = writeln!(out, "  {}  {}:{}  {}", h("confirmed"), s.file, s.line, s.message);
        } else if let Some(read) =
            born.then(|| report.suspects.iter().find(|s| s.rule == "repro" && s.repro.as_deref() == Some("on_path"))).flatten()
        {
            // the pass found where the value came in, but no line it could prove wrong
            let _ = writeln!(out, "  origin     {} (nothing confirmed: the value came in as it was read)", read.message);
        } else if let Some(sentence) = &style.quoted.origin {
            let proven = w.provenance_kind() == ProvenanceKind::CodeLine;
            let _ = writeln!(out, "  {}  {sentence}", if proven { h("confirmed") } else { "origin   ".to_string() });
        }
        if let Some(r) = &report.replay {
            let label =
                if r.get("verdict").and_then(Value::as_str) == Some("same_failure") { h("replay   ") } else { "replay   ".to_string() };
            let backend = r.get("backend").and_then(Value::as_str).unwrap_or("cpu");
            let _ = writeln!(out, "  {label}  [{backend}] {}", r.get("message").and_then(Value::as_str).unwrap_or(""));
        }
        for r in &w.other_ranks {
            let _ = writeln!(out, "  also       rank {} sample {} value {}", r.rank, r.sample, r.value);
        }
    }
    if let Some(s) = report.sweep.as_ref().map(Sweep::of) {
        if let Some(b) = &s.bounds {
            let parts: Vec<String> = ["n_classes", "num_embeddings", "ignore_index"]
                .iter()
                .filter_map(|k| b.get(*k).filter(|v| !v.is_null()).map(|v| format!("{k} = {v}")))
                .collect();
            let _ = writeln!(
                out,
                "  bounds     {}",
                if parts.is_empty() { "none found in the script's model".to_string() } else { parts.join(", ") }
            );
        }
        for d in &s.datasets {
            let class = d.class.as_deref().unwrap_or("dataset");
            let _ = writeln!(
                out,
                "  dataset    {class}: {} of {} samples checked, {} bad",
                d.checked.as_ref().map(|v| v.to_string()).unwrap_or_default(),
                d.length.as_ref().map(|v| v.to_string()).unwrap_or_default(),
                d.bad.len()
            );
            for b in d.bad.iter().take(20) {
                let _ = writeln!(
                    out,
                    "    sample {:<8} {} = {} (bound {} = {})",
                    b.index,
                    b.field.as_deref().unwrap_or("?"),
                    b.value,
                    b.name.as_deref().unwrap_or("bound"),
                    b.bound
                );
            }
            if d.bad.len() > 20 {
                let _ = writeln!(out, "    … {} more (the JSON report lists them all)", d.bad.len() - 20);
            }
        }
    }
    out.push('\n');
}
