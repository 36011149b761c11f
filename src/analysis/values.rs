//! Following an integer back to the literal that made it, across the few steps that project
//! code usually takes: a local or module constant, `self.attr` set in the class, `len()` of a
//! literal list, `x + 1`, an argparse default (`args.classes` → `--classes ... default=3`), a
//! key of a JSON/YAML config the code reads (`cfg["model"]["n_cls"]`), and a parameter bound at
//! the function's call sites (every call site must agree; a parameter with no call site takes
//! its default). Anything else is unknown, never guessed.

use crate::analysis::project::Files;
use crate::scan::facts::{AssignFact, Call, FileFacts, FunctionFact, Scope, Span};

/// How many steps a value is followed.
const MAX_DEPTH: usize = 8;
/// A function called from more places than this is a library entry point: not bound.
const MAX_CALL_SITES: usize = 8;

/// Where a value was made: the literal's file and line, and how it got there.
#[derive(Debug, Clone)]
pub struct Origin {
    pub value: i64,
    pub file: String,
    pub span: Span,
    /// `--classes default 3`, `"n_cls": 2`, `NUM_CLASSES = 10`.
    pub how: String,
    /// The files the value passed through, from its use back to the literal.
    pub files: Vec<String>,
}

/// Names under which scripts keep parsed command-line flags or config objects.
const ARG_OBJECTS: &[&str] =
    &["args", "opt", "opts", "options", "hparams", "flags", "FLAGS", "hp", "parsed", "arguments", "cfg", "config", "conf"];

pub struct Values<'a> {
    files: &'a Files<'a>,
}

/// The attribute an `add_argument` call sets: `dest=`, else its long option (`--batch-size` →
/// `batch_size`), else its positional name.
pub fn flag_dest(c: &Call) -> Option<String> {
    c.kwarg("dest").map(|d| strip_quotes(&d.text).to_string()).or_else(|| {
        let names: Vec<&str> = c.args.iter().filter(|a| a.name.is_none()).map(|a| strip_quotes(&a.text)).collect();
        let long = names.iter().find(|n| n.starts_with("--")).or_else(|| names.iter().find(|n| !n.starts_with('-')));
        long.map(|n| n.trim_start_matches('-').replace('-', "_"))
    })
}

fn strip_quotes(t: &str) -> &str {
    t.trim().trim_matches(|c| c == '"' || c == '\'')
}

/// The characters of `t` outside string literals and brackets, with their byte offsets.
fn top_level(t: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    t.char_indices().filter(move |&(_, c)| match (quote, c) {
        (Some(q), _) if c == q => {
            quote = None;
            false
        }
        (Some(_), _) => false,
        (None, '"' | '\'') => {
            quote = Some(c);
            false
        }
        (None, '(' | '[' | '{') => {
            depth += 1;
            false
        }
        (None, ')' | ']' | '}') => {
            depth -= 1;
            false
        }
        _ => depth == 0,
    })
}

/// Splits `a + 1` / `a - 1` / `1 + a` at its last top-level `+` or `-` (not a unary sign).
fn split_additive(t: &str) -> Option<(&str, char, &str)> {
    let mut at = None;
    for (i, c) in top_level(t) {
        if matches!(c, '+' | '-') && i > 0 {
            // binary only: something other than an operator before it (skip `1e-5`)
            let prev = t[..i].trim_end();
            let exp = prev.ends_with(['e', 'E']) && prev[..prev.len() - 1].chars().last().is_some_and(|p| p.is_ascii_digit());
            if !prev.is_empty() && !prev.ends_with(['+', '-', '*', '/', '%', '(', ',', '=', '<', '>']) && !exp {
                at = Some((i, c));
            }
        }
    }
    let (i, c) = at?;
    Some((t[..i].trim(), c, t[i + 1..].trim()))
}

