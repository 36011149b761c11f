; Assignments: module constants, config values, and the lines that change a label or index
; on its way (`y = y + 1`, `label -= 1`, `mask[mask == 255] = 0`).
(assignment
  left: (_) @assign.left
  right: (_) @assign.right) @assign

(augmented_assignment
  left: (_) @aug.left
  right: (_) @aug.right) @aug

; annotated dataclass fields: `num_classes: int = 10`
(assignment
  left: (identifier) @field.name
  type: (_)
  right: (_) @field.value) @field
