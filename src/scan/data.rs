//! Config and data files the code reads by a literal path: `json.load(open("cfg.json"))`,
//! `parser.add_argument("--config", default="configs/x.json")`, `open("labels.csv")`.
//!
//! A JSON config becomes assignments, one per scalar, keyed by its dotted path
//! (`model.n_cls = 2`, at the key's line), so the rules read it like YAML configs and Python
//! constants; a list becomes an assignment with its length. A CSV/TSV file becomes the integer
//! columns of its first 10,000 rows (min, max, distinct values), so that labels read from it
//! can be checked against the class count the code derives.

use std::collections::{BTreeSet, HashSet};
use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::scan::facts::{AssignFact, ColumnFact, FileFacts, Scope, Span};

/// JSON configs larger than this are data, not configs: not read.
pub const MAX_JSON_BYTES: u64 = 1 << 20;
/// Rows of a CSV/TSV file read to learn its columns.
pub const MAX_CSV_ROWS: usize = 10_000;
const MAX_JSON_VALUES: usize = 10_000;
/// The columns kept of the objects a JSON file lists in arrays.
const MAX_JSON_COLUMNS: usize = 256;

/// The data-file paths a Python file names in string literals (call arguments, argparse
/// defaults, assignments): `"configs/x.json"`, `'train.csv'`.
pub fn referenced_paths(f: &FileFacts) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut take = |text: &str| {
        let t = text.trim();
        let inner = t.strip_prefix(['"', '\'']).and_then(|x| x.strip_suffix(['"', '\'']));
        if let Some(p) = inner {
            if names_data_file(p) && !p.contains(['{', '"', '\'', '\n', '*']) {
                out.insert(p.to_string());
            }
        }
    };
    for c in &f.calls {
        for a in &c.args {
            take(&a.text);
            // a literal inside the argument: `root / "tickets.csv"`, `os.path.join(d, "train.csv")`
            if !a.text.trim_start().starts_with(['"', '\'']) {
                for q in ['"', '\''] {
                    let parts: Vec<&str> = a.text.split(q).collect();
                    for inner in parts.iter().skip(1).step_by(2) {
                        take(&format!("{q}{inner}{q}"));
                    }
                }
            }
        }
    }
    for a in &f.assigns {
        take(&a.value);
    }
    out
}

/// Where a literal path named in `from` points inside the project: relative to the project
/// root, else to the naming file's directory. Never leaves the root.
/// Whether `full` is inside `root` once every link on its way is resolved: a data file reached
/// through a linked directory (`data -> /mnt/shared`) is outside the project, and not read.
pub fn inside(root: &Path, full: &Path) -> bool {
    match (std::fs::canonicalize(root), std::fs::canonicalize(full)) {
        (Ok(r), Ok(f)) => f.starts_with(r),
        _ => false,
    }
}

/// Whether a path names a config or data file the scan reads: JSON, CSV, TSV, and the
/// settings files of `crate::scan::ini` (INI, TOML).
pub fn names_data_file(p: &str) -> bool {
    let lower = p.to_ascii_lowercase();
    [".json", ".csv", ".tsv"].iter().any(|x| lower.ends_with(x)) || crate::scan::ini::is_settings_path(&lower)
}

/// The config and data paths a run script passes on its command lines: words that name a
/// config or data file (`names_data_file`) and are plain relative paths (no variable, glob or
/// URL).
pub fn script_paths(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.starts_with('#')) {
        for word in line.split(|c: char| c.is_whitespace() || "\"'=;()`".contains(c)) {
            let plain = !word.is_empty()
                && !word.starts_with('/')
                && !word.contains(['$', '*', '?', '{', '~'])
                && !word.contains("://")
                && names_data_file(word);
            if plain && !out.iter().any(|o| o == word) && out.len() < 64 {
                out.push(word.to_string());
            }
        }
    }
    out
}