/// `int(x)`, `(x)`, `x.item()`: the value inside.
fn unwrap(t: &str) -> &str {
    let mut t = t.trim();
    loop {
        let before = t;
        if let Some(inner) = t.strip_prefix("int(").and_then(|x| x.strip_suffix(')')) {
            if balanced(inner) {
                t = inner.trim();
            }
        }
        if let Some(inner) = t.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
            if balanced(inner) {
                t = inner.trim();
            }
        }
        if let Some(inner) = t.strip_suffix(".item()") {
            t = inner.trim();
        }
        if t == before {
            return t;
        }
    }
}

fn balanced(t: &str) -> bool {
    let mut d = 0i32;
    for c in t.chars() {
        match c {
            '(' | '[' | '{' => d += 1,
            ')' | ']' | '}' => {
                d -= 1;
                if d < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    d == 0
}

fn is_ident(t: &str) -> bool {
    !t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_') && !t.starts_with(|c: char| c.is_ascii_digit())
}

fn parse_int(t: &str) -> Option<i64> {
    let t = t.trim().replace('_', "");
    t.parse().ok()
}

/// `base["a"]["b"]` / `base.get("a")` → ("base", ["a", "b"]).
pub fn subscript_chain(t: &str) -> Option<(String, Vec<String>)> {
    let t = t.trim();
    let end = t.find(['[', '(']).filter(|_| !t.starts_with('['))?;
    let base = t[..end].trim_end_matches(".get").to_string();
    if !base.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.') || base.is_empty() {
        return None;
    }
    let mut rest = &t[base.len()..];
    // (compiled only when an expression gets this far)
    static RE: std::sync::OnceLock<crate::analysis::shared::Pattern> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        crate::analysis::shared::Pattern::new(r#"^\s*(?:\[\s*["']([\w.-]+)["']\s*\]|\.get\(\s*["']([\w.-]+)["']\s*(?:,[^()]*)?\))"#)
    });
    let mut keys = Vec::new();
    while !rest.trim().is_empty() {
        let c = re.captures(rest)?;
        keys.push(c.get(1).or(c.get(2))?.as_str().to_string());
        rest = &rest[c.get(0)?.end()..];
    }
    (!keys.is_empty()).then_some((base, keys))
}

impl<'a> Values<'a> {
    pub fn new(files: &'a Files<'a>) -> Self {
        Values { files }
    }

    pub fn files(&self) -> &'a Files<'a> {
        self.files
    }

    fn file(&self, fi: usize) -> &'a FileFacts {
        self.files.file(fi)
    }

    /// The `add_argument` calls that define flag `dest`, in order.
    fn flag_defs(&self, dest: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for fi in self.files.flagging(dest) {
            for (ci, c) in self.file(fi).calls.iter().enumerate().filter(|(_, c)| c.name == "add_argument") {
                if flag_dest(c).as_deref() == Some(dest) {
                    out.push((fi, ci));
                }
            }
        }
        out
    }

    /// The assignments of config files whose key ends in `last`, in order.
    fn config_assigns(&self, last: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for fi in self.files.configuring(last) {
            let f = self.file(fi);
            if !f.is_config() {
                continue;
            }
            out.extend(
                f.assigns
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| a.target.rsplit('.').next().unwrap_or(&a.target) == last)
                    .map(|(ai, _)| (fi, ai)),
            );
        }
        out
    }

    /// The call sites of a project function or class, with their files' indices (none when the
    /// project defines no function or class `name`).
    /// (Lazily: a file is read when the iteration reaches it, so a caller that stops early
    /// reads only the files it needed.)
    fn call_sites<'s>(&'s self, name: &'s str) -> impl Iterator<Item = (usize, &'a Call)> + 's {
        let files = self.files.defines(name).then(|| self.files.calling(name));
        files.into_iter().flatten().flat_map(move |fi| self.file(fi).calls.iter().filter(move |c| c.name == name).map(move |c| (fi, c)))
    }

    /// The call sites of a project function or class (none for a name the project does not define).
    pub fn calls_named<'s>(&'s self, name: &'s str) -> impl Iterator<Item = (&'a FileFacts, &'a Call)> + 's {
        self.call_sites(name).map(|(fi, c)| (self.file(fi), c))
    }

    /// Module-level assignments to `target`, in every file.
    fn assigns_to(&self, target: &str) -> Vec<(usize, &'a AssignFact)> {
        let module_level = |a: &&AssignFact| a.scope.function.is_none() && a.scope.class.is_none();
        self.files
            .assigning(target)
            .flat_map(|fi| self.file(fi).assigns.iter().filter(module_level).filter(|a| a.target == target).map(move |a| (fi, a)))
            .collect()
    }

    /// The integer `expr` has where it is written (file `fi`, `scope`, at `at`).
    pub fn int(&self, fi: usize, scope: &Scope, expr: &str, at: Span) -> Option<Origin> {
        self.int_at(fi, scope, expr, at, 0)
    }

    fn origin(&self, fi: usize, value: i64, span: Span, how: String) -> Origin {
        let file = self.file(fi).path.clone();
        Origin { value, file: file.clone(), span, how, files: vec![file] }
    }

    fn via(&self, fi: usize, mut o: Origin) -> Origin {
        let file = &self.file(fi).path;
        if !o.files.contains(file) {
            o.files.insert(0, file.clone());
        }
        o
    }

    fn int_at(&self, fi: usize, scope: &Scope, expr: &str, at: Span, depth: usize) -> Option<Origin> {
        if depth > MAX_DEPTH {
            return None;
        }
        let t = unwrap(expr);
        if let Some(v) = parse_int(t) {
            return Some(self.origin(fi, v, at, t.to_string()));
        }
        if let Some((l, op, r)) = split_additive(t) {
            let (base, k) = match (parse_int(l), parse_int(r)) {
                (None, Some(k)) => (l, if op == '-' { -k } else { k }),
                (Some(k), None) if op == '+' => (r, k),
                _ => return None,
            };
            let mut o = self.int_at(fi, scope, base, at, depth + 1)?;
            o.value += k;
            return Some(o);
        }
        if let Some(inner) = t.strip_prefix("len(").and_then(|x| x.strip_suffix(')')).filter(|x| balanced(x)) {
            return self.len_of(fi, scope, inner.trim(), at, depth + 1);
        }
        if is_ident(t) {
            return self.name(fi, scope, t, at, depth + 1);
        }
        if let Some(attr) = t.strip_prefix("self.").filter(|a| is_ident(a)) {
            return self.self_attr(fi, scope, attr, depth + 1);
        }
        if let Some((obj, attr)) = t.split_once('.').filter(|(o, a)| ARG_OBJECTS.contains(o) && is_ident(a)) {
            if let Some(o) = self.flag(attr) {
                return Some(self.via(fi, o));
            }
            return self.config_key(&[attr.to_string()], obj).map(|o| self.via(fi, o));
        }
        if let Some((base, keys)) = subscript_chain(t) {
            return self.subscript(fi, scope, &base, keys, at, depth + 1);
        }
        None
    }

    /// The argparse default of a flag, when every definition of it agrees.
    pub fn flag(&self, dest: &str) -> Option<Origin> {
        let defs = self.flag_defs(dest);
        if defs.is_empty() {
            return None;
        }
        let mut found: Option<Origin> = None;
        for (fi, ci) in defs {
            let c = &self.file(fi).calls[ci];
            let v = c.kwarg("default").and_then(|d| d.int)?;
            match &found {
                Some(o) if o.value != v => return None,
                Some(_) => {}
                None => found = Some(self.origin(fi, v, c.span, format!("--{} default {v}", dest.replace('_', "-")))),
            }
        }
        found
    }

    /// A key of the JSON/YAML configs the project reads: the dotted path must end with `keys`.
    pub fn config_key(&self, keys: &[String], _base: &str) -> Option<Origin> {
        let suffix = keys.join(".");
        let last = suffix.rsplit('.').next()?;
        let mut found: Option<Origin> = None;
        for (fi, ai) in self.config_assigns(last) {
            let a = &self.file(fi).assigns[ai];
            if !(a.target == suffix || a.target.ends_with(&format!(".{suffix}"))) {
                continue;
            }
            let v = a.int?;
            match &found {
                Some(o) if o.value != v => return None,
                Some(_) => {}
                None => found = Some(self.origin(fi, v, a.span, format!("{}: {v}", a.target))),
            }
        }
        found
    }

    fn subscript(&self, fi: usize, scope: &Scope, base: &str, mut keys: Vec<String>, at: Span, depth: usize) -> Option<Origin> {
        // `mcfg = cfg["model"]` in the same scope: prepend its keys
        let mut base = base.to_string();
        for _ in 0..4 {
            let prior = self.file(fi).assigns.iter().rfind(|a| a.target == base && a.scope == *scope && a.span.line <= at.line);
            let Some((b, k)) = prior.and_then(|a| subscript_chain(&a.value)) else { break };
            keys.splice(0..0, k);
            base = b;
        }
        let _ = depth;
        self.config_key(&keys, &base).map(|o| self.via(fi, o))
    }

    /// `len(NAME)` of a literal list, tuple, set or dict (or a YAML `names` list).
    fn len_of(&self, fi: usize, scope: &Scope, inner: &str, at: Span, depth: usize) -> Option<Origin> {
        let target = inner.trim();
        let file = self.file(fi);
        let pick = |a: &AssignFact| a.len.map(|n| (n, a.span));
        let local = if let Some(attr) = target.strip_prefix("self.") {
            let class = scope.class.as_deref()?;
            file.assigns
                .iter()
                .filter(|a| {
                    a.scope.class.as_deref() == Some(class) && (a.target == target || a.target == attr && a.scope.function.is_none())
                })
                .find_map(pick)
        } else if is_ident(target) {
            file.assigns
                .iter()
                .filter(|a| a.target == target && (a.scope == *scope || a.scope.function.is_none() && a.scope.class.is_none()))
                .filter_map(pick)
                .next_back()
        } else {
            None
        };
        if let Some((n, span)) = local {
            return Some(self.origin(fi, n, span, format!("len({target}) = {n}")));
        }
        // a constant imported from another module of the project
        if is_ident(target) && depth < MAX_DEPTH {
            for (gi, a) in self.assigns_to(target) {
                if gi != fi && a.scope.function.is_none() && a.scope.class.is_none() && self.imports(fi, gi) {
                    if let Some(n) = a.len {
                        return Some(self.via(fi, self.origin(gi, n, a.span, format!("len({target}) = {n}"))));
                    }
                }
            }
        }
        let _ = at;
        None
    }

    /// Whether file `fi` imports the module of file `gi` (by its module name).
    pub fn imports(&self, fi: usize, gi: usize) -> bool {
        self.files.imports(fi, gi)
    }

    fn name(&self, fi: usize, scope: &Scope, name: &str, at: Span, depth: usize) -> Option<Origin> {
        let file = self.file(fi);
        // the last assignment before the use, in the same function
        let local = file.assigns.iter().rfind(|a| a.target == name && a.scope == *scope && a.op.is_none() && a.span.line <= at.line);
        if let Some(a) = local {
            return self.int_at(fi, &a.scope, &a.value, a.span, depth + 1);
        }
        // a parameter of the enclosing function
        if let Some(func) = scope.function.as_deref() {
            if let Some(def) =
                file.functions.iter().find(|d| d.name == func && d.class == scope.class && d.params.iter().any(|p| p == name))
            {
                return self.param(fi, def, name, depth + 1);
            }
        }
        // a module constant of this file, then of an imported module
        let module: Vec<&AssignFact> = file
            .assigns
            .iter()
            .filter(|a| a.target == name && a.scope.function.is_none() && a.scope.class.is_none() && a.op.is_none())
            .collect();
        if let Some(a) = module.last() {
            if module.iter().all(|b| b.value == a.value) {
                return self.int_at(fi, &a.scope, &a.value, a.span, depth + 1);
            }
            return None;
        }
        let imported: Vec<(usize, &AssignFact)> = self
            .assigns_to(name)
            .into_iter()
            .filter(|(gi, a)| *gi != fi && a.scope.function.is_none() && a.scope.class.is_none() && self.imports(fi, *gi))
            .collect();
        if let [(gi, a)] = imported.as_slice() {
            return self.int_at(*gi, &a.scope, &a.value, a.span, depth + 1).map(|o| self.via(fi, o));
        }
        None
    }

    /// `self.attr`: set once in the class (any method), or a class attribute.
    fn self_attr(&self, fi: usize, scope: &Scope, attr: &str, depth: usize) -> Option<Origin> {
        let class = scope.class.as_deref()?;
        let file = self.file(fi);
        let target = format!("self.{attr}");
        let sets: Vec<&AssignFact> = file
            .assigns
            .iter()
            .filter(|a| {
                a.scope.class.as_deref() == Some(class)
                    && a.op.is_none()
                    && (a.target == target || a.target == attr && a.scope.function.is_none())
            })
            .collect();
        let first = sets.first()?;
        if sets.iter().any(|a| a.value != first.value) {
            return None;
        }
        self.int_at(fi, &first.scope, &first.value, first.span, depth + 1)
    }

    /// A parameter: bound at every call site of its function (all must agree), or its default
    /// when the function is never called.
    fn param(&self, fi: usize, def: &'a FunctionFact, name: &str, depth: usize) -> Option<Origin> {
        let idx = def.params.iter().position(|p| p == name)?;
        let method = def.class.is_some() && def.params.first().is_some_and(|p| p == "self" || p == "cls");
        let pos = if method { idx.checked_sub(1)? } else { idx };
        let callee = if def.name == "__init__" { def.class.as_deref()? } else { def.name.as_str() };
        let sites: Vec<(usize, &Call)> = self
            .call_sites(callee)
            // a method is called through an object; a function by its name or its module
            .filter(|(_, c)| def.name == "__init__" || method == c.func.contains('.') || c.func.split('.').count() == 2)
            // not the definition's own recursion
            .filter(|(gi, c)| !(*gi == fi && c.scope.function.as_deref() == Some(def.name.as_str()) && c.scope.class == def.class))
            // one more than the most that are followed is enough to know there are too many
            .take(MAX_CALL_SITES + 1)
            .collect();
        if sites.len() > MAX_CALL_SITES {
            return None;
        }
        if sites.is_empty() {
            let d = def.defaults.get(idx)?.as_deref()?;
            let v = parse_int(d)?;
            return Some(self.origin(fi, v, def.span, format!("{name}={v} (default)")));
        }
        let mut found: Option<Origin> = None;
        for (gi, c) in sites {
            let arg = c.kwarg(name).or_else(|| c.positional(pos).filter(|a| !a.text.starts_with('*')));
            let o = match arg {
                Some(a) => self.int_at(gi, &c.scope, &a.text, c.span, depth + 1)?,
                None => {
                    if c.args.iter().any(|a| a.text.starts_with('*')) {
                        return None;
                    }
                    let d = def.defaults.get(idx)?.as_deref()?;
                    self.origin(fi, parse_int(d)?, def.span, format!("{name}={d} (default)"))
                }
            };
            match &found {
                Some(f) if f.value != o.value => return None,
                Some(_) => {}
                None => found = Some(o),
            }
        }
        found.map(|o| self.via(fi, o))
    }

    /// The largest value `expr` can take, when it is bounded by literals: `randint(lo, hi)`
    /// (`hi - 1`), `x % n` (`n - 1`), `.clamp(max=k)`, a literal, or a name assigned one of
    /// those in the same scope.
    pub fn max_value(&self, fi: usize, scope: &Scope, expr: &str, at: Span) -> Option<Origin> {
        self.max_at(fi, scope, expr, at, 0)
    }

    fn max_at(&self, fi: usize, scope: &Scope, expr: &str, at: Span, depth: usize) -> Option<Origin> {
        if depth > MAX_DEPTH {
            return None;
        }
        let t = unwrap(expr);
        let t = t
            .strip_prefix("torch.tensor(")
            .or_else(|| t.strip_prefix("torch.as_tensor("))
            .and_then(|x| x.strip_suffix(')'))
            .filter(|x| balanced(x) && !x.contains(','))
            .map(str::trim)
            .unwrap_or(t);
        if let Some(v) = parse_int(t) {
            return Some(self.origin(fi, v, at, t.to_string()));
        }
        // `(y + 1) % n`
        if let Some((_, n)) = top_level_split(t, '%') {
            let mut o = self.int_at(fi, scope, n, at, depth + 1)?;
            o.value -= 1;
            return Some(o);
        }
        if let Some(k) = clamp_max(t) {
            return self.int_at(fi, scope, k, at, depth + 1);
        }
        if let Some((func, args)) = call_parts(t) {
            let last = func.rsplit('.').next().unwrap_or(func);
            let positional: Vec<&str> = args.iter().copied().filter(|a| !is_kwarg(a)).collect();
            let kw = |k: &str| args.iter().find_map(|a| a.split_once('=').filter(|(n, _)| n.trim() == k).map(|(_, v)| v.trim()));
            let (hi, inclusive) = match (func, last) {
                // random.randint(a, b) includes b
                ("random.randint", _) => (positional.get(1).copied(), true),
                (_, "randint") if func.contains("torch") => {
                    // torch.randint(high, size) or torch.randint(low, high, size)
                    let second_is_size = positional.get(1).is_some_and(|s| s.starts_with('(') || s.starts_with('['));
                    (
                        kw("high").or(if positional.len() >= 3 || !second_is_size && positional.len() == 2 {
                            positional.get(1).copied()
                        } else {
                            positional.first().copied()
                        }),
                        false,
                    )
                }
                (_, "randint" | "integers") => (kw("high").or(positional.get(1).copied()).or(positional.first().copied()), false),
                _ => (None, false),
            };
            let hi = hi?;
            let mut o = self.int_at(fi, scope, hi, at, depth + 1)?;
            if !inclusive {
                o.value -= 1;
            }
            return Some(o);
        }
        if is_ident(t) {
            let file = self.file(fi);
            let a = file.assigns.iter().rfind(|a| a.target == t && a.scope == *scope && a.op.is_none() && a.span.line <= at.line)?;
            return self.max_at(fi, &a.scope, &a.value, a.span, depth + 1);
        }
        None
    }
}

