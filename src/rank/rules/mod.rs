//! The rules: one file each, with its documentation, registered in `RULES`. `explain` runs the
//! ones whose failure class fits the log; `lint` runs them all. `cudasleuth rule CODE` prints a
//! rule's documentation, and `docs/rules/` is generated from it.

use serde::Serialize;

use crate::scan::facts::{Facts, FileFacts, Span};

mod added_tokens_without_resize;
mod bce_on_logits;
mod class_count_disagrees_with_names;
mod head_smaller_than_classes;
mod label_shift_in_getitem;
mod mask_image_without_ignore_index;
mod max_id_as_size;
mod one_based_label_map;
mod sentinel_without_ignore_index;
mod vocab_size_excludes_added_tokens;
pub mod shared;

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

#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub rule: &'static str,
    pub file: String,
    pub span: Span,
    pub message: String,
    pub evidence: Vec<String>,
    pub fingerprint: String,
    /// The failure class this problem leads to.
    pub category: &'static str,
    /// Worth reporting without a crash. A `label - 1` is often a correct 1-based → 0-based
    /// conversion, so only a log that shows a negative label makes it a suspect.
    pub lint: bool,
}

pub struct RuleInfo {
    pub code: &'static str,
    /// Names the bad pattern.
    pub name: &'static str,
    pub category: &'static str,
    pub doc: &'static str,
    pub check: fn(&Facts, &mut Vec<Finding>),
    /// `error` or `warning` in lint output.
    pub severity: &'static str,
    /// New rules start in preview so an upgrade does not break anyone's CI.
    pub preview: bool,
}

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
];

pub fn find_rule(code: &str) -> Option<&'static RuleInfo> {
    RULES.iter().find(|r| r.code.eq_ignore_ascii_case(code) || r.name == code)
}

/// Runs every rule over the facts.
pub fn run_all(facts: &Facts) -> Vec<Finding> {
    let mut out = Vec::new();
    for r in RULES {
        (r.check)(facts, &mut out);
    }
    out
}

/// The fingerprint stays the same when unrelated lines move: rule, file, scope, and what.
pub fn fingerprint(rule: &str, file: &FileFacts, scope: &str, what: &str) -> String {
    format!("{rule}:{}:{scope}:{}", file.path, what.replace(' ', ""))
}

/// A rule's page in docs/rules/ (and its SARIF help text).
pub fn markdown(r: &RuleInfo) -> String {
    format!("# {} ({})\n\nFailure class: `{}`.\n\n{}\n", r.code, r.name, r.category, r.doc)
}
