//! Turns the selected lines of a log into an `Incident`: assert sites, the host error,
//! tracebacks, symptoms and evidence. Knows nothing about kernels' meaning (that is `kb/`).

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::log::assert_line::{self, RawAssert, Shape};
use crate::log::dsa::DsaParser;
use crate::log::host::{self, Role};
use crate::log::normalize;
use crate::log::scan::{LineSink, Prev};
use crate::log::sites::{Sites, Source};
use crate::log::traceback::{Traceback, TracebackParser};
use crate::model::{Platform, RankRef};

/// A host-side line the reader kept, with how often the same text was seen.
#[derive(Debug, Clone)]
pub struct HostNote {
    pub kind: String,
    pub role: Role,
    pub line: u64,
    pub message: String,
    pub count: u64,
    pub exception_type: Option<String>,
    pub category: Option<String>,
    pub rank: Option<u32>,
}

#[derive(Default)]
pub struct Incident {
    pub sites: Sites,
    pub tracebacks: Vec<Traceback>,
    pub notes: Vec<HostNote>,
    pub dsa_header: bool,
    pub platforms: Vec<Platform>,
    pub warnings: Vec<String>,
    pub bytes: u64,
    pub lines: u64,
}

impl Incident {
    pub fn notes_with(&self, role: Role) -> impl Iterator<Item = &HostNote> {
        self.notes.iter().filter(move |n| n.role == role)
    }

    pub fn has(&self, role: Role) -> bool {
        self.notes.iter().any(|n| n.role == role)
    }
}

/// Distinct messages kept of one kind (an OOM message per step, a warning per rank): past
/// this, more of that kind are left out with a warning, and a kind not seen yet (the assert's
/// own error line after 10,000 OOM messages) is always kept.
const MAX_NOTES_PER_KIND: usize = 64;
const MAX_WRAP_JOINS: usize = 3;
const MAX_WRAP_LEN: usize = 16 << 10;

/// A report head waiting for the rest of a hard-wrapped line.
struct Pending {
    text: String,
    line: u64,
    rank: Option<RankRef>,
    joins: usize,
    /// Lines of other output read while the head waited inside its block or thread ids.
    foreign: usize,
}

/// How many lines of another stream may come between a report's head, cut inside its ids, and
/// the rest of it: a process's stdout (device printf) and stderr (a traceback) interleave.
const MAX_FOREIGN_LINES: usize = 4;

/// What became of a line offered to a waiting head.
enum Offered {
    /// It continued the head.
    Used,
    /// It did not; the head was read as it was.
    Flushed,
    /// It is another stream's line, read on its own; the head still waits.
    Foreign(Pending),
}

/// Where a head's last block or thread ids stop being ids: `block: [481,0,0    x = f()`
/// (the other stream's text glued in) gives the end of `481,0,0`. None when the ids are closed
/// or run to the end of the text.
fn ids_cut(text: &str) -> Option<usize> {
    let open = text.rfind("block: [").map(|p| p + 8).max(text.rfind("thread: [").map(|p| p + 9))?;
    let ids = text[open..].find(|c: char| !(c.is_ascii_digit() || c == ',')).map_or(text.len(), |n| open + n);
    (ids > open && ids < text.len() && !text[ids..].starts_with(']')).then_some(ids)
}

/// Whether the head stops inside its ids (`block: [481,0,0`): the next part starts with a
/// digit, a comma or `]`.
fn ends_inside_ids(text: &str) -> bool {
    let open = text.rfind("block: [").map(|p| p + 8).max(text.rfind("thread: [").map(|p| p + 9));
    open.is_some_and(|o| text[o..].bytes().all(|b| b.is_ascii_digit() || b == b','))
}

/// Report shapes remembered for the fast path: a flood's sites, with room to spare.
const MAX_FAST: usize = 32;

/// The bytes around the numbers of a plain report line, to count its repeats without parsing
/// them.
struct FastPath {
    head: Vec<u8>,
    tail: Vec<u8>,
    site: usize,
    rank: Option<RankRef>,
}

