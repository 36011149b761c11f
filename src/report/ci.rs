//! The report in CI formats: GitHub annotations, SARIF 2.1.0 and a Markdown summary.
//!
//! - `github`: one `::error` annotation per report, on the top suspect when there is one (GitHub
//!   keeps only a few annotations per step, so the rest of the report goes into its message).
//! - `sarif`: results only for suspects with a place in the repository; the run's category is
//!   `cudasleuth/explain/` (or `cudasleuth/repro/`) so code-scanning closes alerts that a later
//!   run no longer reports.
//! - `markdown`: a summary for `$GITHUB_STEP_SUMMARY` or a PR comment; `redact` replaces home
//!   directories and the user's name.

use std::fmt::Write as _;

use crate::model::*;
use crate::rules;

/// A short title: what failed, in which op.
pub fn title(report: &Report) -> String {
    let op = report
        .asserts
        .iter()
        .find_map(|a| a.signature.as_ref().map(|s| s.op.clone()))
        .or_else(|| report.witness.as_ref().and_then(|w| crate::model::witness::Witness::of(w).op));
    let what = match report.verdict {
        Verdict::DeviceAssert => "device-side assert",
        Verdict::CudaError => "CUDA error",
        Verdict::CpuEquivalent => "CPU error of a device-assert bug",
        Verdict::None => "nothing found",
    };
    match op {
        Some(op) => format!("cudasleuth: {what} in {op}"),
        None => format!("cudasleuth: {what}"),
    }
}

/// The message of the annotation: the reading, then the top suspect's reasons.
fn summary_lines(report: &Report) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(a) = report.asserts.first() {
        let mut s = format!("`{}`", a.assertion.as_deref().unwrap_or(""));
        if let Some(k) = &a.kernel {
            s = format!("{k}: {s}");
        }
        if a.count > 1 {
            s.push_str(&format!(" ({} reports)", a.count));
        }
        lines.push(s);
    } else if let Some(e) = &report.error {
        lines.push(e.message.clone());
    }
    if let Some(w) = &report.witness {
        lines.push(format!("repro caught {}", crate::model::witness::Witness::of(w).caught_line()));
    }
    if let Some(c) = &report.call {
        lines.push(format!("called from {}:{}: {}", c.file, c.line, c.code));
    }
    lines
}

pub fn github(reports: &[Report], prefix: &str) -> String {
    let mut out = String::new();
    for r in reports {
        if r.verdict == Verdict::None && r.witness.is_none() {
            continue;
        }
        let mut lines = summary_lines(r);
        match r.suspects.first() {
            Some(s) => {
                lines.insert(0, s.message.clone());
                lines.extend(s.evidence.iter().cloned());
                if let Some(step) = r.next_steps.first() {
                    lines.push(format!("next: {step}"));
                }
                let _ = writeln!(
                    out,
                    "::error file={},line={},col={},endLine={},endColumn={},title={}::{}",
                    gh_escape_prop(&format!("{prefix}{}", s.file)),
                    s.line,
                    s.column,
                    s.end_line,
                    s.end_column,
                    gh_escape_prop(&format!("{} ({} {})", title(r), s.rule, s.tier)),
                    gh_escape_data(&lines.join("\n"))
                );
            }
            None => {
                lines.extend(r.next_steps.iter().take(2).map(|s| format!("next: {s}")));
                let _ = writeln!(
                    out,
                    "::error title={}::{}",
                    gh_escape_prop(&format!("{} ({})", title(r), r.source)),
                    gh_escape_data(&lines.join("\n"))
                );
            }
        }
    }
    out
}

