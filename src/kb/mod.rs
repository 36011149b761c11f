//! The knowledge base of PyTorch's device-assert sites (`grammars/kernels/*.toml`), compiled in.
//! Matching survives version drift: line numbers move and build roots differ, so a site is
//! recognised by its assertion text, file name and kernel name, with the line as a tie-breaker.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

pub mod doc;
mod files;
pub mod geometry;

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct KernelSite {
    pub id: String,
    pub op: String,
    #[serde(default)]
    pub kernels: Vec<String>,
    #[serde(default)]
    pub file: String,
    #[serde(default)]
    pub lines: BTreeMap<String, u32>,
    #[serde(default)]
    pub lines_seen: Vec<u32>,
    #[serde(default)]
    pub assertions: Vec<String>,
    #[serde(default)]
    pub assertion_prefixes: Vec<String>,
    #[serde(default)]
    pub python_apis: Vec<String>,
    pub category: String,
    #[serde(default)]
    pub classes: Vec<String>,
    #[serde(default)]
    pub operand: Option<String>,
    #[serde(default)]
    pub explanation: String,
    #[serde(default)]
    pub causes: Vec<String>,
    #[serde(default)]
    pub fixes: Vec<String>,
    #[serde(default)]
    pub platform: Option<String>,
    #[serde(default)]
    pub era: Option<String>,
    #[serde(default)]
    pub checked: Vec<String>,
    #[serde(default)]
    pub geometry: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
    /// A fallback reading for kernels not listed: matched by `match_any` on the assertion
    /// text, only when no real site matches.
    #[serde(default)]
    pub generic: bool,
    /// The printed text is the caller's message, so any text at this spot matches.
    #[serde(default)]
    pub user_message: bool,
    #[serde(default)]
    pub match_any: Vec<String>,
}

#[derive(Deserialize)]
struct KbFile {
    #[serde(default)]
    site: Vec<KernelSite>,
}

pub struct Kb {
    pub sites: Vec<KernelSite>,
    norm_assertions: Vec<Vec<String>>,
}

/// Loads every compiled-in file; a malformed file is a build defect that the tests catch.
pub fn kb() -> &'static Kb {
    static KB: OnceLock<Kb> = OnceLock::new();
    KB.get_or_init(|| {
        let mut sites = Vec::new();
        for (name, text) in files::FILES {
            match toml::from_str::<KbFile>(text) {
                Ok(f) => sites.extend(f.site),
                Err(e) => panic!("grammars/kernels/{name}: {e}"),
            }
        }
        Kb::new(sites)
    })
}

impl Kb {
    pub fn new(sites: Vec<KernelSite>) -> Kb {
        let norm_assertions = sites.iter().map(|s| s.assertions.iter().map(|a| norm(a)).collect()).collect();
        Kb { sites, norm_assertions }
    }

