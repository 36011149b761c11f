//! Python tracebacks as they reach logs: plain CPython (with 3.11+ caret lines), IPython /
//! Jupyter (`Cell In[11], line 13`, `<ipython-input-..>`, `File path:N, in f`), rich's boxed
//! form, and any of them behind `[rankN]:` prefixes.

use std::sync::OnceLock;

use regex::Regex;

#[derive(Debug, Clone)]
pub struct RawFrame {
    pub file: String,
    pub line: u32,
    pub function: Option<String>,
    pub code: Option<String>,
    /// The sub-expression the caret line (`^^^^`) marks, when printed.
    pub focus: Option<String>,
    pub cell: Option<String>,
    pub rank: Option<u32>,
    pub log_line: u64,
    /// Indentation of the code line, to line up the caret line under it.
    code_indent: usize,
}

#[derive(Debug, Clone, Default)]
pub struct Traceback {
    pub frames: Vec<RawFrame>,
    pub exception: Option<(String, String, u64)>,
    pub rank: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Nothing,
    /// The source line under a `File "...", line N` frame.
    Code,
    /// An IPython frame without a line number: the `---->` arrow line gives it.
    Arrow,
}

const MAX_TRACEBACK_LINES: usize = 4000;

pub struct TracebackParser {
    lines_in_cur: usize,
    done: Vec<Traceback>,
    cur: Option<Traceback>,
    expect: Expect,
    rich_path_prefix: String,
    max_tracebacks: usize,
    dropped: u64,
}

struct Patterns {
    plain: Regex,
    ipy_file: Regex,
    cell: Regex,
    ipy_input: Regex,
    ipy7_file: Regex,
    arrow: Regex,
    rich_frame: Regex,
    rich_code: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns {
        plain: Regex::new(r#"^\s*File "(.+?)", line (\d+)(?:, in (.+?))?\s*$"#).unwrap(),
        // `File path:N, in f`, or JupyterLab's linked `File [path:N](http://…#line=N-1), in f`
        ipy_file: Regex::new(r"^\s*File \[?(\S.*?):(\d+)(?:\]\([^)\s]*\))?, in (.+?)\s*$").unwrap(),
        cell: Regex::new(r"^\s*(Cell In\[\d+\]), \[?line (\d+)\]?(?:\([^)]*\))?(?:, in (.+?))?\s*$").unwrap(),
        // `<ipython-input-5-…> in <module>()`, `in f(a, b)`, Colab's `in <cell line: 82>()`
        ipy_input: Regex::new(r"^\s*(<ipython-input-[^>]+>) in (<[^>]*>|[^\s(]+)(?:\(.*)?\s*$").unwrap(),
        ipy7_file: Regex::new(r"^\s*((?:/|~/|[A-Za-z]:\\)\S+\.py) in (\w+)\(.*$").unwrap(),
        arrow: Regex::new(r"^\s*-+> ?\[?(\d+)\]?(?:\([^)]*\))?\s?(.*)$").unwrap(),
        rich_frame: Regex::new(r"^(\S+?):(\d+) in (\S+)$").unwrap(),
        rich_code: Regex::new(r"^❱\s*(\d+)\s*│(.*)$").unwrap(),
    })
}

impl Default for TracebackParser {
    fn default() -> Self {
        TracebackParser {
            lines_in_cur: 0,
            done: Vec::new(),
            cur: None,
            expect: Expect::Nothing,
            rich_path_prefix: String::new(),
            max_tracebacks: 64,
            dropped: 0,
        }
    }
}

impl TracebackParser {
    /// True while the next line belongs to the frame just read (its code or arrow line),
    /// whatever it contains.
    /// True while the next line belongs to the traceback being read (frames, code lines,
    /// IPython arrows, rich boxes), whatever it contains; bounded for tracebacks that never end.
    pub fn wants_next(&self) -> bool {
        self.expect != Expect::Nothing
            || !self.rich_path_prefix.is_empty()
            || self.cur.as_ref().is_some_and(|t| self.lines_in_cur < MAX_TRACEBACK_LINES && !t.frames.is_empty() || self.lines_in_cur < 8)
    }

