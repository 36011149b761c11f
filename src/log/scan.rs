//! Streaming over a log of any size with bounded memory. A multi-literal prefilter finds the
//! few lines worth reading; everything else is skipped without decoding or normalizing.

use std::io::{self, Read};

use aho_corasick::AhoCorasick;

/// Receives the lines the prefilter selects, and asks for following lines while it is in the
/// middle of a multi-line construct (a wrapped report, a traceback frame's code line).
pub trait LineSink {
    fn wants_next(&self) -> bool;
    fn line(&mut self, raw: &[u8], lineno: u64, prev: Prev<'_>);
    /// The line repeats the previous one byte for byte but for its block/thread numbers (the
    /// thousands of per-thread reports). Returns false to get it through `line` instead.
    fn repeat(&mut self, _block: [u32; 3], _thread: [u32; 3], _lineno: u64) -> bool {
        false
    }
}

/// A report's block and thread numbers.
type BlockThread = ([u32; 3], [u32; 3]);

/// A line the prefilter selected: where it starts, its number, and, when it repeats the
/// previous selected line but for the block/thread numbers, those numbers (found here, on the
/// prefilter's thread, so that the reading thread only counts them).
#[derive(Clone, Copy)]
pub struct Cand {
    start: usize,
    /// The line's length (to its newline), known when the line repeats the previous one.
    len: u32,
    lineno: u64,
    /// The block/thread numbers when the line repeats the previous one.
    repeat: Option<BlockThread>,
}

/// The constant parts of a report line: [start, head end) and [tail start, end), in region
/// offsets.
#[derive(Clone, Copy)]
struct ReportShape {
    start: usize,
    head_end: usize,
    tail_start: usize,
    end: usize,
}

fn report_shape(region: &[u8], start: usize, end: usize) -> Option<ReportShape> {
    let line = &region[start..end];
    if memchr::memchr(b'\r', line).is_some() {
        return None;
    }
    let ts = crate::log::collect::timestamp_len(line);
    let (head_end, tail_start) = crate::log::collect::report_split(&line[ts..])?;
    Some(ReportShape { start: start + ts, head_end: start + ts + head_end, tail_start: start + ts + tail_start, end })
}

/// The line starting at `start` when it repeats the report `x` but for its block/thread
/// numbers (and its CI timestamp): its shape, its numbers and where it ends.
fn next_repeat(region: &[u8], x: &ReportShape, start: usize) -> Option<(ReportShape, BlockThread, usize)> {
    let rest = region.get(start..)?;
    let ts = crate::log::collect::timestamp_len(rest);
    let head = &region[x.start..x.head_end];
    let tail = &region[x.tail_start..x.end];
    if !rest[ts..].starts_with(head) {
        return None;
    }
    let from = start + ts + head.len();
    let (block, thread, used) = crate::log::collect::block_thread_prefix(&region[from..])?;
    let tail_start = from + used;
    let end = tail_start + tail.len();
    if region.get(tail_start..end) != Some(tail) || region.get(end) != Some(&b'\n') {
        return None;
    }
    Some((ReportShape { start: start + ts, head_end: from, tail_start, end }, (block, thread), end))
}

fn same_shape(region: &[u8], x: &ReportShape, y: &ReportShape) -> bool {
    region[x.start..x.head_end] == region[y.start..y.head_end] && region[x.tail_start..x.end] == region[y.tail_start..y.end]
}

/// The line before the current one, found only when asked for (rarely: a report whose head
/// was wrapped onto the previous line).
#[derive(Clone, Copy)]
pub struct Prev<'a> {
    region: &'a [u8],
    line_start: usize,
    tail: &'a [u8],
}

impl<'a> Prev<'a> {
    pub fn get(&self) -> &'a [u8] {
        if self.line_start == 0 {
            return self.tail;
        }
        let pend = self.line_start - 1;
        let lo = pend.saturating_sub(PREV_KEEP);
        let pstart = memchr::memrchr(b'\n', &self.region[lo..pend]).map_or(lo, |p| lo + p + 1);
        &self.region[pstart..pend]
    }

    pub fn none() -> Prev<'static> {
        Prev { region: b"", line_start: 0, tail: b"" }
    }
}