fn is_kwarg(a: &str) -> bool {
    a.split_once('=').is_some_and(|(n, v)| is_ident(n.trim()) && !v.starts_with('='))
}

/// `a % b` → (a, b) at the top level.
fn top_level_split(t: &str, op: char) -> Option<(&str, &str)> {
    let mut depth = 0i32;
    let mut at = None;
    for (i, c) in t.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ if c == op && depth == 0 => at = Some(i),
            _ => {}
        }
    }
    let i = at?;
    Some((t[..i].trim(), t[i + 1..].trim()))
}

/// `x.clamp(max=k)`, `x.clamp(0, k)`, `torch.clamp(x, max=k)`, `min(x, k)`.
fn clamp_max(t: &str) -> Option<&str> {
    let (func, args) = call_parts(t)?;
    let last = func.rsplit('.').next().unwrap_or(func);
    match last {
        "clamp" | "clip" | "clamp_" => {
            if let Some(k) = args.iter().find_map(|a| a.split_once('=').filter(|(n, _)| n.trim() == "max").map(|(_, v)| v.trim())) {
                return Some(k);
            }
            let positional: Vec<&str> = args.iter().copied().filter(|a| !is_kwarg(a)).collect();
            let on_tensor = !func.starts_with("torch.") && !func.starts_with("np.");
            positional.get(if on_tensor { 1 } else { 2 }).copied()
        }
        _ => None,
    }
}

