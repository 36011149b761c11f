; What a function returns (which tuple position or dict key is the label), and the loops that
; unpack batches (`for x, y in loader`).
(return_statement) @return

(for_statement
  left: (_) @for.target
  right: (_) @for.iter) @for

(import_from_statement) @import
(import_statement) @import
