//! Replaying the failing predicate on the dumped batch with the launch geometry of the kernel
//! the original log printed, and comparing the (block, thread) ids it predicts with the ids in
//! that log: the same failure, or a different batch than the logged one.
//!
//! Each geometry (docs/kernels.md, `geometry` in grammars/kernels/*.toml) is a launch and a
//! per-thread loop over the operand's elements. A thread flags itself at its first element
//! that breaks the predicate, as the kernel's thread would print at its first failing element.
//! The GPU path (`gpu.rs`, cudarc + NVRTC) runs the same loops as a kernel; the CPU path runs
//! them here.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::kb::geometry::Geometry;

/// What the kernel asserts about each element of the operand.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Predicate {
    pub lo: f64,
    pub hi: f64,
    /// `hi` is allowed (`[0, 1]` for BCE) or not (`[0, n_classes)`).
    pub hi_inclusive: bool,
    pub ignore: Option<f64>,
}

impl Predicate {
    pub fn bad(&self, v: f64) -> bool {
        if self.ignore == Some(v) {
            return false;
        }
        let upper = if self.hi_inclusive { v <= self.hi } else { v < self.hi };
        !(v >= self.lo && upper)
    }
}

pub use crate::kb::geometry::{nll_threads, Plan};

/// The (block, thread) ids whose first checked element breaks the predicate.
pub fn flagged_cpu(values: &[f64], plan: Plan, pred: &Predicate) -> BTreeSet<(u32, u32)> {
    let n = values.len() as u64;
    let (grid, block) = plan.launch(n);
    let mut out = BTreeSet::new();
    for b in 0..grid {
        for t in 0..block {
            if thread_fails(values, plan, pred, b, t) {
                out.insert((b, t));
            }
        }
    }
    out
}