    /// Feeds one cleaned line. Returns true when the line was part of a traceback.
    pub fn feed(&mut self, text: &str, lineno: u64, rank: Option<u32>) -> bool {
        let p = patterns();
        self.lines_in_cur += 1;
        let expect = std::mem::replace(&mut self.expect, Expect::Nothing);
        let trimmed = text.trim();

        if trimmed.contains("Traceback (most recent call last)") {
            self.finish();
            self.cur = Some(Traceback { rank, ..Default::default() });
            self.lines_in_cur = 0;
            return true;
        }
        if let Some(rich) = rich_inner(trimmed) {
            return self.feed_rich(rich, lineno, rank);
        }
        if expect == Expect::Code {
            if let Some(focus) = caret_focus(text, self.last_frame()) {
                if let Some(f) = self.last_frame_mut() {
                    f.focus = Some(focus);
                }
                return true;
            }
            if !trimmed.is_empty() && !starts_frame(trimmed) && crate::log::host::exception_line(trimmed).is_none() {
                if let Some(f) = self.last_frame_mut() {
                    f.code = Some(trimmed.to_string());
                    f.code_indent = text.len() - text.trim_start().len();
                }
                self.expect = Expect::Code; // a caret line may follow
                return true;
            }
        }
        if expect == Expect::Arrow || expect == Expect::Code {
            if let Some(c) = p.arrow.captures(text) {
                if let Some(f) = self.last_frame_mut() {
                    if f.line == 0 || expect == Expect::Arrow {
                        f.line = c[1].parse().unwrap_or(0);
                    }
                    f.code = Some(c[2].trim().to_string());
                }
                return true;
            }
            if expect == Expect::Arrow && (trimmed.is_empty() || trimmed.chars().next().is_some_and(|c| c.is_ascii_digit())) {
                // context lines ("     11 # comment") before the arrow
                self.expect = Expect::Arrow;
                return true;
            }
        }
        // Most selected lines are not frames: skip the patterns unless a frame marker is there.
        let maybe_frame = trimmed.starts_with("File ")
            || trimmed.starts_with("Cell In[")
            || trimmed.starts_with("<ipython-input")
            || trimmed.contains(".py in ");
        if !maybe_frame {
            if let Some((ty, msg)) = crate::log::host::exception_line(trimmed) {
                if let Some(tb) = self.cur.as_mut() {
                    tb.exception = Some((ty.to_string(), msg.to_string(), lineno));
                    self.finish();
                    return true;
                }
            }
            return false;
        }
        if let Some(c) = p.plain.captures(text) {
            self.push_frame(&c[1], c[2].parse().unwrap_or(0), c.get(3).map(|m| m.as_str()), None, lineno, rank);
            self.expect = Expect::Code;
            return true;
        }
        if let Some(c) = p.cell.captures(text) {
            let cell = c[1].trim_start_matches("Cell ").to_string();
            self.push_frame(&c[1], c[2].parse().unwrap_or(0), c.get(3).map(|m| m.as_str()), Some(cell), lineno, rank);
            self.expect = Expect::Arrow;
            return true;
        }
        if let Some(c) = p.ipy_file.captures(text) {
            self.push_frame(&c[1], c[2].parse().unwrap_or(0), Some(&c[3]), None, lineno, rank);
            self.expect = Expect::Arrow;
            return true;
        }
        if let Some(c) = p.ipy_input.captures(text) {
            let cell = c[1].to_string();
            self.push_frame(&c[1], 0, Some(&c[2]), Some(cell), lineno, rank);
            self.expect = Expect::Arrow;
            return true;
        }
        if let Some(c) = p.ipy7_file.captures(text) {
            self.push_frame(&c[1], 0, Some(&c[2]), None, lineno, rank);
            self.expect = Expect::Arrow;
            return true;
        }
        if let Some((ty, msg)) = crate::log::host::exception_line(trimmed) {
            if let Some(tb) = self.cur.as_mut() {
                tb.exception = Some((ty.to_string(), msg.to_string(), lineno));
                self.finish();
                return true;
            }
            // IPython prints "AcceleratorError    Traceback (most recent call last)" first, so a
            // bare exception line with a pending notebook traceback lands above; otherwise it
            // stands alone and the host-message reader handles it.
        }
        false
    }

    fn feed_rich(&mut self, inner: &str, lineno: u64, rank: Option<u32>) -> bool {
        let p = patterns();
        if let Some(c) = p.rich_code.captures(inner) {
            if let Some(f) = self.last_frame_mut() {
                f.code = Some(c[2].trim().to_string());
            }
            return true;
        }
        let joined = if self.rich_path_prefix.is_empty() {
            inner.to_string()
        } else {
            format!("{}{}", std::mem::take(&mut self.rich_path_prefix), inner)
        };
        if let Some(c) = p.rich_frame.captures(&joined) {
            if self.cur.is_none() {
                self.cur = Some(Traceback { rank, ..Default::default() });
            }
            self.push_frame(&c[1], c[2].parse().unwrap_or(0), Some(&c[3]), None, lineno, rank);
            return true;
        }
        // rich wraps a long path over several box lines, breaking after a separator
        if (joined.ends_with('/') || joined.ends_with('\\')) && !joined.contains(' ') && joined.len() < 4096 {
            self.rich_path_prefix = joined;
        }
        true
    }

