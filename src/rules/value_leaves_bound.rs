use crate::analysis::flow::index::module_name;
use crate::analysis::flow::{self, FlowSuspect, Tier};
use rustc_hash::FxHashSet;
use std::collections::HashMap;

use crate::analysis::project::{name_hash, Digest, Files};
use crate::rules::{rule, Ctx, Finding};
use crate::scan::facts::{is_config_path, FileFacts, Span};

rule!(
    ValueLeavesBound,
    r#"## What it does
Follows the value that reaches a checked op — a loss's targets, an embedding's ids, BCE inputs,
sampling weights — back through the project (assignments, tuple positions, returns, `self.x`
stores, containers, parameters and their arguments, DataLoader → Dataset `__getitem__` /
`collate_fn`, Lightning hooks, Hugging Face `Trainer`s, flag defaults, config keys, data
columns), and the bound it is checked against (the head's outputs, the embedding's rows, a
model config's `num_labels`, `vocab_size` or position count), and reports the line where the
value's range, written in the bound's terms, stops fitting the bound. Positions are followed as
lengths: a sequence cut to the table's size and then given a `[CLS]`/`<bos>`/`<eos>` is reported
at the cut (a window of the data, `ids[i : i + n]`, at the line that adds the token); a length
used as a gather index (one past the last element) at the line that makes the index, a running
count added to ids as offsets at the count; a negative marker (`-100`, `-1`) that reaches a
gather or lookup in a function that masks it out only after that op, at the op. Raw scores handed
to a function of the project's own that feeds them to a BCE are reported at the call that hands
them over, unless the function or its parameter says it takes logits.

Without a crash log (`lint`) it reports only a disagreement the ranges prove on the value's
path that comes through the data (a loader loop, a Dataset, a data column, a config key or
flag), a range the code itself proves past a bound it knows (`base + steps` with steps up to
the block's size) where no `if` above the lines that make it may rule the range out, ids
taken as they are where the table counts how many distinct ids there are (unless they run
0..n-1, the largest reaches past the count), or scores proven raw on their way to a loss that
takes probabilities; it runs in projects with a
data pipeline or a training step (a DataLoader, a CSV read, a split, a collate or Lightning
data hook, a Trainer's `compute_loss`, a `backward()` call), follows values into the files a
script beside them saves (`np.savez`, `json.dump`, `to_csv` in a `make_data.py` nothing
imports) and reads the settings files a run script names, and a finding is reported in
whichever linted file it is on. A bound held in a YAML or JSON config is reported at its key
when the run covers that file (a run on the Python files alone reports only them); one held
in a TOML or INI file, when the run covers the whole project. With a log (`explain --project`) it
ranks every line of the slice by what it does to the value, and the chain between the line and
the op call is the evidence.

## Why is this bad?
A class id, token id or index at or past the bound (or below 0) fails the kernel's check:
`t >= 0 && t < n_classes`, `srcIndex < srcSelectDimSize`, `index out of bounds`.

## Example
```python
class Pets(Dataset):
    def __init__(self, names, classes):
        idx = {c: i for i, c in enumerate(classes)}
        self.labels = [idx[n] + 1 for n in names]      # 1..len(classes)
...
model = nn.Linear(512, len(classes))                   # len(classes) outputs
```

Use instead:
```python
        self.labels = [idx[n] for n in names]
```"#
);

/// How far a lint follows values from a file: the files within three imports of it (either way,
/// a package's `__init__` not counted) and the scripts beside them that write files, at most
/// this many, and the project's config and data files.
const NEIGHBOURS: usize = 24;

/// The import graph of a lint run, from the digests: which files a module name is, which
/// files import a module name, and the data and config files.
struct Graph {
    /// A module name's hash → the files it names.
    modules: HashMap<u32, Vec<usize>>,
    /// A module name's hash → the files that import it.
    importers: HashMap<u32, Vec<usize>>,
    data: Vec<usize>,
    /// Scripts no file imports that write files (`np.savez`, `json.dump`, `to_csv`): a
    /// preprocessing step whose output the modules beside it read back.
    writers: Vec<usize>,
}

impl Graph {
    fn new(files: &crate::analysis::project::Files<'_>) -> Graph {
        let mut g = Graph { modules: HashMap::new(), importers: HashMap::new(), data: Vec::new(), writers: Vec::new() };
        for i in 0..files.len() {
            let path = files.path(i);
            // (the settings files too: TOML, INI)
            if is_config_path(path) || [".csv", ".tsv"].iter().any(|x| path.ends_with(x)) {
                if g.data.len() < NEIGHBOURS {
                    g.data.push(i);
                }
                continue;
            }
            if !path.ends_with(".py") {
                continue;
            }
            g.modules.entry(name_hash(module_name(path))).or_default().push(i);
            for &h in files.digest(i).imports() {
                g.importers.entry(h).or_default().push(i);
            }
        }
        const WRITES: [&str; 9] = ["save", "savez", "savez_compressed", "dump", "to_csv", "writerow", "writerows", "tofile", "write_text"];
        for i in 0..files.len() {
            let path = files.path(i);
            if path.ends_with(".py")
                && !g.importers.contains_key(&name_hash(module_name(path)))
                && WRITES.iter().any(|w| Digest::has(files.digest(i).calls(), w))
            {
                g.writers.push(i);
            }
        }
        g
    }

    /// The project files that file `a` imports.
    fn imported<'g>(&'g self, files: &'g crate::analysis::project::Files<'_>, a: usize) -> impl Iterator<Item = &'g usize> + 'g {
        files.digest(a).imports().iter().filter_map(|h| self.modules.get(h)).flatten()
    }

    /// The files a site's slices may read: the site, the files it imports or that import it,
    /// theirs and theirs again (at most `NEIGHBOURS`), and the project's config and data files.
    fn neighbourhood(&self, files: &crate::analysis::project::Files<'_>, site: usize) -> Vec<usize> {
        let mut out = vec![site];
        let mut frontier = vec![site];
        for _ in 0..3 {
            let mut next = Vec::new();
            for &a in &frontier {
                let imported = self.imported(files, a);
                let importing = self.importers.get(&name_hash(module_name(files.path(a)))).into_iter().flatten();
                for &b in imported.chain(importing) {
                    if out.len() + next.len() >= NEIGHBOURS {
                        break;
                    }
                    if !out.contains(&b) && !next.contains(&b) {
                        next.push(b);
                        // a package's `__init__` only passes its modules on: they are as near
                        if files.path(b).ends_with("__init__.py") {
                            for &c in self.imported(files, b) {
                                if out.len() + next.len() < NEIGHBOURS && !out.contains(&c) && !next.contains(&c) {
                                    next.push(c);
                                }
                            }
                        }
                    }
                }
            }
            out.extend(&next);
            frontier = next;
        }
        // the scripts beside these files that write what they may read back
        let folder = |i: usize| files.path(i).rsplit_once('/').map_or("", |(d, _)| d);
        // (and the modules they import: what they write is made there)
        for &w in &self.writers {
            if out.len() < NEIGHBOURS && !out.contains(&w) && out.iter().any(|&i| folder(i) == folder(w)) {
                out.push(w);
                for &c in self.imported(files, w) {
                    if out.len() < NEIGHBOURS && !out.contains(&c) {
                        out.push(c);
                    }
                }
            }
        }
        out.extend(&self.data);
        out
    }
}

fn span(line: u32) -> Span {
    Span { line, column: 1, end_line: line, end_column: 1 }
}

/// Lint: for each given file, the slices from the op calls of its neighbourhood (the same
/// computation whether the whole project or one file is given), reporting the divergences
/// the ranges prove that lie in the file. A given config file is reported from the Python
/// files (every neighbourhood reads the configs): then each Python file's slices run.
pub fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    let files = cx.files;
    let config_given = (0..files.len()).any(|i| files.is_site(i) && is_config_path(files.path(i)));
    // every file with definitions is a site: the line that makes a bad value is often in a
    // module that never names torch (a label map, a tokenizer, a feature table)
    let sites: Vec<usize> = (0..files.len())
        .filter(|&i| (files.is_site(i) || config_given && !is_config_path(files.path(i))) && !files.file(i).flow.is_empty())
        .collect();
    let graph = Graph::new(files);
    // sites of one small project often share their neighbourhood (the same files in the same
    // order): its slices are the same for each
    let mut seen: FxHashSet<Vec<usize>> = FxHashSet::default();
    let mut hoods = Vec::new();
    for site in sites {
        let near = graph.neighbourhood(files, site);
        if !seen.insert(near.clone()) {
            continue;
        }
        // lint checks data pipelines: a neighbourhood with no Dataset, loader, `compute_loss` or
        // Lightning data hook is a model library's, whose indices are computed and guarded inside (skipped,
        // found from the digests without loading the files)
        let pipeline = near.iter().any(|&i| {
            let d = files.digest(i);
            ["DataLoader", "read_csv", "random_split", "load_dataset", "DictReader", "loadtxt", "genfromtxt", "backward"]
                .iter()
                .any(|c| Digest::has(d.calls(), c))
                || ["train_dataloader", "collate_fn", "collate", "compute_loss"].iter().any(|m| Digest::has(d.defined(), m))
        });
        if pipeline {
            hoods.push(near);
        }
    }
    const CATEGORIES: [&str; 3] = ["label_out_of_range", "embedding_index_out_of_range", "probability_out_of_range"];
    // the neighbourhoods' slices are independent: they run on every core, and their findings
    // are taken in the neighbourhoods' order
    use rayon::prelude::*;
    let found: Vec<Vec<Vec<FlowSuspect>>> = hoods
        .par_iter()
        .map(|near| {
            let near: Vec<&FileFacts> = near.iter().map(|&i| files.file(i)).collect();
            // the op calls are in files that use torch
            if !near.iter().any(|f| f.mentions_torch) {
                return Vec::new();
            }
            flow::suspects_each(&near, &CATEGORIES, &[], &[], flow::Mode::Lint)
        })
        .collect();
    for each in found {
        for (category, found) in CATEGORIES.into_iter().zip(each) {
            for s in found.into_iter().filter(|s| {
                // reported where it is when that file is linted (found from any site: the
                // slice that proves it may start in a file that imports it)
                // (the strong tier: a divergence the ranges prove, or ids taken as they are
                // beside a count of them)
                s.tier == Tier::Strong && (files.index(&s.file).is_some_and(|i| files.is_site(i)) || config_site(files, &s.file))
            }) {
                if out.iter().any(|o: &Finding| o.file == s.file && o.span.line == s.line) {
                    continue;
                }
                out.push(finding(&s, category));
            }
        }
    }
}

/// A bound held in a config file (YAML, JSON) the run reports on: found from the Python that
/// reads it, reported at the key's line.
fn config_site(files: &Files, path: &str) -> bool {
    is_config_path(path) && files.index(path).is_some_and(|i| files.is_site(i))
}

fn finding(s: &FlowSuspect, category: &'static str) -> Finding {
    let evidence = s.chain.iter().skip(1).map(|c| format!("{}:{} {}: {}", c.file, c.line, c.role, c.what)).collect();
    Finding {
        rule: CODE,
        file: s.file.clone(),
        span: span(s.line),
        message: s.message.clone(),
        evidence,
        fingerprint: format!("{CODE}:{}:{}", s.file, s.message.replace(' ', "")),
        category,
        lint: true,
    }
}

pub const CODE: &str = "CS118";

/// The ranked slice suspects for a crash of `category` (explain's join reads them).
/// One list per category, in order. `exact`: the traceback ends at the failing call.
pub fn ranked(files: &[&FileFacts], categories: &[&str], frames: &[(String, u32)], apis: &[String], exact: bool) -> Vec<Vec<FlowSuspect>> {
    flow::suspects(files, categories, frames, apis, exact)
}
