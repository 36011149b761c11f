//! What the rules share while they run: the files, the derived indexes several rules ask for
//! (built once), and the records that let an unchanged origin keep its findings unevaluated.

use crate::analysis::rule::{Finding, RuleInfo};
use crate::analysis::{project, record, shared, values};
use crate::scan::facts::FileFacts;

/// What the rules share while they run: the files (`project::Files`), and what several rules
/// derive from them, each built once by the first rule that asks (the value index, the heads,
/// the evidence lines naming the head and the loss).
/// The evidence lines naming the head and the loss.
type HeadAndLoss = (Option<String>, Option<String>);

pub struct Ctx<'a> {
    pub files: &'a project::Files<'a>,
    /// The rule table the run checks (a record's findings take their rule's metadata from it).
    rules: &'static [RuleInfo],
    values: std::sync::OnceLock<values::Values<'a>>,
    /// (with what computing them read: `record`)
    head_calls: std::sync::OnceLock<(HeadCalls<'a>, Vec<record::Read>)>,
    evidence: std::sync::OnceLock<(HeadAndLoss, Vec<record::Read>)>,
    /// The last run's records of the rules' reads, to take origins' findings from.
    previous: Option<&'a record::Previous>,
    /// This run's records, to keep for the next (None: none are kept).
    records: Option<std::sync::Mutex<Vec<record::Record>>>,
    answers: record::Answers<'a, 'a>,
}

type HeadCalls<'a> = Vec<(&'a FileFacts, &'a crate::scan::facts::Call, &'a crate::scan::facts::Arg)>;

impl<'a> Ctx<'a> {
    pub fn new(files: &'a project::Files<'a>, rules: &'static [RuleInfo]) -> Self {
        Ctx {
            files,
            rules,
            values: Default::default(),
            head_calls: Default::default(),
            evidence: Default::default(),
            previous: None,
            records: None,
            answers: record::Answers::new(files),
        }
    }

    /// `new`, taking origins' findings from the last run's records where they still hold, and
    /// recording this run's evaluations (`into_records`).
    pub fn recording(files: &'a project::Files<'a>, rules: &'static [RuleInfo], previous: &'a record::Previous) -> Self {
        let mut cx = Ctx::new(files, rules);
        cx.previous = Some(previous);
        cx.records = Some(Default::default());
        cx.answers.prepare(previous);
        cx
    }

    /// This run's records, to keep for the next.
    pub fn into_records(self) -> Vec<record::Record> {
        self.records.map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner())).unwrap_or_default()
    }

    /// Runs a rule whose findings land where a value was set, origin file by origin file: the
    /// files with facts of `kind` are its origins; `shared` computes what every origin needs
    /// (None: the rule has nothing to check), `each` checks one origin. With the last run's
    /// records, an origin whose reads all give the answers they gave keeps its findings
    /// unevaluated (`record`); each evaluation is recorded for the next run when records are
    /// kept.
    pub fn origins<S>(
        &self,
        rule: &str,
        kind: u64,
        out: &mut Vec<Finding>,
        shared: impl FnOnce() -> Option<S>,
        mut each: impl FnMut(&S, usize, &mut Vec<Finding>),
    ) {
        let files = self.files;
        let keep = |r: Option<record::Record>| {
            if let (Some(all), Some(r)) = (&self.records, r) {
                all.lock().unwrap_or_else(|e| e.into_inner()).push(r);
            }
        };
        let prev_shared = self.previous.and_then(|p| p.shared(rule)).filter(|r| self.answers.valid(r));
        if let Some(r) = prev_shared.filter(|r| r.empty) {
            keep(Some(r.clone()));
            return;
        }
        let mut todo = Vec::new();
        for gi in files.indices_of_kind(kind) {
            let prev = prev_shared.and(self.previous).and_then(|p| p.origin(rule, files.path(gi))).filter(|r| self.answers.valid(r));
            match prev {
                Some(r) => {
                    out.extend(r.findings(self.rules));
                    keep(Some(r.clone()));
                }
                None => todo.push(gi),
            }
        }
        if todo.is_empty() && prev_shared.is_some() {
            keep(prev_shared.cloned());
            return;
        }
        let (s, reads) = record::capture(shared);
        let recording = self.records.is_some();
        keep(recording.then(|| self.answers.record(rule, None, &reads, &[], s.is_none())).flatten());
        let Some(s) = s else { return };
        for gi in todo {
            let (found, mut reads) = record::capture(|| {
                let mut v = Vec::new();
                each(&s, gi, &mut v);
                v
            });
            if recording {
                reads.push(record::Read::File(gi as u32));
                keep(self.answers.record(rule, Some(files.path(gi)), &reads, &found, false));
            }
            out.extend(found);
        }
    }

    pub fn values(&self) -> &values::Values<'a> {
        self.values.get_or_init(|| values::Values::new(self.files))
    }

    /// The index of the file at `path` (project-relative).
    pub fn file_index(&self, path: &str) -> Option<usize> {
        self.files.index(path)
    }

    pub fn file(&self, path: &str) -> Option<&'a FileFacts> {
        self.file_index(path).map(|i| self.files.file(i))
    }

    /// `shared::head_calls_in` over the project.
    pub fn head_calls(&self) -> &[(&'a FileFacts, &'a crate::scan::facts::Call, &'a crate::scan::facts::Arg)] {
        record::once::<HeadCalls>(&self.head_calls, || {
            self.files
                .with(project::HEAD_CALL)
                .flat_map(|(_, f)| shared::head_calls_in(f).into_iter().map(move |(c, a)| (f, c, a)))
                .collect()
        })
    }

    /// The heads with a literal output size (`shared::heads_of`).
    pub fn heads(&self) -> Vec<shared::Head<'a>> {
        shared::heads_of(self.head_calls())
    }

    fn evidence(&self) -> &HeadAndLoss {
        record::once(&self.evidence, || {
            // the project's first head and first loss: only the first file with each is read
            let head = self.files.with(project::HEAD).next().and_then(|(_, f)| shared::head_evidence_of(&shared::heads_in(f)));
            let loss = self.files.first_call(project::LOSS, shared::is_loss_with_classes).map(|(f, c)| shared::loss_evidence_at(f, c));
            (head, loss)
        })
    }

    /// `head: nn.Linear(64 outputs) at model.py:12`, for the project's first head.
    pub fn head_evidence(&self) -> Option<String> {
        self.evidence().0.clone()
    }

    /// `loss: nn.CrossEntropyLoss at train.py:30`, for the project's first class-index loss.
    pub fn loss_evidence(&self) -> Option<String> {
        self.evidence().1.clone()
    }
}
