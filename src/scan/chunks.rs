//! A file's top-level statements ("chunks"), found by a line lexer without parsing, so that an
//! edited file is parsed again only where it changed.
//!
//! A chunk runs from the line where a top-level statement starts (column 0, outside any string,
//! bracket or backslash continuation) to its last line of code: the `elif`/`else`/`except`/
//! `finally` clauses of a compound statement and the definition under a decorator stay in
//! their statement's chunk, and comment and blank lines after a statement belong to no chunk.
//! Each chunk is keyed by a hash of its lines. The cached facts of a file keep its chunk table;
//! when the file changes, the facts of chunks whose text is unchanged are taken from the cached
//! facts (moved to their new lines) and only the other chunks are parsed, each on its own.
//!
//! The lexer gives up (no chunks: the file is parsed whole) on anything it is not sure of: an
//! unterminated string or bracket, a closing bracket too many, a lone carriage return, an
//! indented first statement. Chunks are only recorded for a file whose whole-file parse had no
//! error and whose top-level statements start and end where the lexer says; a re-parsed chunk
//! with a parse error sends the file back to a whole-file parse.

use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};

use crate::scan::facts::{FileFacts, Span};

/// One top-level statement: lines `start..end` (0-based, `end` exclusive) and a hash of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    pub start: u32,
    pub end: u32,
    pub hash: u64,
}

/// The byte offset where each line starts (and the text's length, as the end of the last one).
fn line_starts(text: &str) -> Vec<usize> {
    let mut v = vec![0];
    v.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|p| p + 1));
    if *v.last().unwrap_or(&0) != text.len() {
        v.push(text.len());
    }
    v
}

/// The bytes the lexer acts on outside a string.
const SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut k = 0;
    let bytes = b"#'\"([{)]}\\";
    while k < bytes.len() {
        t[bytes[k] as usize] = true;
        k += 1;
    }
    t
};

fn is_clause(line: &[u8]) -> bool {
    ["else", "elif", "except", "finally"]
        .iter()
        .any(|k| line.starts_with(k.as_bytes()) && line.get(k.len()).map_or(true, |&b| !(b.is_ascii_alphanumeric() || b == b'_')))
}

/// The chunks of `text`, or None when the lexer is not sure of them.
pub fn split(text: &str) -> Option<Vec<Chunk>> {
    let starts = line_starts(text);
    let bytes = text.as_bytes();
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    // the open chunk: its first line and the last line of code seen in it
    let mut open: Option<(u32, u32)> = None;
    let mut depth = 0i32;
    // inside a string: its quote and whether it is triple-quoted
    let mut string: Option<(u8, bool)> = None;
    let mut continued = false;
    let mut decorator = false;
    for row in 0..starts.len() - 1 {
        let mut line = &bytes[starts[row]..starts[row + 1]];
        if let Some(l) = line.strip_suffix(b"\n") {
            line = l;
        }
        if let Some(l) = line.strip_suffix(b"\r") {
            line = l;
        }
        if line.contains(&b'\r') {
            return None;
        }
        let row = row as u32;
        let at_top = depth == 0 && string.is_none() && !continued;
        let first = line.iter().position(|&b| !matches!(b, b' ' | b'\t' | b'\x0c'));
        let code = first.is_some_and(|i| line[i] != b'#');
        if at_top && code {
            if first == Some(0) {
                let joins = open.is_some() && (decorator || is_clause(line));
                if !joins {
                    if let Some((s, last)) = open.take() {
                        ranges.push((s, last + 1));
                    }
                    open = Some((row, row));
                }
                decorator = line[0] == b'@';
            } else if open.is_none() {
                return None;
            }
        }
        if (code || !at_top) && open.is_some() {
            if let Some((_, last)) = open.as_mut() {
                *last = row;
            }
        }
        continued = false;
        let mut i = 0;
        let mut escaped_eol = false;
        while i < line.len() {
            // only quotes and backslashes matter inside a string, and only the bytes of
            // `SPECIAL` outside one: the others are skipped in bulk
            let skip = match string {
                Some((q, _)) => memchr::memchr2(q, b'\\', &line[i..]),
                None => line[i..].iter().position(|&b| SPECIAL[b as usize]),
            };
            let Some(skip) = skip else { break };
            i += skip;
            let b = line[i];
            if let Some((q, triple)) = string {
                if b == b'\\' {
                    escaped_eol = i + 1 == line.len();
                    i += 2;
                    continue;
                }
                if b == q {
                    if !triple {
                        string = None;
                    } else if line[i..].starts_with(&[q, q, q]) {
                        string = None;
                        i += 3;
                        continue;
                    }
                }
                i += 1;
                continue;
            }
            match b {
                b'#' => break,
                b'\'' | b'"' => {
                    if line[i..].starts_with(&[b, b, b]) {
                        string = Some((b, true));
                        i += 3;
                        continue;
                    }
                    string = Some((b, false));
                }
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    depth -= 1;
                    if depth < 0 {
                        return None;
                    }
                }
                b'\\' if i + 1 == line.len() => continued = true,
                _ => {}
            }
            i += 1;
        }
        if matches!(string, Some((_, false))) && !escaped_eol {
            return None;
        }
    }
    if string.is_some() || depth != 0 || continued {
        return None;
    }
    if let Some((s, last)) = open {
        ranges.push((s, last + 1));
    }
    Some(ranges.into_iter().map(|(s, e)| Chunk { start: s, end: e, hash: hash(text, &starts, s, e) }).collect())
}