/// The flags a run script passes to the Python programs it runs (`python3 cli.py --model cosine
/// --epochs 4`, `python -m pkg.train --num-classes=5`), as settings: each flag's name with
/// dashes as underscores (`num_classes`), its value as written, the integer when it is one, the
/// program (`cli.py`, `pkg.train`) as the scope's function. Lines continued with `\` are read
/// as one, each flag at its own line; words before the program (an environment assignment,
/// `nohup`) and flags with no value (`--fp16`) are left out.
pub fn scan_script(path: &str, text: &str) -> FileFacts {
    let mut facts = FileFacts { path: path.to_string(), ..Default::default() };
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() && facts.assigns.len() < MAX_JSON_VALUES {
        // one command: its words, each with the line it is on
        let mut words: Vec<(u32, String)> = Vec::new();
        loop {
            let raw = lines[i];
            let body = raw.trim_end().strip_suffix('\\');
            let line = body.unwrap_or(raw);
            let code = if line.trim_start().starts_with('#') { "" } else { line };
            let parts = shlex::split(code).unwrap_or_else(|| code.split_whitespace().map(str::to_string).collect());
            words.extend(parts.into_iter().take_while(|w| !w.starts_with('#')).map(|w| (i as u32 + 1, w)));
            i += 1;
            if body.is_none() || i >= lines.len() {
                break;
            }
        }
        let Some(start) =
            words.iter().position(|(_, w)| w.ends_with(".py")).or_else(|| words.iter().position(|(_, w)| w == "-m").map(|k| k + 1))
        else {
            continue;
        };
        let Some((_, program)) = words.get(start).cloned() else { continue };
        let mut k = start + 1;
        while k < words.len() {
            let (line, w) = &words[k];
            k += 1;
            if ["&&", "||", ";", "|", "&", ">", ">>", "2>&1"].contains(&w.as_str()) {
                break;
            }
            let Some(flag) = w.strip_prefix("--").filter(|f| !f.is_empty()) else { continue };
            let (name, value) = match flag.split_once('=') {
                Some((n, v)) => (n.to_string(), v.to_string()),
                None => match words.get(k) {
                    // (a value, not the next flag nor the end of the command; a negative
                    // number is a value)
                    Some((_, v)) if !(v.starts_with('-') && v.parse::<f64>().is_err() || ["&&", "||", ";", "|"].contains(&v.as_str())) => {
                        k += 1;
                        (flag.to_string(), v.clone())
                    }
                    _ => continue,
                },
            };
            let col = lines[*line as usize - 1].find(w.as_str()).map_or(0, |c| c as u32);
            facts.assigns.push(AssignFact {
                target: name.replace('-', "_").into(),
                int: value.parse().ok(),
                value: value.into(),
                op: None,
                shift: None,
                len: None,
                span: Span { line: *line, column: col, end_line: *line, end_column: col + w.len() as u32 },
                scope: Scope { class: None, function: Some(program.as_str().into()) },
            });
        }
    }
    facts
}

pub fn resolve_reference(root: &Path, from: &str, path: &str) -> Option<String> {
    let candidates = reference_candidates(from, path);
    for rel in &candidates {
        let full = root.join(rel);
        let Ok(meta) = std::fs::symlink_metadata(&full) else { continue };
        if meta.is_file() && inside(root, &full) {
            return Some(rel.clone());
        }
    }
    // a path joined to a data directory the code names by a variable (`os.path.join(CFG.input_dir,
    // "train.csv")`): the one top-level directory of the project that holds it
    if candidates.is_empty() {
        return None;
    }
    let clean = path.strip_prefix("./").unwrap_or(path);
    let mut found = None;
    for entry in std::fs::read_dir(root).ok()?.flatten().take(200) {
        let name = entry.file_name().to_string_lossy().to_string();
        if name.starts_with('.') || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let rel = format!("{name}/{clean}");
        if std::fs::symlink_metadata(root.join(&rel)).is_ok_and(|m| m.is_file()) && inside(root, &root.join(&rel)) {
            if found.is_some() {
                return None;
            }
            found = Some(rel);
        }
    }
    found
}

/// The project paths a literal path named in `from` may point to, in the order they are tried
/// (none for a path that would leave the root).
pub fn reference_candidates(from: &str, path: &str) -> Vec<String> {
    let path = path.strip_prefix("./").unwrap_or(path);
    if path.starts_with('/') || path.split('/').any(|c| c == "..") || path.contains('\\') {
        return Vec::new();
    }
    let dir = from.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
    vec![path.to_string(), if dir.is_empty() { path.to_string() } else { format!("{dir}/{path}") }]
}

fn assign(target: String, value: String, int: Option<i64>, len: Option<i64>, line: u32) -> AssignFact {
    AssignFact {
        target: target.into(),
        value: value.into(),
        op: None,
        shift: None,
        int,
        len,
        span: Span { line, column: 1, end_line: line, end_column: 1 },
        scope: Scope::default(),
    }
}