/// Substrings that every line we care about contains at least one of. Kept short and few:
/// the prefilter's speed is the tool's speed on large logs.
pub const NEEDLES: &[&str] = &[
    "ssert",         // Assertion, assertion, device-side assert, [CUDA_KERNEL_ASSERT] lines
    "rror",          // RuntimeError, CUDA error, HIP error, IndexError, NCCL/CUBLAS/cuDNN, ROCm aborts
    "block: [",      // the first half of a hard-wrapped report
    "File ",         // traceback frames seen without their header (a pasted window)
    "raceback",      // traceback headers (plain, IPython, rich); the frames that follow are read
    "ipython-input", // an IPython frame pasted without the traceback's header
    "xception",      // C++ "Exception raised from", chained tracebacks
    "atchdog",
    "terminate called",
    "LAUNCH_BLOCKING",
    "access fault", // ROCm "Memory access fault by GPU node"
    "Token indices",
    "Some weights",
    "vocabulary",
    "Label class",
];

pub fn prefilter() -> AhoCorasick {
    // Leftmost-first lets the SIMD (Teddy) prefilter run; which needle matched does not matter.
    AhoCorasick::builder().match_kind(aho_corasick::MatchKind::LeftmostFirst).build(NEEDLES).expect("needles are valid")
}

const CHUNK: usize = 4 << 20;
const PREV_KEEP: usize = 8 << 10;

pub struct ScanStats {
    pub bytes: u64,
    pub lines: u64,
    /// Lines longer than the buffer were cut into pieces.
    pub long_lines_cut: u64,
}

pub fn scan<R: Read>(mut reader: R, ac: &AhoCorasick, sink: &mut impl LineSink) -> io::Result<ScanStats> {
    let mut buf = vec![0u8; CHUNK];
    let mut filled = 0usize;
    let mut eof = false;
    let mut lineno: u64 = 1;
    let mut stats = ScanStats { bytes: 0, lines: 0, long_lines_cut: 0 };
    let mut prev_tail: Vec<u8> = Vec::new();
    let mut last_byte: Option<u8> = None;
    loop {
        while !eof && filled < buf.len() {
            match reader.read(&mut buf[filled..]) {
                Ok(0) => eof = true,
                Ok(n) => {
                    filled += n;
                    stats.bytes += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    if filled == 0 {
                        return Err(e);
                    }
                    // keep what was read; report the rest as unreadable
                    process(&buf[..filled], ac, sink, &mut lineno, &prev_tail);
                    return Err(e);
                }
            }
        }
        if filled == 0 {
            break;
        }
        // Process whole lines; keep the partial last line for the next round.
        let (limit, cut) = whole_lines(&buf[..filled], eof);
        stats.long_lines_cut += u64::from(cut);
        last_byte = Some(buf[limit - 1]);
        // A cut long line continues in the next chunk under the same number.
        process(&buf[..limit], ac, sink, &mut lineno, &prev_tail);
        remember_last_line(&buf[..limit], &mut prev_tail);
        buf.copy_within(limit..filled, 0);
        filled -= limit;
        if eof && filled == 0 {
            break;
        }
    }
    stats.lines = if last_byte == Some(b'\n') || last_byte.is_none() { lineno - 1 } else { lineno };
    Ok(stats)
}

/// Size of the windows a large file is read in (three buffers at most are alive: memory stays
/// bounded whatever the file size).
const WINDOW: usize = 8 << 20;

/// Scans a regular file through a moving memory map: no copy into a buffer (the kernel's
/// `read` copy was a fifth of the time on large logs).
pub fn scan_mapped(file: &std::fs::File, ac: &AhoCorasick, sink: &mut impl LineSink) -> io::Result<ScanStats> {
    scan_windows(file, file.metadata()?.len(), ac, sink)
}

/// `scan_mapped` of a file whose size was `len` when it was looked at (it may be shorter now).
fn scan_windows(file: &std::fs::File, len: u64, ac: &AhoCorasick, sink: &mut impl LineSink) -> io::Result<ScanStats> {
    let mut stats = ScanStats { bytes: 0, lines: 0, long_lines_cut: 0 };
    // One thread maps windows and runs the prefilter; this one reads the selected lines. A log
    // truncated while it is read (a rerun doing `> train.log`) ends the reading where it now
    // ends (`window`: the pages past the end read as zeros instead of faulting). A window that
    // cannot be mapped is read (pread) into a buffer that goes back to be filled again.
    let (tx, rx) = std::sync::mpsc::sync_channel::<io::Result<Window>>(1);
    let (back, spare) = std::sync::mpsc::channel::<Vec<u8>>();
    let (back_cands, spare_cands) = std::sync::mpsc::channel::<Vec<Cand>>();
    let (lines, cut, bytes) = std::thread::scope(|scope| {
        scope.spawn(move || produce(file, len, ac, tx, (spare, spare_cands)));
        let mut last = (0u64, 0u64, 0u64);
        for w in rx {
            let w = match w {
                Ok(w) => w,
                Err(e) => return Err(e),
            };
            consume(&w.data.bytes()[..w.end], &w.cands, w.first_lineno, sink, &w.prev_tail);
            last = (w.lines_after, last.1 + u64::from(w.cut), w.bytes_after);
            if let Data::Read(buf) = w.data {
                let _ = back.send(buf);
            }
            let _ = back_cands.send(w.cands);
        }
        Ok(last)
    })?;
    stats.lines = lines;
    stats.long_lines_cut = cut;
    stats.bytes = bytes;
    Ok(stats)
}

