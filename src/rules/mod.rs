//! The rules: one file each, with its documentation, registered in `RULES`. `explain` runs the
//! ones whose failure class fits the log; `lint` runs them all. `cudasleuth rule CODE` prints a
//! rule's documentation, and `docs/rules/` is generated from it.

pub use crate::analysis::context::Ctx;
pub use crate::analysis::rule::{fingerprint, Finding, RuleInfo};
use crate::analysis::{project, record};
use crate::scan::facts::Facts;

mod added_tokens_without_resize;
mod aux_head_disagrees;
mod bce_on_logits;
mod class_count_disagrees_with_names;
mod class_count_from_one_based_labels;
mod head_smaller_than_classes;
mod label_shift_in_getitem;
mod mask_image_without_ignore_index;
mod max_id_as_size;
mod multinomial_on_logits;
mod negative_default_id;
mod one_based_label_map;
mod one_hot_narrower_than_head;
mod sentinel_without_ignore_index;
mod sequence_outgrows_position_table;
pub mod value_leaves_bound;
mod vocab_size_excludes_added_tokens;
mod zero_temperature_sampling;

/// Declares a rule type whose documentation is both its doc comment and `DOC`.
macro_rules! rule {
    ($name:ident, $doc:literal) => {
        #[doc = $doc]
        pub struct $name;
        impl $name {
            pub const DOC: &'static str = $doc;
        }
    };
}
pub(crate) use rule;

/// The kinds of facts the rules define for themselves (each rule's `MARK`): the digests of the
/// project's files carry them (`analysis::project::kinds_of`).
pub const MARKS: &[project::Mark] = &[
    label_shift_in_getitem::MARK,
    head_smaller_than_classes::MARK,
    sequence_outgrows_position_table::MARK,
    one_hot_narrower_than_head::MARK,
];

