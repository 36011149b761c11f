//! Settings files in the `[section]` / `key = value` family: INI files read with `configparser`
//! (`.ini`, `.cfg`) and TOML files read with `tomllib` / `toml` (`.toml`). A line-based reader,
//! like the YAML one: each key becomes an assignment named by its section
//! (`model.n_event_types = 4`), so a setting the code reads by name (`cp.getint("model",
//! "n_event_types")`, `cfg["model"]["n_event_types"]`, a dataclass built from a section) finds
//! the line that sets it. Read only when the code or a run script names the file (as JSON
//! configs are): a tool's own settings (`pyproject.toml`, `setup.cfg`) are not the program's.

use crate::scan::facts::FileFacts;

/// Whether `path` is a settings file this module reads.
pub fn is_settings_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".ini", ".cfg", ".toml"].iter().any(|x| lower.ends_with(x))
}

/// The longest multi-line array followed to its closing bracket.
const MAX_ARRAY_LINES: usize = 256;

pub fn scan_settings(path: &str, text: &str) -> FileFacts {
    let toml = path.to_ascii_lowercase().ends_with(".toml");
    let mut facts = FileFacts { path: path.to_string(), ..Default::default() };
    let lines: Vec<&str> = text.lines().collect();
    let mut section = String::new();
    let mut i = 0;
    while i < lines.len() {
        let raw = lines[i];
        let line_no = i as u32 + 1;
        i += 1;
        // an INI value continued on indented lines is the key's; those lines are not keys
        if !toml && raw.starts_with([' ', '\t']) {
            continue;
        }
        let line = if toml { crate::scan::yaml::strip_comment(raw) } else { strip_ini_comment(raw) }.trim();
        if line.is_empty() {
            continue;
        }
        // `[section]`, TOML's `[a.b]` and `[[array.of.tables]]`
        if let Some(head) = line.strip_prefix('[') {
            let head = head.trim_start_matches('[');
            if let Some(end) = head.find(']') {
                section = dotted(&head[..end], toml);
            }
            continue;
        }
        let split = if toml { line.split_once('=') } else { line.split_once(['=', ':']) };
        let Some((key, value)) = split else { continue };
        let key = dotted(key, toml);
        if key.is_empty() || key.contains(char::is_whitespace) {
            continue;
        }
        let mut value = value.trim().to_string();
        // a TOML array written over several lines: up to its closing bracket
        if toml && value.starts_with('[') && !balanced(&value) {
            let mut taken = 0;
            while i < lines.len() && taken < MAX_ARRAY_LINES {
                value.push(' ');
                value.push_str(crate::scan::yaml::strip_comment(lines[i]).trim());
                i += 1;
                taken += 1;
                if balanced(&value) {
                    break;
                }
            }
        }
        let target = if section.is_empty() { key } else { format!("{section}.{key}") };
        let mut fact = crate::scan::yaml::assign(target, value.chars().take(200).collect(), integer(&value, toml), line_no, raw.len());
        fact.len = if value.starts_with('[') { crate::scan::yaml::inline_list_len(&value) } else { None };
        facts.assigns.push(fact);
    }
    facts
}

/// An INI comment: a whole line starting with `#` or `;`, or one after whitespace on a line.
fn strip_ini_comment(line: &str) -> &str {
    let t = line.trim_start();
    if t.starts_with(['#', ';']) {
        return "";
    }
    let b = line.as_bytes();
    for (i, c) in b.iter().enumerate() {
        if (*c == b'#' || *c == b';') && i > 0 && b[i - 1].is_ascii_whitespace() {
            return &line[..i];
        }
    }
    line
}

/// A key or table name with its parts unquoted and joined by dots (`"a b".c` stays one part
/// with a space: not a name the code can read as an attribute, and left out by the caller).
fn dotted(s: &str, toml: bool) -> String {
    let s = s.trim();
    if !toml {
        return s.to_string();
    }
    s.split('.').map(|p| p.trim().trim_matches(['"', '\''])).collect::<Vec<_>>().join(".")
}

/// Whether the brackets of an array value are closed (brackets inside strings not counted).
fn balanced(v: &str) -> bool {
    let depth: i32 = crate::scan::yaml::outside_quotes(v)
        .map(|(_, c)| match c {
            '[' => 1,
            ']' => -1,
            _ => 0,
        })
        .sum();
    depth <= 0
}

/// The integer a value writes: TOML's `1_000`, `0x1f`, `0o17`, `0b101` too.
fn integer(v: &str, toml: bool) -> Option<i64> {
    let v = v.trim();
    if let Ok(n) = v.parse::<i64>() {
        return Some(n);
    }
    if !toml {
        return None;
    }
    let (neg, body) = match v.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, v.strip_prefix('+').unwrap_or(v)),
    };
    let body = body.replace('_', "");
    let n = if let Some(h) = body.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(o) = body.strip_prefix("0o") {
        i64::from_str_radix(o, 8).ok()
    } else if let Some(b) = body.strip_prefix("0b") {
        i64::from_str_radix(b, 2).ok()
    } else {
        body.parse::<i64>().ok()
    }?;
    Some(if neg { -n } else { n })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(f: &FileFacts, t: &str) -> Option<i64> {
        f.assigns.iter().find(|a| &*a.target == t).and_then(|a| a.int)
    }

    #[test]
    fn ini_sections_keys_and_comments() {
        let text = "; settings\n[data]\ndir = data\nlookback = 56  ; days\n\n[model]\nn_event_types = 4\nhidden: 64\nnote = first line\n  still the note = 9\n";
        let f = scan_settings("config.ini", text);
        assert_eq!(get(&f, "data.lookback"), Some(56));
        assert_eq!(get(&f, "model.n_event_types"), Some(4));
        assert_eq!(get(&f, "model.hidden"), Some(64), "configparser takes `:` as well as `=`");
        assert!(f.assigns.iter().all(|a| !a.target.contains("still")), "a continuation line is no key");
        let at = f.assigns.iter().find(|a| &*a.target == "model.n_event_types").map(|a| a.span.line);
        assert_eq!(at, Some(7));
    }

    #[test]
    fn toml_tables_dotted_keys_numbers_and_arrays() {
        let text = "title = \"run\"\n[features]\nn_bands = 32  # mel bands\nfmax = 4500.0\nbig = 1_000\n[model.head]\n\"n-out\" = 3\nsizes = [8, 16,\n  32, # last\n]\nsub.k = 0x10\n[[stages]]\nwidth = 2\n";
        let f = scan_settings("settings.toml", text);
        assert_eq!(get(&f, "features.n_bands"), Some(32));
        assert_eq!(get(&f, "features.fmax"), None);
        assert_eq!(get(&f, "features.big"), Some(1000));
        assert_eq!(get(&f, "model.head.n-out"), Some(3));
        assert_eq!(get(&f, "model.head.sub.k"), Some(16));
        assert_eq!(get(&f, "stages.width"), Some(2));
        let sizes = f.assigns.iter().find(|a| &*a.target == "model.head.sizes").and_then(|a| a.len);
        assert_eq!(sizes, Some(3), "an array over several lines keeps its length");
        assert!(f.assigns.iter().any(|a| &*a.target == "title" && a.value.contains("run")));
    }
}