#[derive(Default)]
pub struct Collector {
    pub incident: Incident,
    /// The report lines seen lately, each as its text around the block/thread numbers: a line
    /// that matches one is counted without parsing (the sites of a flood interleave, and other
    /// lines come between their reports).
    fast: Vec<FastPath>,
    /// The entry of `fast` that modelled the line read last (what `repeat` counts against).
    last_fast: Option<usize>,
    /// The raw bytes of the line being read, when it is one segment (for the fast path).
    current_raw: Option<Vec<u8>>,
    traceback: TracebackParser,
    dsa: DsaParser,
    pending: Option<Pending>,
    /// Notes by kind, then by message: looked up with the line's own text, no copy made.
    note_index: HashMap<String, HashMap<String, usize>>,
    /// Distinct messages of each kind: kept, and left out.
    per_kind: HashMap<String, (usize, u64)>,
    /// The message signatures of lines read before (a warning repeated thousands of times is
    /// classified once); bounded.
    classified: HashMap<String, Vec<&'static host::MessageSig>>,
}

/// Distinct lines whose classification is remembered, and the longest remembered.
const MAX_CLASSIFIED: usize = 1024;
const MAX_CLASSIFIED_LEN: usize = 2048;

impl LineSink for Collector {
    fn wants_next(&self) -> bool {
        self.pending.is_some() || self.traceback.wants_next() || self.dsa.in_record()
    }

    fn repeat(&mut self, block: [u32; 3], thread: [u32; 3], lineno: u64) -> bool {
        let Some(f) = self.last_fast.and_then(|i| self.fast.get(i)) else { return false };
        if self.pending.is_some() {
            return false;
        }
        self.incident.sites.hit(f.site, block, thread, lineno, f.rank.as_ref());
        true
    }

    fn line(&mut self, raw: &[u8], lineno: u64, prev: Prev<'_>) {
        if self.pending.is_none() && self.try_fast(raw, lineno) {
            return;
        }
        // `repeat` models only the line read last
        self.last_fast = None;
        self.current_raw = None;
        if memchr::memchr(b'\r', raw).is_none() && finder(0).find(raw).is_some() {
            self.current_raw = Some(raw.to_vec());
        }
        let mut first = true;
        for seg in raw.split(|b| *b == b'\r') {
            if seg.is_empty() && !first {
                continue;
            }
            self.segment(seg, lineno, if first { prev } else { Prev::none() });
            first = false;
        }
    }
}

/// The platform a line's words name: ROCm before XPU before CUDA when a line names several.
fn platform_of(t: &str) -> Option<Platform> {
    const WORDS: [(&str, Platform); 11] = [
        ("HIP error", Platform::Rocm),
        ("hipError", Platform::Rocm),
        ("AMD_SERIALIZE_KERNEL", Platform::Rocm),
        ("rocdevice.cpp", Platform::Rocm),
        ("HSA_STATUS", Platform::Rocm),
        ("XPU error", Platform::Xpu),
        ("UR_RESULT_ERROR", Platform::Xpu),
        ("PI_ERROR", Platform::Xpu),
        ("CUDA error", Platform::Cuda),
        ("cudaError", Platform::Cuda),
        ("cuda runtime error", Platform::Cuda),
    ];
    // one pass over the line for all the words (each `contains` built its own searcher)
    static AC: OnceLock<aho_corasick::AhoCorasick> = OnceLock::new();
    let ac = AC.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::DFA))
            .build(WORDS.iter().map(|w| w.0))
            .expect("platform words are valid")
    });
    let rank = |p: Platform| match p {
        Platform::Rocm => 0,
        Platform::Xpu => 1,
        _ => 2,
    };
    let mut best: Option<Platform> = None;
    for m in ac.find_overlapping_iter(t) {
        let p = WORDS[m.pattern().as_usize()].1;
        if best.map_or(true, |b| rank(p) < rank(b)) {
            best = Some(p);
        }
    }
    best.or_else(|| t.contains("Triton Error [CUDA]").then_some(Platform::Cuda))
}

