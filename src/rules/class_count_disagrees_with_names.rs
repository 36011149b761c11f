use crate::rules::{fingerprint, rule, Ctx, Finding};

rule!(
    ClassCountDisagreesWithNames,
    r#"## What it does
Finds dataset configs whose class count disagrees with their own class list: `nc: 3` beside a
`names:` list of four classes in a YOLO-style `data.yaml`.

## Why is this bad?
The model's head is sized from `nc`, but the labels come from the annotation files, which use
every class in `names`. A label `>= nc` fails `t >= 0 && t < n_classes` on the GPU (ultralytics
and YOLOv5 stop earlier with "Label class X exceeds nc=...").

## Example
```yaml
nc: 3
names: ['helmet', 'head', 'person', 'vest']
```

Use instead:
```yaml
nc: 4
names: ['helmet', 'head', 'person', 'vest']
```"#
);

pub fn check(cx: &Ctx, out: &mut Vec<Finding>) {
    for (_, f) in cx.files.sites().filter(|(_, f)| f.path.ends_with(".yaml") || f.path.ends_with(".yml")) {
        let Some(names) = f.assigns.iter().find(|a| a.target == "len(names)").and_then(|a| a.int) else { continue };
        for a in f.assigns.iter().filter(|a| a.target == "nc" || a.target.ends_with("num_classes") || a.target.ends_with("NUM_CLASSES")) {
            let Some(nc) = a.int else { continue };
            if nc == names {
                continue;
            }
            out.push(Finding {
                rule: "CS109",
                file: f.path.clone(),
                span: a.span,
                message: format!("`{}: {nc}` but `names` lists {names} classes", a.target),
                evidence: vec![format!("the head gets {nc} outputs; labels run up to {}", names - 1)],
                fingerprint: fingerprint("CS109", f, "<config>", &format!("{}={nc}/names={names}", a.target)),
                category: "label_out_of_range",
                lint: true,
            });
        }
    }
}