enum Frame {
    /// An object: the key whose value comes next, with its line.
    Object(Option<(String, u32)>),
    /// An array: the key it sits under (if directly under an object key), its line, and the
    /// number of elements seen so far.
    Array(Option<(String, u32)>, i64),
}

/// A JSON config → one assignment per scalar (dotted key path) and per list (its length).
/// Values inside lists are not config keys; the keys of objects listed in an array are columns,
/// one row per object (`"intents": [{"intent_id": 1, …}, …]`), as a CSV file's are. Invalid JSON
/// yields what was read before the error.
pub fn scan_json(path: &str, text: &str) -> FileFacts {
    let mut facts = FileFacts { path: path.to_string(), ..Default::default() };
    // the keys of objects that are an array's elements (`"intents": [{"intent_id": 1, …}, …]`):
    // columns of a table, one row per object
    let mut table: Vec<(String, Col)> = Vec::new();
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut line: u32 = 1;
    let mut i = 0;
    // the dotted path of the keys of the open objects, with arrays marked as `[]`
    let key_path = |stack: &[Frame], key: &str| -> Option<String> {
        let mut parts = Vec::new();
        for f in stack {
            match f {
                Frame::Object(Some((k, _))) => parts.push(k.clone()),
                Frame::Object(None) => {}
                Frame::Array(..) => return None,
            }
        }
        parts.push(key.to_string());
        Some(parts.join("."))
    };
    while i < bytes.len() && facts.assigns.len() < MAX_JSON_VALUES {
        let c = bytes[i];
        match c {
            b'\n' => {
                line += 1;
                i += 1;
            }
            b' ' | b'\t' | b'\r' | b',' => i += 1,
            b'{' => {
                if let Some(Frame::Array(_, n)) = stack.last_mut() {
                    *n += 1;
                }
                stack.push(Frame::Object(None));
                i += 1;
            }
            b'[' => {
                let under = match stack.last_mut() {
                    Some(Frame::Object(k)) => k.clone(),
                    Some(Frame::Array(_, n)) => {
                        *n += 1;
                        None
                    }
                    None => None,
                };
                stack.push(Frame::Array(under, 0));
                i += 1;
            }
            b'}' => {
                stack.pop();
                if let Some(Frame::Object(k)) = stack.last_mut() {
                    *k = None;
                }
                i += 1;
            }
            b']' => {
                let closed = stack.pop();
                if let Some(Frame::Object(k)) = stack.last_mut() {
                    *k = None;
                }
                if let Some(Frame::Array(Some((key, at)), n)) = closed {
                    if let Some(full) = key_path(&stack, &key) {
                        facts.assigns.push(assign(full, format!("[{n} items]"), None, Some(n), at));
                    }
                }
                i += 1;
            }
            b':' => i += 1,
            _ => {
                // a string or a bare scalar
                let start = i;
                let start_line = line;
                let token = if c == b'"' {
                    i += 1;
                    while i < bytes.len() && bytes[i] != b'"' {
                        if bytes[i] == b'\\' {
                            i += 1;
                        }
                        if i < bytes.len() && bytes[i] == b'\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                    i += 1;
                    text.get(start..i.min(bytes.len())).unwrap_or("")
                } else {
                    while i < bytes.len() && !matches!(bytes[i], b',' | b'}' | b']' | b'\n' | b' ' | b'\t' | b'\r' | b':') {
                        i += 1;
                    }
                    if i == start {
                        i += 1;
                        continue;
                    }
                    text.get(start..i).unwrap_or("")
                };
                match stack.last_mut() {
                    Some(Frame::Object(k @ None)) => {
                        // a key: remember it until its value
                        let key = token.trim_matches('"').to_string();
                        *k = Some((key, start_line));
                    }
                    Some(Frame::Object(k @ Some(_))) => {
                        let (key, at) = k.take().unwrap();
                        if let Some(full) = key_path(&stack, &key) {
                            let int = token.parse::<i64>().ok();
                            facts.assigns.push(assign(full, token.chars().take(200).collect(), int, None, at));
                        } else if matches!(stack.get(stack.len().wrapping_sub(2)), Some(Frame::Array(..))) {
                            let at = match table.iter().position(|(k, _)| *k == key) {
                                Some(at) => Some(at),
                                // (a table of at most this many columns: one with more keys is
                                // not a table)
                                None if table.len() < MAX_JSON_COLUMNS => {
                                    table.push((key, Col::default()));
                                    Some(table.len() - 1)
                                }
                                None => None,
                            };
                            if let Some(at) = at {
                                table[at].1.add(token.trim_matches('"'));
                            }
                        }
                    }
                    Some(Frame::Array(_, n)) => *n += 1,
                    None => {}
                }
            }
        }
    }
    facts.columns = table.into_iter().filter_map(|(name, c)| c.fact(name)).collect();
    facts
}

/// What a column's cells were seen to hold.
struct Col {
    ints: bool,
    min: i64,
    max: i64,
    seen: HashSet<i64>,
    words: HashSet<u64>,
    rows: usize,
}

impl Default for Col {
    fn default() -> Col {
        Col { ints: true, min: i64::MAX, max: i64::MIN, seen: HashSet::new(), words: HashSet::new(), rows: 0 }
    }
}

impl Col {
    /// One cell (an empty one is not counted).
    fn add(&mut self, v: &str) {
        if v.is_empty() {
            return;
        }
        if self.words.len() < MAX_CSV_ROWS {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            v.hash(&mut h);
            self.words.insert(h.finish());
        }
        self.rows += 1;
        if !self.ints {
            return;
        }
        match v.parse::<i64>() {
            Ok(n) => {
                self.min = self.min.min(n);
                self.max = self.max.max(n);
                if self.seen.len() < MAX_CSV_ROWS {
                    self.seen.insert(n);
                }
            }
            Err(_) => self.ints = false,
        }
    }

    fn fact(self, name: String) -> Option<ColumnFact> {
        if name.is_empty() || self.rows == 0 {
            return None;
        }
        Some(match self.ints {
            true => ColumnFact { name: name.into(), text: false, min: self.min, max: self.max, distinct: self.seen.len(), rows: self.rows },
            false => ColumnFact { name: name.into(), text: true, min: 0, max: 0, distinct: self.words.len(), rows: self.rows },
        })
    }
}

/// The integer columns of a CSV (or TSV) file's first rows.
pub fn scan_csv(path: &str, full: &Path) -> Option<FileFacts> {
    let file = std::fs::File::open(full).ok()?;
    let reader = BufReader::new(file);
    let delim = if path.to_ascii_lowercase().ends_with(".tsv") { '\t' } else { ',' };
    let mut lines = reader.lines();
    let header = lines.next()?.ok()?;
    let names: Vec<String> = split_row(&header, delim).into_iter().map(|n| n.trim().trim_matches('"').to_string()).collect();
    let mut cols: Vec<Col> = names.iter().map(|_| Col::default()).collect();
    for row in lines.take(MAX_CSV_ROWS) {
        let Ok(row) = row else { break };
        if row.trim().is_empty() {
            continue;
        }
        for (c, v) in cols.iter_mut().zip(split_row(&row, delim)) {
            c.add(v.trim().trim_matches('"'));
        }
    }
    let columns = names.into_iter().zip(cols).filter_map(|(name, c)| c.fact(name)).collect();
    Some(FileFacts { path: path.to_string(), columns, ..Default::default() })
}

fn split_row(row: &str, delim: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut quoted = false;
    let mut start = 0;
    for (i, c) in row.char_indices() {
        if c == '"' {
            quoted = !quoted;
        } else if c == delim && !quoted {
            out.push(&row[start..i]);
            start = i + c.len_utf8();
        }
    }
    out.push(&row[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get<'a>(f: &'a FileFacts, t: &str) -> Option<&'a AssignFact> {
        f.assigns.iter().find(|a| a.target == t)
    }

    #[test]
    fn a_run_script_gives_the_flags_it_passes_to_each_program() {
        let text = "#!/bin/bash\nset -e\n# python3 old.py --model mlp\nCUDA_VISIBLE_DEVICES=0 python3 make_data.py --out data --seed=3\npython -m pkg.train \\\n    --num-classes 12 --fp16 \\\n    --lr -0.5 --name \"two words\" && echo done --skip 1\n";
        let f = scan_script("run.sh", text);
        let seed = get(&f, "seed").unwrap();
        assert_eq!((seed.int, seed.span.line, seed.scope.function.as_deref()), (Some(3), 4, Some("make_data.py")));
        let n = get(&f, "num_classes").unwrap();
        assert_eq!((n.int, n.span.line, n.scope.function.as_deref()), (Some(12), 6, Some("pkg.train")));
        assert_eq!(get(&f, "out").map(|a| a.value.as_str()), Some("data"));
        assert_eq!(get(&f, "lr").map(|a| (a.value.as_str(), a.span.line)), Some(("-0.5", 7)));
        assert_eq!(get(&f, "name").map(|a| a.value.as_str()), Some("two words"));
        // a flag with no value, a commented line, words after the command ends: none
        assert!(get(&f, "fp16").is_none() && get(&f, "model").is_none() && get(&f, "skip").is_none(), "{:?}", f.assigns);
    }

    #[test]
    fn json_keys_become_dotted_assignments_at_their_lines() {
        let text = "{\n  \"experiment\": \"x\",\n  \"model\": {\n    \"arch\": \"resnet8\",\n    \"n_cls\": 2\n  },\n  \"temperature\": 0.0,\n  \"sizes\": [1, 2, {\"a\": 3}],\n  \"after\": -4\n}\n";
        let f = scan_json("c.json", text);
        let n = get(&f, "model.n_cls").unwrap();
        assert_eq!((n.int, n.span.line), (Some(2), 5));
        assert_eq!(get(&f, "model.arch").unwrap().value, "\"resnet8\"");
        assert_eq!(get(&f, "temperature").unwrap().value, "0.0");
        assert_eq!(get(&f, "sizes").unwrap().len, Some(3));
        assert!(get(&f, "a").is_none() && get(&f, "sizes.a").is_none(), "values inside lists are not config keys");
        assert_eq!(get(&f, "after").unwrap().int, Some(-4));
    }

    #[test]
    fn the_keys_of_objects_in_an_array_are_columns() {
        let text =
            "{\"source\": \"crm\", \"intents\": [\n {\"id\": 1, \"name\": \"a\"},\n {\"id\": 4, \"name\": \"b\"},\n {\"id\": 2}\n]}\n";
        let f = scan_json("intents.json", text);
        let id = f.columns.iter().find(|c| c.name == "id").unwrap();
        assert_eq!((id.text, id.min, id.max, id.distinct, id.rows), (false, 1, 4, 3, 3));
        let name = f.columns.iter().find(|c| c.name == "name").unwrap();
        assert_eq!((name.text, name.distinct, name.rows), (true, 2, 2));
        assert!(f.columns.iter().all(|c| c.name != "source"), "a top-level key is a setting, not a column");
        assert_eq!(get(&f, "intents").unwrap().len, Some(3));
    }

    #[test]
    fn literal_paths_are_found_and_stay_inside_the_root() {
        let f = crate::scan::python::scan_source(
            "train.py",
            "p.add_argument('--config', default='configs/a.json')\nwith open(\"gen.json\") as f: pass\ndf = pd.read_csv('data/x.csv')\nopen(f'{d}.json')\n",
        );
        let got: Vec<String> = referenced_paths(&f).into_iter().collect();
        assert_eq!(got, ["configs/a.json", "data/x.csv", "gen.json"]);
        assert_eq!(resolve_reference(Path::new("/nonexistent"), "train.py", "../etc/passwd"), None);
    }

    #[test]
    fn csv_integer_columns() {
        let dir = std::env::temp_dir().join(format!("cudasleuth-csv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("x.csv");
        std::fs::write(&p, "a,grade,name\n1.5,4,\"x, y\"\n2.5,1,z\n0.1,2,w\n").unwrap();
        let f = scan_csv("x.csv", &p).unwrap();
        std::fs::remove_dir_all(&dir).ok();
        let ints: Vec<_> = f.columns.iter().filter(|c| !c.text).collect();
        assert_eq!(ints.len(), 1);
        let g = ints[0];
        assert_eq!((g.name.as_str(), g.min, g.max, g.distinct, g.rows), ("grade", 1, 4, 3, 3));
        // the other columns: their distinct values only
        let names: Vec<_> = f.columns.iter().filter(|c| c.text).map(|c| (c.name.as_str(), c.distinct)).collect();
        assert_eq!(names, [("a", 3), ("name", 3)]);
    }
}