/// Whether a hard wrap between `head` and `next` fell on a space that the wrap swallowed: the
/// compilers' pretty-printed kernel signatures write a pointer or reference parameter with a space
/// before its `*` or `&` (`Dtype *, long *`), so a signature line ending in a name and a next line
/// starting with `*` or `&` lost that space. Only before the assertion text, which can hold `a*b`.
fn wrap_ate_a_space(head: &str, next: &str) -> bool {
    let ends_in_name = head.bytes().last().is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_');
    ends_in_name && next.starts_with(['*', '&']) && !head.contains("Assertion")
}

impl Collector {
    fn try_fast(&mut self, raw: &[u8], lineno: u64) -> bool {
        let raw = &raw[timestamp_len(raw)..];
        for (i, f) in self.fast.iter().enumerate() {
            if raw.len() <= f.head.len() + f.tail.len() || !raw.starts_with(&f.head) || !raw.ends_with(&f.tail) {
                continue;
            }
            let mid = &raw[f.head.len()..raw.len() - f.tail.len()];
            let Some((b, t)) = parse_block_thread(mid) else { continue };
            self.incident.sites.hit(f.site, b, t, lineno, f.rank.as_ref());
            self.last_fast = Some(i);
            return true;
        }
        false
    }

    /// Remembers a plain one-report line so that its repeats take the fast path.
    fn arm_fast(&mut self, raw: &[u8], site: usize, rank: Option<RankRef>) {
        self.last_fast = None;
        let raw = &raw[timestamp_len(raw)..];
        if memchr::memchr(b'\r', raw).is_some() {
            return;
        }
        let Some((head_end, tail_start)) = report_split(raw) else { return };
        let (head, tail) = (&raw[..head_end], &raw[tail_start..]);
        self.fast.retain(|f| !(f.head == head && f.tail == tail));
        if self.fast.len() >= MAX_FAST {
            self.fast.remove(0);
        }
        self.fast.push(FastPath { head: head.to_vec(), tail: tail.to_vec(), site, rank });
        self.last_fast = Some(self.fast.len() - 1);
    }

    fn segment(&mut self, seg: &[u8], lineno: u64, prev: Prev<'_>) {
        let cleaned = normalize::clean(seg);
        let text: &str = &cleaned.text;
        let rank = cleaned.rank;

        if let Some(p) = self.pending.take() {
            match self.continue_pending(p, text) {
                Offered::Used => return,
                Offered::Flushed => {}
                Offered::Foreign(p) => {
                    self.read_line(text, lineno, rank, prev);
                    // a new head of its own replaces the waiting one
                    match self.pending.take() {
                        Some(newer) => {
                            self.flush_pending(p);
                            self.pending = Some(newer);
                        }
                        None => self.pending = Some(p),
                    }
                    return;
                }
            }
        }
        self.read_line(text, lineno, rank, prev);
    }

    fn read_line(&mut self, text: &str, lineno: u64, rank: Option<RankRef>, prev: Prev<'_>) {
        if assert_line::has_anchor(text) {
            let mut found = assert_line::parse_all(text);
            if !found.is_empty() {
                // a Windows path whose drive letter stayed on the previous line (a progress bar
                // or a print without a newline before it): `…it/s]C` then `:/w/1/s/…/Loss.cu:8: …`
                if let Some(f) = found[0].file.as_mut().filter(|f| f.starts_with(":/") || f.starts_with(":\\")) {
                    if let Some(drive) = drive_letter_at_end(prev.get()) {
                        f.insert(0, drive);
                    }
                }
                self.take_reports(found, text, lineno, rank);
                return;
            }
            // The head may be on the previous line (a wrap inside the path or kernel name).
            let prev = prev.get();
            if !prev.is_empty() {
                let prev_clean = normalize::clean(prev);
                let (head, rest) = (prev_clean.text.trim_start(), text.trim_start());
                let gap = if wrap_ate_a_space(head, rest) { " " } else { "" };
                let joined = format!("{head}{gap}{rest}");
                let found = assert_line::parse_all(&joined);
                if !found.is_empty() {
                    self.take_reports(found, &joined, lineno, rank.or(prev_clean.rank));
                    return;
                }
            }
        } else if assert_line::looks_like_report_head(text) {
            // another stream's text glued inside the ids is left out
            let head = ids_cut(text).map_or(text, |cut| &text[..cut]);
            self.pending = Some(Pending { text: head.to_string(), line: lineno, rank, joins: 0, foreign: 0 });
            return;
        }
        if self.dsa.feed(text, lineno) {
            self.incident.dsa_header |= self.dsa.header_seen;
            return;
        }
        let in_traceback = self.traceback.feed(text, lineno, rank.as_ref().map(|r| r.id));
        self.host(text, lineno, rank.as_ref().map(|r| r.id), in_traceback);
    }