fn hash(text: &str, starts: &[usize], s: u32, e: u32) -> u64 {
    let a = starts[s as usize];
    let b = starts.get(e as usize).copied().unwrap_or(text.len());
    let mut h = std::hash::DefaultHasher::new();
    text.as_bytes()[a..b].hash(&mut h);
    (e - s).hash(&mut h);
    h.finish()
}

/// Whether the chunks match the top-level statements of a whole-file parse: every statement
/// (`starts_ends`: 0-based first and last rows, comments left out) lies inside one chunk, and
/// every chunk starts with one.
pub fn agree(chunks: &[Chunk], starts_ends: &[(u32, u32)]) -> bool {
    let mut c = 0;
    let mut started = vec![false; chunks.len()];
    for &(s, e) in starts_ends {
        while c < chunks.len() && chunks[c].end <= s {
            c += 1;
        }
        let Some(ch) = chunks.get(c) else { return false };
        if s < ch.start || e >= ch.end {
            return false;
        }
        if s == ch.start {
            started[c] = true;
        }
    }
    started.iter().all(|&x| x)
}

fn shifted(mut s: Span, by: i64) -> Span {
    s.line = (s.line as i64 + by) as u32;
    s.end_line = (s.end_line as i64 + by) as u32;
    s
}

/// A fact with a place in the file.
trait Placed: Clone {
    fn span_mut(&mut self) -> &mut Span;
    fn line(&self) -> u32;
}

macro_rules! placed {
    ($($t:ty),*) => {
        $(impl Placed for $t {
            fn span_mut(&mut self) -> &mut Span {
                &mut self.span
            }
            fn line(&self) -> u32 {
                self.span.line
            }
        })*
    };
}
placed!(
    crate::scan::facts::Call,
    crate::scan::facts::ClassFact,
    crate::scan::facts::FunctionFact,
    crate::scan::facts::AssignFact,
    crate::scan::facts::ReturnFact,
    crate::scan::facts::ForFact,
    crate::scan::facts::CondFact,
    crate::scan::flow::Def
);

/// The chunk a 1-based line belongs to.
fn chunk_of(chunks: &[Chunk], line: u32) -> Option<usize> {
    let i = chunks.partition_point(|c| c.end < line);
    chunks.get(i).filter(|c| c.start < line).map(|_| i)
}

/// For each chunk, the positions of the facts on its lines, in their order.
fn by_chunk(lines: impl Iterator<Item = u32>, chunks: &[Chunk]) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); chunks.len()];
    for (i, line) in lines.enumerate() {
        if let Some(c) = chunk_of(chunks, line) {
            out[c].push(i);
        }
    }
    out
}

/// One kind of fact of the previous version, grouped by its chunks.
struct Kind<'a, T> {
    facts: &'a [T],
    groups: Vec<Vec<usize>>,
}

impl<'a, T: Placed> Kind<'a, T> {
    fn new(facts: &'a [T], chunks: &[Chunk]) -> Self {
        Kind { facts, groups: by_chunk(facts.iter().map(T::line), chunks) }
    }

    /// Appends the facts of chunk `c` to `to`, moved by `by` lines.
    fn take(&self, c: usize, to: &mut Vec<T>, by: i64) {
        to.extend(self.groups[c].iter().map(|&i| {
            let mut x = self.facts[i].clone();
            *x.span_mut() = shifted(*x.span_mut(), by);
            x
        }));
    }
}

fn moved_all<T: Placed>(to: &mut Vec<T>, from: &[T], by: i64) {
    to.extend(from.iter().cloned().map(|mut x| {
        *x.span_mut() = shifted(*x.span_mut(), by);
        x
    }));
}

