use crate::analysis::project::{DATASET, LOSS, LOSS_IGNORE};
use crate::analysis::shared::{is_label_name, is_loss_with_classes};
use crate::rules::{fingerprint, rule, Ctx, Finding};

rule!(
    MaskImageWithoutIgnoreIndex,
    r#"## What it does
Finds segmentation masks read from image files in a Dataset (`cv2.imread(...)`,
`Image.open(...)`, `imageio.imread(...)`) in a project whose class-index losses set no
`ignore_index`, when the Dataset reaches such a loss: the loss is in the Dataset's module, in a
module that imports it, or in a module that constructs the Dataset.

## Why is this bad?
Mask images usually mark void or boundary pixels with a special value — `255` in Pascal VOC,
Cityscapes and most annotation tools. Without `ignore_index=255` those pixels reach
`nll_loss2d` as class 255 and fail `t >= 0 && t < n_classes` on the GPU.

## Example
```python
label = cv2.imread(self.label_paths[i], 0)
...
criterion = nn.CrossEntropyLoss(weight)
```

Use instead:
```python
criterion = nn.CrossEntropyLoss(weight, ignore_index=255)
```"#
);

const IMAGE_READERS: &[&str] = &["imread", "open", "read_image", "load_img"];

pub fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    let files = cx.files;
    if !files.any(LOSS) || files.any(LOSS_IGNORE) {
        return;
    }
    let loss_files: Vec<usize> = files.indices_with(LOSS).collect();
    let loss_paths: rustc_hash::FxHashSet<&str> = loss_files.iter().map(|&i| files.path(i)).collect();
    // a library's dataset classes that no training code of the project uses stay quiet
    let reaches_loss = |fi: usize, class: &str| {
        loss_files.iter().any(|&li| li == fi || files.imports(li, fi))
            || cx.values().calls_named(class).any(|(cf, _)| loss_paths.contains(cf.path.as_str()))
    };
    // the project's first loss call (none has ignore_index)
    let first_loss = || files.first_call(LOSS, is_loss_with_classes);
    for (fi, f) in files.sites_with(DATASET) {
        let datasets: Vec<&str> =
            f.classes.iter().filter(|c| c.is_dataset() && reaches_loss(fi, &c.name)).map(|c| c.name.as_str()).collect();
        if datasets.is_empty() {
            continue;
        }
        for c in &f.calls {
            let in_dataset = c.scope.class.as_deref().is_some_and(|k| datasets.contains(&k));
            let Some(target) = c.assigned_to.as_deref() else { continue };
            let base = target.rsplit('.').next().unwrap_or(target);
            let reader = IMAGE_READERS.contains(&c.name.as_str())
                && (c.func.contains("cv2") || c.func.contains("Image") || c.func.contains("imageio") || c.func.contains("io."));
            if !in_dataset || !reader || !is_label_name(base) {
                continue;
            }
            let Some((lf, lc)) = first_loss() else { continue };
            let scope = c.scope.qualified();
            out.push(Finding {
                rule: "CS107",
                file: f.path.clone(),
                span: c.span,
                message: format!(
                    "mask `{target}` is read from an image file, and no loss sets ignore_index: void pixels (often 255) become class ids"
                ),
                evidence: vec![format!("loss without ignore_index: {} at {}:{}", lc.func, lf.path, lc.span.line)],
                fingerprint: fingerprint("CS107", f, &scope, target),
                category: "label_out_of_range",
                lint: true,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::facts_of;

    #[test]
    fn only_datasets_that_reach_the_loss() {
        let data = "import cv2\nfrom torch.utils.data import Dataset\nclass Seg(Dataset):\n    def __getitem__(self, i):\n        mask = cv2.imread(self.paths[i], 0)\n        return self.x[i], mask\n";
        let train = "import torch.nn as nn\nfrom data import Seg\nds = Seg()\ncriterion = nn.CrossEntropyLoss()\n";
        let lib_loss = "import torch.nn.functional as F\ndef box_loss(logits, labels):\n    return F.cross_entropy(logits, labels)\n";
        let lines = |files: &[(&str, &str)]| -> Vec<(String, u32)> {
            let facts = facts_of(files);
            let mut out = Vec::new();
            let files = crate::analysis::project::Files::of_facts(&facts, crate::rules::MARKS);
            super::check(&crate::rules::Ctx::new(&files, crate::rules::RULES), &mut out);
            out.into_iter().map(|f| (f.file, f.span.line)).collect()
        };
        assert_eq!(lines(&[("data.py", data), ("train.py", train)]), [("data.py".to_string(), 5)]);
        // a library: the dataset is never built where the (unrelated) loss is
        assert!(lines(&[("data.py", data), ("roi_heads.py", lib_loss)]).is_empty());
    }
}
