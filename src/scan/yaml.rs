//! Dataset and model configs in YAML (`data.yaml` with `nc` and `names` for YOLO-style
//! trainers, detectron2-style `NUM_CLASSES`): a line-based reader for the keys that hold class
//! counts and class lists. Keys become assignments (`MODEL.ROI_HEADS.NUM_CLASSES = 80`), and a
//! class list `names` becomes `len(names) = N`, so the rules read them like Python constants.

use crate::scan::facts::{AssignFact, FileFacts, Scope, Span};

/// The characters of `s` outside single- and double-quoted strings, with their byte offsets
/// (the quotes themselves left out).
pub(crate) fn outside_quotes(s: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let (mut single, mut double) = (false, false);
    s.char_indices().filter(move |&(_, c)| match c {
        '\'' if !double => {
            single = !single;
            false
        }
        '"' if !single => {
            double = !double;
            false
        }
        _ => !single && !double,
    })
}

pub(crate) fn strip_comment(line: &str) -> &str {
    match outside_quotes(line).find(|&(i, c)| c == '#' && (i == 0 || line[..i].ends_with(' '))) {
        Some((i, _)) => &line[..i],
        None => line,
    }
}

pub(crate) fn inline_list_len(v: &str) -> Option<i64> {
    let inner = v.trim().strip_prefix('[')?.strip_suffix(']')?;
    if inner.trim().is_empty() {
        return Some(0);
    }
    // commas inside quotes do not separate items
    let mut n = 1 + outside_quotes(inner).filter(|&(_, c)| c == ',').count() as i64;
    if inner.trim_end().ends_with(',') {
        n -= 1;
    }
    Some(n)
}

pub(crate) fn assign(target: String, value: String, int: Option<i64>, line: u32, len: usize) -> AssignFact {
    AssignFact {
        target: target.into(),
        value: value.into(),
        op: None,
        shift: None,
        int,
        len: None,
        span: Span { line, column: 1, end_line: line, end_column: len as u32 + 1 },
        scope: Scope::default(),
    }
}

pub fn scan_yaml(path: &str, text: &str) -> FileFacts {
    let mut facts = FileFacts { path: path.to_string(), ..Default::default() };
    let mut stack: Vec<(usize, String)> = Vec::new();
    // an open block list/mapping under `names:`: (indent of the key, line, items)
    let mut names_block: Option<(usize, u32, i64)> = None;
    let lines: Vec<&str> = text.lines().collect();
    for (i, raw) in lines.iter().enumerate() {
        let line_no = i as u32 + 1;
        let line = strip_comment(raw).trim_end();
        if line.trim().is_empty() || line.trim_start().starts_with("---") {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let body = line.trim_start();
        if let Some((key_indent, at, n)) = names_block {
            let item = body.starts_with("- ") || body == "-";
            if (indent > key_indent && (item || body.contains(':'))) || (indent == key_indent && item) {
                names_block = Some((key_indent, at, n + 1));
                continue;
            }
            if n > 0 {
                facts.assigns.push(assign("len(names)".into(), format!("{n} names"), Some(n), at, lines[at as usize - 1].len()));
            }
            names_block = None;
        }
        // an item of a list of names under a key (`defaults:` then `- base.yaml`): kept as the
        // key's value, so a config that names another (the one it extends) can be told
        if let Some(item) = body.strip_prefix("- ").map(str::trim).filter(|v| !v.contains(':') && !v.is_empty()) {
            if stack.last().is_some_and(|(d, _)| *d <= indent) {
                let full = stack.iter().map(|(_, k)| k.as_str()).collect::<Vec<_>>().join(".");
                let item = item.trim_matches(|c| c == '"' || c == '\'');
                facts.assigns.push(assign(format!("{full}[]"), item.chars().take(200).collect(), None, line_no, raw.len()));
            }
            continue;
        }
        let Some((key, value)) = body.split_once(':') else { continue };
        let key = key.trim().trim_matches(|c| c == '"' || c == '\'');
        if key.is_empty() || key.contains(' ') || key.starts_with('-') {
            continue;
        }
        while stack.last().is_some_and(|(d, _)| *d >= indent) {
            stack.pop();
        }
        let full = stack.iter().map(|(_, k)| k.as_str()).chain(std::iter::once(key)).collect::<Vec<_>>().join(".");
        let value = value.trim();
        if value.is_empty() {
            if key == "names" {
                names_block = Some((indent, line_no, 0));
            }
            stack.push((indent, key.to_string()));
            continue;
        }
        let int = value.parse::<i64>().ok();
        let mut fact = assign(full.clone(), value.chars().take(200).collect(), int, line_no, raw.len());
        // a flow list (`colors: [red, green, blue]`): its number of items
        fact.len = inline_list_len(value);
        facts.assigns.push(fact);
        if key == "names" {
            if let Some(n) = inline_list_len(value) {
                facts.assigns.push(assign("len(names)".into(), format!("{n} names"), Some(n), line_no, raw.len()));
            }
        }
    }
    if let Some((_, at, n)) = names_block.filter(|b| b.2 > 0) {
        facts.assigns.push(assign("len(names)".into(), format!("{n} names"), Some(n), at, lines[at as usize - 1].len()));
    }
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(f: &FileFacts, t: &str) -> Option<i64> {
        f.assigns.iter().find(|a| a.target == t).and_then(|a| a.int)
    }

    #[test]
    fn yolo_data_yaml_forms() {
        let f = scan_yaml("data.yaml", "train: images/train  # comment\nnc: 3\nnames: ['a', 'b, c', 'd', 'e']\n");
        assert_eq!(get(&f, "nc"), Some(3));
        assert_eq!(get(&f, "len(names)"), Some(4));
        let block = scan_yaml("d.yaml", "path: ../x\nnames:\n  0: person\n  1: bicycle\n  2: car\nnc: 3\n");
        assert_eq!(get(&block, "len(names)"), Some(3));
        let list = scan_yaml("d.yaml", "names:\n- cat\n- dog\n");
        assert_eq!(get(&list, "len(names)"), Some(2), "YAML allows a list at the key's own indent");
        let list = scan_yaml("d.yaml", "names:\n  - cat\n  - dog\n");
        assert_eq!(get(&list, "len(names)"), Some(2));
    }

    #[test]
    fn list_items_are_kept_as_values() {
        let f = scan_yaml("exp.yaml", "defaults:\n  - base.yaml\n  - \"aug.yaml\"\nmodel:\n  head:\n    num_classes: 13\n");
        let items: Vec<&str> = f.assigns.iter().filter(|a| a.target == "defaults[]").map(|a| &*a.value).collect();
        assert_eq!(items, ["base.yaml", "aug.yaml"]);
        assert_eq!(get(&f, "model.head.num_classes"), Some(13));
    }

    #[test]
    fn flow_lists_keep_their_length() {
        let f = scan_yaml("c.yaml", "materials: [cotton, wool, linen]\nnum_finishes: 4\n");
        let len = |t: &str| f.assigns.iter().find(|a| &*a.target == t).and_then(|a| a.len);
        assert_eq!(len("materials"), Some(3));
        assert_eq!(len("num_finishes"), None);
    }

    #[test]
    fn nested_keys() {
        let f = scan_yaml("cfg.yaml", "MODEL:\n  ROI_HEADS:\n    NUM_CLASSES: 80\n  MASK_ON: True\nSOLVER:\n  BASE_LR: 0.02\n");
        assert_eq!(get(&f, "MODEL.ROI_HEADS.NUM_CLASSES"), Some(80));
        assert!(f.assigns.iter().any(|a| a.target == "SOLVER.BASE_LR"));
    }
}