    fn take_reports(&mut self, found: Vec<RawAssert>, text: &str, lineno: u64, rank: Option<RankRef>) {
        let last_truncated = found.last().is_some_and(|a| a.truncated);
        if last_truncated {
            // Hold the whole segment until the next line tells whether it was wrapped.
            let complete: Vec<RawAssert> = found[..found.len() - 1].to_vec();
            for a in complete {
                self.add_report(a, lineno, rank.clone());
            }
            let start = text.rfind("Assertion").map(|p| head_start(text, p)).unwrap_or(0);
            self.pending = Some(Pending { text: text[start..].to_string(), line: lineno, rank, joins: 0, foreign: 0 });
            return;
        }
        let single = found.len() == 1 && found[0].shape != Shape::CudaPrintf;
        let mut last = None;
        for a in found {
            last = Some(self.add_report(a, lineno, rank.clone()));
        }
        if let (true, Some(site), Some(raw)) = (single, last.filter(|s| *s != usize::MAX), self.current_raw.take()) {
            self.arm_fast(&raw, site, rank);
        }
    }

    fn add_report(&mut self, a: RawAssert, lineno: u64, rank: Option<RankRef>) -> usize {
        let source = if a.shape == Shape::CudaPrintf { Source::Printf } else { Source::Line };
        self.incident.sites.add(a, lineno, rank, source)
    }

    /// Tries to complete a pending head with the next line.
    fn continue_pending(&mut self, mut p: Pending, text: &str) -> Offered {
        let starts_new =
            assert_line::looks_like_report_head(text) || (assert_line::has_anchor(text) && !assert_line::parse_all(text).is_empty());
        let continues_ids = text.trim_start().starts_with(|c: char| c.is_ascii_digit() || c == ',' || c == ']');
        if !starts_new && !continues_ids && ends_inside_ids(&p.text) {
            if p.foreign < MAX_FOREIGN_LINES {
                p.foreign += 1;
                return Offered::Foreign(p);
            }
            // the rest never came: the head is read as it is
            self.flush_pending(p);
            return Offered::Flushed;
        }
        if starts_new || text.trim().is_empty() || p.joins >= MAX_WRAP_JOINS || p.text.len() + text.len() > MAX_WRAP_LEN {
            self.flush_pending(p);
            return Offered::Flushed;
        }
        if wrap_ate_a_space(&p.text, text) {
            p.text.push(' ');
        }
        p.text.push_str(text);
        p.joins += 1;
        let found = assert_line::parse_all(&p.text);
        match found.last() {
            Some(a) if !a.truncated => {
                for a in found {
                    self.add_report(a, p.line, p.rank.clone());
                }
            }
            _ => self.pending = Some(p),
        }
        Offered::Used
    }

    fn flush_pending(&mut self, p: Pending) {
        for a in assert_line::parse_all(&p.text) {
            self.add_report(a, p.line, p.rank.clone());
        }
    }

