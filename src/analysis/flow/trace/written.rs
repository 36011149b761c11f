//! Text a project writes and reads back: rows a `csv.writer` or `csv.DictWriter` writes, lines
//! of fields `f.write(…)` / `print(…, file=f)` write, read back with `csv.reader` or line by line
//! (`for line in f`, `f.read().split("\n")`, `f.readlines()`) and split into fields. What a
//! reading takes out of a field is what the write put there, traced where it was written; a
//! field written as literal text is that text. Rows read by column name (`csv.DictReader`) keep
//! the column reading of the file they come from: the column's own root says more of the reading
//! line (a count of the column beside its ids) than the values a script wrote into it.
//!
//! A line's fields are counted with the write's own separators (blanks, commas, tabs,
//! semicolons, bars; the elements of a csv row): a reader that splits on another separator is
//! not told apart. An f-string's holes are not parsed: a field holding one is unknown, the
//! fields around it keep their positions. A row built as a list (`rows.append([i, name, y])`)
//! is one value for all its positions, as every list is.

use std::rc::Rc;

use super::{file_name_fits, open_mode, short, Ctx, Pick, Tag, Thunk, Tracer, MAX_CALLS, MAX_SITES, READ_BACK};
use crate::analysis::flow::value::{Range, Sym, Val};
use crate::scan::facts::Text;
use crate::scan::flow::{Expr, SeqKind, StmtKind};

/// Where one field of a written line comes from.
#[derive(Debug, Clone, PartialEq)]
enum Field {
    /// The value of an expression of the write.
    Of(Expr),
    /// Text written as it is (a number in it is that number).
    Text(String),
    /// Values or text run together, or a hole the scan does not parse: no one value.
    Mixed,
}

impl Field {
    /// The number a field of literal text is.
    fn number(&self) -> Option<i64> {
        match self {
            Field::Text(t) => t.trim().parse().ok(),
            _ => None,
        }
    }
}

/// What one write puts in a line.
#[derive(Debug, Clone, PartialEq)]
enum Line {
    /// Fields, in order.
    Fields(Vec<Field>),
    /// A whole row, the value of an expression (`w.writerow(row)`), or each element of one
    /// (`w.writerows(rows)`).
    Row(Expr, Pick),
    /// A row of named fields (`csv.DictWriter`'s `writerow({"id": i, …})`).
    Named(Vec<(String, Expr)>),
}

/// A piece of written text.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Sep,
    Lit(char),
    Val(Expr),
    /// A hole whose value is not known (an f-string's).
    Hole,
}

/// One write of a file a reading reads: where it is (with the call's arguments when it is a
/// helper's), what it writes, and the names of the columns a `csv.DictWriter` writes.
struct Write {
    cx: Ctx,
    line: Line,
    names: Option<Vec<String>>,
}