fn thread_fails(values: &[f64], plan: Plan, pred: &Predicate, b: u32, t: u32) -> bool {
    let n = values.len() as u64;
    let bad = |e: u64| e < n && pred.bad(values[e as usize]);
    match plan {
        Plan::Strided { threads } => (u64::from(t)..n).step_by(threads as usize).any(bad),
        Plan::Tiled { threads, per_thread } => {
            let base = u64::from(b) * u64::from(threads) * u64::from(per_thread) + u64::from(t);
            (0..u64::from(per_thread)).any(|j| bad(base + u64::from(threads) * j))
        }
        Plan::PerSample { map, bps } => {
            let sample = u64::from(b / bps);
            let first = u64::from(b % bps) * 1024 + u64::from(t);
            (first..map).step_by(1024 * bps as usize).any(|i| bad(sample * map + i))
        }
        Plan::BlockPerElement => bad(u64::from(b)),
        Plan::Blocks { per_block } => {
            let start = u64::from(b) * u64::from(per_block);
            t == 0 && (start..start + u64::from(per_block)).any(bad)
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    /// `same_failure`, `different_batch`, or `no_comparison` (see `message`).
    pub verdict: &'static str,
    pub message: String,
    /// `gpu` (NVRTC kernel) or `cpu`.
    pub backend: &'static str,
    pub geometry: String,
    pub plan: Option<Plan>,
    /// The ids the replay predicts, and those the log printed (x components).
    pub predicted: Vec<[u32; 2]>,
    pub logged: Vec<[u32; 2]>,
}

/// Compare the predicted ids with the logged ones. The log may hold fewer ids than failed (a
/// capped printf buffer, a cut-off paste): a logged set inside the predicted one still counts
/// as the same failure when it is marked truncated.
pub fn compare(predicted: &BTreeSet<(u32, u32)>, logged: &BTreeSet<(u32, u32)>, threads_matter: bool, truncated: bool) -> bool {
    let key = |s: &BTreeSet<(u32, u32)>| -> BTreeSet<(u32, u32)> {
        s.iter().map(|(b, t)| if threads_matter { (*b, *t) } else { (*b, 0) }).collect()
    };
    let (p, l) = (key(predicted), key(logged));
    if truncated {
        !l.is_empty() && l.is_subset(&p)
    } else {
        p == l
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LABELS: Predicate = Predicate { lo: 0.0, hi: 3.0, hi_inclusive: false, ignore: Some(-100.0) };

    #[test]
    fn nll_reduce_threads_are_rows_mod_block() {
        let mut v = vec![0.0; 100];
        v[5] = 3.0;
        v[37] = 3.0;
        v[70] = -100.0;
        let f = flagged_cpu(&v, Plan::Strided { threads: 32 }, &LABELS);
        assert_eq!(f.into_iter().collect::<Vec<_>>(), vec![(0, 5)]);
        assert_eq!(nll_threads(3000), 256);
        assert_eq!(nll_threads(100), 32);
        assert_eq!(nll_threads(200_000), 1024);
    }

    #[test]
    fn per_sample_and_tiled() {
        // 2 samples of 4x4 pixels; sample 1 pixel 6 bad
        let mut v = vec![0.0; 32];
        v[16 + 6] = 7.0;
        let plan = Geometry::Nll2dPerSample.plans(&[2, 4, 4])[0];
        assert_eq!(flagged_cpu(&v, plan, &LABELS).into_iter().collect::<Vec<_>>(), vec![(1, 6)]);
        let mut v = vec![0.0; 3000];
        v[1100] = 5.0;
        let f = flagged_cpu(&v, Plan::Tiled { threads: 128, per_thread: 8 }, &LABELS);
        assert_eq!(f.into_iter().collect::<Vec<_>>(), vec![(1, 76)]);
    }

    #[test]
    fn comparison() {
        let p: BTreeSet<(u32, u32)> = [(0, 5), (0, 9)].into();
        assert!(compare(&p, &p.clone(), true, false));
        assert!(!compare(&p, &[(0, 5)].into(), true, false));
        assert!(compare(&p, &[(0, 5)].into(), true, true));
        assert!(!compare(&p, &[(0, 6)].into(), true, true));
        assert!(compare(&[(4, 0)].into(), &[(4, 17)].into(), false, false));
    }
}

/// Where the replay runs: `auto` tries the GPU and falls back to the CPU with a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Auto,
    Gpu,
    Cpu,
}

fn no_comparison(message: String, geometry: &str) -> Outcome {
    Outcome {
        verdict: "no_comparison",
        message,
        backend: "cpu",
        geometry: geometry.to_string(),
        plan: None,
        predicted: Vec::new(),
        logged: Vec::new(),
    }
}

/// Replay the witness's operand (the dumped `.npy` in `out_dir`) against the first assert site
/// of the original log.
pub fn against_log(
    witness: &serde_json::Value,
    out_dir: &std::path::Path,
    log: &crate::log::collect::Incident,
    asserts: &[crate::model::AssertSite],
    backend: Backend,
    python: Option<&str>,
) -> Outcome {
    let witness = crate::model::witness::Witness::of(witness);
    let op = witness.op.as_deref().unwrap_or("");
    // the assert site of the same op, else the first one
    let pick = asserts
        .iter()
        .position(|a| a.signature.as_ref().is_some_and(|s| op.starts_with(&s.op) || s.op.starts_with(op)))
        .or(if asserts.is_empty() { None } else { Some(0) });
    let Some(i) = pick else { return no_comparison("the log holds no device-assert line to compare with".into(), "") };
    let site = &asserts[i];
    let Some(geometry) = site.signature.as_ref().and_then(|s| s.geometry.clone()) else {
        return no_comparison("the knowledge base has no launch geometry for the logged kernel".into(), "");
    };
    let Some(kind) = Geometry::from_id(&geometry) else {
        return no_comparison(format!("this build does not know the launch geometry `{geometry}`"), &geometry);
    };
    if let Some(why) = kind.no_position_reason() {
        return no_comparison(format!("the logged ids carry no position: {why}"), &geometry);
    }
    let tensor = witness.tensor.as_deref().unwrap_or("");
    let Some(file) = witness.tensors.get(tensor) else {
        return no_comparison(format!("the witness holds no dump of `{tensor}` (was --no-values given?)"), &geometry);
    };
    let arr = match crate::repro::npy::read(&out_dir.join(file)) {
        Ok(a) => a,
        Err(e) => return no_comparison(format!("cannot read the dumped batch: {e}"), &geometry),
    };
    let bound = witness.bound.as_ref().and_then(|b| b.value.as_f64());
    let pred = match (witness.category.as_deref(), bound) {
        (Some("probability_out_of_range"), _) => Predicate { lo: 0.0, hi: 1.0, hi_inclusive: true, ignore: None },
        (_, Some(hi)) => Predicate { lo: 0.0, hi, hi_inclusive: false, ignore: witness.ignore_index },
        _ => return no_comparison("the witness names no bound to replay".into(), &geometry),
    };
    let plans = kind.plans(&arr.shape);
    if plans.is_empty() {
        return no_comparison(format!("no replay for the `{geometry}` launch yet"), &geometry);
    }
    let logged: BTreeSet<(u32, u32)> =
        log.sites.sites.get(i).map(|s| s.distinct.iter().map(|k| (k[0], k[3])).collect()).unwrap_or_default();
    let truncated = site.hits.truncated || site.truncated || log.sites.sites.get(i).is_some_and(|s| s.distinct_capped);
    let mut note = String::new();
    let use_gpu = match backend {
        Backend::Cpu => false,
        Backend::Gpu | Backend::Auto => match crate::repro::gpu::available(python) {
            Ok(from) => {
                note = format!("NVRTC from {from}. ");
                true
            }
            Err(why) => {
                note = format!("GPU replay not possible ({why}); replayed on the CPU. ");
                false
            }
        },
    };
    type Tried = (Plan, BTreeSet<(u32, u32)>, &'static str);
    let mut first: Option<Tried> = None;
    for plan in plans {
        let (set, used) = if use_gpu {
            match crate::repro::gpu::flagged(&arr.values, plan, &pred) {
                Ok(s) => (s, "gpu"),
                Err(e) => {
                    note = format!("GPU replay failed ({e}); replayed on the CPU. ");
                    (flagged_cpu(&arr.values, plan, &pred), "cpu")
                }
            }
        } else {
            (flagged_cpu(&arr.values, plan, &pred), "cpu")
        };
        if compare(&set, &logged, plan.threads_matter(), truncated) {
            let (grid, block) = plan.launch(arr.values.len() as u64);
            return Outcome {
                verdict: "same_failure",
                message: format!(
                    "{note}same failure: the replayed batch fails on exactly the {} the log printed ({} of them; <<<{grid}, {block}>>>)",
                    if plan.threads_matter() { "(block, thread) ids" } else { "blocks" },
                    logged.len()
                ),
                backend: used,
                geometry,
                plan: Some(plan),
                predicted: set.iter().map(|(b, t)| [*b, *t]).collect(),
                logged: logged.iter().map(|(b, t)| [*b, *t]).collect(),
            };
        }
        first.get_or_insert((plan, set, used));
    }
    let (plan, set, used) = first.expect("at least one plan ran");
    Outcome {
        verdict: "different_batch",
        message: format!(
            "{note}a different batch than the logged one: the replay flags {} id(s), the log printed {} ({} in common)",
            set.len(),
            logged.len(),
            set.intersection(&logged).count()
        ),
        backend: used,
        geometry,
        plan: Some(plan),
        predicted: set.iter().map(|(b, t)| [*b, *t]).collect(),
        logged: logged.iter().map(|(b, t)| [*b, *t]).collect(),
    }
}