/// `f(a, b=1)` → ("f", ["a", "b=1"]) for a whole-expression call.
fn call_parts(t: &str) -> Option<(&str, Vec<&str>)> {
    let open = t.find('(')?;
    let inner = t[open + 1..].strip_suffix(')')?;
    if !balanced(inner) {
        return None;
    }
    let func = &t[..open];
    if !func.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.') || func.is_empty() {
        return None;
    }
    let mut args = Vec::new();
    let mut start = 0;
    for (i, _) in top_level(inner).filter(|&(_, c)| c == ',') {
        args.push(inner[start..i].trim());
        start = i + 1;
    }
    if !inner[start..].trim().is_empty() {
        args.push(inner[start..].trim());
    }
    Some((func, args))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::python::scan_source;

    fn facts(files: &[(&str, &str)]) -> crate::scan::facts::Facts {
        crate::scan::facts::Facts { files: files.iter().map(|(p, s)| scan_source(p, s)).collect(), warnings: vec![] }
    }

    #[test]
    fn expression_helpers() {
        assert_eq!(split_additive("len(X) + 1"), Some(("len(X)", '+', "1")));
        assert_eq!(split_additive("-1"), None);
        assert_eq!(split_additive("a * 1e-5"), None);
        assert_eq!(unwrap("int(y.max())"), "y.max()");
        assert_eq!(subscript_chain(r#"mcfg["n_cls"]"#), Some(("mcfg".into(), vec!["n_cls".into()])));
        assert_eq!(subscript_chain(r#"cfg['model'].get('n_cls', 3)"#), Some(("cfg".into(), vec!["model".into(), "n_cls".into()])));
        assert_eq!(subscript_chain("x[0]"), None);
    }

    #[test]
    fn argparse_default_through_a_constructor_parameter() {
        let f = facts(&[
            ("train.py", "import argparse\nfrom unet import UNet\np = argparse.ArgumentParser()\np.add_argument('--classes', '-c', type=int, default=3)\nargs = p.parse_args()\nmodel = UNet(n_channels=3, n_classes=args.classes)\n"),
            ("unet.py", "import torch.nn as nn\nclass UNet(nn.Module):\n    def __init__(self, n_channels, n_classes, base=16):\n        super().__init__()\n        self.outc = nn.Conv2d(base, n_classes, kernel_size=1)\n"),
        ]);
        let files = Files::of_facts(&f, &[]);
        let v = Values::new(&files);
        let conv = f.files[1].calls.iter().find(|c| c.name == "Conv2d").unwrap();
        let o = v.int(1, &conv.scope, "n_classes", conv.span).unwrap();
        assert_eq!((o.value, o.file.as_str(), o.span.line), (3, "train.py", 4));
        assert_eq!(o.files, ["unet.py", "train.py"]);
        let base = v.int(1, &conv.scope, "base", conv.span).unwrap();
        assert_eq!(base.value, 16, "a parameter left out at the call site takes its default");
    }

    #[test]
    fn a_parameter_bound_at_too_many_call_sites_is_unknown() {
        // eight call sites that agree bind the parameter; a ninth makes it a library entry point
        let calls = |n: usize| (0..n).map(|i| format!("y{i} = head(x, 5)\n")).collect::<String>();
        for (n, want) in [(8, Some(5)), (9, None)] {
            let f =
                facts(&[("m.py", "def head(x, k):\n    return one_hot(x, k)\n"), ("use.py", &format!("from m import head\n{}", calls(n)))]);
            let files = Files::of_facts(&f, &[]);
            let v = Values::new(&files);
            let scope = Scope { class: None, function: Some("head".into()) };
            assert_eq!(v.int(0, &scope, "k", Span { line: 2, ..Default::default() }).map(|o| o.value), want, "{n} call sites");
        }
    }

    #[test]
    fn upper_bounds_of_label_values() {
        let f = facts(&[("d.py", "NAMES = ['a', 'b', 'c']\ndef f(g, y):\n    cls = int(torch.randint(1, len(NAMES) + 1, (1,), generator=g))\n    k = torch.randint(0, 10, (4,))\n    j = (y + 1) % 7\n    return cls\n")]);
        let files = Files::of_facts(&f, &[]);
        let v = Values::new(&files);
        let scope = Scope { class: None, function: Some("f".into()) };
        let at = Span { line: 6, ..Default::default() };
        assert_eq!(v.max_value(0, &scope, "cls", at).map(|o| o.value), Some(3));
        assert_eq!(v.max_value(0, &scope, "k", at).map(|o| o.value), Some(9));
        assert_eq!(v.max_value(0, &scope, "j", at).map(|o| o.value), Some(6));
        assert_eq!(v.max_value(0, &scope, "y", at).map(|o| o.value), None);
    }
}