impl<'a, 'i> Tracer<'a, 'i> {
    /// The lines of a file the project writes as text, read back: a sequence of lines, each a
    /// tuple of its fields (a row a `csv.DictWriter` writes, in its columns' order). `file` is
    /// the opened file, or the path itself when `by_path`. None when the project writes no line
    /// of fields into that file.
    pub(super) fn written_lines(&mut self, file: &Expr, by_path: bool, cx: &Ctx, parent: Option<usize>) -> Option<Val> {
        let path = if by_path { self.path_text(file, cx) } else { self.opened_path(file, cx) }?;
        let name = path.rsplit('/').next().unwrap_or(&path).to_string();
        if name.is_empty() || cx.depth >= MAX_CALLS || self.loading.contains(&name) {
            return None;
        }
        let dir = self.folder_of(file, cx);
        let writes = self.line_writes(&name, dir.as_deref(), cx);
        // a row of column names (all literal text, or a list of names) heads the file
        let mut header: Option<Vec<String>> = writes.iter().find_map(|w| w.names.clone());
        let mut data: Vec<&Write> = Vec::new();
        for w in &writes {
            match self.header_names(&w.line, &w.cx) {
                Some(names) => {
                    header.get_or_insert(names);
                }
                None => data.push(w),
            }
        }
        // lines of fewer fields than the longest (a title, a section's heading) are not rows
        let width = |w: &Write| if let Line::Fields(fs) = &w.line { fs.len() } else { 0 };
        let widest = data.iter().map(|w| width(w)).max().unwrap_or(0);
        // a line of one field is text (a name, a token per line): what a reading makes of text
        // is not modelled
        if data.is_empty() || widest < 2 && data.iter().all(|w| matches!(w.line, Line::Fields(_))) {
            return None;
        }
        data.retain(|w| !matches!(w.line, Line::Fields(_)) || width(w) == widest);
        // lines whose fields hold no value the scan reads (f-strings' holes, text) say nothing
        // the file's text does not
        let told = |w: &&Write| match &w.line {
            Line::Fields(fs) => fs.iter().any(|f| matches!(f, Field::Of(_)) || f.number().is_some()),
            Line::Row(..) | Line::Named(_) => true,
        };
        if !data.iter().any(told) {
            return None;
        }
        // a line written once before the rows a loop writes (a count of them, a heading) is not
        // a row: in a function, the lines written deepest are
        let nest = |w: &Write| self.def(&w.cx).stmts.get(w.cx.at).map_or(0, |s| s.nest);
        let deepest = |w: &Write| data.iter().filter(|o| o.cx.def == w.cx.def).map(|o| nest(o)).max().unwrap_or(0);
        let data: Vec<&Write> = data.iter().copied().filter(|w| nest(w) == deepest(w)).collect();
        self.loading.push(name.clone());
        let mut rows: Vec<Val> = Vec::new();
        for w in data {
            let shown = match &w.line {
                Line::Row(e, _) => short(e),
                Line::Fields(_) | Line::Named(_) => short(&self.write_call(&w.cx).unwrap_or(Expr::Slice)),
            };
            let node = self.node(&w.cx, w.cx.at, Tag::Pass, format!("writes `{shown}` to `{name}`{READ_BACK}"), parent);
            let row = match &w.line {
                Line::Fields(fs) => Val::Tuple(fs.iter().map(|f| self.field_value(f, &w.cx, node)).collect()),
                Line::Row(e, pick) => self.picked(e, &w.cx, node, *pick),
                Line::Named(kv) => in_order(kv.iter().map(|(k, e)| (k.clone(), self.defer(e, &w.cx, node))).collect(), header.as_deref()),
            };
            // (the write shows the row as it is read)
            self.finish(node, &row);
            rows.push(row);
        }
        self.loading.pop();
        let line = rows.into_iter().reduce(either)?;
        Some(Val::Seq { elem: Box::new(line), len: None, most: None })
    }

    /// A field's value: deferred to where it is used, a literal number as it is, other text as
    /// text the scan did not read.
    fn field_value(&self, f: &Field, cx: &Ctx, parent: Option<usize>) -> Val {
        match f {
            // a value computed in the write (`j + 1`) is made on its line
            Field::Of(e) if matches!(e.bare(), Expr::Bin(..) | Expr::Unary(..)) => Val::Thunk(Rc::new(Thunk {
                what: Some(format!("writes `{}`", short(e))),
                pick: Pick::Shaped,
                ..Thunk::of(e.clone(), cx.clone(), parent, self.count)
            })),
            Field::Of(e) => self.defer(e, cx, parent),
            // (text the scan does not read into values, as a file it did not read: a number
            // parsed out of it is an origin of its own)
            Field::Text(_) | Field::Mixed => match f.number() {
                Some(k) => Val::Int(Range::exact(Sym::num(k))),
                None => Val::Table(None),
            },
        }
    }

    /// `e` at `cx`, deferred, the part `pick` says.
    fn picked(&self, e: &Expr, cx: &Ctx, parent: Option<usize>, pick: Pick) -> Val {
        Val::Thunk(Rc::new(Thunk { pick, ..Thunk::of(e.clone(), cx.clone(), parent, self.count) }))
    }

    /// The call statement of a write.
    fn write_call(&self, cx: &Ctx) -> Option<Expr> {
        match &self.def(cx).stmts.get(cx.at)?.kind {
            StmtKind::Expr(e @ Expr::Call { .. }) => Some(e.clone()),
            _ => None,
        }
    }

