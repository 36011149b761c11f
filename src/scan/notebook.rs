//! Jupyter notebooks: the code cells joined into one Python text for the scan, and the way back
//! from a place in that text to the line and column of the `.ipynb` file, so that findings,
//! snippets, SARIF regions and suppression comments point into the file the user has.
//!
//! The notebook is read by a small JSON reader that keeps, for every character of a cell's
//! source, where its (possibly escaped) form starts in the file. A notebook saved by Jupyter
//! holds each source line as one string on its own line, so a line of code maps to one line of
//! the file; a source saved as one string maps all its lines to the line of that string, at the
//! columns of their characters.

use super::facts::{FileFacts, Span};

/// The joined code of a notebook and, for each of its lines, where it lies in the file.
pub struct Notebook {
    pub code: String,
    lines: Vec<LineMap>,
    cells: Vec<Cell>,
}

/// A code cell: the `In[n]` it last ran as (when the notebook was saved after running it) and
/// its lines in `lines`.
struct Cell {
    count: Option<u32>,
    lines: std::ops::Range<usize>,
}

/// A place in the file: 1-based line and column (in characters).
type At = (u32, u32);

/// A character of a cell's source and where its form starts in the file; `None` marks where a
/// source string ends (its closing quote).
type Piece = (Option<char>, At);

struct LineMap {
    /// Where each character of the line starts in the file, and where the line ends (its `\n`
    /// escape, or the closing quote).
    at: Vec<At>,
    /// Characters put in front of the line in the joined code (`#` before a magic).
    added: u32,
}

impl Notebook {
    /// The code cells of a notebook, in order, with magics and shell lines (`%`, `!`) commented
    /// out so they parse. None when the text is not a JSON object.
    pub fn read(json: &str) -> Option<Notebook> {
        let mut r = Reader { s: json, i: 0, line: 1, col: 1, depth: 0 };
        let mut cells: Vec<(Option<u32>, Vec<Piece>)> = Vec::new();
        r.object(|r, key| {
            if key != "cells" {
                return r.skip();
            }
            r.array(|r| {
                let (mut code, mut count, mut source) = (false, None, Vec::new());
                r.object(|r, key| match key.as_str() {
                    "cell_type" => {
                        code = r.string(None)? == "code";
                        Some(())
                    }
                    "execution_count" if r.peek().is_some_and(|b| b.is_ascii_digit()) => {
                        let start = r.i;
                        r.skip()?;
                        count = r.s[start..r.i].parse().ok();
                        Some(())
                    }
                    "source" if r.peek() == Some(b'[') => r.array(|r| r.string(Some(&mut source)).map(drop)),
                    "source" if r.peek() == Some(b'"') => r.string(Some(&mut source)).map(drop),
                    _ => r.skip(),
                })?;
                if code {
                    cells.push((count, source));
                }
                Some(())
            })
        })?;
        r.ws();
        if r.i != r.s.len() {
            return None;
        }
        let mut nb = Notebook { code: String::new(), lines: Vec::new(), cells: Vec::new() };
        for (count, source) in &cells {
            let first = nb.lines.len();
            nb.push_cell(source);
            nb.cells.push(Cell { count: *count, lines: first..nb.lines.len() });
        }
        Some(nb)
    }

    /// A cell's lines, split the way `str::lines` splits text (`\n`, or `\r\n`).
    fn push_cell(&mut self, cell: &[Piece]) {
        let mut line: Vec<(char, At)> = Vec::new();
        let mut end = None;
        for &(c, at) in cell {
            match c {
                Some('\n') => {
                    let ends = if line.last().is_some_and(|x| x.0 == '\r') { line.pop().map_or(at, |x| x.1) } else { at };
                    self.push_line(&line, ends);
                    line.clear();
                    end = None;
                }
                Some(c) => line.push((c, at)),
                None => end = Some(at),
            }
        }
        if !line.is_empty() {
            let ends = end.unwrap_or_else(|| line.last().map_or((0, 0), |x| (x.1 .0, x.1 .1 + 1)));
            self.push_line(&line, ends);
        }
    }

    fn push_line(&mut self, chars: &[(char, At)], end: At) {
        let text: String = chars.iter().map(|c| c.0).collect();
        let magic = matches!(text.trim_start().chars().next(), Some('%' | '!'));
        if magic {
            self.code.push('#');
        }
        self.code.push_str(&text);
        self.code.push('\n');
        let at = chars.iter().map(|c| c.1).chain([end]).collect();
        self.lines.push(LineMap { at, added: magic as u32 });
    }