    /// The built-in sites with the user's own in front (they win ties).
    pub fn with_user_sites(user: Vec<KernelSite>) -> Kb {
        let mut sites = user;
        sites.extend(kb().sites.iter().cloned());
        Kb::new(sites)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum UserKbError {
    #[error("cannot read {path}: {source}")]
    Read { path: std::path::PathBuf, source: std::io::Error },
    #[error("{path}: [tool.cudasleuth.kernels] is not valid: {message}")]
    Invalid { path: std::path::PathBuf, message: String },
}

/// Kernel sites a project adds in `pyproject.toml`, as `[[tool.cudasleuth.kernels.site]]`
/// tables with the same keys as `grammars/kernels/*.toml` (for its own CUDA extensions).
pub fn user_sites(pyproject: &std::path::Path) -> Result<Vec<KernelSite>, UserKbError> {
    let text = match std::fs::read_to_string(pyproject) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(UserKbError::Read { path: pyproject.to_path_buf(), source }),
    };
    let invalid = |message: String| UserKbError::Invalid { path: pyproject.to_path_buf(), message };
    let doc: toml::Value = toml::from_str(&text).map_err(|e| invalid(e.to_string()))?;
    let Some(kernels) = doc.get("tool").and_then(|t| t.get("cudasleuth")).and_then(|c| c.get("kernels")) else {
        return Ok(Vec::new());
    };
    let file: KbFile = kernels.clone().try_into().map_err(|e: toml::de::Error| invalid(e.to_string()))?;
    for s in &file.site {
        if s.assertions.is_empty() && s.assertion_prefixes.is_empty() && s.kernels.is_empty() {
            return Err(invalid(format!("site {} needs `assertions`, `assertion_prefixes` or `kernels` to be matched", s.id)));
        }
    }
    Ok(file.site)
}

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The path from the source root: `/opt/conda/.../work/aten/src/ATen/x.cu` → `aten/src/ATen/x.cu`.
pub fn source_relative(file: &str) -> String {
    let f = file.replace('\\', "/");
    for root in ["aten/src/", "c10/", "torch/csrc/", "torch/_inductor/", "torch/", "src/ATen/", "caffe2/"] {
        if let Some(p) = f.find(root) {
            return f[p..].to_string();
        }
    }
    f
}

fn basename(file: &str) -> String {
    let f = file.replace('\\', "/");
    let b = f.rsplit('/').next().unwrap_or(&f);
    // hipified sources: Loss.hip ↔ Loss.cu
    match b.strip_suffix(".hip") {
        Some(stem) => format!("{stem}.cu"),
        None => b.to_string(),
    }
}

/// The bare function name inside whatever the build printed: `__func__`, `operator()`, or a
/// whole `__PRETTY_FUNCTION__` signature with return type, templates and `[with ...]`.
pub fn kernel_names(printed: &str) -> Vec<String> {
    let mut s = printed.to_string();
    if let Some(p) = s.find(" [with ") {
        s.truncate(p);
    }
    let s = s.replace("operator()", "operator__call");
    let mut out = String::new();
    let mut depth = 0i32;
    for c in s.chars() {
        match c {
            '<' => depth += 1,
            '>' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    let head = out.split('(').next().unwrap_or(&out).trim();
    let name = head.rsplit(char::is_whitespace).next().unwrap_or(head);
    let name = name.replace("operator__call", "operator()");
    let mut names = vec![name.clone()];
    if let Some((class, method)) = name.rsplit_once("::") {
        names.push(class.rsplit("::").next().unwrap_or(class).to_string());
        names.push(method.to_string());
    }
    if printed.contains("operator()") && !names.iter().any(|n| n == "operator()") {
        names.push("operator()".to_string());
    }
    names
}

/// What the printed report offers for matching.
pub struct Printed<'a> {
    pub file: Option<&'a str>,
    pub line: Option<u32>,
    pub kernel: Option<&'a str>,
    pub assertion: Option<&'a str>,
    pub truncated: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchKind {
    /// Assertion text, file and a known line agree.
    Exact,
    /// Assertion text agrees with the file or kernel (line numbers drift between versions).
    Text,
    /// Only a generic reading from the assertion text (a kernel not in the knowledge base).
    Generic,
}

impl MatchKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::Text => "text",
            MatchKind::Generic => "generic",
        }
    }
}

impl Kb {
    /// The sites of an op (substring of `op`) and of a failure class (`category` or one of
    /// `classes`); None selects all.
    /// The sites of an op (a substring of the op's name, or of a Python API that reaches it,
    /// in any case: `nll_loss`, `CrossEntropyLoss`, `embedding`) and of a failure class.
    pub fn select(&self, op: Option<&str>, category: Option<&str>) -> Vec<&KernelSite> {
        // the names code writes after the usual imports (`import torch.nn.functional as F`,
        // `from torch import nn`) stand for the APIs' full names
        let op = op.map(str::to_lowercase).map(|o| {
            if let Some(rest) = o.strip_prefix("f.") {
                format!("torch.nn.functional.{rest}")
            } else if let Some(rest) = o.strip_prefix("nn.") {
                format!("torch.nn.{rest}")
            } else {
                o
            }
        });
        self.sites
            .iter()
            .filter(|s| {
                op.as_deref()
                    .map_or(true, |o| s.op.to_lowercase().contains(o) || s.python_apis.iter().any(|a| a.to_lowercase().contains(o)))
            })
            .filter(|s| category.map_or(true, |c| s.category == c || s.classes.iter().any(|x| x == c)))
            .collect()
    }