    fn push_frame(&mut self, file: &str, line: u32, function: Option<&str>, cell: Option<String>, lineno: u64, rank: Option<u32>) {
        let tb = self.cur.get_or_insert_with(|| Traceback { rank, ..Default::default() });
        if tb.frames.len() >= 512 {
            tb.frames.remove(0);
        }
        tb.frames.push(RawFrame {
            file: file.to_string(),
            line,
            function: function.map(str::to_string),
            code: None,
            focus: None,
            cell,
            rank,
            log_line: lineno,
            code_indent: 0,
        });
    }

    fn last_frame(&self) -> Option<&RawFrame> {
        self.cur.as_ref().and_then(|t| t.frames.last())
    }

    fn last_frame_mut(&mut self) -> Option<&mut RawFrame> {
        self.cur.as_mut().and_then(|t| t.frames.last_mut())
    }

    fn finish(&mut self) {
        self.rich_path_prefix.clear();
        self.lines_in_cur = 0;
        if let Some(tb) = self.cur.take() {
            if tb.frames.is_empty() && tb.exception.is_none() {
                return;
            }
            if self.done.len() >= self.max_tracebacks {
                // keep the first and the most recent ones
                self.done.remove(1);
                self.dropped += 1;
            }
            self.done.push(tb);
        }
    }

    pub fn into_tracebacks(mut self) -> (Vec<Traceback>, u64) {
        self.finish();
        (self.done, self.dropped)
    }
}

fn starts_frame(t: &str) -> bool {
    t.starts_with("File ")
        || t.starts_with("Traceback")
        || t.starts_with("Cell In[")
        || t.starts_with("During handling")
        || t.starts_with("The above exception")
}

/// The text inside a rich box line `│ ... │`, if this is one.
fn rich_inner(t: &str) -> Option<&str> {
    let inner = t.strip_prefix('│')?;
    let inner = inner.strip_suffix('│').unwrap_or(inner);
    Some(inner.trim())
}

/// Reads a CPython 3.11+ caret line (`   ^^^^^^^` or `~~~~^^^^`) under the frame's code line and
/// returns the marked text.
fn caret_focus(text: &str, frame: Option<&RawFrame>) -> Option<String> {
    let t = text.trim_end();
    let body = t.trim_start();
    if body.is_empty() || !body.chars().all(|c| c == '^' || c == '~') {
        return None;
    }
    let frame = frame?;
    let code = frame.code.as_deref()?;
    let indent = t.len() - body.len();
    let offset = indent.checked_sub(frame.code_indent)?;
    let chars: Vec<char> = code.chars().collect();
    if offset >= chars.len() {
        return None;
    }
    let end = (offset + body.chars().count()).min(chars.len());
    Some(chars[offset..end].iter().collect())
}