    /// The file's place for a place in the joined code.
    pub fn place(&self, s: Span) -> Span {
        let (line, column) = self.point(s.line, s.column);
        let (end_line, end_column) = self.point(s.end_line, s.end_column);
        Span { line, column, end_line, end_column }
    }

    fn point(&self, line: u32, column: u32) -> At {
        let Some(m) = line.checked_sub(1).and_then(|l| self.lines.get(l as usize)) else { return (line, column) };
        let i = column.saturating_sub(1 + m.added) as usize;
        m.at.get(i).or(m.at.last()).copied().unwrap_or((line, column))
    }

    /// The file line of a traceback frame in a cell (`Cell In[11], line 13`: `count` 11, `line`
    /// 13; `line` 0 when the frame gave none), with how sure the match is: 2 when the cell that
    /// ran as `In[count]` has that line (and it reads as `code`, when the log printed it), 1 when
    /// only the text matches, in a cell saved without its count or after a re-run.
    pub fn frame_line(&self, count: u32, line: u32, code: Option<&str>) -> Option<(u32, u8)> {
        let code = code.map(str::trim).filter(|c| !c.is_empty());
        let text = |i: usize| self.code.lines().nth(i).map(str::trim);
        let found = |c: &Cell| -> Option<usize> {
            if line > 0 {
                let i = c.lines.start + line as usize - 1;
                (i < c.lines.end && code.map_or(true, |k| text(i) == Some(k))).then_some(i)
            } else {
                let k = code?;
                let mut hits = c.lines.clone().filter(|&i| text(i) == Some(k));
                hits.next().filter(|_| hits.next().is_none())
            }
        };
        if let Some(i) = self.cells.iter().filter(|c| c.count == Some(count)).find_map(found) {
            return Some((self.lines[i].at.first()?.0, 2));
        }
        code?;
        let mut text_hits = self.cells.iter().filter_map(found);
        let i = text_hits.next()?;
        text_hits.next().is_none().then_some((self.lines[i].at.first()?.0, 1))
    }

    /// Moves every place in the facts from the joined code to the file.
    pub fn place_facts(&self, f: &mut FileFacts) {
        let spans = f
            .calls
            .iter_mut()
            .map(|x| &mut x.span)
            .chain(f.classes.iter_mut().map(|x| &mut x.span))
            .chain(f.functions.iter_mut().map(|x| &mut x.span))
            .chain(f.assigns.iter_mut().map(|x| &mut x.span))
            .chain(f.returns.iter_mut().map(|x| &mut x.span))
            .chain(f.fors.iter_mut().map(|x| &mut x.span))
            .chain(f.conds.iter_mut().map(|x| &mut x.span));
        for s in spans {
            *s = self.place(*s);
        }
        for l in &mut f.import_lines {
            *l = self.point(*l, 1).0;
        }
        // a statement's line is kept relative to its definition's: both are moved
        for d in &mut f.flow {
            let first = d.span.line;
            let placed = self.place(d.span);
            for st in &mut d.stmts {
                st.rel = self.point(first + st.rel, 1).0.saturating_sub(placed.line);
            }
            d.span = placed;
        }
    }
}

/// The `In[n]` of a Jupyter cell's code as a traceback or the repro shim names it: `Cell In[n]`
/// (IPython 8), `<ipython-input-n-…>` (IPython 7 and the bare shell, also as a path's last part);
/// 0 for ipykernel's `/tmp/ipykernel_<pid>/<hash>.py`, which names no count (no cell ran as
/// `In[0]`, so such a frame is matched by its code alone).
pub fn cell_number(file: &str) -> Option<u32> {
    if let Some(n) = file.strip_prefix("Cell In[").and_then(|r| r.strip_suffix(']')) {
        return n.parse().ok();
    }
    let mut parts = file.rsplit(['/', '\\']);
    let name = parts.next()?;
    if let Some(rest) = name.strip_prefix("<ipython-input-") {
        return rest.split('-').next()?.parse().ok();
    }
    let in_kernel_dir = parts.next().is_some_and(|d| d.starts_with("ipykernel_"));
    (in_kernel_dir && name.ends_with(".py")).then_some(0)
}

/// Notebooks larger than this (outputs included) are not scanned or searched for a
/// traceback's cell.
pub const MAX_NOTEBOOK: u64 = 64 << 20;