/// SARIF 2.1.0 over all the reports.
pub fn sarif(reports: &[Report], prefix: &str) -> serde_json::Value {
    let category = if reports.iter().any(|r| r.kind == "repro") { "cudasleuth/repro/" } else { "cudasleuth/explain/" };
    let mut used: Vec<String> = Vec::new();
    let mut results = Vec::new();
    for r in reports {
        for (i, s) in r.suspects.iter().take(3).enumerate() {
            if !used.contains(&s.rule) {
                used.push(s.rule.clone());
            }
            let mut text = format!("{}: {}", title(r), s.message);
            for e in &s.evidence {
                text.push_str(&format!("\n- {e}"));
            }
            results.push(serde_json::json!({
                "ruleId": s.rule,
                "level": if i == 0 { "error" } else { "warning" },
                "message": {"text": text},
                "locations": [{"physicalLocation": {
                    "artifactLocation": artifact(&format!("{prefix}{}", s.file)),
                    "region": {"startLine": s.line, "startColumn": s.column, "endLine": s.end_line, "endColumn": s.end_column}
                }}],
                "partialFingerprints": {"cudasleuth/v1": s.fingerprint},
                "properties": {"tier": s.tier, "confirmed": s.confirmed, "log": r.source, "verdict": r.verdict}
            }));
        }
    }
    let rules_json: Vec<serde_json::Value> = used
        .iter()
        .map(|code| match rules::find_rule(code) {
            Some(r) => sarif_rule(r),
            None => serde_json::json!({
                "id": code, "name": "repro-confirmed-line",
                "shortDescription": {"text": "the line a synchronized reproduction showed making the bad value"},
                "help": {"text": "See docs/repro.md: the shim replayed the failing sample and watched which line changed the value."}
            }),
        })
        .collect();
    // ruleIndex points into the rules we list
    for res in results.iter_mut() {
        let id = res["ruleId"].as_str().unwrap_or("").to_string();
        if let Some(i) = used.iter().position(|u| *u == id) {
            res["ruleIndex"] = serde_json::json!(i);
        }
    }
    serde_json::json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "cudasleuth", "version": env!("CARGO_PKG_VERSION"), "informationUri": "https://github.com/cudasleuth/cudasleuth", "rules": rules_json}},
            "automationDetails": {"id": category},
            "columnKind": "unicodeCodePoints",
            "results": results
        }]
    })
}

/// `redact` on every string of a JSON value (keys too), for the JSON and SARIF formats.
pub fn redact_value(v: &mut serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::String(s) => *s = redact(s),
        Value::Array(items) => items.iter_mut().for_each(redact_value),
        Value::Object(map) => {
            let entries = std::mem::take(map);
            for (k, mut item) in entries {
                redact_value(&mut item);
                map.insert(redact(&k), item);
            }
        }
        _ => {}
    }
}

/// Replace home directories and the user's name, for summaries posted where others read them.
pub fn redact(text: &str) -> String {
    use std::sync::OnceLock;
    static HOME: OnceLock<regex::Regex> = OnceLock::new();
    let re = HOME.get_or_init(|| {
        regex::Regex::new(
            r#"(?:/home|/Users|/users|/u|/scratch|/mnt/home)/[^/\s`'"]+|/root\b|[A-Za-z]:\\(?:Users|Documents and Settings)\\[^\\\s`'"]+"#,
        )
        .unwrap()
    });
    let mut out = re.replace_all(text, "~").into_owned();
    for var in ["USER", "USERNAME", "LOGNAME"] {
        if let Ok(name) = std::env::var(var) {
            if name.len() >= 3 {
                out = out.replace(&name, "<user>");
            }
        }
    }
    out
}

/// Text from a log or the user's code, fit to be shown: control characters (C0 but tab, DEL,
/// C1: a terminal or a renderer acts on them) dropped, lines joined, at most `MAX_SHOWN`
/// characters.
fn shown(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(MAX_SHOWN + 4));
    for (n, c) in s.chars().map(|c| if matches!(c, '\n' | '\r' | '\t') { ' ' } else { c }).filter(|c| !c.is_control()).enumerate() {
        if n == MAX_SHOWN {
            out.push('…');
            break;
        }
        out.push(c);
    }
    out
}

/// The longest text from a log or the user's code shown in one place.
const MAX_SHOWN: usize = 500;

/// Plain Markdown text: every character Markdown or GitHub acts on is escaped (emphasis, links,
/// images, HTML such as `</details>`, table pipes), and `@` cannot start a mention.
fn md_text(s: &str) -> String {
    // the message's own `code` spans stay code (each made safe by md_code); an unpaired
    // backtick is text
    let t = shown(s);
    let parts: Vec<&str> = t.split('`').collect();
    let paired = parts.len() % 2 == 1;
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i % 2 == 1 && (paired || i + 1 < parts.len()) {
            out.push_str(&md_code(part, true));
        } else {
            if i % 2 == 1 {
                out.push_str("\\`");
            }
            out.push_str(&md_escape(part));
        }
    }
    out
}

