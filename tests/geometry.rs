//! Launch geometry checked against bad elements planted at known positions on an H200
//! (fixtures/torch-2.11-h200-more/geo_*.truth.json, written by the program before the failing
//! call). Every group of candidates the report names must hold a planted element.

mod common;

use std::collections::BTreeSet;

use regex::Regex;

/// The planted flat positions of the index/target tensor, if the truth file has them.
fn planted(truth: &serde_json::Value) -> Option<BTreeSet<u64>> {
    let v = truth.get("bad_flat_positions").or_else(|| truth.get("bad_positions"))?;
    Some(v.as_array()?.iter().filter_map(|x| x.as_u64()).collect())
}

/// Each comma-separated group of the `elements` text, as the set of positions it allows.
fn groups(elements: &str, n: u64) -> Vec<BTreeSet<u64>> {
    let slice = Regex::new(r"\[(\d+)::(\d+)\]").unwrap();
    let index = Regex::new(r"\[(\d+)\]$").unwrap();
    let quad = Regex::new(r"^\{(\d+), (\d+), (\d+), (\d+)\}$").unwrap();
    let sg = Regex::new(r"^(\d+)\+128·j \(j<8\)").unwrap();
    let mut out = Vec::new();
    let parts: Vec<&str> = if elements.starts_with('{') { elements.split("}, ").collect() } else { elements.split(", ").collect() };
    for part in parts {
        let part = part.trim();
        if part.starts_with('…') {
            break;
        }
        let part_closed = if part.starts_with('{') && !part.ends_with('}') { format!("{part}}}") } else { part.to_string() };
        let set: BTreeSet<u64> = if let Some(c) = slice.captures(&part_closed) {
            let (t, step): (u64, u64) = (c[1].parse().unwrap(), c[2].parse().unwrap());
            (t..n.max(t + 1)).step_by(step as usize).collect()
        } else if let Some(c) = quad.captures(&part_closed) {
            (1..=4).map(|i| c[i].parse().unwrap()).collect()
        } else if let Some(c) = sg.captures(&part_closed) {
            let a: u64 = c[1].parse().unwrap();
            (0..8).map(|j| a + 128 * j).collect()
        } else if let Some(c) = index.captures(&part_closed) {
            [c[1].parse().unwrap()].into()
        } else {
            continue;
        };
        out.push(set);
    }
    out
}

#[test]
fn candidates_hold_planted_elements() {
    let dir = common::root().join("fixtures/torch-2.11-h200-more");
    let mut checked = 0;
    for log in common::logs_in("fixtures/torch-2.11-h200-more") {
        let name = log.file_name().unwrap().to_string_lossy().to_string();
        let Some(stem) = name.strip_suffix(".sync.log").or_else(|| name.strip_suffix(".async.log")) else { continue };
        if !stem.starts_with("geo_") {
            continue;
        }
        let truth_path = dir.join(format!("{stem}.truth.json"));
        let Ok(text) = std::fs::read_to_string(&truth_path) else { continue };
        // Python wrote these; a few hold NaN, which is not JSON: read those with NaN as null.
        let truth: serde_json::Value = serde_json::from_str(&text.replace("NaN", "null")).unwrap();
        let Some(bad) = planted(&truth) else { continue };
        let n = truth
            .get("target_shape")
            .or_else(|| truth.get("index_shape"))
            .and_then(|s| s.as_array())
            .map(|s| s.iter().map(|x| x.as_u64().unwrap()).product())
            .unwrap_or(1 << 20);
        let report = common::explain(&log);
        for a in report["asserts"].as_array().unwrap() {
            let c = &a["candidates"];
            if c.is_null() {
                continue;
            }
            let elements = c["elements"].as_str().unwrap();
            let mut gs = groups(elements, n);
            // Embedding / index_select with unaligned rows gather over an (n, D) expansion of
            // the ids: element e is id position e // D (see docs/kernels.md).
            let row = truth["embedding_dim"].as_u64().or_else(|| truth["src_shape"].as_array().and_then(|s| s.get(1)?.as_u64()));
            let op = truth["op"].as_str().unwrap_or("");
            if a["signature"]["geometry"] == "scatter_gather" && (op.contains("Embedding") || op.contains("index_select")) {
                if let Some(d) = row {
                    gs = gs.into_iter().map(|g| g.into_iter().map(|e| e / d).collect()).collect();
                }
            }
            for g in &gs {
                assert!(
                    g.iter().any(|p| bad.contains(p)),
                    "{name}: candidate group {g:?} from `{elements}` holds no planted element {bad:?}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "only {checked} candidate groups checked");
}