    pub fn lookup(&self, p: &Printed) -> Option<(&KernelSite, MatchKind)> {
        let text = p.assertion.map(norm);
        let base = p.file.map(basename);
        let names = p.kernel.map(kernel_names).unwrap_or_default();
        let mut best: Option<(i32, usize, bool)> = None;
        for (i, site) in self.sites.iter().enumerate() {
            if site.generic {
                continue;
            }
            // the whole text, the front of a cut-off one, or a known prefix of a formatted one
            let text_hit = text.as_ref().is_some_and(|t| {
                self.norm_assertions[i].iter().any(|a| a == t)
                    || (p.truncated && !t.is_empty() && self.norm_assertions[i].iter().any(|a| a.starts_with(t.as_str())))
                    || site.assertion_prefixes.iter().any(|pre| t.starts_with(pre.as_str()))
            });
            let site_base = basename(&site.file);
            let file_hit = base.as_deref().is_some_and(|b| !site.file.is_empty() && b == site_base);
            let kernel_hit = !names.is_empty() && site.kernels.iter().any(|k| names.iter().any(|n| n == k) && k != "operator()");
            let kernel_lambda = names.iter().any(|n| n == "operator()") && site.kernels.iter().any(|k| k == "operator()");
            let line_hit = p.line.is_some_and(|l| site.lines.values().any(|v| *v == l) || site.lines_seen.contains(&l));
            // The text must agree, or the place must (file + kernel or file + line) when the
            // text is missing or cut.
            let place = file_hit && (kernel_hit || line_hit);
            // A different text at exactly the same file, kernel and line: a message the caller
            // chose (`torch._assert_async(cond, "my message")`) or a reworded condition.
            let same_spot = file_hit && kernel_hit && line_hit && site.user_message;
            if !text_hit && !same_spot && !(place && (text.is_none() || text.as_deref() == Some("") || p.truncated)) {
                continue;
            }
            let score = 8 * i32::from(text_hit)
                + 4 * i32::from(file_hit)
                + 3 * i32::from(kernel_hit)
                + i32::from(kernel_lambda)
                + 2 * i32::from(line_hit);
            let exact = text_hit && file_hit && line_hit;
            if best.map_or(true, |(s, _, _)| score > s) {
                best = Some((score, i, exact));
            }
        }
        if let Some((_, i, exact)) = best {
            return Some((&self.sites[i], if exact { MatchKind::Exact } else { MatchKind::Text }));
        }
        let lower = text.unwrap_or_default().to_ascii_lowercase();
        self.sites
            .iter()
            .filter(|s| s.generic)
            .find(|s| s.match_any.is_empty() || s.match_any.iter().any(|m| lower.contains(m.as_str())))
            .map(|s| (s, MatchKind::Generic))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_loads_and_ids_are_unique() {
        let kb = kb();
        assert!(!kb.sites.is_empty());
        let mut ids: Vec<&str> = kb.sites.iter().map(|s| s.id.as_str()).collect();
        ids.sort();
        let before = ids.len();
        ids.dedup();
        assert_eq!(before, ids.len(), "duplicate site ids");
        for s in &kb.sites {
            assert!(!s.python_apis.is_empty() || s.category == "other" || s.generic, "{} has no python_apis", s.id);
            assert!(
                [
                    "label_out_of_range",
                    "index_out_of_range",
                    "embedding_index_out_of_range",
                    "probability_out_of_range",
                    "invalid_distribution",
                    "other"
                ]
                .contains(&s.category.as_str()),
                "{}: bad category {}",
                s.id,
                s.category
            );
        }
    }

    #[test]
    fn kernel_names_from_signatures() {
        assert_eq!(kernel_names("nll_loss_forward_reduce_cuda_kernel_2d")[0], "nll_loss_forward_reduce_cuda_kernel_2d");
        let n = kernel_names("void cunn_ClassNLLCriterion_updateOutput_kernel(Dtype *, Dtype *, Dtype *, long *, Dtype *, int, int, int, int, long) [with Dtype = float, Acctype = float]");
        assert_eq!(n[0], "cunn_ClassNLLCriterion_updateOutput_kernel");
        let b = kernel_names("Acctype bce_functor<Dtype, Acctype>::operator()(Tuple) [with Tuple = thrust::null_type, Dtype = float]");
        assert!(b.contains(&"bce_functor".to_string()), "{b:?}");
        assert!(b.contains(&"operator()".to_string()));
        assert!(kernel_names("lambda [](int)->auto::operator()(int)->auto").contains(&"operator()".to_string()));
    }

    #[test]
    fn relative_paths() {
        assert_eq!(
            source_relative("/opt/conda/conda-bld/pytorch_1/work/aten/src/THCUNN/BCECriterion.cu"),
            "aten/src/THCUNN/BCECriterion.cu"
        );
        assert_eq!(source_relative(r"C:\w\b\windows\pytorch\aten\src\ATen\native\cuda\Loss.cu"), "aten/src/ATen/native/cuda/Loss.cu");
    }
}
