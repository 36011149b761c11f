//! The rules whose findings land where a value was set (CS115, CS114, CS102 against the data)
//! keep, from one lint run to the next, what each origin's evaluation read and found
//! (`rules::record`); a run takes an origin's findings from the last run while its reads give the
//! same answers. Checked here on every project of the recall corpus: after a recorded run, each
//! file in turn is changed (its integers moved by one, as an edited constant), removed, or
//! copied to a new file with its integers moved, and a
//! run with the old records must find exactly what a fresh whole-project run finds.

mod common;

use common::{key, lazy, projects};
use cudasleuth::analysis::project::Files;
use cudasleuth::analysis::record::{Previous, Record};
use cudasleuth::rules::{self, Finding};
use cudasleuth::scan::{self, facts::Facts, files::ProjectFiles};

fn sorted(v: &[Finding]) -> Vec<String> {
    let mut v: Vec<String> = v.iter().map(key).collect();
    v.sort();
    v.dedup();
    v
}

fn recorded(facts: &Facts, previous: &Previous, focus: Option<Vec<bool>>) -> (Vec<Finding>, Vec<Record>, usize) {
    let project = lazy(facts);
    let files = Files::of_project(&project, focus);
    let (found, records) = rules::run_recorded(&files, previous);
    let read = project.loaded();
    (found, records, read)
}

/// File `i` with every integer one larger (an edited constant, head size or width).
fn bumped(facts: &Facts, i: usize) -> Facts {
    let mut out = facts.clone();
    let f = &mut out.files[i];
    for a in &mut f.assigns {
        if let Some(v) = a.int {
            a.int = Some(v + 1);
            a.value = (v + 1).to_string().into();
        }
    }
    for c in &mut f.calls {
        for a in &mut c.args {
            if let Some(v) = a.int {
                a.int = Some(v + 1);
                a.text = (v + 1).to_string().into();
            }
        }
    }
    out
}

/// A new file beside file `i`: its copy with every integer one larger (new call sites, flags,
/// constants: the digest lookups of other files' evaluations answer differently).
fn copied(facts: &Facts, i: usize) -> Facts {
    let mut out = bumped(facts, i);
    let mut copy = out.files[i].clone();
    out.files[i] = facts.files[i].clone();
    copy.path = format!("extra_{}", copy.path.replace('/', "_"));
    out.files.push(copy);
    out
}

fn removed(facts: &Facts, i: usize) -> Facts {
    let mut out = facts.clone();
    out.files.remove(i);
    out
}

#[test]
fn runs_with_the_last_records_find_what_a_fresh_run_finds() {
    let (mut compared, mut changed_findings, mut origin_records) = (0, 0, 0);
    for root in projects() {
        let facts = scan::scan_project(&root, &ProjectFiles::walk(&root));
        let whole = rules::run_all(&facts);
        // a first run with no records finds what the plain run finds, and records
        let (first, records, _) = recorded(&facts, &Previous::default(), None);
        assert_eq!(sorted(&first), sorted(&whole), "{}", root.display());
        origin_records += records.iter().filter(|r| r.origin.is_some()).count();
        // the same files again: every record holds, and the findings are the same
        let (again, _, _) = recorded(&facts, &Previous::new(records.clone()), None);
        assert_eq!(sorted(&again), sorted(&whole), "{} again", root.display());
        for i in 0..facts.files.len() {
            for (what, changed) in [("changed", bumped(&facts, i)), ("removed", removed(&facts, i)), ("copied", copied(&facts, i))] {
                let want = rules::run_all(&changed);
                if sorted(&want) != sorted(&whole) {
                    changed_findings += 1;
                }
                let (got, _, _) = recorded(&changed, &Previous::new(records.clone()), None);
                assert_eq!(sorted(&got), sorted(&want), "{} with {} {what}", root.display(), facts.files[i].path);
                // a run on each file alone, as pre-commit makes it
                for j in 0..changed.files.len() {
                    let focus = (0..changed.files.len()).map(|k| k == j).collect();
                    let (got, _, _) = recorded(&changed, &Previous::new(records.clone()), Some(focus));
                    let path = &changed.files[j].path;
                    let here = |v: &[Finding]| v.iter().filter(|f| &f.file == path).cloned().collect::<Vec<_>>();
                    assert_eq!(
                        sorted(&here(&got)),
                        sorted(&here(&want)),
                        "{} with {} {what}, {path} given",
                        root.display(),
                        facts.files[i].path
                    );
                    compared += 1;
                }
            }
        }
    }
    assert!(
        compared > 200 && changed_findings > 10 && origin_records >= 5,
        "{compared} runs compared, {changed_findings} changes that changed findings, {origin_records} origin records"
    );
}

#[test]
fn a_run_with_the_last_records_reads_no_origin_again() {
    // CS115's origins: one-hot widths in many modules, none of them touched
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/projects/001-unet-mask-classes");
    let mut facts = scan::scan_project(&root, &ProjectFiles::walk(&root));
    for k in 0..40 {
        let src = format!("import torch.nn.functional as F\nfrom .config import WIDTH{k}\n\ndef encode(y, n=WIDTH{k}):\n    return F.one_hot(y, num_classes=n)\n\ndef run(y):\n    return encode(y)\n");
        facts.files.push(cudasleuth::scan::python::scan_source(&format!("pkg/onehot{k}.py"), &src));
    }
    let n = facts.files.len();
    let (_, records, first_read) = recorded(&facts, &Previous::default(), Some((0..n).map(|i| i == 0).collect()));
    let (_, _, read) = recorded(&facts, &Previous::new(records), Some((0..n).map(|i| i == 0).collect()));
    assert!(first_read >= 40, "{first_read} files read without records");
    assert!(read < 5, "{read} files read with the records");
}