    /// The column names a row of literal text (or a list of them held by a name) writes.
    fn header_names(&self, line: &Line, cx: &Ctx) -> Option<Vec<String>> {
        match line {
            Line::Fields(fs) if fs.len() > 1 => fs
                .iter()
                .map(|f| match f {
                    Field::Text(t) if t.parse::<f64>().is_err() => Some(t.trim().to_string()),
                    _ => None,
                })
                .collect(),
            Line::Row(e, Pick::Whole) => self.str_list(e, cx),
            _ => None,
        }
    }

    /// The strings a list display of literal text holds, written here or held by a name (a
    /// module's constant `FIELDS = ["id", "label"]`).
    fn str_list(&self, e: &Expr, cx: &Ctx) -> Option<Vec<String>> {
        let strs = |e: &Expr| match e.bare() {
            Expr::Seq(SeqKind::List | SeqKind::Tuple, xs) if !xs.is_empty() => xs
                .iter()
                .map(|x| match x.bare() {
                    Expr::Str(s) if !s.contains('{') => Some(s.to_string()),
                    _ => None,
                })
                .collect(),
            _ => None,
        };
        match e.bare() {
            Expr::Name(n) => {
                if let Some((_, v)) = self.def(cx).last_assign(cx.at, n) {
                    return strs(v);
                }
                self.ix.globals(n).iter().find_map(|&(id, si)| match &self.ix.def(id).stmts.get(si)?.kind {
                    StmtKind::Assign { value, op: None, .. } => strs(value),
                    _ => None,
                })
            }
            other => strs(other),
        }
    }

    /// The writes of lines into a file named `name` (in the folder `dir` where the reading
    /// says it): each `f.write` / `print(…, file=f)` on a file opened for
    /// writing, each `writerow` / `writerows` of a `csv.writer` / `csv.DictWriter` of one.
    fn line_writes(&mut self, name: &str, dir: Option<&str>, cx: &Ctx) -> Vec<Write> {
        let ix = self.ix;
        let mut out = Vec::new();
        for method in ["write", "writerow", "writerows", "print"] {
            for &(def, at) in ix.calling(method).iter().take(MAX_SITES * 4) {
                let d = ix.def(def);
                let Some(StmtKind::Expr(Expr::Call { func, args, kwargs })) = d.stmts.get(at).map(|s| &s.kind) else { continue };
                if func.last_name() != Some(method) {
                    continue;
                }
                let c = Ctx { def, at, env: None, depth: cx.depth + 1 };
                // the file written, what is written, and a DictWriter's column names
                let (file, line, names) = match (method, func.bare()) {
                    ("print", Expr::Name(_)) => {
                        let Some((_, f)) = kwargs.iter().find(|(k, _)| k == "file") else { continue };
                        let sep = kwargs.iter().find(|(k, _)| k == "sep").map(|(_, e)| e);
                        (f.clone(), printed(args, sep), None)
                    }
                    ("write", Expr::Attr(f, _)) => {
                        let Some(x) = args.first() else { continue };
                        let Some(line) = written(x) else { continue };
                        ((**f).clone(), line, None)
                    }
                    ("writerow" | "writerows", Expr::Attr(w, _)) => {
                        let Some(x) = args.first() else { continue };
                        let Some((f, names)) = self.csv_writer(w, &c) else { continue };
                        let line = if method == "writerows" { Line::Row(x.clone(), Pick::Element) } else { csv_row(x) };
                        (f, line, names)
                    }
                    _ => continue,
                };
                if !self.opened_for_writing(&file, &c) {
                    continue;
                }
                for c in self.write_sites(def, at, &c, &|t: &Self, c: &Ctx| t.opened_path(&file, c).is_some()) {
                    let Some(written) = self.opened_path(&file, &c) else { continue };
                    let elsewhere = dir.is_some_and(|dir| self.folder_of(&file, &c).is_some_and(|d| d != dir));
                    if !file_name_fits(written.rsplit('/').next().unwrap_or(&written), name) || elsewhere {
                        continue;
                    }
                    out.push(Write { cx: c, line: line.clone(), names: names.clone() });
                }
            }
        }
        out
    }

