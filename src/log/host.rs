//! Host-side messages: the error a device assert raises, other CUDA failures, the CPU kernels'
//! versions of the same bugs, symptoms that follow, and evidence printed elsewhere. The table
//! lives in `grammars/log/messages.toml`.

use std::sync::OnceLock;

use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    AssertError,
    CudaError,
    CpuEquivalent,
    Secondary,
    Evidence,
    AsyncHint,
    SyncMarker,
    SyncEnv,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MessageSig {
    pub kind: String,
    pub role: Role,
    #[serde(default)]
    pub all: Vec<String>,
    #[serde(default)]
    pub any: Vec<String>,
    #[serde(default)]
    pub none: Vec<String>,
    #[serde(default)]
    pub category: Option<String>,
    #[serde(default)]
    pub explain: Option<String>,
    /// Matches only when no other signature matches the line: the catch-all for `CUDA error: <a
    /// string the table does not know>` (`CUBLAS_STATUS_…` after it is cuBLAS's).
    #[serde(default)]
    pub fallback: bool,
}

#[derive(Deserialize)]
struct Table {
    message: Vec<MessageSig>,
}

const TABLE: &str = include_str!("../../grammars/log/messages.toml");

pub fn signatures() -> &'static [MessageSig] {
    static SIGS: OnceLock<Vec<MessageSig>> = OnceLock::new();
    SIGS.get_or_init(|| {
        // The table is compiled in and covered by tests; a parse error is a build defect.
        toml::from_str::<Table>(TABLE).expect("grammars/log/messages.toml is valid").message
    })
}

/// Every substring the table mentions, searched in one pass per line.
struct Needles {
    ac: aho_corasick::AhoCorasick,
    /// For each signature: the needle ids of `all`, `any`, `none`.
    ids: Vec<(Vec<usize>, Vec<usize>, Vec<usize>)>,
}

fn needles() -> &'static Needles {
    static N: OnceLock<Needles> = OnceLock::new();
    N.get_or_init(|| {
        let mut words: Vec<String> = Vec::new();
        let id = |w: &String, words: &mut Vec<String>| match words.iter().position(|x| x == w) {
            Some(i) => i,
            None => {
                words.push(w.clone());
                words.len() - 1
            }
        };
        let ids = signatures()
            .iter()
            .map(|m| {
                (
                    m.all.iter().map(|w| id(w, &mut words)).collect(),
                    m.any.iter().map(|w| id(w, &mut words)).collect(),
                    m.none.iter().map(|w| id(w, &mut words)).collect(),
                )
            })
            .collect();
        let ac = aho_corasick::AhoCorasick::new(&words).expect("message needles are valid");
        Needles { ac, ids }
    })
}

/// Every signature the line matches.
pub fn classify(s: &str) -> impl Iterator<Item = &'static MessageSig> + '_ {
    let n = needles();
    let mut seen = vec![false; n.ac.patterns_len()];
    let mut any_seen = false;
    for m in n.ac.find_overlapping_iter(s) {
        seen[m.pattern().as_usize()] = true;
        any_seen = true;
    }
    let matched: Vec<&'static MessageSig> = signatures()
        .iter()
        .zip(n.ids.iter())
        .filter_map(|(sig, (all, any, none))| {
            let ok = any_seen
                && all.iter().all(|i| seen[*i])
                && (any.is_empty() || any.iter().any(|i| seen[*i]))
                && !none.iter().any(|i| seen[*i]);
            ok.then_some(sig)
        })
        .collect();
    let named = matched.iter().any(|m| !m.fallback);
    matched.into_iter().filter(move |m| !(m.fallback && named))
}

/// A Python exception line: `torch.AcceleratorError: CUDA error: ...` → (type, message).
pub fn exception_line(s: &str) -> Option<(&str, &str)> {
    let colon = s.find(": ")?;
    let ty = &s[..colon];
    if ty.is_empty() || ty.len() > 80 {
        return None;
    }
    let ident_ok = ty.split('.').all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    let first_ok = ty.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    let last = ty.rsplit('.').next().unwrap_or(ty);
    let named = last.ends_with("Error") || last.ends_with("Exception") || last == "KeyboardInterrupt";
    if ident_ok && first_ok && named {
        Some((ty, &s[colon + 2..]))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<String> {
        classify(s).map(|m| m.kind.clone()).collect()
    }

    #[test]
    fn table_loads_and_has_unique_roles() {
        assert!(signatures().len() > 20);
    }

    #[test]
    fn device_assert_texts() {
        assert_eq!(kinds("torch.AcceleratorError: CUDA error: device-side assert triggered"), ["device_assert"]);
        assert_eq!(kinds("RuntimeError: copy_if failed to synchronize: device-side assert triggered"), ["device_assert", "copy_if_failed"]);
        assert!(kinds(
            "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCCachingHostAllocator.cpp line=265 error=59 : device-side assert triggered"
        )
        .contains(&"thcudacheck".to_string()));
    }

    #[test]
    fn cpu_equivalents() {
        assert_eq!(kinds("IndexError: Target 3 is out of bounds."), ["nll_target_out_of_bounds"]);
        assert_eq!(kinds("IndexError: index out of range in self"), ["index_out_of_range_in_self"]);
        assert_eq!(kinds("IndexError: index 5 is out of bounds for dimension 0 with size 5"), ["index_out_of_bounds_for_dimension"]);
    }

    #[test]
    fn hints() {
        assert_eq!(kinds("For debugging consider passing CUDA_LAUNCH_BLOCKING=1"), Vec::<String>::new());
        assert_eq!(kinds("$ CUDA_LAUNCH_BLOCKING=1 python train.py"), ["sync_env"]);
    }

    #[test]
    fn exception_lines() {
        assert_eq!(exception_line("torch.AcceleratorError: CUDA error: x"), Some(("torch.AcceleratorError", "CUDA error: x")));
        assert_eq!(exception_line("RuntimeError: x"), Some(("RuntimeError", "x")));
        assert_eq!(exception_line("Epoch 1: loss"), None);
        assert_eq!(exception_line("see: RuntimeError"), None);
    }
}