fn md_escape(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let word = |j: Option<usize>| j.and_then(|j| chars.get(j)).is_some_and(|c| c.is_alphanumeric());
        match c {
            // `snake_case` stays as it is: an underscore inside a word starts no emphasis
            '_' if word(i.checked_sub(1)) && word(Some(i + 1)) => out.push(c),
            // emphasis, strikethrough, links and images (`[`), HTML and autolinks (`<`), cells
            '\\' | '*' | '_' | '[' | ']' | '<' | '~' | '|' => {
                out.push('\\');
                out.push(c);
            }
            '&' => out.push_str("&amp;"),
            // a zero-width space after `@`: no mention, no notification
            '@' => out.push_str("@\u{200B}"),
            _ => out.push(c),
        }
    }
    out
}

/// An inline code span holding `s` as it is: delimited by more backticks than `s` holds in a
/// row, padded when it starts or ends with one; `table` escapes the pipes a table would split on.
fn md_code(s: &str, table: bool) -> String {
    let mut t = shown(s);
    if table {
        t = t.replace('|', "\\|");
    }
    let fence = fence_for(&t, 1);
    let pad = if t.starts_with('`') || t.ends_with('`') || t.is_empty() { " " } else { "" };
    format!("{fence}{pad}{t}{pad}{fence}")
}

/// Backticks enough to fence `t`: one more than its longest run of them, and at least `least`.
fn fence_for(t: &str, least: usize) -> String {
    let run = t.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat((run + 1).max(least))
}

/// A fenced code block for one line of code: the fence longer than any run of backticks in it.
/// The top suspect's value chain as a Mermaid flowchart (GitHub draws it in step summaries and
/// comments): the origin, the lines it passes through, the op; the bound joins the op with a
/// dotted edge. Every label is taken from the code or the log, so each is escaped.
fn flowchart(s: &Suspect, op: Option<&str>) -> Option<String> {
    if s.chain.len() < 2 {
        return None;
    }
    let label = |t: &str| -> String {
        let mut out = String::new();
        for c in t.chars() {
            match c {
                '#' => out.push_str("#35;"),
                '"' => out.push_str("#quot;"),
                '<' => out.push_str("#lt;"),
                '>' => out.push_str("#gt;"),
                '&' => out.push_str("#38;"),
                '`' => out.push_str("#96;"),
                '\n' | '\r' => out.push(' '),
                c if c.is_control() => {}
                c => out.push(c),
            }
        }
        out
    };
    let step = |c: &ChainStep| label(&format!("{}:{} {}", c.file, c.line, super::clip(&c.what, 60)));
    let mut body = String::from("flowchart TD\n");
    // the chain runs from the origin to the op call; a long one keeps its ends
    let steps: Vec<&ChainStep> = if s.chain.len() > 8 {
        s.chain.iter().take(4).chain(s.chain.iter().skip(s.chain.len() - 3)).collect()
    } else {
        s.chain.iter().collect()
    };
    for (i, c) in steps.iter().enumerate() {
        let _ = writeln!(body, "  v{i}[\"{}\"]", step(c));
        if i > 0 {
            let _ = writeln!(body, "  v{} --> v{i}", i - 1);
        }
    }
    let op = op.unwrap_or("the op");
    let _ = writeln!(body, "  op{{\"{}\"}}", label(&format!("{op} asserts")));
    let _ = writeln!(body, "  v{} --> op", steps.len() - 1);
    if let Some(b) = s.bound_chain.first() {
        let _ = writeln!(body, "  b0[\"bound: {}\"]", step(b));
        let _ = writeln!(body, "  b0 -.-> op");
    }
    let fence = fence_for(&body, 3);
    Some(format!("{fence}mermaid\n{body}{fence}\n"))
}

fn md_block(code: &str, lang: &str) -> String {
    let t = shown(code);
    let fence = fence_for(&t, 3);
    format!("{fence}{lang}\n   {t}\n   {fence}")
}

