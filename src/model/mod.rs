//! The report contract (`--format json`, version 1). Other tools read these objects: keys may
//! be added, none may change meaning. `docs/report.schema.json` is the schema they validate against.

pub mod witness;

use serde::Serialize;

pub const REPORT_VERSION: u32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    DeviceAssert,
    CudaError,
    CpuEquivalent,
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Platform {
    Cuda,
    Rocm,
    Xpu,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub version: u32,
    pub kind: &'static str,
    pub source: String,
    pub verdict: Verdict,
    pub platform: Option<Platform>,
    pub asserts: Vec<AssertSite>,
    pub error: Option<ErrorInfo>,
    pub secondary: Vec<LogNote>,
    pub evidence: Vec<LogNote>,
    pub frames: Vec<Frame>,
    pub suspects: Vec<Suspect>,
    /// Whether the traceback can be trusted to point at the failing op.
    pub traceback: TracebackTrust,
    /// The call in the user's code that reached the failing op, when the traceback shows it.
    pub call: Option<UserCall>,
    /// What to do next, most useful first.
    pub next_steps: Vec<String>,
    /// Problems met while reading the input (undecodable bytes, a cut-off line, ...).
    pub warnings: Vec<String>,
    /// `repro` only: how the command ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<RunInfo>,
    /// `repro` only: the first guarded violation (the shim's witness, see docs/repro.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness: Option<serde_json::Value>,
    /// `repro --sweep` only: every bad sample of the script's datasets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sweep: Option<serde_json::Value>,
    /// `repro --log` only: the failing predicate replayed on the dumped batch with the logged
    /// kernel's launch geometry, compared with the ids the log printed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunInfo {
    pub command: Vec<String>,
    /// `guard` (a synchronized run) or `sweep` (the datasets, without training).
    pub mode: &'static str,
    pub cpu: bool,
    /// The exit status of the command (null when it was killed by a signal or timed out).
    pub exit_code: Option<i32>,
    pub seconds: f64,
    pub timed_out: bool,
    /// Where the witness, the batch's tensors and the run's output are.
    pub out_dir: String,
    /// Processes in which the shim was armed.
    pub shim_processes: u32,
    /// What repro changed in the environment (CUDA_LAUNCH_BLOCKING=1, TORCHDYNAMO_DISABLE=1, ...).
    pub environment: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct AssertSite {
    pub kernel: Option<String>,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub assertion: Option<String>,
    pub block: Option<[u32; 3]>,
    pub thread: Option<[u32; 3]>,
    pub count: u64,
    pub hits: Hits,
    pub ranks: Vec<RankRef>,
    pub log_lines: Vec<u64>,
    pub signature: Option<Signature>,
    pub candidates: Option<Candidates>,
    /// How the line was printed: `cuda`, `cuda_printf`, `windows`, `thc`, `triton`, `rocm`,
    /// `xpu`, `dsa`.
    pub shape: &'static str,
    /// The assertion text was cut off in the log (it ended before "failed").
    pub truncated: bool,
    /// Extra text printed by `CUDA_KERNEL_ASSERT_PRINTF` sites (the offending value), if any.
    pub message: Option<String>,
    /// XPU prints work-item ids instead of block/thread.
    pub work_item: Option<WorkItem>,
    /// Filled from a `TORCH_USE_CUDA_DSA` record when the log has one.
    pub launch: Option<LaunchInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Hits {
    pub distinct: u64,
    pub threads: Vec<[u32; 3]>,
    pub blocks: Vec<[u32; 3]>,
    pub truncated: bool,
    /// `distinct` stopped at its cap: the log holds at least that many distinct pairs.
    pub distinct_capped: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct RankRef {
    pub kind: String,
    pub id: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct WorkItem {
    pub global: [u32; 3],
    pub local: [u32; 3],
}

#[derive(Debug, Clone, Serialize)]
pub struct LaunchInfo {
    pub kernel: Option<String>,
    pub file: Option<String>,
    pub function: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Signature {
    pub id: String,
    pub op: String,
    pub category: String,
    pub python_apis: Vec<String>,
    pub operand: Option<String>,
    pub explanation: String,
    pub causes: Vec<String>,
    pub fixes: Vec<String>,
    /// `exact` (file, line and text agree), `text` (assertion text and kernel or file agree),
    /// `generic` (only the shape of the assertion is known).
    #[serde(rename = "match")]
    pub match_kind: &'static str,
    /// How the kernel is launched (see docs/kernels.md), which decides `candidates`.
    pub geometry: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Candidates {
    pub tensor: String,
    pub elements: String,
    pub exact: bool,
    pub assumes: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ErrorInfo {
    pub message: String,
    /// The kind of host message (`device_assert`, `out_of_memory`, `rocm_queue_abort`, ...).
    pub kind: Option<String>,
    #[serde(rename = "type")]
    pub type_: Option<String>,
    pub launch_blocking: Option<bool>,
    pub line: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct LogNote {
    pub kind: String,
    pub line: u64,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Frame {
    pub file: String,
    pub path: Option<String>,
    pub line: u32,
    pub function: Option<String>,
    pub user_code: bool,
    pub rank: Option<u32>,
    pub cell: Option<String>,
    /// The source line printed under the frame, when the log shows it.
    pub code: Option<String>,
    /// The sub-expression CPython 3.11+ marked with carets under that line.
    pub focus: Option<String>,
    pub log_line: u64,
    /// A Jupyter cell's frame (`Cell In[11], line 13`) placed in the project's notebook: its
    /// path and the line of the .ipynb file (not part of the JSON contract, whose `path` and
    /// `line` go together; suspects' evidence and the human report use it).
    #[serde(skip)]
    pub notebook: Option<(String, u32)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Suspect {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub rule: String,
    pub tier: String,
    pub confirmed: Option<bool>,
    pub message: String,
    pub evidence: Vec<String>,
    pub fingerprint: String,
    /// How the value got from this line to the op call, one line a step (the value tracing's
    /// slice; empty when the suspect came from a rule's pattern alone).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub chain: Vec<ChainStep>,
    /// The bound the value was checked against, from where it was made to the op call.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bound_chain: Vec<ChainStep>,
    /// What a repro run showed of this line (repro reports only): `confirmed` (it made the
    /// bad value or set the wrong bound), `on_path` (the value or bound went through it),
    /// `refuted` (it ran, and the value was made elsewhere), `not_reached` (it never ran
    /// before the violation), `unchecked` (the run could not tell).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repro: Option<String>,
}

/// One line of a suspect's chain.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChainStep {
    pub file: String,
    pub line: u32,
    /// `origin` (where the value was made), `transform`, `pass` (copied on), `bound`, or `call`
    /// (the op call).
    pub role: String,
    /// What the line does to the value.
    pub what: String,
    /// The value after the line, as far as the tracing knows it.
    pub value: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct TracebackTrust {
    /// `trusted`, `untrusted` or `unknown`.
    pub level: &'static str,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct UserCall {
    pub file: String,
    pub line: u32,
    /// The call as written (the underlined part when CPython marked it, else the whole line).
    pub code: String,
    /// How it was found: `synchronous_frame` (the innermost user frame of a synchronous run)
    /// or `names_the_op` (a user line that calls the op's Python API).
    pub how: &'static str,
}

/// What the renderers quote from the project, read before rendering (the report floor reads
/// nothing itself): the text of the files the top suspects name, the project place of the
/// frame that received a witness's bad value and the sentence of its provenance. `rank::quote`
/// fills it (and gives the repository prefix of CI paths, once a run: `rank::quote::repo_prefix`).
#[derive(Debug, Clone, Default)]
pub struct Quoted {
    /// Project path → the file's text.
    pub sources: std::collections::BTreeMap<String, String>,
    /// The witness's user frame as a project place (`data.py:17`, or a notebook line).
    pub caught_at: Option<(String, u32)>,
    /// The witness's provenance as one sentence.
    pub origin: Option<String>,
}

impl Quoted {
    /// Line `n` (1-based) of a quoted file.
    pub fn line(&self, file: &str, n: u32) -> Option<&str> {
        self.sources.get(file)?.lines().nth((n as usize).checked_sub(1)?)
    }
}
