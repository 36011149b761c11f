//! The witness joined with the suspects: the static suspects confirmed or refuted by what the
//! run caught, the line the value was born on made the first suspect, and the sentences that
//! say what was caught (shared by every renderer).

use std::path::Path;

use crate::model::witness::{show, Born, BornChain, BornStep, Place, ProvenanceKind, Witness};
use crate::model::{Report, Suspect};
use crate::scan::files::ProjectFiles;

/// A path the shim wrote (absolute, on this machine) as a path inside the project.
pub fn project_path(file: &str, root: Option<&Path>, files: Option<&ProjectFiles>) -> Option<String> {
    if let Some(root) = root {
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let f = std::fs::canonicalize(file).unwrap_or_else(|_| Path::new(file).to_path_buf());
        if let Ok(rel) = f.strip_prefix(&root) {
            return Some(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    files.and_then(|p| p.resolve(file))
}

/// A place the run recorded, as a project path and line: a file of the project, or the code of a
/// Jupyter cell (`<ipython-input-5-…>`, ipykernel's temporary `.py`) found in the project's
/// notebook that holds it (the cell's line becomes the notebook file's line).
pub fn project_place(
    file: &str,
    line: u32,
    code: Option<&str>,
    root: Option<&Path>,
    files: Option<&ProjectFiles>,
) -> Option<(String, u32)> {
    if let (Some(count), Some(root)) = (crate::scan::notebook::cell_number(file), root) {
        let walked;
        let files = match files {
            Some(f) => f,
            None => {
                walked = ProjectFiles::walk(root);
                &walked
            }
        };
        let notebooks = crate::scan::notebook::read_all(root, files.paths().iter().map(String::as_str));
        return crate::scan::notebook::find_frame(&notebooks, count, line, code);
    }
    project_path(file, root, files).map(|p| (p, line))
}

/// [`project_place`] for a frame of the witness (or the place a provenance names).
pub fn frame_place(f: &Place, root: Option<&Path>, files: Option<&ProjectFiles>) -> Option<(String, u32)> {
    project_place(f.file.as_deref()?, f.line? as u32, f.code.as_deref(), root, files)
}

/// The sentence for the provenance outcome, with the project-relative place it names.
pub fn provenance_line(w: &Witness, root: Option<&Path>, files: Option<&ProjectFiles>) -> Option<(String, Option<(String, u32)>)> {
    let p = w.provenance.as_ref()?;
    let place = || {
        let file = p.place.file.as_deref()?;
        let line = p.place.line? as u32;
        Some(frame_place(&p.place, root, files).unwrap_or_else(|| (file.to_string(), line)))
    };
    let bound = w.bound.as_ref().map(|b| format!(" ({})", b.text())).unwrap_or_default();
    let sample = p.sample.map(|s| format!(" for sample {s}")).unwrap_or_default();
    match p.kind {
        ProvenanceKind::CodeLine => {
            let at = place();
            let where_ = at.as_ref().map(|(f, l)| format!("{f}:{l}")).unwrap_or_else(|| "a line".into());
            let var = p.variable.as_deref().map(|v| format!("{v} ")).unwrap_or_default();
            let mut s = format!("{where_} turned {var}{} into {}{sample}{bound}", show(&p.before), show(&p.after));
            if let Some(n) = p.replays.filter(|n| *n > 1) {
                s.push_str(&format!("; the replay needed {n} tries (random branch)"));
            }
            Some((s, at))
        }
        ProvenanceKind::RawData => {
            let at = place();
            let where_ = at.as_ref().map(|(f, l)| format!(" as read at {f}:{l}")).unwrap_or_default();
            Some((format!("the value {} is in the data{where_}{sample}{bound}: no line of __getitem__ changed it", show(&p.value)), at))
        }
        ProvenanceKind::OutsideGetitem => {
            let at = place();
            let reason = p.reason.as_deref().unwrap_or("__getitem__ returned a value in range");
            let where_ = at.as_ref().map(|(f, l)| format!(" (see {f}:{l})")).unwrap_or_default();
            Some((format!("made after __getitem__{sample}: {reason}{where_}"), at))
        }
        ProvenanceKind::NotReplayable => {
            let reason = p.reason.as_deref().unwrap_or("no reason given");
            Some((format!("the sample could not be replayed: {reason}"), None))
        }
        ProvenanceKind::Other => None,
    }
}

/// The failure classes that name the same bug (an embedding lookup is an index).
fn same_class(a: &str, b: &str) -> bool {
    fn norm(c: &str) -> &str {
        if c == "embedding_index_out_of_range" {
            "index_out_of_range"
        } else {
            c
        }
    }
    norm(a) == norm(b)
}

/// Mark the suspects the witness confirms or refutes, and add the line it names when no rule
/// had it.
///
/// - A `code_line` provenance proves one line: that suspect (or a new one) goes first.
/// - Otherwise the run proves the class of bug and the bound: static suspects of that class
///   that are about the bound or the data (head size, sentinel, config, vocabulary) are
///   confirmed; a label shift in `__getitem__` is refuted when the replay shows the value
///   arrived unchanged (`raw_data`) or was made later (`outside_getitem`).
/// - The line where a `raw_data` value was read is added as evidence of where it came from.
pub fn confirm(report: &mut Report, root: Option<&Path>, files: Option<&ProjectFiles>) {
    let Some(w) = report.witness.as_ref().map(Witness::of) else { return };
    for s in report.suspects.iter_mut() {
        s.confirmed = Some(false);
    }
    // followed by its range (a probability), not by equality
    let ranged = report.witness.as_ref().and_then(crate::model::witness::born_followed).is_some_and(|(_, r)| r.is_some());
    if let Some(born) = w.born.as_ref().filter(|b| b.same_witness) {
        if confirm_born(report, &w, born, ranged, root, files) {
            return;
        }
    }
    let caught = w.caught_line();
    let named = provenance_line(&w, root, files);
    let kind = w.provenance_kind();
    let category = w.category.as_deref().unwrap_or("");
    if kind == ProvenanceKind::CodeLine {
        if let Some((sentence, Some((file, line)))) = &named {
            let pos = report.suspects.iter().position(|s| &s.file == file && s.line == *line);
            let mut s = match pos {
                Some(i) => report.suspects.remove(i),
                None => new_suspect(file, *line, &w, sentence),
            };
            s.tier = "confirmed".into();
            s.confirmed = Some(true);
            s.evidence.insert(0, format!("repro: {sentence}"));
            s.evidence.insert(1, format!("caught: {caught}"));
            report.suspects.insert(0, s);
            return;
        }
    }
    // the class and the bound are proven; which static suspects fit them?
    let mut confirmed: Vec<Suspect> = Vec::new();
    let mut rest = Vec::new();
    for mut s in std::mem::take(&mut report.suspects) {
        let class = crate::rules::RULES.iter().find(|r| r.code == s.rule).map(|r| r.category).unwrap_or("");
        let shift = s.rule == "CS101";
        // one_hot of labels (or a gather at them) trips an index check in the kernel: a class
        // count bug all the same
        let fits = same_class(class, category)
            || w.op.as_deref().is_some_and(crate::rank::suspects::indexes_by_label) && class == "label_out_of_range";
        // a traced line the ranges did not prove is not confirmed by the class alone
        let unproven = s.rule == crate::rules::value_leaves_bound::CODE && s.tier != "strong";
        if !category.is_empty() && fits && !shift && !unproven {
            // the run proves the class of bug, not this line: it stays unconfirmed
            s.evidence.insert(0, format!("consistent with what repro caught: {caught}"));
            if let Some((sentence, _)) = &named {
                s.evidence.insert(1, format!("repro: {sentence}"));
            }
            s.repro = Some("unchecked".into());
            confirmed.push(s);
        } else {
            if shift && matches!(kind, ProvenanceKind::RawData | ProvenanceKind::OutsideGetitem) {
                s.evidence.insert(0, "refuted by repro: the replayed sample did not take its bad value in __getitem__".into());
            }
            rest.push(s);
        }
    }
    // the files the run went through come first (a notebook export and its .ipynb say the
    // same thing; the one that ran is the one to fix)
    let ran = ran_files(&w, root, files);
    confirmed.sort_by_key(|s| !ran.contains(&s.file));
    let mut out = confirmed;
    // where the value was read (raw_data) or changed after __getitem__ (a collate_fn)
    if let Some((sentence, Some((file, line)))) = &named {
        if !out.iter().chain(rest.iter()).any(|s| &s.file == file && s.line == *line) {
            let mut s = new_suspect(file, *line, &w, sentence);
            // where the value was read or changed is on its path, not proven its cause
            s.confirmed = Some(false);
            s.repro = Some("on_path".into());
            s.tier = if out.is_empty() { "strong".into() } else { "likely".into() };
            s.evidence.push(format!("caught: {caught}"));
            out.push(s);
        }
    }
    if out.is_empty() && rest.is_empty() {
        // nothing static: the call that received the bad value is what the run proves
        if let Some(f) = w.user_frame() {
            if let Some((rel, line)) = frame_place(f, root, files) {
                let msg = format!("received the bad value: {caught}");
                let mut s = new_suspect(&rel, line, &w, &msg);
                s.confirmed = Some(false);
                s.repro = Some("on_path".into());
                s.tier = "likely".into();
                if let Some((sentence, _)) = &named {
                    s.evidence.push(format!("repro: {sentence}"));
                }
                out.push(s);
            }
        }
    }
    out.extend(rest);
    report.suspects = out;
}

/// The project files of the stack that called the op.
fn ran_files(w: &Witness, root: Option<&Path>, files: Option<&ProjectFiles>) -> Vec<String> {
    w.stack.iter().filter_map(|f| frame_place(f, root, files)).map(|(p, _)| p).collect()
}

/// A chain's steps as project places, origin first (the shim lists them from the op back).
fn chain_places(c: &BornChain, root: Option<&Path>, files: Option<&ProjectFiles>) -> Vec<(String, u32, String)> {
    let mut out: Vec<(String, u32, String)> = Vec::new();
    for step in c.chain.iter().rev() {
        if let Some((f, l)) = frame_place(&step.place, root, files) {
            if !out.iter().any(|(a, b, _)| *a == f && *b == l) {
                out.push((f, l, step.place.code.clone().unwrap_or_default()));
            }
        }
    }
    out
}

/// `file:line` of a born step, with its code.
fn step_text(step: &BornStep, root: Option<&Path>, files: Option<&ProjectFiles>) -> Option<(String, u32, String)> {
    let (f, l) = frame_place(&step.place, root, files)?;
    Some((f, l, step.place.code.clone().unwrap_or_default()))
}

/// What the origin line gave, as a sentence: "`label = int(row['class'])` gave label = 4".
fn gave(step: &BornStep) -> String {
    let code = step.place.code.as_deref().unwrap_or("");
    let var = step.variable.as_deref().filter(|v| !v.starts_with('<')).map(|v| format!("{v} = ")).unwrap_or_default();
    let value = match &step.value {
        serde_json::Value::String(s) if s.starts_with('<') => String::new(),
        serde_json::Value::Null => String::new(),
        v => format!(" gave {var}{}", show(v)),
    };
    let before = step
        .before
        .as_object()
        .filter(|o| !o.is_empty())
        .map(|o| format!(" (before: {})", o.iter().map(|(k, v)| format!("{k} = {}", show(v))).collect::<Vec<_>>().join(", ")))
        .unwrap_or_default();
    format!("`{code}`{value}{before}")
}

/// Whether a line assigns a number written on it (`N_RANKS = 13`, `max_len: int = 32`).
fn assigns_a_number(code: &str) -> bool {
    let b = code.as_bytes();
    // the first `=` that is not part of `==`, `<=`, `>=`, `!=`
    let eq =
        (0..b.len()).find(|&i| b[i] == b'=' && b.get(i + 1) != Some(&b'=') && (i == 0 || !matches!(b[i - 1], b'=' | b'<' | b'>' | b'!')));
    let Some(i) = eq else { return false };
    let rhs = code[i + 1..].split('#').next().unwrap_or("").trim();
    let digits = rhs.strip_prefix('-').unwrap_or(rhs);
    !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit() || c == '_') && digits.starts_with(|c: char| c.is_ascii_digit())
}

/// The key a config file's line sets (`num_classes: 4`, `"num_classes": 4`, `num_classes = 4`).
fn config_key(root: Option<&Path>, file: &str, line: u32) -> Option<String> {
    let text = std::fs::read_to_string(root?.join(file)).ok()?;
    let l = text.lines().nth(line.checked_sub(1)? as usize)?;
    let key = l.split([':', '=']).next()?.trim().trim_matches(|c| c == '"' || c == '\'' || c == '-' || c == ' ');
    (!key.is_empty() && key.chars().all(|c| c.is_alphanumeric() || c == '_')).then(|| key.to_string())
}

fn mentions(code: &str, key: &str) -> bool {
    code.match_indices(key).any(|(i, _)| {
        let before = code[..i].chars().next_back();
        let after = code[i + key.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !word(before) && !word(after)
    })
}

/// Confirm from the born-at pass (the rule is spelled out where `chosen` is picked): an origin
/// the run proved that the static ranking puts first, the count a bound was computed by when
/// the ranking's first suspect is on the bound's path, or the line that computed the value from
/// good inputs when nothing the ranking puts before it stands against it. The rest keep their
/// static order, marked on the path, refuted (a traced value line that ran while the value was
/// made elsewhere), not reached or unchecked. Returns false when the pass found no origin at all
/// (the caller falls back to the replay's provenance).
fn confirm_born(report: &mut Report, w: &Witness, born: &Born, ranged: bool, root: Option<&Path>, files: Option<&ProjectFiles>) -> bool {
    let caught = w.caught_line();
    let value = born.value_chain.as_ref();
    let bound = born.bound_chain.as_ref();
    let vpath = value.map(|c| chain_places(c, root, files)).unwrap_or_default();
    let bpath = bound.map(|c| chain_places(c, root, files)).unwrap_or_default();
    let vorigin = value.and_then(|c| c.born.as_ref());
    let borigin = bound.and_then(|c| c.born.as_ref());
    let vplace = vorigin.and_then(|s| step_text(s, root, files));
    let bplace = borigin.and_then(|s| step_text(s, root, files));
    let call = value.and_then(|c| c.chain.first()).and_then(|s| frame_place(&s.place, root, files));
    let on = |path: &[(String, u32, String)], f: &str, l: u32| path.iter().any(|(a, b, _)| a == f && *b == l);
    let read_any = [vorigin, borigin].iter().flatten().any(|s| s.kind.as_deref() == Some("read"));
    let on_path = |s: &Suspect| -> bool {
        if crate::scan::facts::is_config_path(&s.file) {
            return read_any
                && config_key(root, &s.file, s.line)
                    .is_some_and(|k| vpath.iter().chain(bpath.iter()).any(|(_, _, code)| mentions(code, &k)));
        }
        (on(&vpath, &s.file, s.line) || on(&bpath, &s.file, s.line)) && call.as_ref().map_or(true, |(f, l)| !(f == &s.file && *l == s.line))
    };
    // each watched line as a project place, resolved once
    let watched: Vec<(Option<String>, &crate::model::witness::Watched)> =
        born.watch.iter().map(|x| (x.file.as_deref().and_then(|p| project_path(p, root, files)), x)).collect();
    let watch = |file: &str, line: u32| {
        watched.iter().find(|(p, x)| x.line == Some(i64::from(line)) && p.as_deref() == Some(file)).map(|(_, x)| *x)
    };
    let kind = |s: Option<&BornStep>| s.and_then(|s| s.kind.clone()).unwrap_or_default();
    // the origins the run proved: where the value entered or was computed (a count or a largest
    // value included: a value that equals a count is the count-vs-largest confusion; not
    // positions drawn from another value's length, which fit it by construction), where a
    // computed bound was computed.
    // The static ranking is read in order: its first suspect that is an origin is confirmed;
    // one the bound passed through confirms the count it was computed by upstream;
    // a traced line that ran off the run's path is passed over (refuted); anything else the
    // run cannot judge (a config key, a loss setting, a bound it followed to a computation
    // static analysis names upstream) stops the search with nothing confirmed.

    // which side the data the run collected proves wrong (see `wrong_side`)
    let side = counted_past(w, borigin).or_else(|| wrong_side(w, vorigin));
    let marker = side == Some(Side::Marker);
    // a marker read as it came (from a file, by a library) is data, and the line that read it
    // is right in itself; one the line put in from a constant it named (`.get(name, UNLABELED)`,
    // the constant among the numbers its inputs held) is where the marker joined the data
    let bad = w.bad.first().and_then(|b| b.value.as_i64());
    let put_in = vorigin.is_some_and(|s| s.before.as_object().is_some_and(|o| o.values().any(|x| bad.is_some() && x.as_i64() == bad)));
    let mut origins: Vec<(String, u32)> = Vec::new();
    // (`joined`: a constant put into the data there, the constant itself passed in by a
    // library call the run could not follow upstream)
    let joined = kind(vorigin) == "joined";
    let value_cause = match kind(vorigin).as_str() {
        "read" => !marker || put_in,
        // (a probability that crossed its range where values inside it met one never inside, or
        // were weighted and summed, is not: confirming such a line where the static ranking
        // named it first was right on the tune halves and wrong on the held-out ones)
        k => matches!(k, "made" | "count" | "joined"),
    };
    if let (true, Some((f, l, _))) = (value_cause, vplace.as_ref()) {
        origins.push((f.clone(), *l));
    }
    // a bound that is a count of what it counts (`len(index)`) is a cause only where the value
    // came in as it was read or counted; a value the run saw computed out of range from inputs
    // in range was made too large by that computation, not counted too small
    // (a number written on the line, `N_RANKS = 13`, is where the bound was set, not a
    // computation the run saw go wrong: it is a cause only where the values prove the bound
    // side wrong, as any bound is)
    // (and a value below zero is past no bound a line could set larger: the value's side is
    // wrong, whatever the bound)
    let bound_cause = !marker
        && bad.map_or(true, |v| v >= 0)
        && match kind(borigin).as_str() {
            "made" => !borigin.is_some_and(|s| assigns_a_number(s.place.code.as_deref().unwrap_or(""))),
            "count" => kind(vorigin) != "made",
            _ => false,
        };
    if let (true, Some((f, l, _))) = (bound_cause, bplace.as_ref()) {
        origins.push((f.clone(), *l));
    }
    let computed = || match kind(vorigin).as_str() {
        "made" => vplace.as_ref().map(|(f, l, _)| (f.clone(), *l)),
        _ => None,
    };
    let value_suspect = |s: &Suspect| s.file.ends_with(".py") && !s.chain.is_empty() && !s.chain.iter().any(|c| c.role == "bound");
    // the run followed the value from the op back to a line that computed it from inputs that
    // did not hold it: a line that claims to make the value and is not on that path did not
    // make the value that tripped, whether its static chain reaches the op through the line
    // the run saw compute it (its inputs were good) or by another call, and whether it ran in
    // this process or another (a data script run before the training). A bound claim stands.
    let made_seen = kind(vorigin) == "made" && vplace.is_some();
    let on_bound = |s: &Suspect| {
        bplace.as_ref().is_some_and(|(f, l, _)| *f == s.file && *l == s.line)
            || if crate::scan::facts::is_config_path(&s.file) {
                config_key(root, &s.file, s.line).is_some_and(|k| bpath.iter().any(|(_, _, code)| mentions(code, &k)))
            } else {
                on(&bpath, &s.file, s.line)
            }
    };
    let on_value = |s: &Suspect| {
        vplace.as_ref().is_some_and(|(f, l, _)| *f == s.file && *l == s.line)
            || (on(&vpath, &s.file, s.line) && call.as_ref().map_or(true, |(f, l)| !(f == &s.file && *l == s.line)))
    };
    // (where a probability crossed its range by meeting a value never inside it, or in a
    // weighted sum, the run did not follow that value or the weights to where they were made: a
    // line that made them upstream ran, and is neither refuted nor passed over)
    let upstream_open = matches!(kind(vorigin).as_str(), "mixed" | "weighted");
    let ran_off_path =
        |s: &Suspect| !upstream_open && value_suspect(s) && (made_seen || watch(&s.file, s.line).is_some_and(|x| x.ran.unwrap_or(0) > 0));
    let mut chosen: Option<(String, u32)> = None;
    let mut judged = false;
    for s in &report.suspects {
        let place = (s.file.clone(), s.line);
        let bound_origin = bplace.as_ref().is_some_and(|(f, l, _)| *f == s.file && *l == s.line);
        if side == Some(Side::Bound) && !bpath.is_empty() && on_bound(s) && !bound_origin && !crate::scan::facts::is_config_path(&s.file) {
            // the bound only passed through this line (`model = Net(opt)`): the line that set
            // it is further up
            continue;
        } else if side == Some(Side::Bound) && !bpath.is_empty() && on_bound(s) {
            // the values are a complete code past the bound: the line that set the bound
            chosen = Some(place);
        } else if side == Some(Side::Value) && on_value(s) {
            // the values are a code from one that fills the bound exactly: the value's line
            chosen = Some(place);
        } else if matches!(side, Some(Side::Value | Side::Marker)) && on_bound(s) && !on_value(s) {
            // the values prove the bound right (they fill it, counted from one or beside a
            // marker): a line that set it is not the cause
            continue;
        } else if side == Some(Side::Bound) && on_value(s) {
            // the values are consistent among themselves: a line they passed did not break them
            // (the other way round, a line that set the bound is as good a fix as one that
            // shifts the values, and stops the search)
            continue;
        } else if origins.contains(&place) {
            chosen = Some(place);
        } else if made_seen && on_path(s) && !on(&vpath, &s.file, s.line) && !crate::scan::facts::is_config_path(&s.file) {
            // a line only the bound went through, where the run saw the value computed out of
            // range: the computation stands against it
            continue;
        } else if made_seen && on(&vpath, &s.file, s.line) {
            // a line the value passed through after the run saw it computed out of range from
            // inputs in range: its own inputs already broke the check, so it did not make the
            // value; the computation it passed on is where the value was born
            continue;
        } else if on_path(s) {
            // a line the value or the bound went through: nothing is confirmed. Upstream of a
            // bound there is a count that is right for what it counts (`len(self.encoder)`),
            // and the run cannot say the bound should have counted something else; upstream
            // of a value, the value is followed by equality, and a number that equals it by
            // chance (an id that equals a length) can lead the chain astray
            chosen = None;
        } else if joined && value_suspect(s) {
            // a line upstream of the constant (where it was chosen or bound): the run did not
            // follow it there, so it neither stands against the line it joined the data on nor
            // is refuted
            continue;
        } else if ran_off_path(s) || (bound.is_none() && s.chain.iter().any(|c| c.role == "bound")) {
            // a line that ran off the value's path; or a claim about a bound the run could not
            // follow (a tensor's size): neither stands against a value the run saw computed
            continue;
        }
        judged = true;
        break;
    }
    if !judged && !ranged {
        // (a value followed by its range crosses it in lines that are right in themselves, a
        // helper that sums what it is asked to sum: the line it crossed in is confirmed only
        // where the static ranking names it too)
        chosen = computed();
    }
    if chosen.is_none() && vorigin.is_none() && borigin.is_none() {
        return false;
    }
    let (cfile, cline) = chosen.clone().unwrap_or_default();
    let chain_text = |path: &[(String, u32, String)]| path.iter().map(|(f, l, _)| format!("{f}:{l}")).collect::<Vec<_>>().join(" → ");
    let value_sentence = vorigin.zip(vplace.as_ref()).map(|(s, (f, l, _))| {
        let how = match s.kind.as_deref() {
            Some("made" | "count") => "born at",
            Some("joined") => "joined the data at",
            Some("layer") => "came out of a layer's weights, never inside the range, at",
            Some("mixed") => "met values inside the range at",
            Some("weighted") => "left the range in a weighted sum of values inside it at",
            _ => "read at",
        };
        format!("{how} {f}:{l}: {}", gave(s))
    });
    let bound_sentence = borigin.zip(bplace.as_ref()).map(|(s, (f, l, _))| {
        let b = w.bound.as_ref().map(|b| b.text()).unwrap_or_else(|| "the bound".into());
        format!("{b} came from {f}:{l}: {}", gave(s))
    });
    let mut first: Option<Suspect> = None;
    let mut rest = Vec::new();
    for mut s in std::mem::take(&mut report.suspects) {
        if chosen.is_some() && s.file == cfile && s.line == cline {
            s.tier = "confirmed".into();
            s.confirmed = Some(true);
            s.repro = Some("confirmed".into());
            let mut ev = Vec::new();
            ev.extend(value_sentence.iter().map(|v| format!("repro: {v}")));
            ev.extend(bound_sentence.iter().map(|b| format!("repro: {b}")));
            if !vpath.is_empty() {
                ev.push(format!("repro chain: {}", chain_text(&vpath)));
            }
            ev.push(format!("caught: {caught}"));
            ev.append(&mut s.evidence);
            s.evidence = ev;
            first = Some(s);
            continue;
        }
        let is_origin = [&vplace, &bplace].iter().any(|p| p.as_ref().is_some_and(|(f, l, _)| *f == s.file && *l == s.line));
        if on_path(&s) || is_origin {
            s.repro = Some("on_path".into());
            let what = if is_origin {
                let v = value_sentence.as_deref().unwrap_or("the value came in here");
                format!("repro: an origin the run saw ({v}), not proven the cause")
            } else if chosen.is_some() {
                "repro: the value (or bound) went through this line; it was not made here".to_string()
            } else {
                let v = value_sentence.as_deref().unwrap_or("the value came in as it was read");
                let undecided = if matches!(kind(vorigin).as_str(), "layer" | "mixed") {
                    "the value never was inside the range, so the run cannot tell it from the op's choice"
                } else if kind(vorigin) == "weighted" {
                    "so the run cannot tell the weights from the sum"
                } else {
                    "so the run cannot tell the data from the bound"
                };
                format!("repro: on the value's (or bound's) path; {v}, {undecided}")
            };
            s.evidence.insert(0, what);
        } else if s.file.ends_with(".py") {
            match watch(&s.file, s.line) {
                // refuted only where the run found the line that made the value, and only a
                // suspect that claims to make it (a traced value line)
                Some(x)
                    if x.ran.unwrap_or(0) > 0
                        && chosen.is_some()
                        && !joined
                        && !upstream_open
                        && !s.chain.is_empty()
                        && !s.chain.iter().any(|c| c.role == "bound") =>
                {
                    let seen = x
                        .seen
                        .first()
                        .map(|m| format!(" (seen: {})", m.iter().map(|(k, v)| format!("{k} = {}", show(v))).collect::<Vec<_>>().join(", ")))
                        .unwrap_or_default();
                    s.repro = Some("refuted".into());
                    s.evidence
                        .insert(0, format!("refuted by repro: ran {} times{seen}; the bad value was made elsewhere", x.ran.unwrap_or(0)));
                }
                Some(x) if x.ran.unwrap_or(0) == 0 => {
                    s.repro = Some("not_reached".into());
                    s.evidence.insert(0, "repro: not reached (the line never ran before the violation)".into());
                }
                _ => s.repro = Some("unchecked".into()),
            }
        } else {
            s.repro = Some("unchecked".into());
        }
        rest.push(s);
    }
    // a notebook and its export say the same thing: the one that ran goes first
    let ran = ran_files(w, root, files);
    let twin_ran =
        |s: &Suspect, all: &[Suspect]| s.file.ends_with(".ipynb") && all.iter().any(|o| o.rule == s.rule && ran.contains(&o.file));
    let keys: Vec<bool> = rest.iter().map(|s| twin_ran(s, &rest)).collect();
    let mut keyed: Vec<(bool, Suspect)> = keys.into_iter().zip(rest).collect();
    keyed.sort_by_key(|(k, _)| *k);
    let mut rest: Vec<Suspect> = keyed.into_iter().map(|(_, s)| s).collect();
    if chosen.is_none() {
        // nothing proven: the static ranking stands, the read line beside it
        if let Some((f, l, _)) = vplace.as_ref() {
            if !rest.iter().any(|s| &s.file == f && s.line == *l) {
                let mut s = new_suspect(f, *l, w, value_sentence.as_deref().unwrap_or("the value came in here"));
                s.tier = "likely".into();
                s.confirmed = Some(false);
                s.repro = Some("on_path".into());
                s.evidence.push(format!("caught: {caught}"));
                rest.push(s);
            }
        }
        report.suspects = rest;
        return true;
    }
    let first = first.unwrap_or_else(|| {
        let code = vplace.as_ref().filter(|(f, l, _)| *f == cfile && *l == cline).map(|(_, _, c)| c.clone()).unwrap_or_default();
        let mut s = new_suspect(&cfile, cline, w, value_sentence.as_deref().unwrap_or("the run traced the bad value to this line"));
        let indent = code.len() - code.trim_start().len();
        s.column = indent as u32 + 1;
        s.end_column = s.column + code.trim().chars().count().max(1) as u32;
        s.repro = Some("confirmed".into());
        s.evidence.extend(bound_sentence.iter().map(|b| format!("repro: {b}")));
        if !vpath.is_empty() {
            s.evidence.push(format!("repro chain: {}", chain_text(&vpath)));
        }
        s.evidence.push(format!("caught: {caught}"));
        s
    });
    // the line that read the value, when another line was confirmed, stays in view
    if let Some((f, l, _)) = vplace.as_ref().filter(|(f, l, _)| !(*f == cfile && *l == cline)) {
        if !rest.iter().any(|s| &s.file == f && s.line == *l) {
            let mut s = new_suspect(f, *l, w, value_sentence.as_deref().unwrap_or("the value came in here"));
            s.tier = "likely".into();
            s.confirmed = Some(false);
            s.repro = Some("on_path".into());
            rest.insert(0, s);
        }
    }
    report.suspects = std::iter::once(first).chain(rest).collect();
    true
}

/// The side of a comparison `0 <= value < bound` that the run's data proves wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Value,
    Bound,
    /// The values inside the bound fill it, and one value outside it is not the next code (-1,
    /// 255, -100): a marker. The bound is right; the marker is data the op was not told to
    /// skip, and where it should have been skipped the run cannot say.
    Marker,
}

/// The bound is a count the run saw made (`n = len(freq)`), and what it counted are integer ids
/// that reach past their own number (bins 0..25 of which 20 occur, counted 20): the ids have
/// gaps, and a count of them is not the size that holds them. The bound's side is wrong.
fn counted_past(w: &Witness, origin: Option<&BornStep>) -> Option<Side> {
    let origin = origin.filter(|o| o.kind.as_deref() == Some("count"))?;
    let c = origin.counted?;
    let n = w.bound.as_ref()?.value.as_i64()?;
    let v = w.bad.first()?.value.as_i64()?;
    (c.distinct == n && c.min >= 0 && c.max >= n && (c.min..=c.max).contains(&v)).then_some(Side::Bound)
}

/// Which side the values that reached the op prove wrong, from the first container that
/// collected them (`population`): codes that run from 0 to their largest without a gap and
/// reach past the bound are a complete code the bound is too small for (seven intents 0..6,
/// a head of six); codes that run from 1 and fill the bound exactly (1..6, six of them, a head
/// of six) are counted from one where the op counts from zero; codes that fill the bound with
/// one value apart from them that is not the next code (0..3 and 255, a head of four) hold a
/// marker. Anything else (gaps, a sample that does not hold every code, values some line
/// computed) proves neither.
fn wrong_side(w: &Witness, origin: Option<&BornStep>) -> Option<Side> {
    // only values taken as they came: downstream of a line that made some of them bad (a
    // label shifted for one sample in ten), the container mixes made and read values
    let origin = origin.filter(|o| o.kind.as_deref() == Some("read"))?;
    let pop = origin.population?;
    let n = w.bound.as_ref()?.value.as_i64()?;
    let v = w.bad.first()?.value.as_i64()?;
    if v < pop.min || v > pop.max || n <= 0 {
        return None;
    }
    if pop.min == 0 && pop.distinct == pop.max + 1 && pop.max >= n {
        Some(Side::Bound)
    } else if pop.min == 1 && pop.distinct == pop.max && pop.max == n {
        Some(Side::Value)
    } else if pop.inside == Some(n) && pop.distinct == n + 1 && (v < 0 || v > n) {
        Some(Side::Marker)
    } else {
        None
    }
}

fn new_suspect(file: &str, line: u32, w: &Witness, message: &str) -> Suspect {
    let at_line = |p: &&Place| p.line == Some(i64::from(line));
    let code = w
        .provenance
        .as_ref()
        .map(|p| &p.place)
        .filter(at_line)
        .and_then(|p| p.code.as_deref())
        .or_else(|| w.user_frame().filter(at_line).and_then(|f| f.code.as_deref()))
        .unwrap_or("");
    let indent = code.len() - code.trim_start().len();
    let width = code.trim().chars().count().max(1) as u32;
    let op = w.op.as_deref().unwrap_or("op");
    Suspect {
        file: file.to_string(),
        line,
        column: indent as u32 + 1,
        end_line: line,
        end_column: indent as u32 + 1 + width,
        rule: "repro".into(),
        tier: "confirmed".into(),
        confirmed: Some(true),
        message: message.to_string(),
        evidence: Vec::new(),
        fingerprint: format!("repro:{file}:{op}:{line}"),
        chain: Vec::new(),
        bound_chain: Vec::new(),
        repro: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// A traced suspect at `file:line` whose chain is one step of `role`.
    fn chained(file: &str, line: u32, role: &str) -> Suspect {
        let mut s = new_suspect(file, line, &Witness::default(), "a suspect");
        s.rule = "CS118".into();
        s.tier = "likely".into();
        s.confirmed = Some(false);
        s.chain =
            vec![crate::model::ChainStep { file: file.into(), line, role: role.into(), what: "the value".into(), value: String::new() }];
        s
    }

    /// The report after `confirm` (project root `/x/proj`), for a witness whose born-at pass
    /// followed the value from its call to its origin (`value`) and the bound likewise, with
    /// the static suspects `order` (file, line, the role of their one chain step).
    fn confirmed(mut w: Value, value: [Value; 2], bound: Option<[Value; 2]>, order: &[(&str, u32, &str)]) -> Report {
        let chain = |[call, origin]: [Value; 2]| serde_json::json!({"chain": [call, origin.clone()], "born": origin});
        w["born"] = serde_json::json!({"same_witness": true, "value_chain": chain(value), "bound_chain": bound.map(chain), "watch": []});
        let incident = crate::log::read_from(Box::new(std::io::Cursor::new(Vec::new())));
        let mut report = crate::rank::assemble::assemble("run.log", &incident);
        for (file, line, role) in order {
            report.suspects.push(chained(file, *line, role));
        }
        report.witness = Some(w);
        confirm(&mut report, Some(Path::new("/x/proj")), None);
        report
    }

    fn witness() -> Value {
        serde_json::json!({
            "version": 1, "kind": "witness", "op": "nll_loss", "aten": "aten::nll_loss_forward",
            "category": "label_out_of_range", "tensor": "target",
            "bound": {"name": "n_classes", "value": 3}, "bad": [{"position": [5], "value": 3, "sample": 41}], "bad_count": 1,
            "stack": [{"file": "/x/proj/train.py", "line": 30, "function": "<module>", "user_code": true}],
            "provenance": {"kind": "code_line", "file": "/x/proj/data/dataset.py", "line": 23, "variable": "label", "before": 2, "after": 3, "sample": 41, "code": "        label = label + 1"}
        })
    }

    #[test]
    fn sentences() {
        let w = Witness::of(&witness());
        assert_eq!(w.caught_line(), "nll_loss: target value 3 out of range (n_classes = 3), sample 41");
        let (s, at) = provenance_line(&w, None, None).unwrap();
        assert_eq!(s, "/x/proj/data/dataset.py:23 turned label 2 into 3 for sample 41 (n_classes = 3)");
        assert_eq!(at, Some(("/x/proj/data/dataset.py".to_string(), 23)));
    }

    #[test]
    fn provenance_line_becomes_the_confirmed_first_suspect() {
        let incident = crate::log::read_from(Box::new(std::io::Cursor::new(Vec::new())));
        let mut report = crate::rank::assemble::assemble("run.log", &incident);
        report.suspects.push(new_suspect("train.py", 30, &Witness::default(), "loss call"));
        report.suspects[0].confirmed = None;
        report.suspects[0].tier = "likely".into();
        report.witness = Some(witness());
        confirm(&mut report, None, None);
        assert_eq!(report.suspects[0].line, 23);
        assert_eq!(report.suspects[0].confirmed, Some(true));
        assert_eq!(report.suspects[0].tier, "confirmed");
        assert_eq!(report.suspects[1].confirmed, Some(false));
        assert!(report.suspects[0].evidence[0].starts_with("repro: "));
    }

    /// A born-at value chain whose origin is a count (`offsets = cumsum(sizes)` used as ids):
    /// confirmed when the static ranking names that line first, a born step of kind `size`
    /// (positions counted from a length) is not.
    #[test]
    fn a_value_born_as_a_count_is_confirmed_where_the_ranking_names_it() {
        for (kind, confirmed) in [("count", true), ("size", false)] {
            let mut w = witness();
            let origin = serde_json::json!({"file": "/x/proj/tax.py", "line": 21, "code": "offsets = np.cumsum(sizes)",
                "variable": "offsets", "value": "<ndarray>", "role": "origin", "kind": kind, "before": {}});
            let call = serde_json::json!({"file": "/x/proj/train.py", "line": 30, "code": "loss = F.cross_entropy(out, y)",
                "variable": null, "value": null, "role": "call"});
            w["born"] = serde_json::json!({"same_witness": true,
                "value_chain": {"chain": [call, origin.clone()], "born": origin}, "bound_chain": null, "watch": []});
            let incident = crate::log::read_from(Box::new(std::io::Cursor::new(Vec::new())));
            let mut report = crate::rank::assemble::assemble("run.log", &incident);
            let mut s = new_suspect("tax.py", 21, &Witness::default(), "ids from an inclusive cumsum");
            s.rule = "CS118".into();
            s.tier = "likely".into();
            report.suspects.push(s);
            report.witness = Some(w);
            confirm(&mut report, Some(Path::new("/x/proj")), None);
            assert_eq!(report.suspects[0].line, 21);
            assert_eq!(report.suspects[0].confirmed, Some(confirmed), "{kind}");
            if confirmed {
                assert!(report.suspects[0].evidence[0].starts_with("repro: born at"), "{:?}", report.suspects[0].evidence);
            }
        }
    }

    /// A probability followed by its range: confirmed where values inside the range made one
    /// outside it and the static ranking names that line first; where a value never inside met
    /// them, weights summed them or a layer made it, the origin is shown and nothing is
    /// confirmed. A line the range was crossed in that no static suspect names (a helper that
    /// sums what it is asked to) is not confirmed. Where a value never inside or the weights
    /// came from upstream, a line that made them and ran (`prior = rates / n`) is not refuted.
    #[test]
    fn a_probability_is_confirmed_only_where_values_inside_the_range_made_it() {
        let named = vec![("model.py", 44)];
        let unnamed = vec![("heads.py", 44)];
        let upstream = vec![("data.py", 22), ("model.py", 44)];
        for (kind, order, confirmed, says) in [
            ("made", &named, true, "born at"),
            ("made", &unnamed, false, "born at"),
            ("made", &upstream, true, "born at"),
            ("mixed", &named, false, "met values inside the range at"),
            ("mixed", &unnamed, false, "met values inside the range at"),
            ("mixed", &upstream, false, "met values inside the range at"),
            ("layer", &named, false, "came out of a layer's weights"),
            ("weighted", &named, false, "left the range in a weighted sum"),
            ("weighted", &upstream, false, "left the range in a weighted sum"),
        ] {
            let mut w = witness();
            w["op"] = "binary_cross_entropy".into();
            w["category"] = "probability_out_of_range".into();
            w["tensor"] = "input".into();
            w["bound"] = serde_json::json!({"name": "range", "value": [0, 1]});
            w["bad"] = serde_json::json!([{"position": [5], "value": 1.4, "sample": 41}]);
            w["provenance"] = serde_json::json!({"kind": "not_replayable", "reason": "bad value is not an integer"});
            let origin = serde_json::json!({"file": "/x/proj/model.py", "line": 44, "code": "p = p_a + p_b",
                "variable": "p", "value": "<tensor [8]>", "role": "origin", "kind": kind, "before": {}});
            let call = serde_json::json!({"file": "/x/proj/train.py", "line": 30, "code": "loss = F.binary_cross_entropy(p, y)",
                "variable": null, "value": null, "role": "call"});
            w["born"] = serde_json::json!({"same_witness": true,
                "value_chain": {"chain": [call, origin.clone()], "born": origin}, "bound_chain": null,
                "watch": [{"file": "/x/proj/data.py", "line": 22, "ran": 1, "seen": []}]});
            let incident = crate::log::read_from(Box::new(std::io::Cursor::new(Vec::new())));
            let mut report = crate::rank::assemble::assemble("run.log", &incident);
            for (file, line) in order {
                report.suspects.push(chained(file, *line, "transform"));
            }
            report.witness = Some(w);
            confirm(&mut report, Some(Path::new("/x/proj")), None);
            let s = report.suspects.iter().find(|s| s.file == "model.py").expect("the origin is listed");
            assert_eq!((s.line, s.confirmed), (44, Some(confirmed)), "{kind} {order:?}");
            assert!(s.message.contains(says) || s.evidence[0].contains(says), "{kind}: {:?}", s.evidence);
            if let Some(up) = report.suspects.iter().find(|s| s.file == "data.py") {
                let refuted = up.repro.as_deref() == Some("refuted");
                assert_eq!(refuted, kind == "made", "{kind}: {:?}", up.repro);
            }
        }
    }

    /// The run saw a line compute the value from good inputs; a static value suspect off the
    /// run's path (a data script's flag whose chain passes that line, run in another process,
    /// so never "ran" in the tripping one) did not make it and does not stop the confirmation.
    #[test]
    fn a_value_suspect_off_the_runs_path_gives_way_to_the_line_the_run_saw_compute() {
        for (kind, confirmed) in [("made", true), ("read", false)] {
            let mut w = witness();
            let origin = serde_json::json!({"file": "/x/proj/dataset.py", "line": 53, "code": "label = system * 7 + magnetic",
                "variable": "label", "value": 29, "role": "origin", "kind": kind, "before": {"system": 4}});
            let call = serde_json::json!({"file": "/x/proj/train.py", "line": 30, "code": "loss = F.cross_entropy(out, y)",
                "variable": null, "value": null, "role": "call"});
            w["born"] = serde_json::json!({"same_witness": true, "value_chain": {"chain": [call, origin.clone()], "born": origin},
                "bound_chain": null, "watch": [{"file": "/x/proj/make_data.py", "line": 60, "ran": 0, "seen": []}]});
            let incident = crate::log::read_from(Box::new(std::io::Cursor::new(Vec::new())));
            let mut report = crate::rank::assemble::assemble("run.log", &incident);
            for (file, line) in [("make_data.py", 60), ("dataset.py", 53)] {
                let mut s = new_suspect(file, line, &Witness::default(), "a value line");
                s.rule = "CS118".into();
                s.tier = "likely".into();
                s.confirmed = Some(false);
                // the flag's chain passes the line the run saw compute the value
                s.chain = [(file, line, "origin"), ("dataset.py", 53, "transform")]
                    .into_iter()
                    .map(|(file, line, role)| crate::model::ChainStep {
                        file: file.into(),
                        line,
                        role: role.into(),
                        what: "the value".into(),
                        value: String::new(),
                    })
                    .collect();
                report.suspects.push(s);
            }
            report.witness = Some(w);
            confirm(&mut report, Some(Path::new("/x/proj")), None);
            let first = &report.suspects[0];
            assert_eq!(
                (first.file.as_str(), first.confirmed),
                (if confirmed { "dataset.py" } else { "make_data.py" }, Some(confirmed)),
                "{kind}"
            );
        }
    }

    /// The run followed the bound to a count (`n = len(index)`) and the value to a line that
    /// computed it out of range from inputs in range (`ctx + shift`): the computation is
    /// confirmed, not the count the static ranking put first; where the value came in as it was
    /// read, the count is the cause the run can prove (a table counted too small).
    #[test]
    fn a_value_computed_out_of_range_is_confirmed_over_the_count_of_its_bound() {
        for (kind, want) in [("made", ("train.py", 18)), ("read", ("train.py", 32))] {
            let w = witness();
            let origin = serde_json::json!({"file": "/x/proj/train.py", "line": 18, "code": "return ctx + shift",
                "variable": "<return>", "value": 30, "role": "origin", "kind": kind, "before": {}});
            let call = serde_json::json!({"file": "/x/proj/train.py", "line": 43, "code": "loss = model(center, ctx, neg)",
                "variable": null, "value": null, "role": "call"});
            let count = serde_json::json!({"file": "/x/proj/train.py", "line": 32, "code": "n = len(index)",
                "variable": "n", "value": 18, "role": "origin", "kind": "count", "before": {}});
            let ctor = serde_json::json!({"file": "/x/proj/train.py", "line": 33, "code": "model = SkipGram(n, 16)",
                "variable": "model", "value": null, "role": "pass"});
            let report = confirmed(w, [call, origin], Some([ctor, count]), &[("train.py", 32, "bound"), ("train.py", 18, "origin")]);
            let first = &report.suspects[0];
            assert_eq!(((first.file.as_str(), first.line), first.confirmed), (want, Some(true)), "{kind}");
            let others = report.suspects.iter().skip(1).filter(|s| s.confirmed == Some(true)).count();
            assert_eq!(others, 0, "{kind}");
        }
    }

    /// The value was computed out of range (length bins, `floor((cm - 10) / 2)`) and the bound
    /// is a count the run saw made (`n = len(freq)`) of ids that reach past their number (bins
    /// 0..25, 18 of them present): the count is confirmed, not the computation. A count of ids
    /// without gaps (0..17), or of what holds no integers, leaves the computation confirmed.
    #[test]
    fn a_count_of_ids_that_reach_past_their_number_is_the_bound_proven_wrong() {
        let gaps = serde_json::json!({"min": 0, "max": 25, "distinct": 18});
        let dense = serde_json::json!({"min": 0, "max": 17, "distinct": 18});
        for (counted, want) in [(Some(gaps), ("train.py", 32)), (Some(dense), ("train.py", 18)), (None, ("train.py", 18))] {
            let mut w = witness();
            w["bound"] = serde_json::json!({"name": "n_classes", "value": 18});
            w["bad"] = serde_json::json!([{"position": [3], "value": 24, "sample": null}]);
            let origin = serde_json::json!({"file": "/x/proj/train.py", "line": 18, "code": "idx = np.floor((cm - 10.0) / 2.0)",
                "variable": "idx", "value": "<array>", "role": "origin", "kind": "made", "before": {},
                "population": {"min": 0, "max": 25, "distinct": 18, "inside": 12}});
            let call = serde_json::json!({"file": "/x/proj/train.py", "line": 43, "code": "loss = F.cross_entropy(out, y)",
                "variable": null, "value": null, "role": "call"});
            let mut count = serde_json::json!({"file": "/x/proj/train.py", "line": 32, "code": "n = len(freq)",
                "variable": "n", "value": 18, "role": "origin", "kind": "count", "before": {}});
            if let Some(c) = counted {
                count["counted"] = c;
            }
            let ctor = serde_json::json!({"file": "/x/proj/train.py", "line": 33, "code": "model = Net(n)",
                "variable": "model", "value": null, "role": "pass"});
            w["born"] = serde_json::json!({"same_witness": true,
                "value_chain": {"chain": [call, origin.clone()], "born": origin},
                "bound_chain": {"chain": [ctor, count.clone()], "born": count}, "watch": []});
            let incident = crate::log::read_from(Box::new(std::io::Cursor::new(Vec::new())));
            let mut report = crate::rank::assemble::assemble("run.log", &incident);
            for (file, line, role) in [("train.py", 18, "origin"), ("train.py", 32, "bound")] {
                report.suspects.push(chained(file, line, role));
            }
            report.witness = Some(w);
            confirm(&mut report, Some(Path::new("/x/proj")), None);
            let confirmed: Vec<(&str, u32)> =
                report.suspects.iter().filter(|s| s.confirmed == Some(true)).map(|s| (s.file.as_str(), s.line)).collect();
            assert_eq!(confirmed, vec![want], "{:?}", count.get("counted"));
        }
    }

    /// A bound the run followed to a number written on a line (`N_RANKS = 13`) was set there,
    /// not computed wrong there: with the value read as it came, the run proves neither side
    /// and confirms nothing; a bound computed from other numbers (`N_DIRS * N_SPEEDS`) is.
    #[test]
    fn a_bound_written_as_a_number_is_not_confirmed_by_the_run_alone() {
        for (code, want) in [("N_RANKS = 13", None), ("N_RANKS: int = 13  # ranks", None), ("N_RANKS = N_DIRS * N_SPEEDS", Some(3))] {
            let w = witness();
            let origin = serde_json::json!({"file": "/x/proj/cards.py", "line": 30, "code": "rank = self.deck[self.i][0]",
                "variable": "rank", "value": 3, "role": "origin", "kind": "read", "before": {}});
            let call = serde_json::json!({"file": "/x/proj/model.py", "line": 19, "code": "h = self.rank_emb(rank)",
                "variable": null, "value": null, "role": "call"});
            let set = serde_json::json!({"file": "/x/proj/cards.py", "line": 3, "code": code,
                "variable": "N_RANKS", "value": 3, "role": "origin", "kind": "made", "before": {}});
            let ctor = serde_json::json!({"file": "/x/proj/model.py", "line": 8, "code": "self.rank_emb = nn.Embedding(n_ranks, 8)",
                "variable": null, "value": 3, "role": "call"});
            let report = confirmed(w, [call, origin], Some([ctor, set]), &[("cards.py", 3, "bound"), ("cards.py", 30, "origin")]);
            let lines: Vec<u32> = report.suspects.iter().filter(|s| s.confirmed == Some(true)).map(|s| s.line).collect();
            assert_eq!(lines, want.into_iter().collect::<Vec<_>>(), "{code}");
        }
        assert!(!assigns_a_number("if n == 3: pass") && !assigns_a_number("n = -x") && assigns_a_number("n = 1_000"));
    }

    /// A value below zero (a marker -1 read as it came) reaching a head whose size the run saw
    /// computed (`len(edges) - 1`): no larger bound would take it, so the bound's line is not
    /// confirmed; the same run with a value past the head confirms it.
    #[test]
    fn a_negative_value_confirms_no_bound() {
        for (bad, want) in [(-1, None), (3, Some(56))] {
            let mut w = witness();
            w["bad"] = serde_json::json!([{"position": [1], "value": bad, "sample": 147}]);
            let origin = serde_json::json!({"file": "/x/proj/data.py", "line": 87, "code": "cands, posts, ys = zip(*batch)",
                "variable": "posts", "value": "<tuple>", "role": "origin", "kind": "read", "before": {}});
            let call = serde_json::json!({"file": "/x/proj/train.py", "line": 59, "code": "lb = band_loss(out[\"band\"], b[\"band\"])",
                "variable": null, "value": null, "role": "call"});
            let set = serde_json::json!({"file": "/x/proj/data.py", "line": 56, "code": "self.num_bands = len(band_edges) - 1",
                "variable": "self.num_bands", "value": 3, "role": "origin", "kind": "made", "before": {}});
            let ctor = serde_json::json!({"file": "/x/proj/models.py", "line": 30, "code": "self.band_head = nn.Linear(hidden, num_bands)",
                "variable": null, "value": 3, "role": "call"});
            let report = confirmed(w, [call, origin], Some([ctor, set]), &[("data.py", 56, "bound"), ("data.py", 10, "origin")]);
            let lines: Vec<u32> = report.suspects.iter().filter(|s| s.confirmed == Some(true)).map(|s| s.line).collect();
            assert_eq!(lines, want.into_iter().collect::<Vec<_>>(), "bad value {bad}");
        }
    }

    /// The run saw the value computed out of range (`lengths = mask.sum(1)`) and passed on by a
    /// later line (`last = lengths.view(-1, 1)`) that the static ranking put first: the later
    /// line's inputs already held the bad value, so the computation is confirmed; where the
    /// value came in as it was read, a line it passed through confirms nothing.
    #[test]
    fn a_line_the_value_passed_through_gives_way_to_where_the_run_saw_it_computed() {
        for (kind, want) in [("made", Some(("train.py", 206))), ("read", None)] {
            let mut w = witness();
            let origin = serde_json::json!({"file": "/x/proj/train.py", "line": 206, "code": "lengths = mask.sum(dim=1)",
                "variable": "lengths", "value": "<tensor [8]>", "role": "origin", "kind": kind, "before": {}});
            let pass = serde_json::json!({"file": "/x/proj/train.py", "line": 207, "code": "last = lengths.view(-1, 1)",
                "variable": "last", "value": "<tensor [8, 1]>", "role": "pass"});
            let call = serde_json::json!({"file": "/x/proj/train.py", "line": 208, "code": "h = out.gather(1, last)",
                "variable": null, "value": null, "role": "call"});
            w["born"] = serde_json::json!({"same_witness": true,
                "value_chain": {"chain": [call, pass, origin.clone()], "born": origin}, "bound_chain": null, "watch": []});
            let incident = crate::log::read_from(Box::new(std::io::Cursor::new(Vec::new())));
            let mut report = crate::rank::assemble::assemble("run.log", &incident);
            for line in [207, 206] {
                report.suspects.push(chained("train.py", line, "origin"));
            }
            report.witness = Some(w);
            confirm(&mut report, Some(Path::new("/x/proj")), None);
            let confirmed: Vec<(&str, u32)> =
                report.suspects.iter().filter(|s| s.confirmed == Some(true)).map(|s| (s.file.as_str(), s.line)).collect();
            assert_eq!(confirmed, want.into_iter().collect::<Vec<_>>(), "{kind}");
            if want.is_some() {
                assert_eq!(report.suspects[0].line, 206, "{kind}");
            }
        }
    }

    /// The labels the run collected are a complete code from 0 past the head (0..4 against a
    /// head of 4): the config line that set the head is confirmed, not the label line the
    /// static ranking put first; labels from 1 that fill the head exactly (1..4) confirm the
    /// label line; labels with a gap (0, 2, 4) prove neither side, and the config line the
    /// ranking put first, on the bound's path, stops the search. A line the bound only passed
    /// through (the head's constructor) gives way to the line that set it. Labels 0..3 and 255
    /// hold a marker: neither the head nor the line that read the marker is confirmed.
    #[test]
    fn the_values_population_says_which_side_of_the_check_is_wrong() {
        let data = ("data.py", 12, "origin");
        let conf = ("conf.yaml", 3, "bound");
        let head = ("model.py", 8, "bound");
        let none = serde_json::json!({});
        let named = serde_json::json!({"VOID": 255});
        let cases = [
            ((4, 0, 4, 5), &none, vec![data, conf], Some(("conf.yaml", 3))),
            ((4, 1, 4, 4), &none, vec![data, conf], Some(("data.py", 12))),
            // the same values prove the bound right: the config line the ranking put first
            // gives way
            ((4, 1, 4, 4), &none, vec![conf, data], Some(("data.py", 12))),
            ((4, 0, 4, 3), &none, vec![conf, data], None),
            // the head's constructor only passed the bound on: the line that set it
            ((4, 0, 4, 5), &none, vec![head, data, conf], Some(("conf.yaml", 3))),
            // 0..3 and 255: a marker beside a complete code. The bound is right; the line that
            // read the marker as it came is not proven wrong, the one that put it in from a
            // constant it named is where it joined
            ((255, 0, 255, 5), &none, vec![conf, data], None),
            ((255, 0, 255, 5), &none, vec![data, conf], None),
            ((255, 0, 255, 5), &named, vec![conf, data], Some(("data.py", 12))),
        ];
        for (i, ((value, lo, hi, distinct), before, order, want)) in cases.into_iter().enumerate() {
            let inside = (lo..=hi).filter(|v| (0..4).contains(v)).count().min(distinct as usize);
            let dir = std::env::temp_dir().join(format!("cudasleuth-side-{}-{i}", std::process::id()));
            let at = |f: &str| format!("{}/{f}", dir.display());
            let mut w = witness();
            w["bound"] = serde_json::json!({"name": "n_classes", "value": 4});
            w["bad"] = serde_json::json!([{"position": [1], "value": value, "sample": 3}]);
            let origin = serde_json::json!({"file": at("data.py"), "line": 12, "code": "self.y = [label_of[n] for n in names]",
                "variable": "self.y", "value": "<list>", "role": "origin", "kind": "read", "before": before,
                "population": {"min": lo, "max": hi, "distinct": distinct, "inside": inside}});
            let call = serde_json::json!({"file": at("train.py"), "line": 30, "code": "loss = F.cross_entropy(out, y)",
                "variable": null, "value": null, "role": "call"});
            let head = serde_json::json!({"file": at("model.py"), "line": 8, "code": "self.head = nn.Linear(16, n_classes)",
                "variable": null, "value": 4, "role": "call"});
            let load = serde_json::json!({"file": at("train.py"), "line": 9, "code": "n_classes = cfg[\"n_classes\"]",
                "variable": "n_classes", "value": 4, "role": "origin", "kind": "read", "before": {}});
            w["born"] = serde_json::json!({"same_witness": true,
                "value_chain": {"chain": [call, origin.clone()], "born": origin},
                "bound_chain": {"chain": [head, load.clone()], "born": load}, "watch": []});
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("conf.yaml"), "model:\n  hidden: 16\n  n_classes: 4\n").unwrap();
            let incident = crate::log::read_from(Box::new(std::io::Cursor::new(Vec::new())));
            let mut report = crate::rank::assemble::assemble("run.log", &incident);
            for (file, line, role) in order {
                report.suspects.push(chained(file, line, role));
            }
            report.witness = Some(w);
            confirm(&mut report, Some(&dir), None);
            let _ = std::fs::remove_dir_all(&dir);
            let confirmed: Vec<(&str, u32)> =
                report.suspects.iter().filter(|s| s.confirmed == Some(true)).map(|s| (s.file.as_str(), s.line)).collect();
            assert_eq!(confirmed, want.into_iter().collect::<Vec<_>>(), "{lo}..{hi} ({distinct})");
            if let Some((f, l)) = want {
                assert_eq!((report.suspects[0].file.as_str(), report.suspects[0].line), (f, l));
            }
        }
    }
}