/// A window's bytes: mapped from the file, or read into a buffer.
enum Data {
    /// The map and where the window starts in it (the map starts on a page boundary).
    Mapped(crate::log::window::Mapped, usize),
    Read(Vec<u8>),
}

impl Data {
    fn bytes(&self) -> &[u8] {
        match self {
            Data::Mapped(m, skip) => &m[*skip..],
            Data::Read(b) => b,
        }
    }
}

/// One window of whole lines with the lines the prefilter selected in it.
struct Window {
    data: Data,
    /// The window's whole lines are `data.bytes()[..end]`; the rest starts the next window.
    end: usize,
    cands: Vec<Cand>,
    first_lineno: u64,
    prev_tail: Vec<u8>,
    /// Lines read so far (the log's line count once the last window is done).
    lines_after: u64,
    /// Bytes read so far.
    bytes_after: u64,
    cut: bool,
}

/// Reads into `buf` from `offset` until it is full or the file ends: the bytes read.
fn read_full(file: &std::fs::File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        #[cfg(unix)]
        let n = std::os::unix::fs::FileExt::read_at(file, &mut buf[got..], offset + got as u64);
        #[cfg(not(unix))]
        let n = {
            use std::io::Seek;
            let mut f = file;
            f.seek(io::SeekFrom::Start(offset + got as u64)).and_then(|_| f.read(&mut buf[got..]))
        };
        match n {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// The window of `file` from `pos`, up to `want` bytes: mapped where it can be, else read into
/// a spare buffer. Returns the data and how many of its bytes the file holds now (fewer than
/// `want` when it ended or was cut short).
fn window_at(file: &std::fs::File, pos: u64, want: usize, spare: &std::sync::mpsc::Receiver<Vec<u8>>) -> io::Result<(Data, usize)> {
    let page = crate::log::window::page_size() as u64;
    let base = pos / page * page;
    let skip = (pos - base) as usize;
    if let Some(map) = crate::log::window::Mapped::map(file, base, skip + want) {
        // the file may have shrunk since its size was looked at: the mapped pages past its end
        // read as zeros and are left out
        let now = file.metadata().map_or(u64::MAX, |m| m.len());
        let have = (now.saturating_sub(pos) as usize).min(want);
        return Ok((Data::Mapped(map, skip), have));
    }
    // a buffer that came back is filled again as it is: it only grows (zeroing 8 MiB a window
    // was a tenth of the time on large logs)
    let mut buf = spare.try_recv().unwrap_or_default();
    if buf.len() < want {
        buf.resize(want, 0);
    }
    let got = read_full(file, &mut buf[..want], pos)?;
    Ok((Data::Read(buf), got))
}

fn produce(
    file: &std::fs::File,
    len: u64,
    ac: &AhoCorasick,
    tx: std::sync::mpsc::SyncSender<io::Result<Window>>,
    (spare, spare_cands): (std::sync::mpsc::Receiver<Vec<u8>>, std::sync::mpsc::Receiver<Vec<Cand>>),
) {
    let mut lineno: u64 = 1;
    let mut prev_tail: Vec<u8> = Vec::new();
    // the file's offset of the first byte not yet handed over in whole lines
    let mut pos = 0u64;
    loop {
        // read up to the size the file had when the reading began (a log still being written
        // is read as it was then)
        let want = (WINDOW as u64).min(len.saturating_sub(pos)) as usize;
        if want == 0 {
            return;
        }
        let (data, got) = match window_at(file, pos, want, &spare) {
            Ok(x) => x,
            Err(e) => {
                let _ = tx.send(Err(e));
                return;
            }
        };
        if got == 0 {
            return;
        }
        // the end: the size it had, or less if it was truncated meanwhile
        let at_eof = got < want || pos + got as u64 >= len;
        let (limit, cut) = whole_lines(&data.bytes()[..got], at_eof);
        let region = &data.bytes()[..limit];
        // a list that came back is filled again (growing a new one by doubling copied it
        // again and again in a flood)
        let (cands, next) = candidates(region, ac, lineno, spare_cands.try_recv().unwrap_or_default());
        let ends_line = region.last() == Some(&b'\n');
        let lines_after = if ends_line { next - 1 } else { next };
        let tail = std::mem::take(&mut prev_tail);
        remember_last_line(region, &mut prev_tail);
        let first = lineno;
        lineno = next;
        pos += limit as u64;
        let w = Window { data, end: limit, cands, first_lineno: first, prev_tail: tail, lines_after, bytes_after: pos, cut };
        if tx.send(Ok(w)).is_err() || at_eof && limit == got {
            return;
        }
    }
}

/// How much of `data` to read now: up to its last newline (all of it at the end of input). A
/// line longer than the buffer (a `\r` progress bar, a binary blob) is cut at its last carriage
/// return if it has one, else anywhere; the flag says it was cut.
fn whole_lines(data: &[u8], at_end: bool) -> (usize, bool) {
    if at_end {
        (data.len(), false)
    } else if let Some(nl) = memchr::memrchr(b'\n', data) {
        (nl + 1, false)
    } else {
        (memchr::memrchr(b'\r', data).map_or(data.len(), |p| p + 1), true)
    }
}

fn remember_last_line(region: &[u8], prev_tail: &mut Vec<u8>) {
    let body = region.strip_suffix(b"\n").unwrap_or(region);
    let start = memchr::memrchr(b'\n', body).map_or(0, |p| p + 1);
    let line = &body[start..];
    let line = &line[line.len().saturating_sub(PREV_KEEP)..];
    prev_tail.clear();
    prev_tail.extend_from_slice(line);
}

fn bytecount(s: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', s).count() as u64
}

/// Walks one region of whole lines. `lineno` is the number of the region's first line on
/// entry and of the line after the region on exit.
fn process(region: &[u8], ac: &AhoCorasick, sink: &mut impl LineSink, lineno: &mut u64, prev_tail: &[u8]) {
    let (cands, next) = candidates(region, ac, *lineno, Vec::new());
    consume(region, &cands, *lineno, sink, prev_tail);
    *lineno = next;
}

/// The lines the prefilter selects in a region, and the number of the line after the region.
fn candidates(region: &[u8], ac: &AhoCorasick, first_lineno: u64, mut out: Vec<Cand>) -> (Vec<Cand>, u64) {
    out.clear();
    let mut pos = 0usize;
    let mut counted = 0usize;
    let mut lineno = first_lineno;
    let mut last_shape: Option<ReportShape> = None;
    while pos < region.len() {
        let Some(m) = ac.find(&region[pos..]) else { break };
        let at = pos + m.start();
        let line_start = memchr::memrchr(b'\n', &region[pos..at]).map_or(pos, |p| pos + p + 1);
        lineno += bytecount(&region[counted..line_start]);
        counted = line_start;
        let line_end = memchr::memchr(b'\n', &region[at..]).map(|p| at + p);
        let shape = line_end.and_then(|e| report_shape(region, line_start, e));
        let repeat = match (&shape, &last_shape) {
            (Some(x), Some(y)) if same_shape(region, x, y) => crate::log::collect::parse_block_thread(&region[x.head_end..x.tail_start]),
            _ => None,
        };
        last_shape = shape;
        let len = match (repeat, line_end) {
            (Some(_), Some(e)) => u32::try_from(e - line_start).unwrap_or(u32::MAX),
            _ => u32::MAX,
        };
        out.push(Cand { start: line_start, len, lineno, repeat });
        let Some(mut e) = line_end else { break };
        // A flood's lines follow one another: each next line that repeats the last report
        // around its numbers is taken as it is, without searching it (its tail holds a needle,
        // so the search would select it too).
        while let Some(x) = last_shape {
            let Some((next, numbers, next_end)) = next_repeat(region, &x, e + 1) else { break };
            lineno += 1;
            counted = e + 1;
            let len = u32::try_from(next_end - (e + 1)).unwrap_or(u32::MAX);
            out.push(Cand { start: e + 1, len, lineno, repeat: Some(numbers) });
            last_shape = Some(next);
            e = next_end;
        }
        pos = e + 1;
    }
    lineno += bytecount(&region[counted..]);
    (out, lineno)
}

/// Hands the selected lines to the sink, and every line after one while the sink asks for
/// more (a traceback, a wrapped report).
fn consume(region: &[u8], cands: &[Cand], first_lineno: u64, sink: &mut impl LineSink, prev_tail: &[u8]) {
    let mut pos = 0usize;
    let mut lineno = first_lineno;
    let mut ci = 0usize;
    // the start of the last line handed over, to know that a repeat follows its model
    let mut last_start: Option<usize> = None;
    let mut prev_cand_start: Option<usize> = None;
    while pos < region.len() {
        if !sink.wants_next() {
            while ci < cands.len() && cands[ci].start < pos {
                prev_cand_start = Some(cands[ci].start);
                ci += 1;
            }
            let Some(c) = cands.get(ci) else { break };
            pos = c.start;
            lineno = c.lineno;
            if let Some((b, t)) = c.repeat {
                if last_start.is_some() && last_start == prev_cand_start && sink.repeat(b, t, lineno) {
                    last_start = Some(pos);
                    prev_cand_start = Some(pos);
                    ci += 1;
                    pos = match c.len {
                        u32::MAX => memchr::memchr(b'\n', &region[pos..]).map_or(region.len(), |p| pos + p + 1),
                        n => pos + n as usize + 1,
                    };
                    continue;
                }
            }
        }
        let line_end = memchr::memchr(b'\n', &region[pos..]).map_or(region.len(), |p| pos + p);
        let prev = Prev { region, line_start: pos, tail: prev_tail };
        let mut line = &region[pos..line_end];
        if line.last() == Some(&b'\r') {
            line = &line[..line.len() - 1];
        }
        sink.line(line, lineno, prev);
        last_start = Some(pos);
        if cands.get(ci).is_some_and(|c| c.start == pos) {
            prev_cand_start = Some(pos);
            ci += 1;
        }
        lineno += 1;
        pos = line_end + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Rec(Vec<(u64, String, String)>, bool);
    impl LineSink for Rec {
        fn wants_next(&self) -> bool {
            self.1
        }
        fn line(&mut self, raw: &[u8], lineno: u64, prev: Prev<'_>) {
            self.0.push((lineno, String::from_utf8_lossy(raw).into(), String::from_utf8_lossy(prev.get()).into()));
        }
    }

    #[test]
    fn numbers_selected_lines() {
        let text = "noise\nnoise\nRuntimeError: x\r\nmore noise\nFile \"a.py\", line 1\nend";
        let mut r = Rec(Vec::new(), false);
        let st = scan(text.as_bytes(), &prefilter(), &mut r).unwrap();
        assert_eq!(r.0.len(), 2);
        assert_eq!(r.0[0].0, 3);
        assert_eq!(r.0[0].1, "RuntimeError: x");
        assert_eq!(r.0[0].2, "noise");
        assert_eq!(r.0[1].0, 5);
        assert_eq!(st.lines, 6);
    }

    /// Trial item 3: a log truncated while it was read through a map faulted (SIGBUS, exit 135,
    /// no message). Read as a file 20 MB long whose bytes end at 1 MB (truncated after its size
    /// was looked at), it is read to where it ends.
    #[test]
    fn a_log_truncated_while_it_is_read_is_read_to_its_end() {
        let path = std::env::temp_dir().join(format!("cudasleuth-truncated-{}.log", std::process::id()));
        let mut text = "noise line\n".repeat(100_000);
        text.push_str("RuntimeError: CUDA error: device-side assert triggered\n");
        std::fs::write(&path, &text).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let mut r = Rec(Vec::new(), false);
        let st = scan_windows(&file, 20 << 20, &prefilter(), &mut r).unwrap();
        assert_eq!(st.bytes, text.len() as u64);
        assert_eq!(st.lines, 100_001);
        assert_eq!(r.0.last().map(|x| x.0), Some(100_001));
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn wants_next_gets_every_line() {
        let text = "a\nb\nc\n";
        let mut r = Rec(Vec::new(), true);
        scan(text.as_bytes(), &prefilter(), &mut r).unwrap();
        let nums: Vec<u64> = r.0.iter().map(|x| x.0).collect();
        assert_eq!(nums, [1, 2, 3]);
    }
}
