//! One Python file → `FileFacts`, with tree-sitter-python: one walk of the tree adds, for each
//! node, the fact that the queries in `grammars/python/*.scm` describe (a test runs the queries
//! themselves on the fixtures and requires the same facts).

use tree_sitter::{Language, Node, Parser};

use crate::scan::facts::*;
use crate::scan::fields::{Field, F};

const MAX_TEXT: usize = 240;

/// The first `n` bytes of `s` or fewer (at a character boundary).
fn head(s: &str, n: usize) -> &str {
    let mut end = n.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The last `n` bytes of `s` or fewer (at a character boundary).
fn tail(s: &str, n: usize) -> &str {
    let mut start = s.len().saturating_sub(n);
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

fn language() -> Language {
    tree_sitter_python::LANGUAGE.into()
}

struct Source<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
    /// All ASCII: a column is the byte offset (else characters are counted).
    ascii: bool,
}

impl<'a> Source<'a> {
    fn new(text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|p| p + 1));
        Source { text, line_starts, ascii: text.is_ascii() }
    }

    fn node_text(&self, n: Node) -> &'a str {
        self.text.get(n.byte_range()).unwrap_or("")
    }

    fn clipped(&self, n: Node) -> Text {
        let t = self.node_text(n);
        if t.len() <= MAX_TEXT {
            t.into()
        } else {
            let mut end = MAX_TEXT;
            while !t.is_char_boundary(end) {
                end -= 1;
            }
            compact_str::format_compact!("{}…", &t[..end])
        }
    }

    fn column(&self, row: usize, byte_col: usize) -> u32 {
        if self.ascii {
            return byte_col as u32 + 1;
        }
        let start = self.line_starts.get(row).copied().unwrap_or(0);
        let end = (start + byte_col).min(self.text.len());
        self.text.get(start..end).map_or(byte_col, |s| s.chars().count()) as u32 + 1
    }

    fn span(&self, n: Node) -> Span {
        let (s, e) = (n.start_position(), n.end_position());
        Span {
            line: s.row as u32 + 1,
            column: self.column(s.row, s.column),
            end_line: e.row as u32 + 1,
            end_column: self.column(e.row, e.column),
        }
    }
}

fn int_literal(src: &Source, n: Node) -> Option<i64> {
    // signs and parentheses peeled in a loop, not by recursion: `x = ` and 40,000 `-` is one
    // line of a file, and CPython folds it
    let (mut n, mut negate, mut layers) = (n, false, 0);
    loop {
        layers += 1;
        if layers > crate::scan::flow::MAX_DEPTH {
            return None;
        }
        match n.kind_name() {
            "integer" => return parse_int(src.node_text(n)).map(|v| if negate { v.checked_neg().unwrap_or(i64::MAX) } else { v }),
            "unary_operator" => {
                match n.field(F::Operator).map(|o| src.node_text(o))? {
                    "-" => negate = !negate,
                    "+" => {}
                    _ => return None,
                }
                n = n.field(F::Argument)?;
            }
            "parenthesized_expression" => n = n.named_child(0)?,
            _ => return None,
        }
    }
}

fn parse_int(t: &str) -> Option<i64> {
    let t = t.replace('_', "");
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()
    } else {
        t.parse().ok()
    }
}

/// The variable a call's result lands in, through method chains like `.to(dev)` / `.cuda()`.
/// The assignment whose value a node starts, through the calls and attributes it is the start
/// of (`x = a.f().g()`: for `a.f()`, `a.f().g()` and `a`), given its parent and the parent's own
/// such assignment. The walk carries it down the tree: climbing from each call instead
/// (`Node::parent` searches down from the root) cost minutes on a chain of 1,000 calls.
fn assignment_of<'t>(node: Node<'t>, parent: Node<'t>, parents: Option<Node<'t>>) -> Option<Node<'t>> {
    match parent.kind_name() {
        "assignment" if parent.field(F::Right) == Some(node) => Some(parent),
        "attribute" if parents.is_some() && parent.field(F::Object) == Some(node) => parents,
        "call" if parents.is_some() && parent.field(F::Function) == Some(node) => parents,
        _ => None,
    }
}

fn assigned_name(src: &Source, assignment: Option<Node>) -> Option<Text> {
    assignment?.field(F::Left).map(|l| Text::from(src.node_text(l)))
}