pub const RULES: &[RuleInfo] = &[
    RuleInfo {
        code: "CS101",
        severity: "error",
        preview: false,
        name: "label-shift-in-getitem",
        category: "label_out_of_range",
        doc: label_shift_in_getitem::LabelShiftInGetitem::DOC,
        check: label_shift_in_getitem::check,
    },
    RuleInfo {
        code: "CS102",
        severity: "error",
        preview: false,
        name: "head-smaller-than-classes",
        category: "label_out_of_range",
        doc: head_smaller_than_classes::HeadSmallerThanClasses::DOC,
        check: head_smaller_than_classes::check,
    },
    RuleInfo {
        code: "CS103",
        severity: "error",
        preview: false,
        name: "sentinel-label-without-ignore-index",
        category: "label_out_of_range",
        doc: sentinel_without_ignore_index::SentinelLabelWithoutIgnoreIndex::DOC,
        check: sentinel_without_ignore_index::check,
    },
    RuleInfo {
        code: "CS104",
        severity: "error",
        preview: false,
        name: "added-tokens-without-resize",
        category: "embedding_index_out_of_range",
        doc: added_tokens_without_resize::AddedTokensWithoutResize::DOC,
        check: added_tokens_without_resize::check,
    },
    RuleInfo {
        code: "CS105",
        severity: "warning",
        preview: false,
        name: "one-based-label-map",
        category: "label_out_of_range",
        doc: one_based_label_map::OneBasedLabelMap::DOC,
        check: one_based_label_map::check,
    },
    RuleInfo {
        code: "CS106",
        severity: "warning",
        preview: false,
        name: "bce-on-logits",
        category: "probability_out_of_range",
        doc: bce_on_logits::BceOnLogits::DOC,
        check: bce_on_logits::check,
    },
    RuleInfo {
        code: "CS107",
        name: "mask-image-without-ignore-index",
        category: "label_out_of_range",
        doc: mask_image_without_ignore_index::MaskImageWithoutIgnoreIndex::DOC,
        check: mask_image_without_ignore_index::check,
        severity: "warning",
        preview: true,
    },
    RuleInfo {
        code: "CS108",
        name: "max-id-as-size",
        category: "embedding_index_out_of_range",
        doc: max_id_as_size::MaxIdAsSize::DOC,
        check: max_id_as_size::check,
        severity: "error",
        preview: true,
    },
    RuleInfo {
        code: "CS109",
        name: "class-count-disagrees-with-names",
        category: "label_out_of_range",
        doc: class_count_disagrees_with_names::ClassCountDisagreesWithNames::DOC,
        check: class_count_disagrees_with_names::check,
        severity: "error",
        preview: true,
    },
    RuleInfo {
        code: "CS110",
        name: "vocab-size-excludes-added-tokens",
        category: "embedding_index_out_of_range",
        doc: vocab_size_excludes_added_tokens::VocabSizeExcludesAddedTokens::DOC,
        check: vocab_size_excludes_added_tokens::check,
        severity: "error",
        preview: true,
    },
    RuleInfo {
        code: "CS111",
        name: "class-count-from-one-based-labels",
        category: "label_out_of_range",
        doc: class_count_from_one_based_labels::ClassCountFromOneBasedLabels::DOC,
        check: class_count_from_one_based_labels::check,
        severity: "error",
        preview: true,
    },
    RuleInfo {
        code: "CS112",
        name: "negative-default-id",
        category: "embedding_index_out_of_range",
        doc: negative_default_id::NegativeDefaultId::DOC,
        check: negative_default_id::check,
        severity: "error",
        preview: true,
    },
    RuleInfo {
        code: "CS113",
        name: "sequence-outgrows-position-table",
        category: "embedding_index_out_of_range",
        doc: sequence_outgrows_position_table::SequenceOutgrowsPositionTable::DOC,
        check: sequence_outgrows_position_table::check,
        severity: "error",
        preview: true,
    },
    RuleInfo {
        code: "CS114",
        name: "zero-temperature-sampling",
        category: "invalid_distribution",
        doc: zero_temperature_sampling::ZeroTemperatureSampling::DOC,
        check: zero_temperature_sampling::check,
        severity: "error",
        preview: true,
    },
    RuleInfo {
        code: "CS115",
        name: "one-hot-narrower-than-head",
        category: "label_out_of_range",
        doc: one_hot_narrower_than_head::OneHotNarrowerThanHead::DOC,
        check: one_hot_narrower_than_head::check,
        severity: "error",
        preview: true,
    },
    RuleInfo {
        code: "CS116",
        name: "multinomial-on-logits",
        category: "invalid_distribution",
        doc: multinomial_on_logits::MultinomialOnLogits::DOC,
        check: multinomial_on_logits::check,
        severity: "error",
        preview: true,
    },
    RuleInfo {
        code: "CS117",
        name: "aux-head-disagrees",
        category: "label_out_of_range",
        doc: aux_head_disagrees::AuxHeadDisagrees::DOC,
        check: aux_head_disagrees::check,
        severity: "error",
        preview: true,
    },
    RuleInfo {
        code: value_leaves_bound::CODE,
        name: "value-leaves-bound",
        category: "label_out_of_range",
        doc: value_leaves_bound::ValueLeavesBound::DOC,
        check: value_leaves_bound::check,
        severity: "error",
        preview: false,
    },
];

pub fn find_rule(code: &str) -> Option<&'static RuleInfo> {
    RULES.iter().find(|r| r.code.eq_ignore_ascii_case(code) || r.name == code)
}

/// Every rule over the facts, in parallel; findings in the order of `RULES`.
pub fn run_all(facts: &Facts) -> Vec<Finding> {
    run(&project::Files::of_facts(facts, MARKS))
}

/// Every rule over `files`, in parallel: the findings a whole-project run has at the sites of
/// `files` (and possibly others); findings in the order of `RULES`.
pub fn run(files: &project::Files<'_>) -> Vec<Finding> {
    run_ctx(&Ctx::new(files, RULES))
}

/// `run`, taking origins' findings from the last run's records where they still hold
/// (`Ctx::origins`), and recording this run's evaluations: the findings, and the records to
/// keep for the next run.
pub fn run_recorded<'a>(files: &'a project::Files<'a>, previous: &'a record::Previous) -> (Vec<Finding>, Vec<record::Record>) {
    let cx = Ctx::recording(files, RULES, previous);
    let findings = run_ctx(&cx);
    (findings, cx.into_records())
}