    /// The file a `csv.writer(f)` / `csv.DictWriter(f, fieldnames=…)` held by `w` writes, and
    /// the DictWriter's column names.
    fn csv_writer(&self, w: &Expr, cx: &Ctx) -> Option<(Expr, Option<Vec<String>>)> {
        let Expr::Name(n) = w.bare() else { return None };
        let (i, v) = self.def(cx).last_assign(cx.at, n)?;
        let Expr::Call { func, args, kwargs } = v.bare() else { return None };
        let kind = func.last_name()?;
        if !matches!(kind, "writer" | "DictWriter") {
            return None;
        }
        let names = if kind == "DictWriter" {
            let at = Ctx { at: i, ..cx.clone() };
            args.get(1).or(kwargs.iter().find(|(k, _)| k == "fieldnames").map(|(_, e)| e)).and_then(|e| self.str_list(e, &at))
        } else {
            None
        };
        Some((args.first()?.clone(), names))
    }

    /// Whether `f` is a file opened for writing or appending (`open(p, "w")`).
    fn opened_for_writing(&self, f: &Expr, cx: &Ctx) -> bool {
        let Some((args, kwargs)) = self.open_call(f, cx) else { return false };
        matches!(open_mode(&args, &kwargs).map(Expr::bare), Some(Expr::Str(m)) if m.contains(['w', 'a', 'x']) && !m.contains('b'))
    }

    /// Whether `open(…)`'s arguments read the file as text: no mode, or a mode that only reads.
    pub(super) fn opens_for_reading(args: &[Expr], kwargs: &[(Text, Expr)]) -> bool {
        match open_mode(args, kwargs).map(Expr::bare) {
            None => true,
            Some(Expr::Str(m)) => !m.contains(['w', 'a', 'x', '+', 'b']),
            Some(_) => false,
        }
    }
}

/// A row `csv.writer` writes from a display (each element a field), or a whole row.
fn csv_row(x: &Expr) -> Line {
    let mut fields = Vec::new();
    if !row_elements(x, &mut fields) {
        return match x.bare() {
            Expr::Dict(kv) if kv.iter().all(|(k, _)| matches!(k.bare(), Expr::Str(_))) => Line::Named(
                kv.iter()
                    .filter_map(|(k, v)| match k.bare() {
                        Expr::Str(s) => Some((s.to_string(), v.clone())),
                        _ => None,
                    })
                    .collect(),
            ),
            _ => Line::Row(x.clone(), Pick::Whole),
        };
    }
    Line::Fields(fields)
}

/// The fields of a row display (`[a, b]`, `[a] + [f(v) for v in row]`): false when `x` is no
/// display. Elements past one whose count is not known are left out.
fn row_elements(x: &Expr, out: &mut Vec<Field>) -> bool {
    match x.bare() {
        Expr::Seq(SeqKind::List | SeqKind::Tuple, xs) => {
            for e in xs {
                out.push(match e.bare() {
                    Expr::Str(s) if s.contains('{') => Field::Mixed,
                    Expr::Str(s) => Field::Text(s.to_string()),
                    Expr::Int(k) => Field::Text(k.to_string()),
                    other => Field::Of(unwrap_text(other).clone()),
                });
            }
            true
        }
        // elements past a part that is no display are left out
        Expr::Bin(op, l, r) if op == "+" => {
            if row_elements(l, out) {
                row_elements(r, out);
                return true;
            }
            false
        }
        _ => false,
    }
}