/// The previous version's facts, grouped by its chunks.
struct Previous<'a> {
    calls: Kind<'a, crate::scan::facts::Call>,
    classes: Kind<'a, crate::scan::facts::ClassFact>,
    functions: Kind<'a, crate::scan::facts::FunctionFact>,
    assigns: Kind<'a, crate::scan::facts::AssignFact>,
    returns: Kind<'a, crate::scan::facts::ReturnFact>,
    fors: Kind<'a, crate::scan::facts::ForFact>,
    conds: Kind<'a, crate::scan::facts::CondFact>,
    flow: Kind<'a, crate::scan::flow::Def>,
    imports: Vec<Vec<usize>>,
    old: &'a FileFacts,
}

impl<'a> Previous<'a> {
    fn new(old: &'a FileFacts, chunks: &[Chunk]) -> Self {
        Previous {
            calls: Kind::new(&old.calls, chunks),
            classes: Kind::new(&old.classes, chunks),
            functions: Kind::new(&old.functions, chunks),
            assigns: Kind::new(&old.assigns, chunks),
            returns: Kind::new(&old.returns, chunks),
            fors: Kind::new(&old.fors, chunks),
            conds: Kind::new(&old.conds, chunks),
            flow: Kind::new(&old.flow, chunks),
            imports: by_chunk(old.import_lines.iter().copied(), chunks),
            old,
        }
    }

    /// Appends the facts of old chunk `c` to `to`, moved by `by` lines.
    fn take(&self, c: usize, to: &mut FileFacts, by: i64) {
        self.calls.take(c, &mut to.calls, by);
        self.classes.take(c, &mut to.classes, by);
        self.functions.take(c, &mut to.functions, by);
        self.assigns.take(c, &mut to.assigns, by);
        self.returns.take(c, &mut to.returns, by);
        self.fors.take(c, &mut to.fors, by);
        self.conds.take(c, &mut to.conds, by);
        self.flow.take(c, &mut to.flow, by);
        for &i in &self.imports[c] {
            to.imports.push(self.old.imports[i].clone());
            to.import_lines.push((self.old.import_lines[i] as i64 + by) as u32);
        }
    }
}

/// Appends all the facts of a chunk parsed on its own to `to`, moved by `by` lines.
fn take_all(to: &mut FileFacts, part: FileFacts, by: i64) {
    moved_all(&mut to.calls, &part.calls, by);
    moved_all(&mut to.classes, &part.classes, by);
    moved_all(&mut to.functions, &part.functions, by);
    moved_all(&mut to.assigns, &part.assigns, by);
    moved_all(&mut to.returns, &part.returns, by);
    moved_all(&mut to.fors, &part.fors, by);
    moved_all(&mut to.conds, &part.conds, by);
    moved_all(&mut to.flow, &part.flow, by);
    to.imports.extend(part.imports);
    to.import_lines.extend(part.import_lines.iter().map(|&l| (l as i64 + by) as u32));
}