/// The Markdown summary of the reports.
pub fn markdown(reports: &[Report], quotes: &[Quoted], prefix: &str, redact_paths: bool) -> String {
    let mut out = String::new();
    for (ri, r) in reports.iter().enumerate() {
        let _ = writeln!(out, "### {}\n", md_text(&title(r)));
        let _ = writeln!(
            out,
            "{} — verdict **{}**{}\n",
            md_code(&r.source, false),
            serde_json::to_value(r.verdict).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default(),
            r.platform
                .map(|p| format!(" on {}", serde_json::to_value(p).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()))
                .unwrap_or_default()
        );
        if !r.asserts.is_empty() {
            let _ = writeln!(out, "| kernel | op | assertion | reports | first thread |\n| --- | --- | --- | --- | --- |");
            for a in &r.asserts {
                let op = a.signature.as_ref().map(|s| s.op.as_str()).unwrap_or("unknown");
                let th = match (a.block, a.thread) {
                    (Some(b), Some(t)) => format!("block {b:?} thread {t:?}"),
                    _ => "-".into(),
                };
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} |",
                    md_code(a.kernel.as_deref().unwrap_or("-"), true),
                    md_text(op),
                    md_code(a.assertion.as_deref().unwrap_or(""), true),
                    a.count,
                    th
                );
            }
            out.push('\n');
        } else if let Some(e) = &r.error {
            let _ = writeln!(out, "> {}\n", md_text(&e.message));
        }
        if let Some(w) = &r.witness {
            let _ = writeln!(out, "**Repro caught** {}\n", md_text(&crate::model::witness::Witness::of(w).caught_line()));
        }
        if let Some(c) = &r.call {
            let _ = writeln!(out, "Called from {}: {}\n", md_code(&format!("{}:{}", c.file, c.line), false), md_code(&c.code, false));
        }
        if !r.suspects.is_empty() {
            let _ = writeln!(out, "**Where the bad value came from**\n");
            for (i, s) in r.suspects.iter().take(3).enumerate() {
                let _ = writeln!(
                    out,
                    "{}. {} — {} ({}, {})",
                    i + 1,
                    md_code(&format!("{prefix}{}:{}", s.file, s.line), false),
                    md_text(&s.message),
                    md_code(&s.rule, false),
                    s.tier
                );
                if let Some(code) = quotes.get(ri).and_then(|q| q.line(&s.file, s.line)).map(str::trim) {
                    let _ = writeln!(out, "   {}", md_block(code, "python"));
                }
                for e in s.evidence.iter().take(4) {
                    let _ = writeln!(out, "   - {}", md_text(e));
                }
            }
            out.push('\n');
            let op = r.asserts.first().and_then(|a| a.signature.as_ref()).map(|g| g.op.as_str());
            if let Some(chart) = r.suspects.first().and_then(|s| flowchart(s, op)) {
                let _ = writeln!(out, "{chart}");
            }
        }
        if !r.next_steps.is_empty() {
            let _ = writeln!(out, "<details><summary>Next steps</summary>\n");
            for s in &r.next_steps {
                let _ = writeln!(out, "- {}", md_text(s));
            }
            let _ = writeln!(out, "\n</details>\n");
        }
        if !r.secondary.is_empty() {
            let _ = writeln!(
                out,
                "_Also in the log (symptoms, not causes): {}_\n",
                md_text(
                    &r.secondary
                        .iter()
                        .map(|s| s.kind.as_str())
                        .collect::<std::collections::BTreeSet<_>>()
                        .into_iter()
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            );
        }
    }
    if redact_paths {
        redact(&out)
    } else {
        out
    }
}