    fn host(&mut self, text: &str, lineno: u64, rank: Option<u32>, in_traceback: bool) {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return;
        }
        let exc = host::exception_line(trimmed);
        let sigs = match self.classified.get(trimmed) {
            Some(v) => v.clone(),
            None => {
                let v: Vec<&'static host::MessageSig> = host::classify(trimmed).collect();
                if self.classified.len() < MAX_CLASSIFIED && trimmed.len() <= MAX_CLASSIFIED_LEN {
                    self.classified.insert(trimmed.to_string(), v.clone());
                }
                v
            }
        };
        for sig in sigs {
            if sig.role == Role::CpuEquivalent && !in_traceback && exc.is_none() && !trimmed.contains("Error") {
                // a CPU error message quoted in prose is not the error itself
                continue;
            }
            let end = trimmed.char_indices().nth(600).map_or(trimmed.len(), |(i, _)| i);
            let message = &trimmed[..end];
            if let Some(i) = self.note_index.get(&sig.kind).and_then(|m| m.get(message)) {
                self.incident.notes[*i].count += 1;
                continue;
            }
            let kept = self.per_kind.entry(sig.kind.clone()).or_default();
            if kept.0 >= MAX_NOTES_PER_KIND {
                kept.1 += 1;
                if kept.1 == 1 {
                    self.incident.warnings.push(format!(
                        "more than {MAX_NOTES_PER_KIND} distinct {} messages: those from line {lineno} on are not listed",
                        sig.kind
                    ));
                }
                continue;
            }
            kept.0 += 1;
            self.note_index.entry(sig.kind.clone()).or_default().insert(message.to_string(), self.incident.notes.len());
            self.incident.notes.push(HostNote {
                kind: sig.kind.clone(),
                role: sig.role,
                line: lineno,
                message: message.to_string(),
                count: 1,
                exception_type: exc.map(|(t, _)| t.to_string()),
                category: sig.category.clone(),
                rank,
            });
        }
        self.platform_hints(trimmed);
    }

    fn platform_hints(&mut self, t: &str) {
        let p = platform_of(t);
        if let Some(p) = p {
            if !self.incident.platforms.contains(&p) {
                self.incident.platforms.push(p);
            }
        }
    }

    pub fn finish(mut self) -> Incident {
        if let Some(p) = self.pending.take() {
            self.flush_pending(p);
        }
        self.dsa.flush();
        for rec in std::mem::take(&mut self.dsa.records) {
            let line = rec.log_line;
            let (raw, launch) = rec.into_parts();
            self.incident.sites.add(raw.clone(), line, None, Source::Dsa);
            if let Some(site) = self.incident.sites.sites.iter_mut().find(|s| s.first.file == raw.file && s.first.line == raw.line) {
                if site.launch.is_none() {
                    site.launch = launch;
                }
            }
        }
        self.incident.dsa_header |= self.dsa.header_seen;
        if self.incident.sites.dropped > 0 {
            self.incident.warnings.push(format!(
                "{} reports of further assert sites were not kept (more than 512 distinct sites)",
                self.incident.sites.dropped
            ));
        }
        let (tbs, dropped) = self.traceback.into_tracebacks();
        if dropped > 0 {
            self.incident.warnings.push(format!("{dropped} tracebacks in the middle of the log were skipped"));
        }
        self.incident.tracebacks = tbs;
        self.incident
    }
}