/// What `f.write(x)` writes: a line of fields, or a row held by a name (`" ".join(map(str,
/// row))`). None for a serialized value (`json.dumps`) and for lines of text written together
/// (`"\n".join(names)`: what a reading makes of text is not modelled).
fn written(x: &Expr) -> Option<Line> {
    let body = match x.bare() {
        // `"\n".join(lines) + "\n"`
        Expr::Bin(op, l, r) if op == "+" && matches!(r.bare(), Expr::Str(s) if unescaped(s).trim().is_empty()) => l,
        other => other,
    };
    if let Expr::Call { func, args, .. } = body.bare() {
        match (func.bare(), args.as_slice()) {
            (Expr::Attr(o, m), _) if m.as_str() == "dumps" && o.dotted().is_some() => return None,
            (Expr::Attr(sep, m), [parts]) if m.as_str() == "join" => {
                if let Expr::Str(s) = sep.bare() {
                    // lines of text (names, tokens): what the reading makes of text is not
                    // modelled
                    if unescaped(s) == "\n" {
                        return None;
                    }
                    if displayed(parts).is_none() {
                        return Some(Line::Row(joined_row(parts).clone(), Pick::Whole));
                    }
                }
            }
            _ => {}
        }
    }
    let mut tokens = Vec::new();
    text_tokens(x, &mut tokens);
    Some(Line::Fields(fields(&tokens)))
}

/// What `print(*args, sep=…, file=f)` writes: its arguments' text, the separator between.
fn printed(args: &[Expr], sep: Option<&Expr>) -> Line {
    let mut tokens = Vec::new();
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            match sep.map(Expr::bare) {
                Some(Expr::Str(s)) => literal_tokens(s, &mut tokens),
                _ => tokens.push(Token::Sep),
            }
        }
        text_tokens(a, &mut tokens);
    }
    Line::Fields(fields(&tokens))
}

/// The elements a join writes when they are a display: `[a, b]`, `map(str, [a, b])`,
/// `(str(v) for v in (a, b))`.
fn displayed(parts: &Expr) -> Option<&[Expr]> {
    match parts.bare() {
        Expr::Seq(SeqKind::List | SeqKind::Tuple, xs) => Some(xs),
        Expr::Call { func, args, .. } if func.last_name() == Some("map") && args.len() == 2 => displayed(&args[1]),
        Expr::Comp { gens, .. } if gens.len() == 1 => displayed(&gens[0].1),
        _ => None,
    }
}

/// The row a join of a non-display writes: `row` of `map(str, row)` or `(str(v) for v in row)`.
fn joined_row(parts: &Expr) -> &Expr {
    match parts.bare() {
        Expr::Call { func, args, .. } if func.last_name() == Some("map") && args.len() == 2 => &args[1],
        Expr::Comp { gens, .. } if gens.len() == 1 => &gens[0].1,
        other => other,
    }
}

/// A value written as text: `str(x)`, `repr(x)`, `int(x)`, `round(x)` write x.
fn unwrap_text(e: &Expr) -> &Expr {
    match e.bare() {
        Expr::Call { func, args, kwargs } if kwargs.is_empty() && args.len() == 1 => match func.bare() {
            Expr::Name(n) if matches!(n.as_str(), "str" | "repr" | "int" | "round") => unwrap_text(&args[0]),
            _ => e,
        },
        _ => e,
    }
}

/// The pieces of text an expression writes.
fn text_tokens(e: &Expr, out: &mut Vec<Token>) {
    match e.bare() {
        Expr::Str(s) => literal_tokens(s, out),
        // `"%d %d\n" % (a, b)`
        Expr::Bin(op, l, r) if op == "%" => match l.bare() {
            Expr::Str(t) => {
                let args: Vec<Expr> = match r.bare() {
                    Expr::Seq(SeqKind::Tuple, xs) => xs.clone(),
                    other => vec![other.clone()],
                };
                template_tokens(t, percent_hole(), &args, &[], out)
            }
            _ => out.push(Token::Hole),
        },
        // `a + "\t" + b + "\n"` (a sum of numbers, `i + 1`, is one value)
        Expr::Bin(op, l, r) if op == "+" && (texty(l) || texty(r)) => {
            text_tokens(l, out);
            text_tokens(r, out);
        }
        Expr::Call { func, args, kwargs } => match (func.bare(), args.as_slice()) {
            // `"{} {}\n".format(a, b)`
            (Expr::Attr(t, m), _) if m.as_str() == "format" && matches!(t.bare(), Expr::Str(_)) => {
                let Expr::Str(t) = t.bare() else { unreachable!() };
                template_tokens(t, brace_hole(), args, kwargs, out)
            }
            // `",".join([a, b])`
            (Expr::Attr(sep, m), [parts]) if m.as_str() == "join" && matches!(sep.bare(), Expr::Str(_)) => {
                let Expr::Str(sep) = sep.bare() else { unreachable!() };
                match displayed(parts) {
                    Some(xs) => {
                        for (i, x) in xs.iter().enumerate() {
                            if i > 0 {
                                literal_tokens(sep, out);
                            }
                            text_tokens(x, out);
                        }
                    }
                    None => out.push(Token::Hole),
                }
            }
            _ => out.push(Token::Val(unwrap_text(e).clone())),
        },
        other => out.push(Token::Val(other.clone())),
    }
}