fn run_ctx(cx: &Ctx<'_>) -> Vec<Finding> {
    use rayon::prelude::*;
    let per_rule: Vec<Vec<Finding>> = RULES
        .par_iter()
        .map(|r| {
            let t = std::time::Instant::now();
            let mut out = Vec::new();
            (r.check)(cx, &mut out);
            crate::timings::phase(r.code, t);
            out
        })
        .collect();
    per_rule.into_iter().flatten().collect()
}

/// Tests: one rule's findings on one file's source (`train.py`).
#[cfg(test)]
pub(crate) fn findings_in(check: fn(&Ctx, &mut Vec<Finding>), src: &str) -> Vec<Finding> {
    let facts = facts_of(&[("train.py", src)]);
    let files = project::Files::of_facts(&facts, MARKS);
    let mut out = Vec::new();
    check(&Ctx::new(&files, RULES), &mut out);
    out
}

/// Tests: the facts of several files' sources.
#[cfg(test)]
pub(crate) fn facts_of(files: &[(&str, &str)]) -> Facts {
    Facts { files: files.iter().map(|(p, s)| crate::scan::python::scan_source(p, s)).collect(), warnings: vec![] }
}

/// Tests: the lines of one rule's findings on one file's source.
#[cfg(test)]
pub(crate) fn finding_lines(check: fn(&Ctx, &mut Vec<Finding>), src: &str) -> Vec<u32> {
    findings_in(check, src).iter().map(|f| f.span.line).collect()
}

/// Said of a rule in preview, which runs only when asked for (docs/lint.md).
pub fn preview_note(r: &RuleInfo) -> &'static str {
    if r.preview {
        " In preview: runs only with `--preview` or `preview = true` in `[tool.cudasleuth]`."
    } else {
        ""
    }
}

/// `cudasleuth rule`: one line a rule.
pub fn listing() -> String {
    RULES.iter().map(|r| format!("{}  {:<38} {}{}\n", r.code, r.name, r.category, if r.preview { " (preview)" } else { "" })).collect()
}

/// `cudasleuth rule CODE`: the rule's documentation as text.
pub fn text(r: &RuleInfo) -> String {
    format!("{} ({}): leads to {}.{}\n\n{}\n", r.code, r.name, r.category.replace('_', " "), preview_note(r), r.doc)
}

/// A rule's page in docs/rules/ (and its SARIF help text).
pub fn markdown(r: &RuleInfo) -> String {
    format!("# {} ({})\n\nFailure class: `{}`.{}\n\n{}\n", r.code, r.name, r.category, preview_note(r), r.doc)
}

#[cfg(test)]
mod tests {
    use super::facts_of as facts;
    use super::*;
    use crate::scan::facts::{ColumnFact, Facts};

    fn found(f: &Facts) -> Vec<(&'static str, String, u32)> {
        run_all(f).into_iter().map(|x| (x.rule, x.file, x.span.line)).collect()
    }

    const UNET_TRAIN: &str = "import argparse\nimport torch.nn as nn\nfrom data import Blobs\nfrom unet import UNet\np = argparse.ArgumentParser()\np.add_argument('--classes', type=int, default=CLASSES)\nargs = p.parse_args()\nds = Blobs()\nmodel = UNet(n_classes=args.classes)\ncriterion = nn.CrossEntropyLoss()\n";
    const UNET: &str = "import torch.nn as nn\nclass UNet(nn.Module):\n    def __init__(self, n_classes, base=16):\n        super().__init__()\n        self.outc = nn.Conv2d(base, n_classes, kernel_size=1)\n";
    const BLOBS: &str = "import torch\nfrom torch.utils.data import Dataset\nNAMES = ['a', 'b', 'c']\nclass Blobs(Dataset):\n    def __init__(self):\n        self.masks = []\n        for _ in range(4):\n            mask = torch.zeros(8, 8, dtype=torch.long)\n            cls = int(torch.randint(1, len(NAMES) + 1, (1,)))\n            mask[2:4] = cls\n            mask[0] = IGNORE\n            self.masks.append(mask)\n    def __getitem__(self, i):\n        return self.masks[i]\n";

