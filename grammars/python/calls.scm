; Every call: the ops the knowledge base knows (losses, Embedding, gather/scatter, one_hot,
; multinomial, ...), tokenizer and argparse calls, and the helpers called from __getitem__.
(call
  function: (_) @call.func
  arguments: (argument_list) @call.args) @call