/// Whether an operand of `+` is text: a literal, `str(x)`, a format or a join, or a sum of
/// text.
fn texty(e: &Expr) -> bool {
    match e.bare() {
        Expr::Str(_) => true,
        Expr::Bin(op, l, r) => op == "%" && matches!(l.bare(), Expr::Str(_)) || op == "+" && (texty(l) || texty(r)),
        Expr::Call { func, .. } => match func.bare() {
            Expr::Name(n) => matches!(n.as_str(), "str" | "repr"),
            Expr::Attr(o, m) => matches!(m.as_str(), "format" | "join") && matches!(o.bare(), Expr::Str(_)),
            _ => false,
        },
        _ => false,
    }
}

/// A literal's characters: separators, text, and `{…}` holes (an f-string's, not parsed).
fn literal_tokens(s: &str, out: &mut Vec<Token>) {
    let s = unescaped(s);
    let mut depth = 0;
    for ch in s.chars() {
        match ch {
            '{' => {
                if depth == 0 {
                    out.push(Token::Hole);
                }
                depth += 1;
            }
            '}' if depth > 0 => depth -= 1,
            _ if depth > 0 => {}
            ' ' | '\t' | ',' | ';' | '|' | '\n' | '\r' => out.push(Token::Sep),
            c => out.push(Token::Lit(c)),
        }
    }
}

/// A template's pieces, each hole given the next argument (`{name}` its keyword's).
fn template_tokens(t: &str, hole: &regex::Regex, args: &[Expr], kwargs: &[(Text, Expr)], out: &mut Vec<Token>) {
    let t = unescaped(t);
    let mut next = 0usize;
    let mut last = 0usize;
    for m in hole.find_iter(&t) {
        literal_tokens(&t[last..m.start()].replace("%%", "%").replace("{{", "").replace("}}", ""), out);
        last = m.end();
        let h = m.as_str();
        let keyword = h.trim_start_matches('{').split([':', '!', '}']).next().unwrap_or("");
        let arg = if h.starts_with('{') && !keyword.is_empty() {
            match keyword.parse::<usize>() {
                Ok(k) => args.get(k),
                Err(_) => kwargs.iter().find(|(k, _)| k == keyword).map(|(_, e)| e),
            }
        } else {
            next += 1;
            args.get(next - 1)
        };
        out.push(arg.map_or(Token::Hole, |a| Token::Val(unwrap_text(a).clone())));
    }
    literal_tokens(&t[last..].replace("%%", "%"), out);
}

/// A literal's text with its blank escapes (`\n`, `\t`, `\r`) read.
fn unescaped(s: &str) -> String {
    s.replace("\\n", "\n").replace("\\t", "\t").replace("\\r", "\r")
}

/// A `%` format's hole.
fn percent_hole() -> &'static regex::Regex {
    static HOLE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    HOLE.get_or_init(|| regex::Regex::new(r"%[-+ 0#]*[0-9]*(?:\.[0-9]+)?[sdirfxXgGeEoc]").unwrap())
}

/// A `str.format` hole (`{}`, `{0}`, `{name:.3f}`).
fn brace_hole() -> &'static regex::Regex {
    static HOLE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    HOLE.get_or_init(|| regex::Regex::new(r"\{[^{}]*\}").unwrap())
}