fn args(src: &Source, list: Node) -> Vec<Arg> {
    let mut out = Vec::new();
    let mut c = list.walk();
    for a in list.named_children(&mut c) {
        match a.kind_name() {
            "keyword_argument" => {
                let name = a.field(F::Name).map(|n| Text::from(src.node_text(n)));
                let value = a.field(F::Value);
                out.push(Arg {
                    name,
                    text: value.map(|v| src.clipped(v)).unwrap_or_default(),
                    int: value.and_then(|v| int_literal(src, v)),
                });
            }
            "comment" => {}
            _ => out.push(Arg { name: None, text: src.clipped(a), int: int_literal(src, a) }),
        }
    }
    out
}

/// `y = y + 1` → Some(1), `y = 1 + y` → Some(1), `y = y - 2` → Some(-2).
fn shift_of(src: &Source, target: &str, value: Node) -> Option<i64> {
    if value.kind_name() != "binary_operator" {
        return None;
    }
    let op = src.node_text(value.field(F::Operator)?);
    let (l, r) = (value.field(F::Left)?, value.field(F::Right)?);
    let same = |n: Node| src.node_text(n).replace(' ', "") == target.replace(' ', "");
    match op {
        "+" if same(l) => int_literal(src, r),
        "+" if same(r) => int_literal(src, l),
        "-" if same(l) => int_literal(src, r).map(|k| -k),
        _ => None,
    }
}

fn element_texts(src: &Source, n: Node) -> Vec<Text> {
    match n.kind_name() {
        "tuple" | "expression_list" | "pattern_list" | "tuple_pattern" | "list_pattern" | "list" => {
            let mut c = n.walk();
            n.named_children(&mut c).filter(|x| x.kind_name() != "comment").map(|x| src.clipped(x)).collect()
        }
        // `((a, b))`: the parentheses peeled in a loop
        "parenthesized_expression" => {
            let mut inner = n;
            while inner.kind_name() == "parenthesized_expression" {
                let Some(x) = inner.named_child(0) else { return Vec::new() };
                inner = x;
            }
            element_texts(src, inner)
        }
        _ => vec![src.clipped(n)],
    }
}

fn dict_pairs(src: &Source, n: Node) -> Vec<(Text, Text)> {
    let mut out = Vec::new();
    if n.kind_name() != "dictionary" {
        return out;
    }
    let mut c = n.walk();
    for pair in n.named_children(&mut c).filter(|x| x.kind_name() == "pair") {
        if let (Some(k), Some(v)) = (pair.field(F::Key), pair.field(F::Value)) {
            let key = src.node_text(k).trim_matches(|c| c == '"' || c == '\'').into();
            out.push((key, src.clipped(v)));
        }
    }
    out
}

/// Parameter names, their defaults as written, and whether `*args`/`**kwargs` are taken.
fn params(src: &Source, n: Node) -> (Vec<Text>, Vec<Option<Text>>, bool) {
    let (mut names, mut defaults, mut varargs) = (Vec::new(), Vec::new(), false);
    let mut c = n.walk();
    for p in n.named_children(&mut c) {
        let (name, default) = match p.kind_name() {
            "identifier" => (Some(p), None),
            "default_parameter" | "typed_default_parameter" => (p.field(F::Name), p.field(F::Value)),
            "typed_parameter" => (p.named_child(0).filter(|x| x.kind_name() == "identifier"), None),
            "list_splat_pattern" | "dictionary_splat_pattern" => {
                varargs = true;
                (None, None)
            }
            _ => (None, None),
        };
        if let Some(name) = name {
            names.push(Text::from(src.node_text(name)));
            defaults.push(default.map(|d| src.clipped(d)));
        }
    }
    (names, defaults, varargs)
}

/// The number of elements of a list, tuple, set or dict literal.
fn literal_len(n: Node) -> Option<i64> {
    match n.kind_name() {
        "list" | "tuple" | "set" => {
            let mut c = n.walk();
            let items: Vec<Node> = n.named_children(&mut c).filter(|x| x.kind_name() != "comment").collect();
            // a splat (`[*a, b]`) or a comprehension has no literal length
            if items.iter().any(|x| x.kind_name() == "list_splat" || x.kind_name() == "dictionary_splat") {
                return None;
            }
            Some(items.len() as i64)
        }
        "dictionary" => {
            let mut c = n.walk();
            let items: Vec<Node> = n.named_children(&mut c).filter(|x| x.kind_name() != "comment").collect();
            if items.iter().any(|x| x.kind_name() != "pair") {
                return None;
            }
            Some(items.len() as i64)
        }
        "parenthesized_expression" => n.named_child(0).and_then(literal_len),
        _ => None,
    }
}

thread_local! {
    static PARSER: std::cell::RefCell<Option<Parser>> = const { std::cell::RefCell::new(None) };
}

