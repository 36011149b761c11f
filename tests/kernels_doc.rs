//! docs/kernels.md is generated from the knowledge base; it must not drift from it.

#[test]
fn docs_kernels_md_is_current() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let committed = std::fs::read_to_string(root.join("docs/kernels.md")).unwrap();
    let generated = cudasleuth::kb::doc::markdown(cudasleuth::kb::kb());
    assert!(committed == generated, "docs/kernels.md is stale: run `cargo run -- kernels --format markdown > docs/kernels.md`");
}

#[test]
fn every_site_says_what_it_was_checked_against() {
    for s in &cudasleuth::kb::kb().sites {
        assert!(!s.checked.is_empty(), "{} has no `checked`", s.id);
        assert!(!s.explanation.is_empty(), "{} has no explanation", s.id);
        if !s.generic {
            assert!(!s.assertions.is_empty() || !s.assertion_prefixes.is_empty() || !s.kernels.is_empty(), "{} cannot be matched", s.id);
        }
    }
}

#[test]
fn docs_rules_are_current() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for r in cudasleuth::rules::RULES {
        let path = root.join(format!("docs/rules/{}.md", r.code));
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == cudasleuth::rules::markdown(r),
            "{} is stale: run `cargo run -- rule --format markdown {} > docs/rules/{}.md`",
            path.display(),
            r.code,
            r.code
        );
        for section in ["## What it does", "## Why is this bad?", "## Example", "Use instead:"] {
            assert!(r.doc.contains(section), "{} lacks {section}", r.code);
        }
    }
}
