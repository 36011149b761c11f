; Classes (Dataset subclasses and anything with __getitem__) and functions (to know which
; function a line belongs to, and its parameters for one level of argument binding).
(class_definition
  name: (identifier) @class.name
  superclasses: (argument_list)? @class.bases) @class

(function_definition
  name: (identifier) @def.name
  parameters: (parameters) @def.params) @def