/// A workflow command's message, escaped as GitHub Actions reads it.
pub fn gh_escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A workflow command's property value (file, title), escaped as GitHub Actions reads it.
pub fn gh_escape_prop(s: &str) -> String {
    gh_escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// A rule as a SARIF `reportingDescriptor`, its documentation as help.
/// A SARIF artifact location: a relative path against `%SRCROOT%` (the working directory,
/// see [`with_srcroot`]), an absolute one as a `file:` URI of its own.
pub fn artifact(path: &str) -> serde_json::Value {
    if path.starts_with('/') || path.get(1..3) == Some(":/") || path.get(1..3) == Some(":\\") {
        serde_json::json!({"uri": file_uri(path)})
    } else {
        serde_json::json!({"uri": path, "uriBaseId": "%SRCROOT%"})
    }
}

/// Declares where `%SRCROOT%` is (`root`, absolute) in every run of a SARIF log, so that a
/// viewer away from the working directory resolves the relative paths.
pub fn with_srcroot(v: &mut serde_json::Value, root: &std::path::Path) {
    let mut uri = file_uri(&root.to_string_lossy());
    if !uri.ends_with('/') {
        uri.push('/');
    }
    if let Some(runs) = v.get_mut("runs").and_then(|r| r.as_array_mut()) {
        for run in runs {
            run["originalUriBaseIds"] = serde_json::json!({"%SRCROOT%": {"uri": uri}});
        }
    }
}

/// `file:` URI of an absolute path: `/` separators, a drive letter after a `/`, bytes outside
/// the unreserved set and `/` percent-encoded.
fn file_uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut out = String::from(if path.starts_with('/') { "file://" } else { "file:///" });
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(b as char),
            // a drive letter's colon stays (`file:///C:/…`)
            b':' if out.len() == "file:///".len() + 1 => out.push(':'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

pub fn sarif_rule(r: &rules::RuleInfo) -> serde_json::Value {
    let short = r.doc.lines().skip_while(|l| !l.starts_with("## What it does")).nth(1).unwrap_or(r.name);
    serde_json::json!({
        "id": r.code,
        "name": r.name,
        "shortDescription": {"text": short},
        "fullDescription": {"text": r.doc},
        "help": {"text": r.doc, "markdown": r.doc},
        "defaultConfiguration": {"level": if r.severity == "error" { "error" } else { "warning" }},
        "properties": {"category": r.category}
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_every_string_of_a_json_value() {
        let mut v = serde_json::json!({"file": "/home/alice/p/train.py", "frames": [{"/home/alice/x": 3, "n": 1}], "ok": true});
        redact_value(&mut v);
        assert_eq!(v, serde_json::json!({"file": "~/p/train.py", "frames": [{"~/x": 3, "n": 1}], "ok": true}));
    }

    #[test]
    fn sarif_locations_resolve_from_anywhere() {
        assert_eq!(artifact("src/train.py"), serde_json::json!({"uri": "src/train.py", "uriBaseId": "%SRCROOT%"}));
        assert_eq!(artifact("/tmp/my proj/train.py"), serde_json::json!({"uri": "file:///tmp/my%20proj/train.py"}));
        assert_eq!(artifact("C:\\Users\\b\\x.py"), serde_json::json!({"uri": "file:///C:/Users/b/x.py"}));
        let mut v = serde_json::json!({"runs": [{"results": []}]});
        with_srcroot(&mut v, std::path::Path::new("/home/ci/repo"));
        assert_eq!(v["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"], "file:///home/ci/repo/");
    }

    #[test]
    fn redacts_homes() {
        assert_eq!(redact("/home/alice/proj/train.py and C:\\Users\\bob\\x.py"), "~/proj/train.py and ~\\x.py");
        assert_eq!(redact("/Users/carol/a /root/b /usr/lib/x"), "~/a ~/b /usr/lib/x");
    }

    #[test]
    fn the_flowchart_escapes_what_it_quotes() {
        let step = |line: u32, what: &str| ChainStep {
            file: "data.py".into(),
            line,
            role: "pass".into(),
            what: what.into(),
            value: String::new(),
        };
        let hostile = "adds `1`\"]\n  click v0 \"javascript:alert(1)\"\n  x[\"<img src=x> & #35;";
        let s = Suspect {
            file: "data.py".into(),
            line: 3,
            column: 1,
            end_line: 3,
            end_column: 2,
            rule: "CS118".into(),
            tier: "strong".into(),
            confirmed: None,
            message: String::new(),
            evidence: Vec::new(),
            fingerprint: String::new(),
            chain: vec![step(3, hostile), step(9, "calls `loss(x, y)`")],
            bound_chain: vec![step(1, "builds ```nn.Linear(4, 2)```")],
            repro: None,
        };
        let chart = flowchart(&s, Some("nll_loss")).unwrap();
        let body: Vec<&str> = chart.lines().collect();
        assert!(body[0].starts_with("```") && body[0].ends_with("mermaid") && body[1] == "flowchart TD", "{chart}");
        for l in &body[2..body.len() - 1] {
            // every label is one quoted string: no quote, angle bracket, backtick or newline
            // of the quoted text survives, and no line starts a directive of its own
            assert!(!l.contains('`') && !l.contains('<') && !l.contains('>') || l.contains("-->") || l.contains("-.->"), "{l}");
            assert!(!l.trim_start().starts_with("click"), "{l}");
            assert_eq!(l.matches('"').count() % 2, 0, "{l}");
            assert!(l.matches('"').count() <= 2, "{l}");
        }
        assert_eq!(body.last().copied(), Some(body[0].trim_end_matches("mermaid")), "{chart}");
    }

    #[test]
    fn annotation_escapes() {
        assert_eq!(gh_escape_prop("a:b,c\nd%"), "a%3Ab%2Cc%0Ad%25");
    }
}