/// The project's notebooks (paths relative to `root`), read once for all the frames to place.
pub fn read_all<'p>(root: &std::path::Path, paths: impl IntoIterator<Item = &'p str>) -> Vec<(&'p str, Notebook)> {
    paths
        .into_iter()
        .filter(|p| p.ends_with(".ipynb"))
        .filter_map(|p| {
            let full = root.join(p);
            if std::fs::metadata(&full).map_or(true, |m| m.len() > MAX_NOTEBOOK) {
                return None;
            }
            Some((p, std::fs::read_to_string(&full).ok().and_then(|t| Notebook::read(&t))?))
        })
        .collect()
}

/// The notebook and its file line for a traceback frame in a Jupyter cell, when one notebook
/// holds the cell better than every other.
pub fn find_frame(notebooks: &[(&str, Notebook)], count: u32, line: u32, code: Option<&str>) -> Option<(String, u32)> {
    let mut best: Option<(u8, &str, u32)> = None;
    let mut tie = false;
    for (path, nb) in notebooks {
        let Some((at, score)) = nb.frame_line(count, line, code) else { continue };
        match &best {
            Some((b, _, _)) if score < *b => {}
            Some((b, _, _)) if score == *b => tie = true,
            _ => {
                best = Some((score, path, at));
                tie = false;
            }
        }
    }
    best.filter(|_| !tie).map(|(_, p, l)| (p.to_string(), l))
}

/// A JSON reader that keeps the line and column it is at.
struct Reader<'a> {
    s: &'a str,
    i: usize,
    line: u32,
    col: u32,
    /// Objects and arrays open around the reader (a file nested deeper than `MAX_DEPTH` is not
    /// a notebook, and reading it would only use up the stack).
    depth: u32,
}

const MAX_DEPTH: u32 = 256;