/// Parses one file's text. Never fails: a file that does not parse cleanly still yields the
/// facts of the parts that did, with `parse_errors` set.
pub fn scan_source(path: &str, text: &str) -> FileFacts {
    scan_tree(path, text).0
}

/// As `scan_source`, with the file's chunks (`chunks::split`) when the parse had no error and
/// its top-level statements are where the chunks say.
pub fn scan_source_chunked(path: &str, text: &str) -> (FileFacts, Option<Vec<crate::scan::chunks::Chunk>>) {
    let (facts, tree) = scan_tree(path, text);
    let chunks = tree.filter(|_| !facts.parse_errors).and_then(|tree| {
        let chunks = crate::scan::chunks::split(text)?;
        let root = tree.root_node();
        let mut c = root.walk();
        let statements: Vec<(u32, u32)> = root
            .named_children(&mut c)
            .filter(|n| n.kind_name() != "comment")
            .map(|n| {
                let e = n.end_position();
                let last = if e.column == 0 && e.row > n.start_position().row { e.row - 1 } else { e.row };
                (n.start_position().row as u32, last as u32)
            })
            .collect();
        crate::scan::chunks::agree(&chunks, &statements).then_some(chunks)
    });
    (facts, chunks)
}

fn scan_tree(path: &str, text: &str) -> (FileFacts, Option<tree_sitter::Tree>) {
    let tree = PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let parser = slot.get_or_insert_with(|| {
            let mut p = Parser::new();
            p.set_language(&language()).expect("tree-sitter-python matches the tree-sitter version");
            p
        });
        // long runs of comment lines are left out of the parse (their bytes keep their
        // places): tree-sitter-python's scanner reads every comment line after a line's end
        // again for each of them, so a run of n comment lines costs n times its length
        let runs = long_comment_runs(text);
        if runs.is_empty() {
            return parser.parse(text, None);
        }
        let included = included_between(text, &runs);
        if parser.set_included_ranges(&included).is_err() {
            return parser.parse(text, None);
        }
        let tree = parser.parse(text, None);
        let _ = parser.set_included_ranges(&[]);
        tree
    });
    let mut facts = FileFacts { path: path.to_string(), mentions_torch: text.contains("torch"), ..Default::default() };
    let Some(tree) = tree else { return (facts, None) };
    facts.parse_errors = tree.root_node().has_error();
    let src = Source::new(text);
    let mut b = Builder {
        src: &src,
        calls: Vec::new(),
        ancestors: Vec::new(),
        assignment: None,
        cond: None,
        facts: &mut facts,
        ranges: Vec::new(),
        marks: Vec::new(),
    };
    // every node in document order, parents before children (the order of the queries' matches)
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        b.assignment = b.ancestors.last().and_then(|&(p, pa)| assignment_of(node, p, pa));
        b.node(node);
        if b.ancestors.len() >= crate::scan::MAX_TREE_DEPTH {
            // deeper than any code CPython compiles: the file is skipped (see `scan_read`)
            b.facts.too_deep = crate::scan::MAX_TREE_DEPTH;
            break 'walk;
        }
        if cursor.goto_first_child() {
            b.ancestors.push((node, b.assignment));
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
            b.ancestors.pop();
        }
    }
    let (ranges, marks) = (b.ranges, b.marks);
    drop(cursor);
    assign_scopes(&mut facts, ranges, marks);
    // the statement trees are for the value tracing of a project's own code: a file longer
    // than this (a model library's module) has none, and the chains that reach it end there
    if text.len() <= crate::scan::flow::MAX_FILE_BYTES && facts.too_deep == 0 {
        facts.flow = crate::scan::flow::defs(tree.root_node(), text);
    }
    (facts, Some(tree))
}

/// Runs of at least this many lines that are comments and nothing else are not parsed.
const COMMENT_RUN: usize = 8;

/// The byte ranges of the runs of `COMMENT_RUN` or more consecutive lines holding only a
/// comment (whitespace before the `#`) outside triple-quoted strings, each from its first
/// line's start to its last line's end (newline included).
fn long_comment_runs(text: &str) -> Vec<std::ops::Range<usize>> {
    let b = text.as_bytes();
    let mut runs = Vec::new();
    // inside a triple-quoted string: its quote byte
    let mut string: Option<u8> = None;
    let (mut run_start, mut run_lines) = (0, 0);
    let mut at = 0;
    while at < b.len() {
        let end = memchr::memchr(b'\n', &b[at..]).map_or(b.len(), |p| at + p + 1);
        let line = &b[at..end];
        let first = line.iter().position(|&c| !matches!(c, b' ' | b'\t' | b'\x0c'));
        let comment = string.is_none() && first.is_some_and(|i| line[i] == b'#');
        if comment {
            if run_lines == 0 {
                run_start = at;
            }
            run_lines += 1;
        } else {
            if run_lines >= COMMENT_RUN {
                runs.push(run_start..at);
            }
            run_lines = 0;
            string = triple_quotes_after(line, string);
        }
        at = end;
    }
    if run_lines >= COMMENT_RUN {
        runs.push(run_start..b.len());
    }
    runs
}