/// The fields pieces of text make, split at separators: one value alone is that value, text
/// alone is text, anything else run together is no one value.
fn fields(tokens: &[Token]) -> Vec<Field> {
    let mut out = Vec::new();
    for piece in tokens.split(|t| *t == Token::Sep).filter(|p| !p.is_empty()) {
        out.push(match piece {
            [Token::Val(e)] => Field::Of(e.clone()),
            _ if piece.iter().all(|t| matches!(t, Token::Lit(_))) => {
                Field::Text(piece.iter().map(|t| if let Token::Lit(c) = t { *c } else { ' ' }).collect())
            }
            _ => Field::Mixed,
        });
    }
    out
}

/// The fields of a row written by column name, in the order of the columns.
fn in_order(fields: Vec<(String, Val)>, header: Option<&[String]>) -> Val {
    match header {
        Some(names) => Val::Tuple(
            names
                .iter()
                .map(|k| fields.iter().find(|(n, _)| n == k).map_or(Val::unknown("a column not written"), |(_, v)| v.clone()))
                .collect(),
        ),
        None => Val::Tuple(fields.into_iter().map(|(_, v)| v).collect()),
    }
}

/// The rows of two writes of one file: field by field where they have the same shape (either
/// one's value), else the first's.
fn either(a: Val, b: Val) -> Val {
    match (a, b) {
        (Val::Tuple(xs), Val::Tuple(ys)) if xs.len() == ys.len() => Val::Tuple(xs.into_iter().zip(ys).map(|(x, y)| either(x, y)).collect()),
        (Val::Thunk(t), other) | (other, Val::Thunk(t)) if t.also.is_none() => {
            Val::Thunk(Rc::new(Thunk { also: Some(other), ..t.as_ref().clone() }))
        }
        (a, b) => a.join(&b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(n: &str) -> Expr {
        Expr::Name(n.into())
    }

    #[test]
    fn a_percent_template_gives_each_hole_its_argument_and_keeps_literal_fields() {
        let x = Expr::Bin(
            "%".into(),
            Box::new(Expr::Str("%d %d 0 %.0f %.3f\\n".into())),
            Box::new(Expr::Seq(SeqKind::Tuple, vec![name("i"), name("j"), name("c"), name("p")])),
        );
        let Some(Line::Fields(fs)) = written(&x) else { panic!("no fields") };
        assert_eq!(
            fs,
            vec![Field::Of(name("i")), Field::Of(name("j")), Field::Text("0".into()), Field::Of(name("c")), Field::Of(name("p"))]
        );
    }

    #[test]
    fn a_sum_of_numbers_is_one_field_and_text_added_on_splits_fields() {
        let sum = Expr::Bin("+".into(), Box::new(name("a")), Box::new(Expr::Int(1)));
        assert_eq!(printed(&[sum.clone(), name("b")], None), Line::Fields(vec![Field::Of(sum), Field::Of(name("b"))]));
        let str_a = Expr::Call { func: Box::new(name("str")), args: vec![name("a")], kwargs: vec![] };
        let x =
            Expr::Bin("+".into(), Box::new(Expr::Bin("+".into(), Box::new(str_a), Box::new(Expr::Str(",".into())))), Box::new(name("b")));
        assert_eq!(written(&x), Some(Line::Fields(vec![Field::Of(name("a")), Field::Of(name("b"))])));
    }

    #[test]
    fn an_fstring_hole_is_unknown_but_keeps_the_positions_after_it() {
        let x = Expr::Bin("+".into(), Box::new(Expr::Str("{a}\\t{b:.2f}\\t".into())), Box::new(name("c")));
        let Some(Line::Fields(fs)) = written(&x) else { panic!("no fields") };
        assert_eq!(fs, vec![Field::Mixed, Field::Mixed, Field::Of(name("c"))]);
    }

    #[test]
    fn lines_of_text_written_together_are_not_modelled() {
        let join = Expr::Call {
            func: Box::new(Expr::Attr(Box::new(Expr::Str("\\n".into())), "join".into())),
            args: vec![name("names")],
            kwargs: vec![],
        };
        let x = Expr::Bin("+".into(), Box::new(join), Box::new(Expr::Str("\\n".into())));
        assert_eq!(written(&x), None);
    }
}