/// Substring searchers built once: `memmem::find` builds one on every call, which showed on
/// logs with a million report lines.
pub(crate) fn finder(which: usize) -> &'static memchr::memmem::Finder<'static> {
    static F: std::sync::OnceLock<[memchr::memmem::Finder<'static>; 2]> = std::sync::OnceLock::new();
    &F.get_or_init(|| [memchr::memmem::Finder::new(b"] Assertion `"), memchr::memmem::Finder::new(BLOCK)])[which]
}

const BLOCK: &[u8] = b"block: [";
const THREAD: &[u8] = b"], thread: [";

/// A one-report line (timestamp taken off, no carriage return) split around its block/thread
/// numbers: where the text before them ends (after `block: [`) and where the text after them
/// starts (at `] Assertion`). None for a line that is not one report.
pub(crate) fn report_split(body: &[u8]) -> Option<(usize, usize)> {
    let b = finder(1).find(body)?;
    let a = finder(0).find(body)?;
    if a <= b || finder(1).find(&body[a + 1..]).is_some() {
        return None;
    }
    Some((b + BLOCK.len(), a))
}

/// A CI timestamp in front of the line (it changes on every line, the rest does not).
pub(crate) fn timestamp_len(raw: &[u8]) -> usize {
    match raw.first() {
        Some(b'0'..=b'9') | Some(b'[') => {
            let n = normalize::iso_timestamp(raw).unwrap_or(0);
            if n > 0 && raw.get(n) == Some(&b' ') {
                n + 1
            } else {
                n
            }
        }
        _ => 0,
    }
}

/// `x,y,z], thread: [a,b,c` → the two triples.
pub(crate) fn parse_block_thread(mid: &[u8]) -> Option<([u32; 3], [u32; 3])> {
    let (b, t, used) = block_thread_prefix(mid)?;
    (used == mid.len()).then_some((b, t))
}

/// The block and thread triples at the start of `s` (`x,y,z], thread: [a,b,c…`) and how many
/// bytes they took (up to the thread's closing bracket, not included).
pub(crate) fn block_thread_prefix(s: &[u8]) -> Option<([u32; 3], [u32; 3], usize)> {
    let (block, n) = triple_prefix(s)?;
    let rest = s[n..].strip_prefix(THREAD)?;
    let (thread, m) = triple_prefix(rest)?;
    Some((block, thread, n + THREAD.len() + m))
}

/// Three comma-separated numbers of 1 to 9 digits at the start of `s`, and their length.
fn triple_prefix(s: &[u8]) -> Option<([u32; 3], usize)> {
    // a plain index loop (iterator adaptors cost twice the instructions): this runs twice on
    // every line of a million-line flood
    let mut out = [0u32; 3];
    let mut i = 0usize;
    for (k, slot) in out.iter_mut().enumerate() {
        if k > 0 {
            if i >= s.len() || s[i] != b',' {
                return None;
            }
            i += 1;
        }
        let start = i;
        let mut v = 0u32;
        while i < s.len() {
            let d = s[i].wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            v = v.wrapping_mul(10).wrapping_add(u32::from(d));
            i += 1;
        }
        if i == start || i - start > 9 {
            return None;
        }
        *slot = v;
    }
    // a fourth number is not a triple
    (s.get(i) != Some(&b',')).then_some((out, i))
}

/// Where the report containing the anchor at `anchor` starts: the beginning of its `FILE:` token.
fn head_start(text: &str, anchor: usize) -> usize {
    let head = &text[..anchor];
    let block = head.rfind("block: [").or_else(|| head.rfind("global id: [")).or_else(|| head.rfind("Device-side"));
    let upto = block.unwrap_or(anchor);
    // walk back over "FILE:LINE: FUNCTION: " — the FILE token starts after the last whitespace
    // that precedes the first ":digits:" before `upto`
    let before = &text[..upto];
    let mut start = 0;
    for (i, _) in before.match_indices(':') {
        let rest = &before[i + 1..];
        let d = rest.bytes().take_while(u8::is_ascii_digit).count();
        if d > 0 && rest.as_bytes().get(d) == Some(&b':') {
            start = assert_line::after_last_whitespace(&before[..i]);
            break;
        }
    }
    start
}

/// The drive letter a line ends in: one ASCII letter (then perhaps spaces) after something that
/// is not a letter or digit, as a path's `C` left behind when the rest went to the next line.
fn drive_letter_at_end(line: &[u8]) -> Option<char> {
    let t = line.trim_ascii_end();
    let (&last, before) = t.split_last()?;
    let alone = before.last().map_or(true, |b| !b.is_ascii_alphanumeric());
    (last.is_ascii_alphabetic() && alone).then_some(last as char)
}

#[cfg(test)]
mod tests {
    /// fixtures/public-logs/305 (NVIDIA/pix2pixHD#173): the run's traceback (stderr) came out
    /// inside a report (stdout), between its block ids and the rest. The report is read whole,
    /// and the traceback's error line is still read as the host error.
    #[test]
    fn a_report_split_by_another_streams_lines_is_read_whole() {
        let log = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/public-logs/305.log")).unwrap();
        let incident = crate::log::read_from(Box::new(std::io::Cursor::new(log)));
        let site = &incident.sites.sites[0];
        assert_eq!((incident.sites.sites.len(), site.count()), (1, 3));
        assert!(
            incident.notes.iter().any(|n| n.kind == "device_assert"),
            "{:?}",
            incident.notes.iter().map(|n| &n.kind).collect::<Vec<_>>()
        );
    }

    /// The reports of two sites interleaved, with other selected lines between them: each line
    /// is counted for its own site (the fast path remembers several report shapes, and a line
    /// that matches none is parsed).
    #[test]
    fn interleaved_sites_are_counted_each_for_its_own() {
        let a = |b: u32, t: u32| {
            format!("/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [{b},0,0], thread: [{t},0,0] Assertion `t >= 0 && t < n_classes` failed.\n")
        };
        let e = |b: u32, t: u32| {
            format!("/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1422: indexSelectLargeIndex: block: [{b},0,0], thread: [{t},0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n")
        };
        let mut log = String::new();
        for i in 0..200u32 {
            log.push_str(&a(i % 7, i));
            if i % 3 == 0 {
                log.push_str("step 12 loss error 0.5\n");
            }
            log.push_str(&e(i % 5, i + 1));
            if i % 4 == 0 {
                log.push_str(&a(i % 7, i)); // the same thread again: counted, not distinct
            }
        }
        let incident = crate::log::read_from(Box::new(std::io::Cursor::new(log.into_bytes())));
        let sites = &incident.sites.sites;
        assert_eq!(sites.len(), 2);
        let loss = sites.iter().find(|s| s.first.assertion.as_deref().is_some_and(|x| x.contains("n_classes"))).unwrap();
        let index = sites.iter().find(|s| s.first.assertion.as_deref().is_some_and(|x| x.contains("srcIndex"))).unwrap();
        assert_eq!((loss.count(), loss.distinct.len()), (250, 200));
        assert_eq!((index.count(), index.distinct.len()), (200, 200));
        assert_eq!(loss.blocks.len(), 7);
        assert_eq!(index.blocks.len(), 5);
    }

    /// A Windows path whose drive letter stayed at the end of the line before (a progress bar
    /// and a print without a newline were written first): the letter is the path's.
    #[test]
    fn a_drive_letter_left_on_the_line_before_is_the_path_s() {
        let log = "  0%|          | 0/62 [00:00<?, ?it/s<class 'dict'>C \n:/w/1/s/windows/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:60: block: [0,0,0], thread: [0,0,0] Assertion `index >= -sizes[i] && index < sizes[i] && \"index out of bounds\"` failed.\n";
        let incident = crate::log::read_from(Box::new(std::io::Cursor::new(log.as_bytes().to_vec())));
        let file = incident.sites.sites[0].first.file.clone();
        assert_eq!(file.as_deref(), Some("C:/w/1/s/windows/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu"));
        // a word before the path is not a drive
        let log = log.replace("'dict'>C ", "'dict'> step");
        let incident = crate::log::read_from(Box::new(std::io::Cursor::new(log.into_bytes())));
        assert_eq!(incident.sites.sites[0].first.file.as_deref(), Some(":/w/1/s/windows/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu"));
    }

    /// An IPython frame pasted without the traceback's header, glued to the markdown fence
    /// that opens the paste: the frame is read (its line from the arrow).
    #[test]
    fn an_ipython_frame_glued_to_a_fence_without_its_header_is_read() {
        let log = "```<ipython-input-19-0f7329df9ebd> in <module>()\n----> 1 trainer = Trainer(config, pretrained=True)\n\n/usr/local/lib/python3.7/dist-packages/vietocr/model/trainer.py in __init__(self, config)\n---> 32         self.model, self.vocab = build_model(config)\n";
        let incident = crate::log::read_from(Box::new(std::io::Cursor::new(log.as_bytes().to_vec())));
        let frames: Vec<(String, u32)> = incident.tracebacks.iter().flat_map(|t| &t.frames).map(|f| (f.file.clone(), f.line)).collect();
        assert_eq!(frames.first(), Some(&("<ipython-input-19-0f7329df9ebd>".to_string(), 1)), "{frames:?}");
    }
}