    #[test]
    fn segmentation_head_sized_from_argparse_against_mask_values() {
        let bad =
            facts(&[("train.py", &UNET_TRAIN.replace("CLASSES", "3")), ("unet.py", UNET), ("data.py", &BLOBS.replace("IGNORE", "255"))]);
        assert!(found(&bad).contains(&("CS102", "train.py".into(), 6)), "{:?}", found(&bad));
        // background + 3 classes = 4 channels: quiet (the 255 void pixels are not a class)
        let good =
            facts(&[("train.py", &UNET_TRAIN.replace("CLASSES", "4")), ("unet.py", UNET), ("data.py", &BLOBS.replace("IGNORE", "255"))]);
        assert!(!found(&good).iter().any(|f| f.0 == "CS102"), "{:?}", found(&good));
    }

    #[test]
    fn a_hand_written_nll_gathers_at_the_labels() {
        let src = "import torch\nimport torch.nn as nn\nNUM_CLASSES = 10\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(64, 9)\ndef step(model, x, y):\n    logp = torch.log_softmax(model(x), dim=1)\n    return -GATHER.mean()\n";
        for g in ["logp.gather(1, y.unsqueeze(1))", "torch.gather(logp, 1, y[:, None])", "logp.gather(dim=1, index=y.view(-1, 1))"] {
            let f = facts(&[("train.py", &src.replace("GATHER", g))]);
            assert_eq!(found(&f), [("CS102", "train.py".into(), 7)], "{g}");
        }
        // a gather at positions or token ids is not a class index
        let f = facts(&[("train.py", &src.replace("GATHER", "logp.gather(1, idx.unsqueeze(1))"))]);
        assert_eq!(found(&f), []);
    }

    #[test]
    fn named_sentinels_and_minus_100() {
        let ds = "import torch.nn.functional as F\nfrom torch.utils.data import Dataset\nclass Seg(Dataset):\n    def __init__(self):\n        self.ignore_index = IGNORE\n    def encode(self, mask):\n        mask[mask == 0] = self.ignore_index\n        return mask\n    def __getitem__(self, i):\n        return self.encode(self.m[i])\ndef loss(x, y):\n    return F.cross_entropy(x, y)\n";
        let bad = facts(&[("seg.py", &ds.replace("IGNORE", "250"))]);
        assert_eq!(found(&bad), [("CS103", "seg.py".into(), 7)]);
        let default_ignored = facts(&[("seg.py", &ds.replace("IGNORE", "-100"))]);
        assert_eq!(found(&default_ignored), []);
        let told =
            facts(&[("seg.py", &ds.replace("IGNORE", "250").replace("F.cross_entropy(x, y)", "F.cross_entropy(x, y, ignore_index=250)"))]);
        assert_eq!(found(&told), []);
    }

    #[test]
    fn label_noise_modulo_and_clamped_positions_stay_quiet() {
        let src = include_str!("../../fixtures/projects/c01-label-noise-mod/data.py");
        let train = include_str!("../../fixtures/projects/c01-label-noise-mod/train.py");
        let f = facts(&[("data.py", src), ("train.py", train)]);
        assert_eq!(found(&f), []);
    }

    #[test]
    fn one_based_csv_labels_counted_by_distinct_values() {
        let src = "import csv\nlabels = []\nfor row in csv.DictReader(open('grades.csv')):\n    labels.append(int(row['grade']))\nnum_classes = len(set(labels))\n";
        let csv = |min, max| crate::scan::facts::FileFacts {
            path: "grades.csv".into(),
            columns: vec![ColumnFact { text: false, name: "grade".into(), min, max, distinct: 4, rows: 80 }],
            ..Default::default()
        };
        let mut f = facts(&[("train.py", src)]);
        f.files.push(csv(1, 4));
        assert_eq!(found(&f), [("CS111", "train.py".into(), 4)]);
        let mut zero_based = facts(&[("train.py", src)]);
        zero_based.files.push(csv(0, 3));
        assert_eq!(found(&zero_based), []);
        let mut shifted = facts(&[("train.py", &src.replace("int(row['grade'])", "int(row['grade']) - 1"))]);
        shifted.files.push(csv(1, 4));
        assert_eq!(found(&shifted), []);
    }

