//! Collapsing thousands of per-thread reports into one entry per assert site, with bounded
//! memory whatever the log size: exact distinct counts up to a cap, then a flag.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A cheap hasher for the (block, thread) pairs: the keys are small integers from a log, not
/// attacker-chosen, and this set is on the hot path of million-line logs.
#[derive(Default)]
pub struct PairHasher(u64);

impl Hasher for PairHasher {
    fn finish(&self) -> u64 {
        // the multiplications carry a number's high half only upwards: fold it into the low
        // bits the table's buckets are chosen by
        self.0 ^ (self.0 >> 32)
    }
    fn write(&mut self, bytes: &[u8]) {
        // a key's six numbers arrive as one 24-byte slice: taken eight bytes at a time
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(u64::from_le_bytes(c.try_into().unwrap_or_default()));
        }
        for b in chunks.remainder() {
            self.write_u64(u64::from(*b));
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

type PairSet = HashSet<[u32; 6], BuildHasherDefault<PairHasher>>;

use crate::log::assert_line::{RawAssert, Shape};
use crate::model::RankRef;

/// Exact distinct (block, thread) pairs kept per site, and over all sites: bounded memory
/// whatever the log (about 25 bytes a pair).
const MAX_DISTINCT: usize = 1 << 14;
const MAX_DISTINCT_TOTAL: usize = 1 << 18;
const MAX_SAMPLES: usize = 32;
/// Distinct sites kept; a log with more is garbage or many logs pasted together.
const MAX_SITES: usize = 512;
const MAX_LOG_LINES: usize = 16;

#[derive(Debug, Clone)]
pub struct Site {
    pub first: RawAssert,
    /// Reports in the classic form (one per failing thread).
    pub reports: u64,
    /// `[CUDA_KERNEL_ASSERT]` companion lines; counted only when the classic line is missing.
    pub printf_reports: u64,
    /// Records from a `TORCH_USE_CUDA_DSA` block; same rule.
    pub dsa_reports: u64,
    pub distinct: PairSet,
    pub distinct_capped: bool,
    pub threads: BTreeSet<[u32; 3]>,
    pub blocks: BTreeSet<[u32; 3]>,
    pub samples_capped: bool,
    threads_full: bool,
    blocks_full: bool,
    /// The block and thread of the report counted last: a flood's next line is mostly in the
    /// same block, which the samples already hold.
    last_block: Option<[u32; 3]>,
    last_thread: Option<[u32; 3]>,
    pub ranks: BTreeSet<RankRef>,
    pub log_lines: Vec<u64>,
    pub last_line: u64,
    pub message: Option<String>,
    pub launch: Option<crate::model::LaunchInfo>,
    pub truncated: bool,
}

impl Site {
    pub fn count(&self) -> u64 {
        if self.reports > 0 {
            self.reports
        } else if self.printf_reports > 0 {
            self.printf_reports
        } else {
            self.dsa_reports
        }
    }

    pub fn log_lines(&self) -> Vec<u64> {
        let mut v = self.log_lines.clone();
        if self.last_line != 0 && v.last() != Some(&self.last_line) {
            v.push(self.last_line);
        }
        v
    }
}

#[derive(Default)]
pub struct Sites {
    pub sites: Vec<Site>,
    /// Reports of sites beyond the first MAX_SITES, not kept.
    pub dropped: u64,
    distinct_total: usize,
    index: HashMap<(Option<String>, Option<u32>, String), usize>,
}

pub fn norm_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Which kind of report a parsed line is, for counting.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Line,
    Printf,
    Dsa,
}

impl Sites {
    /// One more report of a known site, when the line is byte-identical to the last one
    /// around its block/thread numbers (the common case of thousands of per-thread lines).
    pub fn hit(&mut self, idx: usize, block: [u32; 3], thread: [u32; 3], log_line: u64, rank: Option<&RankRef>) {
        let site = &mut self.sites[idx];
        site.reports += 1;
        record_hit(site, block, thread, &mut self.distinct_total);
        if let Some(r) = rank {
            if site.ranks.len() < 1024 && !site.ranks.contains(r) {
                site.ranks.insert(r.clone());
            }
        }
        note_line(site, log_line);
    }