/// The facts of `text` (the new bytes of `path`), reusing `old` — the cached facts of the file
/// before the change and their chunks — for every chunk whose lines did not change. None when
/// the new text cannot be split or a changed chunk does not parse cleanly on its own.
pub fn rescan(path: &str, text: &str, old: &FileFacts, old_chunks: &[Chunk]) -> Option<(FileFacts, Vec<Chunk>)> {
    let chunks = split(text)?;
    let by_hash: std::collections::HashMap<u64, usize> = old_chunks.iter().enumerate().rev().map(|(i, c)| (c.hash, i)).collect();
    let previous = Previous::new(old, old_chunks);
    let starts = line_starts(text);
    // about as many facts as before: room for them at once (growing the vectors step by step
    // copies and faults in more memory than the facts take)
    let room = |n: usize| n + n / 8 + 8;
    let mut out = FileFacts {
        path: path.to_string(),
        mentions_torch: text.contains("torch"),
        calls: Vec::with_capacity(room(old.calls.len())),
        classes: Vec::with_capacity(room(old.classes.len())),
        functions: Vec::with_capacity(room(old.functions.len())),
        assigns: Vec::with_capacity(room(old.assigns.len())),
        returns: Vec::with_capacity(room(old.returns.len())),
        fors: Vec::with_capacity(room(old.fors.len())),
        conds: Vec::with_capacity(room(old.conds.len())),
        flow: Vec::with_capacity(room(old.flow.len())),
        imports: Vec::with_capacity(room(old.imports.len())),
        import_lines: Vec::with_capacity(room(old.import_lines.len())),
        ..Default::default()
    };
    for c in &chunks {
        match by_hash.get(&c.hash).filter(|&&o| old_chunks[o].end - old_chunks[o].start == c.end - c.start) {
            Some(&o) => previous.take(o, &mut out, c.start as i64 - old_chunks[o].start as i64),
            None => {
                let a = starts[c.start as usize];
                let b = starts.get(c.end as usize).copied().unwrap_or(text.len());
                // a chunk that does not parse, or is too deep, sends the file to a whole scan
                let part = crate::scan::python::scan_source(path, &text[a..b]);
                if part.parse_errors || part.too_deep > 0 {
                    return None;
                }
                take_all(&mut out, part, c.start as i64);
            }
        }
    }
    Some((out, chunks))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<(u32, u32)> {
        split(text).unwrap().iter().map(|c| (c.start, c.end)).collect()
    }

    #[test]
    fn statements_clauses_decorators_and_strings() {
        let src = "# header\nimport os\n\n@dec\n@dec2(\n  1)\ndef f(x):\n    s = '''\ndef g():\n'''\n    return x\n# trailing\n\nif a:\n    pass\nelse:\n    pass\nx = (1,\n2)\ny = 'a\\\nb'\nz = 1 + \\\n  2\n";
        assert_eq!(lines(src), [(1, 2), (3, 11), (13, 17), (17, 19), (19, 21), (21, 23)]);
    }

    #[test]
    fn gives_up_when_unsure() {
        assert!(split("x = (1,\n").is_none());
        assert!(split("x = 'abc\ny = 1\n").is_none());
        assert!(split("  x = 1\n").is_none());
        assert!(split("x = 1)\n").is_none());
        assert!(split("s = \"\"\"\nunterminated\n").is_none());
        assert!(split("x = 1\ry = 2\n").is_none());
    }

    #[test]
    fn rescan_matches_a_whole_parse() {
        let old = "import torch.nn as nn\nN = 3\n\nclass Net(nn.Module):\n    def __init__(self):\n        self.fc = nn.Linear(8, N)\n\n\ndef loss(x, y):\n    return nn.functional.cross_entropy(x, y)\n";
        let (facts, chunks) = crate::scan::python::scan_source_chunked("m.py", old);
        let chunks = chunks.unwrap();
        for new in [
            old.replace("N = 3\n", "N = 3\nM = 4\n\n"),
            old.replace("return nn", "y = y + 1\n    return nn"),
            format!("{old}# done\n"),
            old.replace("import torch.nn as nn\n", "import torch.nn as nn\nimport os\n"),
            format!("def first():\n    return 1\n{old}"),
        ] {
            let (got, _) = rescan("m.py", &new, &facts, &chunks).expect("splits");
            let whole = crate::scan::python::scan_source("m.py", &new);
            assert_eq!(bincode::serialize(&got).unwrap(), bincode::serialize(&whole).unwrap(), "{new}");
        }
        // a changed chunk that does not parse on its own: the file is parsed whole
        assert!(rescan("m.py", &old.replace("N = 3", "N = = 3"), &facts, &chunks).is_none());
    }
}

/// The deepest nesting of brackets in Python code, strings and comments left out. CPython refuses
/// more than 200 (`too many nested parentheses`); a file nested far deeper is not code to scan,
/// and walking it would only use up the stack.
pub fn deepest_brackets(text: &str) -> usize {
    let b = text.as_bytes();
    let (mut i, mut depth, mut deepest) = (0, 0usize, 0usize);
    // inside a string: its quote and whether it is triple-quoted
    let mut string: Option<(u8, bool)> = None;
    while i < b.len() {
        if let Some((q, triple)) = string {
            let Some(skip) = memchr::memchr3(q, b'\\', b'\n', &b[i..]) else { break };
            i += skip;
            match b[i] {
                b'\\' => i += 1,
                b'\n' if !triple => string = None,
                b'\n' => {}
                _ if !triple => string = None,
                _ if b[i..].starts_with(&[q, q, q]) => {
                    string = None;
                    i += 2;
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        let Some(skip) = b[i..].iter().position(|&c| SPECIAL[c as usize]) else { break };
        i += skip;
        match b[i] {
            b'#' => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |p| i + p);
                continue;
            }
            q @ (b'\'' | b'"') => {
                let triple = b[i..].starts_with(&[q, q, q]);
                string = Some((q, triple));
                if triple {
                    i += 2;
                }
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    deepest
}

#[cfg(test)]
mod nesting_tests {
    use super::deepest_brackets;

    #[test]
    fn brackets_in_code_only() {
        assert_eq!(deepest_brackets("x = f(a[1], {2: (3,)})\n"), 3);
        assert_eq!(deepest_brackets("s = '((((('  # ((((\nt = \"\"\"\n(((\n\"\"\" + \"\\\"(\"\n"), 0);
        assert_eq!(deepest_brackets(&format!("x = {}1{}\n", "(".repeat(5000), ")".repeat(5000))), 5000);
    }
}
