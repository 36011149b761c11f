//! Streaming over a log of any size with bounded memory. A multi-literal prefilter finds the
//! few lines worth reading; everything else is skipped without decoding or normalizing.

use std::io::{self, Read};

use aho_corasick::AhoCorasick;

/// Receives the lines the prefilter selects, and asks for following lines while it is in the
/// middle of a multi-line construct (a wrapped report, a traceback frame's code line).
pub trait LineSink {
    fn wants_next(&self) -> bool;
    fn line(&mut self, raw: &[u8], lineno: u64, prev: &[u8]);
}

/// Substrings that every line we care about contains at least one of. Kept short and few:
/// the prefilter's speed is the tool's speed on large logs.
pub const NEEDLES: &[&str] = &[
    "ssert",           // Assertion, assertion, device-side assert, [CUDA_KERNEL_ASSERT] lines
    "rror",            // RuntimeError, CUDA error, HIP error, IndexError, NCCL/CUBLAS/cuDNN, ROCm aborts
    "block: [",        // the first half of a hard-wrapped report
    "File ",           // traceback frames seen without their header (a pasted window)
    "raceback",        // traceback headers (plain, IPython, rich); the frames that follow are read
    "xception",        // C++ "Exception raised from", chained tracebacks
    "atchdog",
    "terminate called",
    "LAUNCH_BLOCKING",
    "access fault",    // ROCm "Memory access fault by GPU node"
    "Token indices",
    "Some weights",
    "vocabulary",
    "Label class",
];

pub fn prefilter() -> AhoCorasick {
    // Leftmost-first lets the SIMD (Teddy) prefilter run; which needle matched does not matter.
    AhoCorasick::builder()
        .match_kind(aho_corasick::MatchKind::LeftmostFirst)
        .build(NEEDLES)
        .expect("needles are valid")
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
        let limit = if eof {
            filled
        } else if let Some(nl) = memchr::memrchr(b'\n', &buf[..filled]) {
            nl + 1
        } else {
            // One line longer than the buffer (a `\r` progress bar, a binary blob): cut it at
            // its last carriage return if it has one, else anywhere.
            stats.long_lines_cut += 1;
            memchr::memrchr(b'\r', &buf[..filled]).map_or(filled, |p| p + 1)
        };
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

/// Size of the window a mapped file is read through: pages are released as the scan moves on,
/// so memory stays bounded whatever the file size.
const WINDOW: usize = 16 << 20;

/// Scans a regular file through a moving memory map: no copy into a buffer (the kernel's
/// `read` copy was a fifth of the time on large logs).
pub fn scan_mapped(file: &std::fs::File, ac: &AhoCorasick, sink: &mut impl LineSink) -> io::Result<ScanStats> {
    let len = file.metadata()?.len() as usize;
    let page = 4096usize;
    let mut stats = ScanStats { bytes: len as u64, lines: 0, long_lines_cut: 0 };
    let mut lineno: u64 = 1;
    let mut prev_tail: Vec<u8> = Vec::new();
    let mut pos = 0usize; // first byte not yet processed
    let mut last_byte = None;
    while pos < len {
        let base = pos / page * page;
        let map_len = (len - base).min(WINDOW + (pos - base));
        // SAFETY: the map is read-only and dropped before the next one; a log truncated while
        // it is being read can fault, as with any memory-mapped reader.
        let map = unsafe { memmap2::MmapOptions::new().offset(base as u64).len(map_len).map(file)? };
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Sequential);
        let window = &map[pos - base..];
        let at_eof = base + map_len == len;
        let limit = if at_eof {
            window.len()
        } else if let Some(nl) = memchr::memrchr(b'\n', window) {
            nl + 1
        } else {
            stats.long_lines_cut += 1;
            memchr::memrchr(b'\r', window).map_or(window.len(), |p| p + 1)
        };
        let region = &window[..limit];
        last_byte = region.last().copied().or(last_byte);
        process(region, ac, sink, &mut lineno, &prev_tail);
        remember_last_line(region, &mut prev_tail);
        pos += limit;
    }
    stats.lines = if last_byte == Some(b'\n') || last_byte.is_none() { lineno - 1 } else { lineno };
    Ok(stats)
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
    let mut pos = 0usize;
    let mut counted = 0usize; // newlines before `counted` are already in `lineno`
    while pos < region.len() {
        let line_start = if sink.wants_next() {
            pos
        } else {
            match ac.find(&region[pos..]) {
                None => break,
                Some(m) => {
                    let at = pos + m.start();
                    memchr::memrchr(b'\n', &region[pos..at]).map_or(pos, |p| pos + p + 1)
                }
            }
        };
        *lineno += bytecount(&region[counted..line_start]);
        let line_end = memchr::memchr(b'\n', &region[line_start..]).map_or(region.len(), |p| line_start + p);
        // previous line: in this region if there is one, else the tail of the last region
        let prev: &[u8] = if line_start == 0 {
            prev_tail
        } else {
            let pend = line_start - 1;
            let lo = pend.saturating_sub(PREV_KEEP);
            let pstart = memchr::memrchr(b'\n', &region[lo..pend]).map_or(lo, |p| lo + p + 1);
            &region[pstart..pend]
        };
        let mut line = &region[line_start..line_end];
        if line.last() == Some(&b'\r') {
            line = &line[..line.len() - 1];
        }
        sink.line(line, *lineno, prev);
        if line_end < region.len() {
            *lineno += 1;
            counted = line_end + 1;
        } else {
            counted = region.len();
        }
        pos = line_end + 1;
    }
    *lineno += bytecount(&region[counted.min(region.len())..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Rec(Vec<(u64, String, String)>, bool);
    impl LineSink for Rec {
        fn wants_next(&self) -> bool {
            self.1
        }
        fn line(&mut self, raw: &[u8], lineno: u64, prev: &[u8]) {
            self.0.push((lineno, String::from_utf8_lossy(raw).into(), String::from_utf8_lossy(prev).into()));
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

    #[test]
    fn wants_next_gets_every_line() {
        let text = "a\nb\nc\n";
        let mut r = Rec(Vec::new(), true);
        scan(text.as_bytes(), &prefilter(), &mut r).unwrap();
        let nums: Vec<u64> = r.0.iter().map(|x| x.0).collect();
        assert_eq!(nums, [1, 2, 3]);
    }
}