impl Reader<'_> {
    fn byte(&self) -> Option<u8> {
        self.s.as_bytes().get(self.i).copied()
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.byte()
    }

    /// Steps over one byte; columns count characters (UTF-8 continuation bytes add none).
    fn bump(&mut self) {
        if let Some(b) = self.byte() {
            self.i += 1;
            if b == b'\n' {
                self.line += 1;
                self.col = 1;
            } else if b & 0xC0 != 0x80 {
                self.col += 1;
            }
        }
    }

    fn ws(&mut self) {
        while matches!(self.byte(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.bump();
        }
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        (self.peek()? == b).then(|| self.bump())
    }

    /// `{ "key": value, ... }`, each value read by `each`.
    fn object(&mut self, each: impl FnMut(&mut Self, String) -> Option<()>) -> Option<()> {
        self.nested(|r| r.object_items(each))
    }

    /// Runs `read` one level deeper, refusing past `MAX_DEPTH`.
    fn nested(&mut self, read: impl FnOnce(&mut Self) -> Option<()>) -> Option<()> {
        if self.depth >= MAX_DEPTH {
            return None;
        }
        self.depth += 1;
        let r = read(self);
        self.depth -= 1;
        r
    }

    fn object_items(&mut self, mut each: impl FnMut(&mut Self, String) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        if self.eat(b'}').is_some() {
            return Some(());
        }
        loop {
            self.ws();
            let key = self.string(None)?;
            self.eat(b':')?;
            self.ws();
            each(self, key)?;
            match self.peek()? {
                b',' => self.bump(),
                b'}' => return self.eat(b'}'),
                _ => return None,
            }
        }
    }

    /// `[ value, ... ]`, each value read by `each`.
    fn array(&mut self, each: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.nested(|r| r.array_items(each))
    }

    fn array_items(&mut self, mut each: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.eat(b'[')?;
        if self.eat(b']').is_some() {
            return Some(());
        }
        loop {
            self.ws();
            each(self)?;
            match self.peek()? {
                b',' => self.bump(),
                b']' => return self.eat(b']'),
                _ => return None,
            }
        }
    }

    /// Any value, read and dropped.
    fn skip(&mut self) -> Option<()> {
        match self.peek()? {
            b'{' => self.object(|r, _| r.skip()),
            b'[' => self.array(|r| r.skip()),
            b'"' => self.string(None).map(drop),
            _ => {
                let start = self.i;
                while matches!(self.byte(), Some(b'-' | b'+' | b'.' | b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z')) {
                    self.bump();
                }
                (self.i > start).then_some(())
            }
        }
    }

    /// A string, decoded; with `at`, each character with the place its form starts at, and the
    /// place of the closing quote.
    fn string(&mut self, mut at: Option<&mut Vec<Piece>>) -> Option<String> {
        self.ws();
        if self.byte() != Some(b'"') {
            return None;
        }
        self.bump();
        let mut out = String::new();
        loop {
            let here = (self.line, self.col);
            let c = match self.byte()? {
                b'"' => {
                    self.bump();
                    if let Some(v) = at {
                        v.push((None, here));
                    }
                    return Some(out);
                }
                b'\\' => {
                    self.bump();
                    let e = self.byte()?;
                    self.bump();
                    match e {
                        b'n' => '\n',
                        b't' => '\t',
                        b'r' => '\r',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'/' | b'\\' | b'"' => e as char,
                        b'u' => self.unicode_escape()?,
                        _ => return None,
                    }
                }
                b if b < 0x20 => return None,
                _ => {
                    let c = self.s[self.i..].chars().next()?;
                    for _ in 0..c.len_utf8() {
                        self.bump();
                    }
                    c
                }
            };
            out.push(c);
            if let Some(v) = at.as_deref_mut() {
                v.push((Some(c), here));
            }
        }
    }

    /// The character of `\uXXXX` (the `\u` read), a surrogate pair taking the second escape too.
    fn unicode_escape(&mut self) -> Option<char> {
        let hi = self.hex4()?;
        if (0xD800..0xDC00).contains(&hi) && self.s.as_bytes().get(self.i..self.i + 2) == Some(b"\\u") {
            let save = (self.i, self.line, self.col);
            self.bump();
            self.bump();
            let lo = self.hex4()?;
            if (0xDC00..0xE000).contains(&lo) {
                return char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00));
            }
            (self.i, self.line, self.col) = save;
        }
        Some(char::from_u32(hi).unwrap_or('\u{FFFD}'))
    }

    fn hex4(&mut self) -> Option<u32> {
        let h = self.s.get(self.i..self.i + 4)?;
        let v = u32::from_str_radix(h, 16).ok()?;
        for _ in 0..4 {
            self.bump();
        }
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NB: &str = r##"{
 "cells": [
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": ["# Title\n", "y = y + 1\n"]
  },
  {
   "cell_type": "code",
   "execution_count": 3,
   "metadata": {"tags": [], "x": null, "n": -1.5e3, "ok": true},
   "outputs": [{"output_type": "stream", "text": ["a\n"]}],
   "source": [
    "%matplotlib inline\n",
    "s = \"caf\u00e9\"; y = y - 1\n",
    "z = 2"
   ]
  },
  {
   "cell_type": "code",
   "source": "a = 1\nb = 2\n"
  }
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}
"##;

    #[test]
    fn code_cells_joined_and_placed_in_the_file() {
        let nb = Notebook::read(NB).unwrap();
        assert_eq!(nb.code, "#%matplotlib inline\ns = \"café\"; y = y - 1\nz = 2\na = 1\nb = 2\n");
        // `y` on the second code line: column 13 of the joined line; in the file, line 15, after
        // the indent and quote, and the escapes (`\"`, `\u00e9`) that stand for one character each
        let file_line = NB.lines().nth(14).unwrap();
        assert!(file_line.contains("y = y - 1"));
        let y_col = file_line.find("y = y").unwrap() as u32 + 1;
        assert_eq!(nb.point(2, 13), (15, y_col));
        // the magic's `#` is not in the file: its first character is the `%` after the quote
        assert_eq!(nb.point(1, 2), (14, 6));
        // a source saved as one string: both lines on the string's line
        let line = NB.lines().position(|l| l.contains("\"a = 1")).unwrap() as u32 + 1;
        let b_col = NB.lines().nth(line as usize - 1).unwrap().find("b = 2").unwrap() as u32 + 1;
        assert_eq!(nb.point(4, 1).0, line);
        assert_eq!(nb.point(5, 1), (line, b_col));
        // one past a line's last character: its closing quote
        assert_eq!(nb.point(3, 6), (16, 11));
        assert_eq!(nb.point(2, 22), (15, file_line.find("\\n").unwrap() as u32 + 1));
    }

    #[test]
    fn facts_of_a_notebook_point_into_it() {
        let nb = Notebook::read(NB).unwrap();
        let mut f = super::super::python::scan_source("n.ipynb", &nb.code);
        nb.place_facts(&mut f);
        let y = f.assigns.iter().find(|a| a.target == "y").unwrap();
        assert_eq!((y.span.line, y.span.end_line), (15, 15));
        assert_eq!(y.shift, Some(-1));
    }

    #[test]
    fn traceback_frames_find_their_cell() {
        let nb = Notebook::read(NB).unwrap();
        // the cell saved as In[3]: its second line
        assert_eq!(nb.frame_line(3, 2, Some("s = \"café\"; y = y - 1")), Some((15, 2)));
        assert_eq!(nb.frame_line(3, 3, None), Some((16, 2)));
        // the printed code disagrees: the cell was edited after it ran
        assert_eq!(nb.frame_line(3, 3, Some("z = 3")), None);
        // no cell ran as In[7]: the text alone, where one line of one cell has it
        assert_eq!(nb.frame_line(7, 2, Some("b = 2")), Some((nb.frame_line(7, 1, Some("a = 1")).unwrap().0, 1)));
        assert_eq!(nb.frame_line(7, 2, None), None);
        // a frame without a line (`<ipython-input-3-…>`): the line of In[3] that reads as the code
        assert_eq!(nb.frame_line(3, 0, Some("z = 2")), Some((16, 2)));
    }

    #[test]
    fn cell_names() {
        assert_eq!(cell_number("Cell In[11]"), Some(11));
        assert_eq!(cell_number("<ipython-input-5-2d3c4e>"), Some(5));
        assert_eq!(cell_number("/tmp/nb/<ipython-input-5-110da7771b2c>"), Some(5));
        assert_eq!(cell_number("/tmp/ipykernel_2431/3016913371.py"), Some(0));
        assert_eq!(cell_number("C:\\Users\\u\\AppData\\Local\\Temp\\ipykernel_9\\1.py"), Some(0));
        assert_eq!(cell_number("train.py"), None);
        assert_eq!(cell_number("/tmp/ipykernel_2431/notes.txt"), None);
    }

    /// Every code line of the fixture notebooks (and of the notebooks under
    /// `$CUDASLEUTH_NOTEBOOKS`, when set) is found where its escaped form stands in the file.
    #[test]
    fn every_line_maps_to_its_escaped_form() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut dirs = vec![root.join("fixtures/projects")];
        dirs.extend(std::env::var_os("CUDASLEUTH_NOTEBOOKS").map(std::path::PathBuf::from));
        let mut checked = 0;
        for dir in dirs {
            for e in ignore::WalkBuilder::new(dir).build().flatten() {
                if e.path().extension().map_or(true, |x| x != "ipynb") {
                    continue;
                }
                let json = std::fs::read_to_string(e.path()).unwrap();
                let nb = Notebook::read(&json).unwrap_or_else(|| panic!("{}", e.path().display()));
                let file: Vec<&str> = json.lines().collect();
                for (i, line) in nb.code.lines().enumerate() {
                    let text = line.strip_prefix('#').filter(|_| nb.lines[i].added == 1).unwrap_or(line);
                    if text.is_empty() {
                        continue;
                    }
                    let (l, c) = nb.point(i as u32 + 1, nb.lines[i].added + 1);
                    let escaped = serde_json::to_string(text).unwrap();
                    let escaped = &escaped[1..escaped.len() - 1];
                    let at: String = file[l as usize - 1].chars().skip(c as usize - 1).collect();
                    assert!(at.starts_with(escaped), "{}:{l}:{c}: {at:?} does not start with {escaped:?}", e.path().display());
                    checked += 1;
                }
            }
        }
        assert!(checked > 50, "{checked}");
    }

    #[test]
    fn not_a_notebook() {
        for bad in ["", "[]", "{\"cells\": [ this is not json", "{\"cells\": []} trailing", "{\"cells\": [{\"source\": \"\\x\"}]}"] {
            assert!(Notebook::read(bad).is_none(), "{bad}");
        }
        assert_eq!(Notebook::read("{\"cells\": []}").unwrap().code, "");
        // nesting that would use up the stack is refused, not followed
        let deep = format!("{{\"cells\": [], \"metadata\": {}{}}}", "[".repeat(1_000_000), "]".repeat(1_000_000));
        assert!(Notebook::read(&deep).is_none());
        let ok = format!("{{\"cells\": [], \"metadata\": {}{}}}", "[".repeat(200), "]".repeat(200));
        assert!(Notebook::read(&ok).is_some());
    }
}
