//! Every op of the knowledge base (`grammars/kernels`) is either guarded by the shim (its
//! name is an op the shim's checkers report, in `python/cudasleuth_shim/guards.py`) or listed
//! here with the reason it is not: an assert on an internal invariant no input predicate can
//! check before the kernel runs, or a guard not written yet. A new site's op that is neither
//! fails this test, so a gap is a decision, not an accident.

use std::collections::BTreeSet;

mod common;

/// Ops whose assert checks an internal invariant or a launch condition, not a value the user
/// passed: no host-side predicate on the operands catches them first.
const INTERNAL: &[(&str, &str)] = &[
    ("_assert_async", "torch._assert_async: the user's own assert, already a check"),
    ("dsa_test", "PyTorch's device-side-assert self test (no Python API)"),
    ("unknown", "a line of a log whose site is not known"),
    ("elementwise", "the generic elementwise kernels' launch checks"),
    ("reduce", "the reduction kernels' launch checks"),
    ("layer_norm", "a launch-size invariant of the fused kernel"),
    ("safe_conv", "an internal size check of the convolution kernels"),
    ("conv_depthwise3d", "an internal size check of the depthwise kernel"),
    ("scaled_dot_product_attention", "an internal invariant of the fused attention kernels"),
    ("grouped_mm", "an internal alignment check of grouped GEMM"),
    ("sparse_compressed", "an internal invariant of sparse compressed tensors' index checks"),
    ("symmetric_memory", "symmetric-memory collectives' internal signal checks"),
    ("xccl_signal", "XCCL's internal signal checks"),
    ("nan_check", "an opt-in NaN check inside kernels"),
    ("inductor_assert_async", "asserts inductor generated into compiled code (repro runs with TORCHDYNAMO_DISABLE=1)"),
    ("inductor_indirect_indexing", "inductor's generated bounds checks (repro runs with TORCHDYNAMO_DISABLE=1)"),
    ("inductor_nan_check", "inductor's generated NaN checks (repro runs with TORCHDYNAMO_DISABLE=1)"),
    ("inductor_testing", "inductor's test-only asserts"),
    ("sort", "an internal size invariant of the segmented sort"),
    ("topk", "an internal invariant of the radix select"),
];

/// Ops a Python API reaches whose input predicate could be checked, not guarded yet (issue:
/// dynamic value provenance, item 3).
const NOT_YET: &[&str] = &[
    "cdist",
    "fractional_max_pool2d",
    "fractional_max_pool3d",
    "masked_scatter",
    "max_unpool2d",
    "max_unpool3d",
    "multi_margin_loss",
    "repeat_interleave",
    "segment_reduce",
];

fn kb_ops() -> BTreeSet<String> {
    let dir = common::root().join("grammars/kernels");
    let mut ops = BTreeSet::new();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "toml") {
            let v: toml::Value = toml::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            for site in v.get("site").and_then(|s| s.as_array()).into_iter().flatten() {
                if let Some(op) = site.get("op").and_then(|o| o.as_str()) {
                    ops.insert(op.to_string());
                }
            }
        }
    }
    ops
}

/// The op names the shim's checkers report: the first argument of `_viol(...)` and of the
/// checker factories (`_chk_nll("nll_loss")`), and the names its check table registers.
fn guarded() -> BTreeSet<String> {
    let text = std::fs::read_to_string(common::root().join("python/cudasleuth_shim/guards.py")).unwrap();
    let re = regex::Regex::new(r#"(?:_viol|_chk_\w+|add)\(\s*"(\w+)""#).unwrap();
    let mut out: BTreeSet<String> = re.captures_iter(&text).map(|c| c[1].trim_end_matches('_').to_string()).collect();
    // scatter_add, index_add, index_copy, index_fill: registered in loops over their names
    let lists = regex::Regex::new(r#"for n in \(([^)]*)\)"#).unwrap();
    for c in lists.captures_iter(&text) {
        for name in c[1].split(',') {
            let n = name.trim().trim_matches('"').trim_start_matches('_').trim_end_matches('_');
            if !n.is_empty() {
                out.insert(n.to_string());
            }
        }
    }
    out
}

#[test]
fn every_knowledge_base_op_is_guarded_or_listed() {
    let ops = kb_ops();
    assert!(ops.len() > 20, "the knowledge base's ops were not read: {ops:?}");
    let guarded = guarded();
    let listed: BTreeSet<&str> = INTERNAL.iter().map(|(o, _)| *o).chain(NOT_YET.iter().copied()).collect();
    let missing: Vec<&String> = ops.iter().filter(|o| !guarded.contains(*o) && !listed.contains(o.as_str())).collect();
    assert!(missing.is_empty(), "knowledge-base ops neither guarded by the shim nor listed in tests/guard_coverage.rs: {missing:?}");
    // a listed op that is guarded (or gone from the knowledge base) is a stale entry
    for o in &listed {
        assert!(!guarded.contains(*o), "{o} is guarded now: take it off the lists");
        assert!(ops.contains(*o), "{o} is no op of the knowledge base: take it off the lists");
    }
    for must in ["nll_loss", "embedding_bag", "gather", "index_put", "multinomial", "bernoulli", "binary_cross_entropy"] {
        assert!(guarded.contains(must), "{must} should be guarded: {guarded:?}");
    }
}