/// Whether a triple-quoted string is open after `line`, given whether one was before it (quotes
/// after a `#` outside a string, and escaped quotes, are not counted; one-line strings are
/// skipped).
fn triple_quotes_after(line: &[u8], mut string: Option<u8>) -> Option<u8> {
    let mut i = 0;
    while i < line.len() {
        let c = line[i];
        match string {
            Some(q) => {
                if c == b'\\' {
                    i += 2;
                    continue;
                }
                if line[i..].starts_with(&[q, q, q]) {
                    string = None;
                    i += 3;
                    continue;
                }
            }
            None => match c {
                b'#' => return None,
                b'"' | b'\'' if line[i..].starts_with(&[c, c, c]) => {
                    string = Some(c);
                    i += 3;
                    continue;
                }
                b'"' | b'\'' => {
                    // a one-line string: to its closing quote
                    i += 1;
                    while i < line.len() && line[i] != c && line[i] != b'\n' {
                        i += if line[i] == b'\\' { 2 } else { 1 };
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    string
}

/// The parts of `text` between `runs` (ordered, disjoint), as tree-sitter ranges.
fn included_between(text: &str, runs: &[std::ops::Range<usize>]) -> Vec<tree_sitter::Range> {
    // rows counted forward from the last point asked for (the points come in order)
    let (mut seen, mut row) = (0, 0);
    let mut point = |byte: usize| {
        let b = text.as_bytes();
        row += memchr::memchr_iter(b'\n', &b[seen..byte]).count();
        seen = byte;
        let column = byte - memchr::memrchr(b'\n', &b[..byte]).map_or(0, |p| p + 1);
        tree_sitter::Point { row, column }
    };
    let mut out = Vec::with_capacity(runs.len() + 1);
    let mut from = 0;
    for r in runs.iter().chain(std::iter::once(&(text.len()..text.len()))) {
        if r.start > from {
            out.push(tree_sitter::Range { start_byte: from, end_byte: r.start, start_point: point(from), end_point: point(r.start) });
        }
        from = r.end;
    }
    out
}

/// The facts of one parse, gathered node by node: each node kind the queries in
/// `grammars/python/*.scm` match adds the fact its pattern describes (the queries are the
/// specification; running them costs 7 to 10 ms to compile per process, a fifth of a
/// pre-commit run, so the tree is walked directly and a test holds the walk to the queries).
struct Builder<'s, 'f, 't> {
    src: &'s Source<'s>,
    /// calls waiting for their argument list, innermost last: a pattern's match is complete at
    /// its last node, so `a(b)(c)` yields `a(b)` first and `f(g(x))` yields `f(...)` first
    calls: Vec<(usize, Node<'t>, Node<'t>, Option<Text>)>,
    /// the ancestors of the node being visited, innermost last, each with the assignment whose
    /// value it starts (`assignment_of`)
    ancestors: Vec<(Node<'t>, Option<Node<'t>>)>,
    /// that assignment for the node being visited
    assignment: Option<Node<'t>>,
    /// the condition an `if`/`elif`/`while` is waiting for
    cond: Option<usize>,
    facts: &'f mut FileFacts,
    /// class/def byte ranges, for the scopes
    ranges: Vec<(usize, usize, bool, Text)>,
    /// facts to give a scope: kind, index, start byte
    marks: Vec<(Kind, usize, usize)>,
}

impl<'t> Builder<'_, '_, 't> {
    fn node(&mut self, n: Node<'t>) {
        if self.calls.last().is_some_and(|c| c.0 == n.id()) {
            if let Some((_, call, func, assigned)) = self.calls.pop() {
                self.call(call, func, n, assigned);
            }
        }
        if self.cond == Some(n.id()) {
            self.cond = None;
            self.cond(n);
        }
        let field = |f: F| n.field(f);
        match n.kind_name() {
            // (call function: (_) @call.func arguments: (argument_list) @call.args) @call
            "call" => {
                if let (Some(func), Some(list)) =
                    (field(F::Function).filter(|x| x.is_named()), field(F::Arguments).filter(|a| a.kind_name() == "argument_list"))
                {
                    let assigned = assigned_name(self.src, self.assignment);
                    self.calls.push((list.id(), n, func, assigned));
                }
            }
            // (class_definition name: (identifier) @class.name superclasses: (argument_list)? @class.bases) @class
            "class_definition" => {
                if let Some(name) = field(F::Name).filter(|x| x.kind_name() == "identifier") {
                    self.class(n, name, field(F::Superclasses).filter(|x| x.kind_name() == "argument_list"));
                }
            }
            // (function_definition name: (identifier) @def.name parameters: (parameters) @def.params) @def
            "function_definition" => {
                if let (Some(name), Some(ps)) = (
                    field(F::Name).filter(|x| x.kind_name() == "identifier"),
                    field(F::Parameters).filter(|x| x.kind_name() == "parameters"),
                ) {
                    self.def(n, name, ps);
                }
            }
            // (assignment left: (identifier) @field.name type: (_) right: (_) @field.value) @field
            // (assignment left: (_) @assign.left right: (_) @assign.right) @assign
            "assignment" => match (field(F::Left).filter(|x| x.is_named()), field(F::Right).filter(|x| x.is_named())) {
                (Some(l), Some(r)) if field(F::Type).is_some_and(|x| x.is_named()) && l.kind_name() == "identifier" => self.field(n, l, r),
                (Some(l), Some(r)) if field(F::Type).is_none() => self.assign(n, l, r),
                _ => {}
            },
            // (augmented_assignment left: (_) @aug.left right: (_) @aug.right) @aug
            "augmented_assignment" => {
                if let (Some(l), Some(r)) = (field(F::Left).filter(|x| x.is_named()), field(F::Right).filter(|x| x.is_named())) {
                    self.aug(n, l, r);
                }
            }
            "return_statement" => self.ret(n),
            // (for_statement left: (_) @for.target right: (_) @for.iter) @for
            "for_statement" => {
                if let (Some(t), Some(it)) = (field(F::Left).filter(|x| x.is_named()), field(F::Right).filter(|x| x.is_named())) {
                    self.for_(n, t, it);
                }
            }
            "import_from_statement" | "import_statement" => self.import(n),
            // (if_statement condition: (_) @cond.expr), elif, while
            "if_statement" | "elif_clause" | "while_statement" => {
                self.cond = field(F::Condition).filter(|x| x.is_named()).map(|c| c.id());
            }
            // (conditional_expression) @cond.ternary: its condition
            "conditional_expression" => {
                if let Some(c) = n.named_child(1) {
                    self.cond(c);
                }
            }
            _ => {}
        }
    }

    fn call(&mut self, call: Node, func: Node, list: Node, assigned_to: Option<Text>) {
        let src = self.src;
        // only the ends of the callee's text are kept: a chain of n calls would otherwise copy
        // O(n) bytes per call
        let raw = src.node_text(func);
        let func_text: String = head(raw, 4 * MAX_TEXT).split_whitespace().collect::<String>().chars().take(MAX_TEXT).collect();
        let last = tail(raw, 4 * MAX_TEXT).split_whitespace().collect::<String>();
        let name = Text::from(last.rsplit('.').next().unwrap_or(&last));
        self.marks.push((Kind::Call, self.facts.calls.len(), call.start_byte()));
        self.facts.calls.push(Call {
            func: func_text.into(),
            name,
            args: args(src, list),
            span: src.span(call),
            scope: Scope::default(),
            assigned_to,
        });
    }

    fn class(&mut self, class: Node, name: Node, bases: Option<Node>) {
        let src = self.src;
        let name = Text::from(src.node_text(name));
        self.ranges.push((class.start_byte(), class.end_byte(), true, name.clone()));
        let bases = bases.map(|b| element_texts(src, b)).unwrap_or_default();
        let bases = bases.into_iter().filter(|b| !b.contains('=')).collect();
        let mut methods = Vec::new();
        if let Some(body) = class.field(F::Body) {
            let mut c = body.walk();
            for item in body.named_children(&mut c) {
                let def = if item.kind_name() == "decorated_definition" { item.field(F::Definition) } else { Some(item) };
                if let Some(d) = def.filter(|d| d.kind_name() == "function_definition") {
                    if let Some(n) = d.field(F::Name) {
                        methods.push(Text::from(src.node_text(n)));
                    }
                }
            }
        }
        self.facts.classes.push(ClassFact { name, bases, methods, span: src.span(class) });
    }

    fn def(&mut self, def: Node, name: Node, ps: Node) {
        let src = self.src;
        let name = Text::from(src.node_text(name));
        self.ranges.push((def.start_byte(), def.end_byte(), false, name.clone()));
        self.marks.push((Kind::Function, self.facts.functions.len(), def.start_byte()));
        let (params, defaults, varargs) = params(src, ps);
        self.facts.functions.push(FunctionFact { name, class: None, params, defaults, varargs, span: src.span(def) });
    }

    fn field(&mut self, field: Node, n: Node, v: Node) {
        let src = self.src;
        self.marks.push((Kind::Assign, self.facts.assigns.len(), field.start_byte()));
        self.facts.assigns.push(AssignFact {
            target: Text::from(src.node_text(n)),
            value: src.clipped(v),
            op: None,
            shift: None,
            int: int_literal(src, v),
            len: literal_len(v),
            span: src.span(field),
            scope: Scope::default(),
        });
    }

    fn assign(&mut self, assign: Node, l: Node, r: Node) {
        let src = self.src;
        let target = Text::from(src.node_text(l));
        self.marks.push((Kind::Assign, self.facts.assigns.len(), assign.start_byte()));
        self.facts.assigns.push(AssignFact {
            shift: shift_of(src, &target, r),
            value: src.clipped(r),
            op: None,
            int: int_literal(src, r),
            len: literal_len(r),
            span: src.span(assign),
            scope: Scope::default(),
            target,
        });
    }

    fn aug(&mut self, aug: Node, l: Node, r: Node) {
        let src = self.src;
        let op = aug.field(F::Operator).map(|o| Text::from(src.node_text(o)));
        let k = int_literal(src, r);
        let shift = match (op.as_deref(), k) {
            (Some("+="), Some(k)) => Some(k),
            (Some("-="), Some(k)) => Some(-k),
            _ => None,
        };
        self.marks.push((Kind::Assign, self.facts.assigns.len(), aug.start_byte()));
        self.facts.assigns.push(AssignFact {
            target: src.node_text(l).into(),
            value: src.clipped(r),
            op,
            shift,
            int: k,
            len: None,
            span: src.span(aug),
            scope: Scope::default(),
        });
    }

    fn ret(&mut self, ret: Node) {
        let src = self.src;
        let value = ret.named_child(0);
        self.marks.push((Kind::Return, self.facts.returns.len(), ret.start_byte()));
        self.facts.returns.push(ReturnFact {
            elements: value.map(|v| element_texts(src, v)).unwrap_or_default(),
            dict: value.map(|v| dict_pairs(src, v)).unwrap_or_default(),
            span: src.span(ret),
            scope: Scope::default(),
        });
    }

    fn for_(&mut self, f: Node, t: Node, it: Node) {
        let src = self.src;
        self.marks.push((Kind::For, self.facts.fors.len(), f.start_byte()));
        self.facts.fors.push(ForFact { targets: element_texts(src, t), iter: src.clipped(it), span: src.span(f), scope: Scope::default() });
    }

    fn cond(&mut self, cond: Node) {
        let src = self.src;
        self.marks.push((Kind::Cond, self.facts.conds.len(), cond.start_byte()));
        self.facts.conds.push(CondFact { text: src.clipped(cond), span: src.span(cond), scope: Scope::default() });
    }

    fn import(&mut self, imp: Node) {
        self.facts.imports.push(self.src.clipped(imp));
        self.facts.import_lines.push(imp.start_position().row as u32 + 1);
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Call,
    Assign,
    Return,
    For,
    Cond,
    Function,
}

/// Sweeps facts and class/def ranges in byte order with a stack of the open ranges: the
/// innermost function and class around a fact are its scope (a function's own scope is the
/// one around its `def`).
fn assign_scopes(facts: &mut FileFacts, mut ranges: Vec<(usize, usize, bool, Text)>, mut marks: Vec<(Kind, usize, usize)>) {
    ranges.sort_by_key(|r| (r.0, std::cmp::Reverse(r.1)));
    marks.sort_by_key(|m| m.2);
    let mut stack: Vec<&(usize, usize, bool, Text)> = Vec::new();
    let mut ri = 0;
    for (kind, idx, pos) in marks {
        // a def's own range starts at the def: open only ranges that start before the fact,
        // so that a function's scope is the one around it
        while ri < ranges.len() && (ranges[ri].0 < pos || ranges[ri].0 == pos && !matches!(kind, Kind::Function)) {
            stack.push(&ranges[ri]);
            ri += 1;
        }
        stack.retain(|r| r.1 > pos);
        let class_at = stack.iter().rposition(|r| r.2);
        let func_at = stack.iter().rposition(|r| !r.2);
        let class = class_at.map(|i| stack[i].3.clone());
        let function = match (func_at, class_at) {
            (Some(f), Some(c)) if f < c => None,
            (Some(f), _) => Some(stack[f].3.clone()),
            _ => None,
        };
        let scope = Scope { class, function };
        match kind {
            Kind::Call => facts.calls[idx].scope = scope,
            Kind::Assign => facts.assigns[idx].scope = scope,
            Kind::Return => facts.returns[idx].scope = scope,
            Kind::For => facts.fors[idx].scope = scope,
            Kind::Cond => facts.conds[idx].scope = scope,
            Kind::Function => facts.functions[idx].class = scope.class,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use tree_sitter::{Query, QueryCursor, StreamingIterator};

    const QUERIES: &[(&str, &str)] = &[
        ("calls.scm", include_str!("../../grammars/python/calls.scm")),
        ("definitions.scm", include_str!("../../grammars/python/definitions.scm")),
        ("assignments.scm", include_str!("../../grammars/python/assignments.scm")),
        ("flow.scm", include_str!("../../grammars/python/flow.scm")),
    ];

    /// The facts as the queries in `grammars/python/*.scm` find them: the specification the
    /// tree walk of `scan_tree` is held to.
    fn scan_with_queries(path: &str, text: &str) -> FileFacts {
        let mut parser = Parser::new();
        parser.set_language(&language()).unwrap();
        let tree = parser.parse(text, None).unwrap();
        let mut facts = FileFacts { path: path.to_string(), mentions_torch: text.contains("torch"), ..Default::default() };
        facts.parse_errors = tree.root_node().has_error();
        let src = Source::new(text);
        let all: String = QUERIES.iter().map(|(_, q)| *q).collect::<Vec<_>>().join("\n");
        let q = Query::new(&language(), &all).expect("grammars/python/*.scm compile");
        let names = q.capture_names();
        let mut cursor = QueryCursor::new();
        let mut matches = cursor.matches(&q, tree.root_node(), text.as_bytes());
        let mut b = Builder {
            src: &src,
            calls: Vec::new(),
            ancestors: Vec::new(),
            assignment: None,
            cond: None,
            facts: &mut facts,
            ranges: Vec::new(),
            marks: Vec::new(),
        };
        while let Some(m) = matches.next() {
            let get = |name: &str| m.captures.iter().find(|c| names[c.index as usize] == name).map(|c| c.node);
            if let Some(call) = get("call") {
                let (Some(func), Some(list)) = (get("call.func"), get("call.args")) else { continue };
                // climbing with `Node::parent` (slow on long chains; test files are small)
                let mut path = vec![call];
                while let Some(p) = path.last().and_then(|n| n.parent()) {
                    path.push(p);
                }
                let assignment = path.iter().rev().skip(1).zip(path.iter().rev()).fold(None, |pa, (&n, &p)| assignment_of(n, p, pa));
                let assigned = assigned_name(&src, assignment);
                b.call(call, func, list, assigned);
            } else if let Some(class) = get("class") {
                let Some(name) = get("class.name") else { continue };
                b.class(class, name, get("class.bases"));
            } else if let Some(def) = get("def") {
                let (Some(name), Some(ps)) = (get("def.name"), get("def.params")) else { continue };
                b.def(def, name, ps);
            } else if let Some(field) = get("field") {
                let (Some(n), Some(v)) = (get("field.name"), get("field.value")) else { continue };
                b.field(field, n, v);
            } else if let Some(assign) = get("assign") {
                if assign.field(F::Type).is_some() {
                    continue; // read by the `field` pattern
                }
                let (Some(l), Some(r)) = (get("assign.left"), get("assign.right")) else { continue };
                b.assign(assign, l, r);
            } else if let Some(aug) = get("aug") {
                let (Some(l), Some(r)) = (get("aug.left"), get("aug.right")) else { continue };
                b.aug(aug, l, r);
            } else if let Some(ret) = get("return") {
                b.ret(ret);
            } else if let Some(f) = get("for") {
                let (Some(t), Some(it)) = (get("for.target"), get("for.iter")) else { continue };
                b.for_(f, t, it);
            } else if let Some(cond) = get("cond.expr").or_else(|| get("cond.ternary").and_then(|t| t.named_child(1))) {
                b.cond(cond);
            } else if let Some(imp) = get("import") {
                b.import(imp);
            }
        }
        let (ranges, marks) = (b.ranges, b.marks);
        assign_scopes(&mut facts, ranges, marks);
        facts
    }

    fn same_as_queries(path: &str, text: &str) -> Result<(), String> {
        // the statement trees (`scan::flow`) are built by their own pass, not by the queries
        let walked = serde_json::to_string(&FileFacts { flow: Vec::new(), ..scan_source(path, text) }).unwrap();
        let queried = serde_json::to_string(&scan_with_queries(path, text)).unwrap();
        if walked == queried {
            return Ok(());
        }
        let at = walked.bytes().zip(queried.bytes()).position(|(a, b)| a != b).unwrap_or(0);
        Err(format!(
            "{path}: the walk and the queries differ at byte {at}:\n  walk:    {}\n  queries: {}",
            &walked[at.saturating_sub(80)..(at + 160).min(walked.len())],
            &queried[at.saturating_sub(80)..(at + 160).min(queried.len())]
        ))
    }

    /// The tree walk finds exactly the facts the queries describe: on every Python file under
    /// fixtures/ and tests/, on broken code, and on the tree `CUDASLEUTH_QUERY_TREE` names.
    #[test]
    fn the_walk_finds_what_the_queries_match() {
        let mut roots = vec![std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")];
        roots.extend(std::env::var_os("CUDASLEUTH_QUERY_TREE").map(std::path::PathBuf::from));
        let mut checked = 0;
        let mut errors = Vec::new();
        for root in roots {
            for e in ignore::WalkBuilder::new(&root).standard_filters(false).build().flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "py") {
                    let Ok(text) = std::fs::read_to_string(p) else { continue };
                    checked += 1;
                    if let Err(e) = same_as_queries(&p.to_string_lossy(), &text) {
                        errors.push(e);
                    }
                }
            }
        }
        for broken in [
            "class X(:\n  pass\nnum_classes: int = 10\n",
            "def f(:\n  return g(x if y else z\n",
            "for x in :\n  y += 1\nself.n: int = 3\nx: int\n",
            "f(x for x in y)(z)\na.b(c)(d)\nif (a if b else c): pass\nelif d(e): pass\nwhile f(): pass\n",
        ] {
            checked += 1;
            if let Err(e) = same_as_queries("broken.py", broken) {
                errors.push(e);
            }
        }
        assert!(checked > 50, "{checked} files");
        assert!(
            errors.is_empty(),
            "{} of {checked} files differ:\n{}",
            errors.len(),
            errors.iter().take(5).cloned().collect::<Vec<_>>().join("\n")
        );
    }

    const SEED: &str = include_str!("../../fixtures/projects/000-seed-blog/seed_blog_example.py");

    #[test]
    fn reads_the_seed_example() {
        let f = scan_source("seed_blog_example.py", SEED);
        assert!(!f.parse_errors);
        let ds = f.classes.iter().find(|c| c.name == "CustomDataset").unwrap();
        assert!(ds.is_dataset());
        let shift = f.assigns.iter().find(|a| a.shift.is_some()).unwrap();
        assert_eq!((shift.target.as_str(), shift.shift, shift.span.line), ("y", Some(1), 17));
        assert_eq!(shift.scope.qualified(), "CustomDataset.__getitem__");
        let linear = f.calls.iter().find(|c| c.name == "Linear").unwrap();
        assert_eq!(linear.positional(1).and_then(|a| a.int), Some(3));
        assert_eq!(linear.assigned_to.as_deref(), Some("model"));
        let ce = f.calls.iter().find(|c| c.name == "CrossEntropyLoss").unwrap();
        assert_eq!(ce.assigned_to.as_deref(), Some("criterion"));
        let ret = f.returns.iter().find(|r| r.scope.function.as_deref() == Some("__getitem__")).unwrap();
        assert_eq!(ret.elements, ["x", "y"]);
        let lp = f.fors.iter().find(|l| l.iter == "loader").unwrap();
        assert_eq!(lp.targets, ["x", "y"]);
    }

    #[test]
    fn columns_count_code_points_and_broken_files_still_scan() {
        let f = scan_source("u.py", "s = \"é\"; y = y + 1\nclass X(:\n  pass\nnum_classes: int = 10\n");
        let y = f.assigns.iter().find(|a| a.target == "y").unwrap();
        assert_eq!(y.span.column, 10);
        assert!(f.parse_errors);
        assert!(f.assigns.iter().any(|a| a.target == "num_classes" && a.int == Some(10)));
    }
}
