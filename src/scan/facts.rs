//! What the scan records about a Python file: plain data, serializable (the lint cache stores
//! it with bincode, so every field is always written), with 1-based lines and columns in code
//! points.

use serde::{Deserialize, Serialize};

/// Text in the facts: names, callee and argument texts. Most are short and are kept inline
/// (no allocation of their own), which makes the facts of a large project faster to decode.
pub type Text = compact_str::CompactString;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Span {
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

/// The class and function a line sits in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Scope {
    pub class: Option<Text>,
    pub function: Option<Text>,
}

impl Scope {
    pub fn qualified(&self) -> String {
        match (&self.class, &self.function) {
            (Some(c), Some(f)) => format!("{c}.{f}"),
            (None, Some(f)) => f.to_string(),
            (Some(c), None) => c.to_string(),
            (None, None) => "<module>".to_string(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Arg {
    /// Keyword name, or None for a positional argument.
    pub name: Option<Text>,
    pub text: Text,
    /// The value when it is an integer literal (`3`, `-100`).
    pub int: Option<i64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Call {
    /// The callee as written: `nn.CrossEntropyLoss`, `F.cross_entropy`, `self.fc`, `tokenizer.add_tokens`.
    pub func: Text,
    /// Its last segment: `CrossEntropyLoss`, `cross_entropy`, `fc`, `add_tokens`.
    pub name: Text,
    pub args: Vec<Arg>,
    pub span: Span,
    pub scope: Scope,
    /// `criterion` in `criterion = nn.CrossEntropyLoss()`, `self.fc` in `self.fc = nn.Linear(..)`.
    pub assigned_to: Option<Text>,
}

impl Call {
    pub fn kwarg(&self, name: &str) -> Option<&Arg> {
        self.args.iter().find(|a| a.name.as_deref() == Some(name))
    }
    pub fn positional(&self, i: usize) -> Option<&Arg> {
        self.args.iter().filter(|a| a.name.is_none()).nth(i)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClassFact {
    pub name: Text,
    pub bases: Vec<Text>,
    pub methods: Vec<Text>,
    pub span: Span,
}

impl ClassFact {
    /// Subclasses of Dataset / IterableDataset, or anything with `__getitem__`.
    pub fn is_dataset(&self) -> bool {
        self.methods.iter().any(|m| m == "__getitem__" || m == "__iter__" && self.bases.iter().any(|b| b.ends_with("Dataset")))
            || self.bases.iter().any(|b| b.ends_with("Dataset"))
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FunctionFact {
    pub name: Text,
    pub class: Option<Text>,
    pub params: Vec<Text>,
    /// The default value of each parameter as written (`None`: no default), aligned with `params`.
    pub defaults: Vec<Option<Text>>,
    /// Whether the function takes `*args` / `**kwargs`.
    pub varargs: bool,
    pub span: Span,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AssignFact {
    /// The target as written: `y`, `self.num_classes`, `mask[mask == 255]`, `cfg.nc`.
    pub target: Text,
    pub value: Text,
    /// `+=`, `-=`, ... for augmented assignments.
    pub op: Option<Text>,
    /// `y = y + 1` / `y += 1` → Some(1); `y = y - 1` → Some(-1).
    pub shift: Option<i64>,
    /// The value when it is an integer literal.
    pub int: Option<i64>,
    /// The number of elements when the value is a list, tuple, set or dict literal.
    pub len: Option<i64>,
    pub span: Span,
    pub scope: Scope,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReturnFact {
    /// Tuple elements (or the single value) as written.
    pub elements: Vec<Text>,
    /// `return {"input_ids": ids, "labels": y}` → [("labels", "y"), ...].
    pub dict: Vec<(Text, Text)>,
    pub span: Span,
    pub scope: Scope,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ForFact {
    pub targets: Vec<Text>,
    pub iter: Text,
    pub span: Span,
    pub scope: Scope,
}

/// The condition of an `if`/`elif`/`while` or of a conditional expression (`a if c else b`),
/// as written: the guards a value passes before it is used.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CondFact {
    pub text: Text,
    pub span: Span,
    pub scope: Scope,
}

/// A column of a CSV/TSV data file the code reads by a literal path (first 10,000 rows): an
/// integer column's range, or (`text`) only the distinct values of any other column.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ColumnFact {
    pub name: Text,
    /// Not all integers: `min` and `max` are 0 and mean nothing.
    pub text: bool,
    pub min: i64,
    pub max: i64,
    /// Distinct values (counted up to 10,000).
    pub distinct: usize,
    pub rows: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct FileFacts {
    /// POSIX path relative to the project root.
    pub path: String,
    pub mentions_torch: bool,
    pub calls: Vec<Call>,
    pub classes: Vec<ClassFact>,
    pub functions: Vec<FunctionFact>,
    pub assigns: Vec<AssignFact>,
    pub returns: Vec<ReturnFact>,
    pub fors: Vec<ForFact>,
    pub conds: Vec<CondFact>,
    pub imports: Vec<Text>,
    /// The line of each import statement, aligned with `imports`.
    pub import_lines: Vec<u32>,
    /// Data files (CSV/TSV): their integer columns.
    pub columns: Vec<ColumnFact>,
    /// The file's statements as expression trees, for the value tracing (`scan::flow`).
    pub flow: Vec<crate::scan::flow::Def>,
    /// The file did not parse cleanly (facts were still read from the parts that did).
    pub parse_errors: bool,
    /// The syntax tree was deeper than the scan walks (`scan::MAX_TREE_DEPTH`): this deep, and
    /// its facts are incomplete (the file is skipped with a warning, never cached).
    #[serde(skip)]
    pub too_deep: usize,
    /// The words of `imports`, computed once when a rule first asks (`imports_module`).
    #[serde(skip)]
    pub import_words: std::sync::OnceLock<std::collections::HashSet<String>>,
}

/// Why the scan skipped a file (its `Display` is the warning's text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SkipReason {
    /// Brackets nested this deep (the scan stops at 1,000; CPython at 200).
    TooDeep(usize),
    /// A syntax tree this deep (the scan stops at `scan::MAX_TREE_DEPTH`): 40,000 signs before
    /// a number, a chain of 2 million calls.
    TreeTooDeep(usize),
    /// Larger than this many MiB.
    TooLarge(u64),
    /// The file could not be read (the system's error).
    Unreadable(String),
    NotUtf8,
    /// A `.ipynb` that is not valid JSON.
    NotNotebook,
}

impl SkipReason {
    /// The warning's code in lint output.
    pub fn code(&self) -> &'static str {
        match self {
            SkipReason::TooDeep(_) | SkipReason::TreeTooDeep(_) => "too-deep",
            SkipReason::TooLarge(_) => "too-large",
            SkipReason::Unreadable(_) => "unreadable",
            SkipReason::NotUtf8 => "not-utf8",
            SkipReason::NotNotebook => "bad-notebook",
        }
    }
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::TooDeep(d) => write!(f, "skipped: brackets nested {d} deep (CPython allows 200)"),
            SkipReason::TreeTooDeep(d) => write!(f, "skipped: expressions nested more than {d} levels deep (deeper than CPython compiles)"),
            SkipReason::TooLarge(mib) => write!(f, "skipped: larger than {mib} MiB"),
            SkipReason::Unreadable(e) => write!(f, "unreadable: {e}"),
            SkipReason::NotUtf8 => f.write_str("skipped: not valid UTF-8"),
            SkipReason::NotNotebook => f.write_str("skipped: not a notebook (invalid JSON)"),
        }
    }
}

/// A skipped file: its project path and why.
pub type Skipped = (String, SkipReason);

/// Everything the scan found in a project.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    pub files: Vec<FileFacts>,
    pub warnings: Vec<Skipped>,
}

impl Facts {
    pub fn calls(&self) -> impl Iterator<Item = (&FileFacts, &Call)> {
        self.files.iter().flat_map(|f| f.calls.iter().map(move |c| (f, c)))
    }
    pub fn assigns(&self) -> impl Iterator<Item = (&FileFacts, &AssignFact)> {
        self.files.iter().flat_map(|f| f.assigns.iter().map(move |a| (f, a)))
    }
    pub fn file(&self, path: &str) -> Option<&FileFacts> {
        self.files.iter().find(|f| f.path == path)
    }
    pub fn file_index(&self, path: &str) -> Option<usize> {
        self.files.iter().position(|f| f.path == path)
    }
}

impl FileFacts {
    /// Whether an import statement of this file names `module` as a word (`import data`,
    /// `from data import X`, `from . import data`, `from pkg.data import X`).
    pub fn imports_module(&self, module: &str) -> bool {
        self.import_words.get_or_init(|| self.import_word_iter().map(str::to_string).collect()).contains(module)
    }

    /// The words of the import statements (`from pkg.data import X` → `from`, `pkg`, `data`, ...).
    pub fn import_word_iter(&self) -> impl Iterator<Item = &str> {
        self.imports.iter().flat_map(|imp| imp.split(|c: char| !(c.is_alphanumeric() || c == '_'))).filter(|w| !w.is_empty())
    }

    /// A config or data file (YAML, JSON, CSV) rather than code.
    pub fn is_config(&self) -> bool {
        is_config_path(&self.path)
    }
}

/// Whether the file at `path` is a config (YAML, JSON, INI, TOML) rather than code.
pub fn is_config_path(path: &str) -> bool {
    [".yaml", ".yml", ".json"].iter().any(|x| path.ends_with(x)) || crate::scan::ini::is_settings_path(path) || is_run_script_path(path)
}

/// Whether the file at `path` is a run script (a shell script, a Makefile or justfile): the
/// flags it passes on command lines are settings of the run.
pub fn is_run_script_path(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.ends_with(".sh") || matches!(name, "Makefile" | "makefile" | "GNUmakefile" | "justfile")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_round_trip_through_the_cache_format() {
        let src = "import torch.nn as nn\nN = 3\nclass Net(nn.Module):\n    def __init__(self, k=2):\n        self.fc = nn.Linear(8, N)\n    def forward(self, x):\n        for a, b in x:\n            if a > 0:\n                return a, b\n";
        let f = crate::scan::python::scan_source("m.py", src);
        let bytes = bincode::serialize(&f).unwrap();
        let back: FileFacts = bincode::deserialize(&bytes).unwrap();
        assert_eq!(bincode::serialize(&back).unwrap(), bytes);
        assert_eq!(back.calls[0].span, Span { line: 5, column: 19, end_line: 5, end_column: 34 });
        assert_eq!(back.calls[0].scope, Scope { class: Some("Net".into()), function: Some("__init__".into()) });
        assert_eq!(back.calls[0].span, f.calls[0].span);
        assert_eq!(back.calls[0].scope, f.calls[0].scope);
    }
}