/// Frames in installed packages and the standard library are not the user's.
pub fn is_library_path(path: &str) -> bool {
    let p = path.replace('\\', "/");
    const MARKERS: [&str; 9] = [
        "site-packages/",
        "dist-packages/",
        "/lib/python",
        "/lib64/python",
        "/Lib/",
        "<frozen ",
        "/usr/lib/python",
        "/torch/",
        "/.pyenv/versions/",
    ];
    MARKERS.iter().any(|m| p.contains(m)) || p.starts_with("<frozen")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(lines: &[&str]) -> Vec<Traceback> {
        let mut p = TracebackParser::default();
        for (i, l) in lines.iter().enumerate() {
            p.feed(l, i as u64 + 1, None);
        }
        p.into_tracebacks().0
    }

    #[test]
    fn plain_with_carets() {
        let tbs = run(&[
            "Traceback (most recent call last):",
            "  File \"/tmp/t.py\", line 8, in <module>",
            "    out = model(x); loss = F.cross_entropy(out, y); loss.backward()",
            "                           ^^^^^^^^^^^^^^^^^^^^^^^",
            "  File \"/venv/lib/python3.12/site-packages/torch/nn/functional.py\", line 3504, in cross_entropy",
            "    return torch._C._nn.cross_entropy_loss(",
            "torch.AcceleratorError: CUDA error: device-side assert triggered",
        ]);
        assert_eq!(tbs.len(), 1);
        let f = &tbs[0].frames[0];
        assert_eq!((f.file.as_str(), f.line), ("/tmp/t.py", 8));
        assert_eq!(f.focus.as_deref(), Some("F.cross_entropy(out, y)"));
        assert_eq!(tbs[0].exception.as_ref().unwrap().0, "torch.AcceleratorError");
        assert!(is_library_path(&tbs[0].frames[1].file));
    }

    #[test]
    fn notebook_cells() {
        let tbs = run(&[
            "AcceleratorError                          Traceback (most recent call last)",
            "Cell In[11], [line 13](vscode-notebook-cell:?execution_count=11&line=13)",
            "     11 # 2. Calculate loss and accuracy",
            "---> [13](vscode-notebook-cell:?execution_count=11&line=13) acc = accuracy_cal(y_pred, y_train)",
            "",
            "Cell In[8], line 2, in accuracy_cal(y_pred, y_true)",
            "      1 def accuracy_cal(y_pred, y_true):",
            "----> 2     correct = torch.eq(y_true, y_pred).sum().item()",
            "AcceleratorError: CUDA error: device-side assert triggered",
        ]);
        let frames: Vec<_> = tbs[0].frames.iter().map(|f| (f.file.clone(), f.line)).collect();
        assert_eq!(frames, [("Cell In[11]".to_string(), 13), ("Cell In[8]".to_string(), 2)]);
        assert_eq!(tbs[0].frames[1].code.as_deref(), Some("correct = torch.eq(y_true, y_pred).sum().item()"));
    }

    #[test]
    fn jupyterlab_linked_files() {
        // public log 247 (JupyterLab renders each frame's file as a link)
        let tbs = run(&[
            "File [~/miniconda3/envs/segger-env/lib/python3.10/site-packages/torch/nn/modules/sparse.py:190](http://localhost:8083/lab/workspaces/auto-I/tree/postdoctoral/spatial_t/~/miniconda3/envs/segger-env/lib/python3.10/site-packages/torch/nn/modules/sparse.py#line=189), in Embedding.forward(self, input)",
            "    189 def forward(self, input: Tensor) -> Tensor:",
            "--> 190     return F.embedding(",
            "RuntimeError: CUDA error: device-side assert triggered",
        ]);
        let f = &tbs[0].frames[0];
        assert_eq!(
            (f.file.as_str(), f.line),
            ("~/miniconda3/envs/segger-env/lib/python3.10/site-packages/torch/nn/modules/sparse.py", 190)
        );
        assert_eq!(f.function.as_deref(), Some("Embedding.forward(self, input)"));
    }

    #[test]
    fn old_ipython_input() {
        let tbs = run(&[
            "RuntimeError                              Traceback (most recent call last)",
            "<ipython-input-5-2d3c4e> in <module>()",
            "      1 x = 1",
            "----> 2 loss = criterion(out, y)",
            "RuntimeError: CUDA error: device-side assert triggered",
        ]);
        assert_eq!(tbs[0].frames[0].line, 2);
    }

    #[test]
    fn colab_cell_line_names() {
        // IPython 7.34 on Colab names a cell's frame by its line (a public notebook's output)
        let tbs = run(&[
            "RuntimeError                              Traceback (most recent call last)",
            "<ipython-input-60-07dc6f7b23e2> in <cell line: 82>()",
            "     80 single_image = train_features_batch[0].unsqueeze(0)",
            "     81 ",
            "---> 82 output = model_2(single_image)",
            "     83 ",
            "RuntimeError: mat1 and mat2 shapes cannot be multiplied (1x490 and 10x10)",
        ]);
        let f = &tbs[0].frames[0];
        assert_eq!((f.file.as_str(), f.line, f.function.as_deref()), ("<ipython-input-60-07dc6f7b23e2>", 82, Some("<cell line: 82>")));
        assert_eq!(f.code.as_deref(), Some("output = model_2(single_image)"));
    }

    #[test]
    fn rich_boxed() {
        let tbs = run(&[
            "╭───────────────────── Traceback (most recent call last) ──────────────────────╮",
            "│ /home/u/proj/train.py:30 in <module>                                         │",
            "│                                                                              │",
            "│ ❱ 30 │   loss = criterion(out, y)                                            │",
            "│ /home/u/venv/lib/python3.10/site-packages/torch/nn/modules/module.py:1501 in │",
            "│ /home/u/very/long/path/that/wraps/                                           │",
            "│ model.py:12 in forward                                                       │",
            "╰──────────────────────────────────────────────────────────────────────────────╯",
            "RuntimeError: CUDA error: device-side assert triggered",
        ]);
        let f: Vec<_> = tbs[0].frames.iter().map(|f| (f.file.as_str(), f.line)).collect();
        assert_eq!(f, [("/home/u/proj/train.py", 30), ("/home/u/very/long/path/that/wraps/model.py", 12)]);
        assert_eq!(tbs[0].frames[0].code.as_deref(), Some("loss = criterion(out, y)"));
        assert!(tbs[0].exception.is_some());
    }
}