    pub fn add(&mut self, raw: RawAssert, log_line: u64, rank: Option<RankRef>, source: Source) -> usize {
        let text = norm_ws(raw.assertion.as_deref().unwrap_or(""));
        let key = (raw.file.clone(), raw.line, text.clone());
        let idx = match self.index.get(&key) {
            Some(i) => *i,
            None => match self.find_partial(&raw, &text) {
                Some(i) => i,
                None if self.sites.len() >= MAX_SITES => {
                    self.dropped += 1;
                    return usize::MAX;
                }
                None => {
                    self.sites.push(Site {
                        first: raw.clone(),
                        reports: 0,
                        printf_reports: 0,
                        dsa_reports: 0,
                        distinct: PairSet::default(),
                        distinct_capped: false,
                        threads: BTreeSet::new(),
                        blocks: BTreeSet::new(),
                        samples_capped: false,
                        threads_full: false,
                        blocks_full: false,
                        last_block: None,
                        last_thread: None,
                        ranks: BTreeSet::new(),
                        log_lines: Vec::new(),
                        last_line: 0,
                        message: None,
                        launch: None,
                        truncated: raw.truncated,
                    });
                    let i = self.sites.len() - 1;
                    self.index.insert(key, i);
                    i
                }
            },
        };
        let site = &mut self.sites[idx];
        // A complete text replaces a cut-off one seen first.
        if site.truncated && !raw.truncated {
            site.truncated = false;
            site.first.assertion = raw.assertion.clone();
            let full = (raw.file.clone(), raw.line, text);
            self.index.insert(full, idx);
        }
        let site = &mut self.sites[idx];
        match source {
            Source::Line => site.reports += 1,
            Source::Printf => site.printf_reports += 1,
            Source::Dsa => site.dsa_reports += 1,
        }
        if site.first.shape == Shape::CudaPrintf && raw.shape != Shape::CudaPrintf {
            // prefer the classic line's fields, keep the printf message
            let msg = site.first.message.take();
            site.first = RawAssert { message: None, ..raw.clone() };
            site.message = site.message.take().or(msg);
        }
        if site.message.is_none() {
            site.message = raw.message.clone();
        }
        if site.first.block.is_none() && raw.block.is_some() {
            site.first.block = raw.block;
            site.first.thread = raw.thread;
        }
        if let (Some(b), Some(t)) = (raw.block, raw.thread) {
            if source == Source::Line || site.reports == 0 {
                record_hit(site, b, t, &mut self.distinct_total);
            }
        }
        if let Some(r) = rank {
            if site.ranks.len() < 1024 {
                site.ranks.insert(r);
            }
        }
        note_line(site, log_line);
        idx
    }

    /// A damaged report belongs to a site it only partly repeats: a cut-off text that starts
    /// the site's text (or the other way round), or a path whose front was lost in the paste.
    fn find_partial(&mut self, raw: &RawAssert, text: &str) -> Option<usize> {
        let idx = self.sites.iter().position(|s| {
            if s.first.line != raw.line || !same_file(s.first.file.as_deref(), raw.file.as_deref()) {
                return false;
            }
            let other = norm_ws(s.first.assertion.as_deref().unwrap_or(""));
            other == text || (raw.truncated && other.starts_with(text)) || (s.truncated && text.starts_with(&other))
        })?;
        let site = &mut self.sites[idx];
        if raw.file.as_ref().map_or(0, String::len) > site.first.file.as_ref().map_or(0, String::len) {
            site.first.file = raw.file.clone();
        }
        Some(idx)
    }
}

/// Equal paths, or one the tail of the other (at least a file name and its folder).
fn same_file(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => {
            let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
            short == long || (long.ends_with(short) && short.contains(['/', '\\']) && short.len() >= 12)
        }
        (None, None) => true,
        _ => false,
    }
}

fn note_line(site: &mut Site, log_line: u64) {
    if site.log_lines.len() < MAX_LOG_LINES {
        if site.log_lines.last() != Some(&log_line) {
            site.log_lines.push(log_line);
        }
    } else {
        site.last_line = log_line;
    }
}

fn record_hit(site: &mut Site, b: [u32; 3], t: [u32; 3], total: &mut usize) {
    if !site.distinct_capped {
        let key = [b[0], b[1], b[2], t[0], t[1], t[2]];
        if site.distinct.len() < MAX_DISTINCT && *total < MAX_DISTINCT_TOTAL {
            if site.distinct.insert(key) {
                *total += 1;
            }
        } else if !site.distinct.contains(&key) {
            site.distinct_capped = true;
        }
    }
    if !site.threads_full && site.last_thread != Some(t) {
        site.last_thread = Some(t);
        if site.threads.len() < MAX_SAMPLES {
            site.threads.insert(t);
        } else if !site.threads.contains(&t) {
            site.threads_full = true;
            site.samples_capped = true;
        }
    }
    if !site.blocks_full && site.last_block != Some(b) {
        site.last_block = Some(b);
        if site.blocks.len() < MAX_SAMPLES {
            site.blocks.insert(b);
        } else if !site.blocks.contains(&b) {
            site.blocks_full = true;
            site.samples_capped = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::assert_line::parse_all;

    #[test]
    fn collapses_threads_and_merges_cut_lines() {
        let mut s = Sites::default();
        for t in 0..100u32 {
            let line = format!("/p/Loss.cu:245: k: block: [0,0,0], thread: [{t},0,0] Assertion `t >= 0 && t < n_classes` failed.");
            for r in parse_all(&line) {
                s.add(r, t as u64 + 1, Some(RankRef { kind: "rank".into(), id: t % 2 }), Source::Line);
            }
        }
        let cut = parse_all("/p/Loss.cu:245: k: block: [0,0,0], thread: [7,0,0] Assertion `t >= 0 && t <");
        s.add(cut[0].clone(), 200, None, Source::Line);
        assert_eq!(s.sites.len(), 1);
        let site = &s.sites[0];
        assert_eq!(site.count(), 101);
        assert_eq!(site.distinct.len(), 100);
        assert_eq!(site.threads.len(), MAX_SAMPLES);
        assert!(site.samples_capped);
        assert_eq!(site.ranks.len(), 2);
        assert_eq!(site.log_lines().len(), MAX_LOG_LINES + 1);
    }
}