    #[test]
    fn negative_default_ids() {
        let src = "import torch.nn as nn\nemb = nn.Embedding(100, 8)\nclass Vocab:\n    def lookup(self, toks):\n        return [self.stoi.get(t, -1) for t in toks]\n";
        assert_eq!(found(&facts(&[("v.py", src)])), [("CS112", "v.py".into(), 5)]);
        let checked =
            src.replace("[self.stoi.get(t, -1) for t in toks]", "[i if i >= 0 else 0 for i in (self.stoi.get(t, -1) for t in toks)]");
        assert_eq!(found(&facts(&[("v.py", &checked)])), []);
        let unk = src.replace("-1", "self.unk");
        assert_eq!(found(&facts(&[("v.py", &unk)])), []);
    }

    const GPT: &str = "import torch\nimport torch.nn as nn\nclass GPT(nn.Module):\n    def __init__(self, config):\n        super().__init__()\n        self.wpe = nn.Embedding(config.block_size, 8)\n    def generate(self, idx, n):\n        for _ in range(n):\n            logits = self(idx)\n            nxt = torch.multinomial(logits.softmax(-1), 1)\n            idx = torch.cat((idx, nxt), dim=1)\n        return idx\n";

    #[test]
    fn generation_past_the_position_table() {
        assert_eq!(found(&facts(&[("model.py", GPT)])), [("CS113", "model.py".into(), 9)]);
        let cropped = GPT.replace("logits = self(idx)", "idx_cond = idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size:]\n            logits = self(idx_cond)");
        assert_eq!(found(&facts(&[("model.py", &cropped)])), []);
    }

    #[test]
    fn zero_temperature() {
        let src = "import argparse\nimport torch\np = argparse.ArgumentParser()\np.add_argument('--temperature', type=float, default=0.0)\nargs = p.parse_args()\ndef sample(logits, temperature=1.0):\n    probs = torch.softmax(logits / temperature, -1)\n    return torch.multinomial(probs, 1)\nsample(x, temperature=args.temperature)\n";
        assert_eq!(found(&facts(&[("s.py", src)])), [("CS114", "s.py".into(), 4)]);
        let guarded = src.replace("    probs =", "    if temperature == 0:\n        return logits.argmax(-1)\n    probs =");
        assert_eq!(found(&facts(&[("s.py", &guarded)])), []);
        let nonzero = src.replace("default=0.0", "default=0.8");
        assert_eq!(found(&facts(&[("s.py", &nonzero)])), []);
    }

    #[test]
    fn class_count_as_largest_label() {
        let src = "import torch.nn.functional as F\nn_classes = int(y_train.max())\nt = F.one_hot(y, num_classes=n_classes)\n";
        assert_eq!(found(&facts(&[("t.py", src)])), [("CS108", "t.py".into(), 2)]);
        let plus_one = src.replace("int(y_train.max())", "int(y_train.max()) + 1");
        assert_eq!(found(&facts(&[("t.py", &plus_one)])), []);
    }

    #[test]
    fn vocab_size_with_resize_after_adding_is_quiet() {
        let src = "tokenizer = Tok()\nmodel = LM(vocab_size=tokenizer.vocab_size)\ntokenizer.add_special_tokens(['<x>'])\nmodel.resize_token_embeddings(len(tokenizer))\n";
        assert_eq!(found(&facts(&[("train.py", src)])), []);
        let no_resize = src.replace("model.resize_token_embeddings(len(tokenizer))\n", "");
        let got = found(&facts(&[("train.py", &no_resize)]));
        assert!(got.contains(&("CS110", "train.py".into(), 2)) && got.contains(&("CS104", "train.py".into(), 3)), "{got:?}");
    }
}
