; What a function returns (which tuple position or dict key is the label), and the loops that
; unpack batches (`for x, y in loader`).
(return_statement) @return

(for_statement
  left: (_) @for.target
  right: (_) @for.iter) @for

(import_from_statement) @import
(import_statement) @import

; Guards: the conditions of if/elif/while and of conditional expressions (`x if c else y`),
; to tell a checked value (`if temperature == 0`, `i if i >= 0 else unk`) from an unchecked one.
(if_statement condition: (_) @cond.expr)
(elif_clause condition: (_) @cond.expr)
(while_statement condition: (_) @cond.expr)
(conditional_expression) @cond.ternary
