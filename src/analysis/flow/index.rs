//! The project's definitions, found by name: functions, methods (with their class's bases),
//! class bodies, module-level assignments, attribute stores (`self.y = …`), call sites, and the
//! config keys and data columns the scan read.

use std::collections::HashMap;

use crate::scan::facts::{ColumnFact, FileFacts};
use crate::scan::flow::{Def, DefKind, Expr, Stmt, StmtKind};

/// A definition: the file's index and the `Def`'s index in its `flow`.
pub type DefId = (usize, usize);
/// A statement: its definition and its index there.
pub type StmtId = (DefId, usize);

pub struct Index<'a> {
    pub files: Vec<&'a FileFacts>,
    /// Functions (not methods) by name.
    functions: HashMap<&'a str, Vec<DefId>>,
    /// Methods by (class, name).
    methods: HashMap<(&'a str, &'a str), Vec<DefId>>,
    /// Methods by name alone.
    methods_named: HashMap<&'a str, Vec<DefId>>,
    /// Class bodies by class name.
    classes: HashMap<&'a str, Vec<DefId>>,
    /// Module-level assignments by the name they bind.
    globals: HashMap<String, Vec<StmtId>>,
    /// Stores to an attribute (`x.name = …`, `x.name += …`) by the attribute's name.
    stores: HashMap<String, Vec<StmtId>>,
    /// Stores into an attribute's elements (`x.name[i] = …`, also in a tuple target) by the
    /// attribute's name.
    elem_stores: HashMap<String, Vec<StmtId>>,
    /// Stores under a literal key (`hp["model"]["n_speakers"] = …`) by the key.
    key_stores: HashMap<String, Vec<StmtId>>,
    /// Statements that call a name (by the callee's last segment).
    calls: HashMap<String, Vec<StmtId>>,
    /// Classes by the last segment of each of their bases (`class B(pkg.A)` under `A`).
    subclasses: HashMap<&'a str, Vec<&'a str>>,
    /// For each file, the files that import it (by its module name, a package's `__init__` by
    /// its folder's).
    importers: std::sync::OnceLock<Vec<Vec<usize>>>,
}

/// A call that enters a definition: the statement, its arguments, and how the callee's
/// parameters line up with them (`offset`: the parameters before the first argument, 1 for a
/// method called on its instance, 0 for `Base.__init__(self, …)`); `via` says how the call
/// reaches the definition when it does not name it (`super().__init__` in a subclass, an
/// inherited constructor, a factory's `**kwargs`).
#[derive(Clone, Debug)]
pub struct CallSite {
    pub at: StmtId,
    pub args: Vec<Expr>,
    pub kwargs: Kwargs,
    pub offset: usize,
    pub via: Option<String>,
}

/// A call's keyword arguments.
type Kwargs = Vec<(crate::scan::facts::Text, Expr)>;

/// How many subclass levels a constructor's call sites are looked for through.
const SUBCLASS_DEPTH: usize = 3;

fn bound_names(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Name(n) => out.push(n.to_string()),
        Expr::Seq(_, xs) => xs.iter().for_each(|x| bound_names(x, out)),
        Expr::Star(x) => bound_names(x, out),
        _ => {}
    }
}

impl<'a> Index<'a> {
    pub fn new(files: Vec<&'a FileFacts>) -> Index<'a> {
        let mut ix = Index {
            files,
            functions: HashMap::new(),
            methods: HashMap::new(),
            methods_named: HashMap::new(),
            classes: HashMap::new(),
            globals: HashMap::new(),
            stores: HashMap::new(),
            elem_stores: HashMap::new(),
            key_stores: HashMap::new(),
            calls: HashMap::new(),
            subclasses: HashMap::new(),
            importers: std::sync::OnceLock::new(),
        };
        let files = ix.files.clone();
        for (fi, f) in files.iter().enumerate() {
            for (di, d) in f.flow.iter().enumerate() {
                let id = (fi, di);
                match (d.kind, d.class.as_deref()) {
                    (DefKind::Function, Some(c)) => {
                        ix.methods.entry((c, d.name.as_str())).or_default().push(id);
                        ix.methods_named.entry(d.name.as_str()).or_default().push(id);
                    }
                    (DefKind::Function, None) => ix.functions.entry(d.name.as_str()).or_default().push(id),
                    (DefKind::Class, _) => {
                        ix.classes.entry(d.name.as_str()).or_default().push(id);
                        for b in d.bases.iter().filter_map(|b| b.bare().last_name()) {
                            let subs = ix.subclasses.entry(b).or_default();
                            if !subs.contains(&d.name.as_str()) {
                                subs.push(d.name.as_str());
                            }
                        }
                    }
                    _ => {}
                }
                for (si, s) in d.stmts.iter().enumerate() {
                    let sid = (id, si);
                    // `self.register_buffer("name", value)` stores the field `name`
                    if let Some((a, _)) = registered_field(&s.kind) {
                        ix.stores.entry(a.to_string()).or_default().push(sid);
                    }
                    if let StmtKind::Assign { targets, .. } = &s.kind {
                        for t in targets {
                            if d.kind == DefKind::Module {
                                let mut names = Vec::new();
                                bound_names(t, &mut names);
                                for n in names {
                                    ix.globals.entry(n).or_default().push(sid);
                                }
                            }
                            if let Expr::Sub(_, k) = t {
                                if let Expr::Str(k) = k.bare() {
                                    ix.key_stores.entry(k.to_string()).or_default().push(sid);
                                }
                            }
                            // each part of a tuple target (`self.a, self.b = …`, `self.s[i], self.a[i] = …`)
                            let parts = match t {
                                Expr::Seq(_, xs) => xs.as_slice(),
                                one => std::slice::from_ref(one),
                            };
                            for x in parts {
                                match x {
                                    Expr::Attr(_, a) => ix.stores.entry(a.to_string()).or_default().push(sid),
                                    Expr::Sub(b, _) => {
                                        if let Expr::Attr(_, a) = b.bare() {
                                            let v = ix.elem_stores.entry(a.to_string()).or_default();
                                            if v.last() != Some(&sid) {
                                                v.push(sid);
                                            }
                                        }
                                    }
                                    _ => {}
                                }
                            }
                        }
                    }
                    let mut seen: Vec<String> = Vec::new();
                    let mut visit = |e: &Expr| {
                        if let Expr::Call { func, .. } = e {
                            if let Some(n) = func.last_name() {
                                if !seen.iter().any(|s| s == n) {
                                    seen.push(n.to_string());
                                }
                            }
                        }
                    };
                    match &s.kind {
                        StmtKind::Assign { value, .. } => value.walk(&mut visit),
                        StmtKind::For { iter, .. } => iter.walk(&mut visit),
                        StmtKind::With { value, .. } => value.walk(&mut visit),
                        StmtKind::Return(Some(e)) | StmtKind::Yield(e) | StmtKind::Expr(e) | StmtKind::Cond(e) => e.walk(&mut visit),
                        StmtKind::Return(None) => {}
                    }
                    for n in seen {
                        ix.calls.entry(n).or_default().push(sid);
                    }
                }
            }
        }
        ix
    }

    pub fn def(&self, id: DefId) -> &'a Def {
        &self.files[id.0].flow[id.1]
    }

    /// The statements of a file that start on `line`.
    pub fn statements_on(&self, file: usize, line: u32) -> Vec<&'a Stmt> {
        self.files[file].flow.iter().flat_map(|d| d.stmts.iter().filter(move |st| d.line(st) == line)).collect()
    }

    /// The statements a line of a file belongs to: those that start on it, or else the one of
    /// the innermost definition holding the line that starts last above it (a line inside a
    /// statement written over several, `meta = {` … `}`).
    pub fn statements_at(&self, file: usize, line: u32) -> Vec<&'a Stmt> {
        let exact = self.statements_on(file, line);
        if !exact.is_empty() {
            return exact;
        }
        let defs = &self.files[file].flow;
        let inner = defs.iter().filter(|d| d.span.line <= line && line <= d.span.end_line).min_by_key(|d| d.span.end_line - d.span.line);
        inner.and_then(|d| d.stmts.iter().rev().find(|st| d.line(st) < line)).into_iter().collect()
    }

    pub fn path(&self, id: DefId) -> &'a str {
        &self.files[id.0].path
    }

    pub fn functions(&self, name: &str) -> &[DefId] {
        self.functions.get(name).map_or(&[], |v| v)
    }

    pub fn class_bodies(&self, name: &str) -> &[DefId] {
        self.classes.get(name).map_or(&[], |v| v)
    }

    pub fn is_class(&self, name: &str) -> bool {
        self.classes.contains_key(name)
    }

    /// The names of a class's bases as written (`nn.Module` → `Module`), first definition.
    pub fn bases(&self, class: &str) -> Vec<String> {
        self.class_bodies(class)
            .first()
            .map(|&id| self.def(id).bases.iter().filter_map(|b| b.last_name().map(str::to_string)).collect())
            .unwrap_or_default()
    }

    /// The class and its project bases, nearest first (a name-based MRO, depth-first, no repeats).
    pub fn mro(&self, class: &str) -> Vec<String> {
        let mut out = vec![class.to_string()];
        let mut i = 0;
        while i < out.len() && out.len() < 16 {
            for b in self.bases(&out[i].clone()) {
                if self.is_class(&b) && !out.contains(&b) {
                    out.push(b);
                }
            }
            i += 1;
        }
        out
    }

    /// A method of the class or of its project bases, nearest first.
    pub fn method(&self, class: &str, name: &str) -> Vec<DefId> {
        for c in self.mro(class) {
            if let Some(v) = self.methods.get(&(c.as_str(), name)) {
                return v.clone();
            }
        }
        Vec::new()
    }

    /// What calling an instance of `class` runs: a module's `forward`, else the `__call__` of a
    /// plain callable class (a transform, a collator, a loss written as a class).
    pub fn callable(&self, class: &str) -> Vec<DefId> {
        let fwd = self.method(class, "forward");
        if fwd.is_empty() {
            self.method(class, "__call__")
        } else {
            fwd
        }
    }

    /// Whether files `a` and `b` run in one program: one of them, or a file that imports
    /// both (through at most a few modules), is where it starts. A flag parsed by another
    /// script (a data generator's `--heroes`) is not a setting of this one.
    pub fn same_program(&self, a: usize, b: usize) -> bool {
        // (made when first asked: most slices never read a flag)
        let importers = self.importers.get_or_init(|| {
            let files = &self.files;
            files
                .iter()
                .map(|f| {
                    if !f.path.ends_with(".py") {
                        return Vec::new();
                    }
                    let module = module_name(&f.path);
                    (0..files.len()).filter(|&j| files[j].imports_module(module)).collect()
                })
                .collect()
        });
        let above = |f: usize| {
            let mut seen = vec![f];
            let mut frontier = vec![f];
            for _ in 0..4 {
                let mut next = Vec::new();
                for &x in &frontier {
                    for &y in importers.get(x).into_iter().flatten() {
                        if !seen.contains(&y) {
                            seen.push(y);
                            next.push(y);
                        }
                    }
                }
                frontier = next;
            }
            seen
        };
        a == b || {
            let up = above(a);
            above(b).iter().any(|f| up.contains(f))
        }
    }

    pub fn methods_named(&self, name: &str) -> &[DefId] {
        self.methods_named.get(name).map_or(&[], |v| v)
    }

    pub fn globals(&self, name: &str) -> &[StmtId] {
        self.globals.get(name).map_or(&[], |v| v)
    }

    pub fn stores(&self, attr: &str) -> &[StmtId] {
        self.stores.get(attr).map_or(&[], |v| v)
    }

    pub fn key_stores(&self, key: &str) -> &[StmtId] {
        self.key_stores.get(key).map_or(&[], |v| v)
    }

    pub fn elem_stores(&self, attr: &str) -> &[StmtId] {
        self.elem_stores.get(attr).map_or(&[], |v| v)
    }

    /// The statement of file `file` on `line`: the one that starts there (in the first
    /// definition that has one), else the one a line inside a statement written over several
    /// lines belongs to (a traceback of Python 3.11 and later names the line of the failing call
    /// within it): the last statement starting above the line in the innermost definition that
    /// spans it.
    pub fn stmt_at(&self, file: usize, line: u32) -> Option<StmtId> {
        let flow = &self.files[file].flow;
        if let Some(at) =
            flow.iter().enumerate().find_map(|(di, d)| d.stmts.iter().position(|s| d.line(s) == line).map(|si| ((file, di), si)))
        {
            return Some(at);
        }
        let (di, d) = flow
            .iter()
            .enumerate()
            .filter(|(_, d)| d.span.line <= line && line <= d.span.end_line)
            .min_by_key(|(_, d)| d.span.end_line - d.span.line)?;
        let si = d.stmts.iter().rposition(|s| d.line(s) < line)?;
        Some(((file, di), si))
    }

    pub fn calling(&self, name: &str) -> &[StmtId] {
        self.calls.get(name).map_or(&[], |v| v)
    }

    /// Config keys (YAML/JSON) whose last segment is `key`: (file, line, value).
    pub fn config(&self, key: &str) -> Vec<(usize, u32, Option<i64>)> {
        let mut out = self.config_in_order(key);
        // a config that names another one holding the key (`defaults: [base.yaml]`, `_BASE_:
        // base.yaml`) extends it: its value is the one a run reads, so it comes first
        let names = |fi: usize| {
            let p = &self.files[fi].path;
            p.rsplit('/').next().unwrap_or(p).to_string()
        };
        let extends = |a: usize, b: usize| {
            let base = names(b);
            let named = |v: &str| v.split(['[', ']', ',', '"', '\'', '/', ' ']).any(|w| w == base);
            a != b && self.files[a].assigns.iter().any(|x| named(&x.value))
        };
        let files: Vec<usize> = out.iter().map(|o| o.0).collect();
        out.sort_by_key(|o| !files.iter().any(|&b| extends(o.0, b)));
        out
    }

    /// The number of items of a config key that holds a list (`"action_types": ["use", …]` in
    /// JSON, `colors: [red, blue]` in YAML), where the first config file holding the key has it
    /// as a list.
    pub fn config_len(&self, key: &str) -> Option<i64> {
        let (fi, line, _) = *self.config(key).first()?;
        self.files[fi].assigns.iter().find(|a| a.span.line == line && a.target.rsplit('.').next() == Some(key)).and_then(|a| a.len)
    }

    fn config_in_order(&self, key: &str) -> Vec<(usize, u32, Option<i64>)> {
        let mut out = Vec::new();
        for (fi, f) in self.files.iter().enumerate() {
            if !f.is_config() {
                continue;
            }
            for a in &f.assigns {
                let last = a.target.rsplit('.').next().unwrap_or(&a.target);
                let last = last.strip_prefix("len(").and_then(|s| s.strip_suffix(')')).unwrap_or(last);
                if last == key {
                    out.push((fi, a.span.line, a.int));
                }
            }
        }
        out
    }

    /// The classes that name `class` as a base.
    pub fn subclasses(&self, class: &str) -> &[&'a str] {
        self.subclasses.get(class).map_or(&[], |v| v)
    }

    /// The calls that enter definition `d`, but those made from `exclude`, at most `max`: calls
    /// by its name (a constructor by its class's name); for a constructor also the calls of
    /// subclasses that inherit it, their `super().__init__(…)` / `Base.__init__(self, …)`
    /// (through a subclass that only forwards `*args, **kwargs`, that subclass's own calls),
    /// and, when nothing calls the class by a name, the calls that pass a parameter by keyword
    /// to a factory that forwards its `**kwargs` to a registry lookup (`MODELS[name](**kwargs)`)
    /// while the class or a subclass is registered (decorated, or a value of a dict display).
    pub fn call_sites(&self, d: &'a Def, exclude: DefId, max: usize) -> Vec<CallSite> {
        let mut out = Vec::new();
        match (d.name.as_str(), d.class.as_deref()) {
            ("__init__", Some(class)) => {
                self.ctor_sites(class, None, exclude, max, 0, &mut out);
                if out.is_empty() {
                    self.lookup_sites(class, exclude, max, &mut out);
                }
                if out.is_empty() {
                    self.registry_sites(class, d, exclude, max, &mut out);
                }
            }
            (_, class) => {
                // a method's name called on another project class (`FeatureStats.fit(x)` is no
                // call of `Trainer.fit`), or on `self` in a class unrelated to this one: looked
                // for among more sites, then cut to `max`
                self.named_sites(&d.name, usize::from(d.is_method()), None, exclude, max * 4, &mut out);
                if let Some(class) = class {
                    out.retain(|c| self.may_call_method(c, class));
                }
                out.truncate(max);
            }
        }
        out
    }

    /// Whether a call site of a method's name can be a call of `class`'s method (see
    /// [`Index::call_sites`]).
    fn may_call_method(&self, site: &CallSite, class: &str) -> bool {
        let caller = self.def(site.at.0);
        let mut ok = true;
        crate::analysis::flow::trace::stmt_exprs(&caller.stmts[site.at.1].kind, &mut |e| {
            let Expr::Call { func, args, .. } = e else { return };
            if args != &site.args {
                return;
            }
            let Expr::Attr(recv, _) = func.bare() else { return };
            let related = |c: &str| self.mro(c).iter().any(|m| m == class) || self.mro(class).iter().any(|m| m == c);
            match recv.bare() {
                Expr::Name(n) if self.is_class(n) => ok &= related(n),
                Expr::Name(n) if caller.is_method() && caller.params.first().is_some_and(|p| p.name == *n) => {
                    ok &= caller.class.as_deref().map_or(true, related)
                }
                // `self.time.fit(…)` where the caller's class sets `self.time = TimeBuckets()`:
                // a call of that class's method only
                Expr::Attr(o, a)
                    if caller.is_method() && matches!(o.bare(), Expr::Name(n) if caller.params.first().is_some_and(|p| p.name == *n)) =>
                {
                    let built: Vec<String> = self
                        .stores(a)
                        .iter()
                        .filter(|&&(id, _)| self.def(id).class == caller.class)
                        .map(|&(id, si)| match &self.def(id).stmts[si].kind {
                            StmtKind::Assign { value, .. } => match value.bare() {
                                Expr::Call { func, .. } => {
                                    func.last_name().filter(|c| self.is_class(c)).map(str::to_string).unwrap_or_default()
                                }
                                _ => String::new(),
                            },
                            _ => String::new(),
                        })
                        .collect();
                    // only when every store builds an instance of a project class
                    if !built.is_empty() && built.iter().all(|c| !c.is_empty()) {
                        ok &= built.iter().any(|c| related(c));
                    }
                }
                _ => {}
            }
        });
        ok
    }

    /// The calls of `name` (a function's, a method's or a class's) outside `exclude`, up to `max`.
    fn named_sites(&self, name: &str, offset: usize, via: Option<&str>, exclude: DefId, max: usize, out: &mut Vec<CallSite>) {
        for &(sid, si) in self.calling(name) {
            if sid == exclude {
                continue;
            }
            crate::analysis::flow::trace::stmt_exprs(&self.def(sid).stmts[si].kind, &mut |e| {
                if let Expr::Call { func, args, kwargs } = e {
                    if func.last_name() == Some(name) && out.len() < max {
                        let via = via.map(str::to_string);
                        out.push(CallSite { at: (sid, si), args: args.clone(), kwargs: kwargs.clone(), offset, via });
                    }
                }
            });
            if out.len() >= max {
                return;
            }
        }
    }

    /// The constructor calls of `class`'s `__init__` (see [`Index::call_sites`]).
    fn ctor_sites(&self, class: &str, via: Option<&str>, exclude: DefId, max: usize, depth: usize, out: &mut Vec<CallSite>) {
        self.named_sites(class, 1, via, exclude, max, out);
        if depth >= SUBCLASS_DEPTH {
            return;
        }
        for &sub in self.subclasses(class) {
            if out.len() >= max || sub == class {
                break;
            }
            let Some(&init) = self.methods.get(&(sub, "__init__")).and_then(|v| v.first()) else {
                // inherits the constructor: its calls enter this one
                let how = format!("{sub} inherits {class}'s constructor");
                self.ctor_sites(sub, Some(&how), exclude, max, depth + 1, out);
                continue;
            };
            let sd = self.def(init);
            let stars: Vec<&str> = sd.params.iter().filter(|p| p.star).map(|p| p.name.as_str()).collect();
            for (si, s) in sd.stmts.iter().enumerate() {
                let mut found: Vec<(Vec<Expr>, Kwargs, usize)> = Vec::new();
                crate::analysis::flow::trace::stmt_exprs(&s.kind, &mut |e| {
                    let Expr::Call { func, args, kwargs } = e else { return };
                    let Expr::Attr(recv, m) = func.bare() else { return };
                    if m.as_str() != "__init__" {
                        return;
                    }
                    match recv.bare() {
                        Expr::Call { func: sup, .. } if sup.last_name() == Some("super") => found.push((args.clone(), kwargs.clone(), 1)),
                        r if r.last_name() == Some(class) => found.push((args.clone(), kwargs.clone(), 0)),
                        _ => {}
                    }
                });
                for (args, kwargs, offset) in found {
                    // `super().__init__(*args, **kwargs)` in a subclass whose parameters start
                    // with `*args`: the subclass's own calls carry the arguments
                    let forwards = !args.is_empty()
                        && args
                            .iter()
                            .chain(kwargs.iter().map(|(_, e)| e))
                            .all(|a| matches!(a.bare(), Expr::Star(x) if matches!(x.bare(), Expr::Name(n) if stars.contains(&n.as_str()))))
                        && sd.params.get(1).is_some_and(|p| p.star);
                    if forwards {
                        let how = format!("{sub} passes its arguments on to {class}'s constructor");
                        self.ctor_sites(sub, Some(&how), exclude, max, depth + 1, out);
                    } else if init != exclude && out.len() < max {
                        let via = Some(format!("{sub}'s constructor calls {class}'s"));
                        out.push(CallSite { at: (init, si), args, kwargs, offset, via });
                    }
                }
            }
        }
    }

    /// The calls of a class through a module-level dict display that holds it: `R[key](…)`, or
    /// `f = R[key]` and then `f(…)` in the same function.
    fn lookup_sites(&self, class: &str, exclude: DefId, max: usize, out: &mut Vec<CallSite>) {
        let registries: Vec<&str> = self
            .globals
            .iter()
            .filter(|(_, sites)| {
                sites.iter().any(|&(gid, gi)| {
                    matches!(&self.def(gid).stmts[gi].kind, StmtKind::Assign { value, .. }
                        if matches!(value.bare(), Expr::Dict(kv) if kv.iter().any(|(_, v)| v.bare().last_name() == Some(class))))
                })
            })
            .map(|(n, _)| n.as_str())
            .collect();
        if registries.is_empty() {
            return;
        }
        let is_lookup =
            |e: &Expr| matches!(e.bare(), Expr::Sub(b, _) if matches!(b.bare(), Expr::Name(r) if registries.contains(&r.as_str())));
        let how = format!("{class} looked up in a registry");
        for (fi, f) in self.files.iter().enumerate() {
            for (di, d) in f.flow.iter().enumerate() {
                if (fi, di) == exclude {
                    continue;
                }
                // local names bound to a lookup (`factory = DATASETS[name]`)
                let bound: Vec<&str> = d
                    .stmts
                    .iter()
                    .filter_map(|s| match &s.kind {
                        StmtKind::Assign { targets, value, op: None } if is_lookup(value) => match targets.first().map(Expr::bare) {
                            Some(Expr::Name(n)) => Some(n.as_str()),
                            _ => None,
                        },
                        _ => None,
                    })
                    .collect();
                for (si, st) in d.stmts.iter().enumerate() {
                    crate::analysis::flow::trace::stmt_exprs(&st.kind, &mut |e| {
                        let Expr::Call { func, args, kwargs } = e else { return };
                        let hit = is_lookup(func) || matches!(func.bare(), Expr::Name(n) if bound.contains(&n.as_str()));
                        if hit && out.len() < max {
                            out.push(CallSite {
                                at: ((fi, di), si),
                                args: args.clone(),
                                kwargs: kwargs.clone(),
                                offset: 1,
                                via: Some(how.clone()),
                            });
                        }
                    });
                }
            }
        }
    }

    /// Whether `class` (or a subclass of it) is put in a registry: decorated (but as a
    /// dataclass) or a value of a module-level dict display.
    fn registered(&self, class: &str, depth: usize) -> bool {
        let decorated = self
            .class_bodies(class)
            .iter()
            .any(|&id| self.def(id).decorators.iter().any(|d| !d.starts_with("dataclass") && !d.contains("dataclasses.")));
        let in_dict = self.globals.values().flatten().any(|&(gid, gi)| match &self.def(gid).stmts[gi].kind {
            StmtKind::Assign { value, .. } => match value.bare() {
                Expr::Dict(kv) => kv.iter().any(|(_, v)| v.bare().last_name() == Some(class)),
                _ => false,
            },
            _ => false,
        });
        decorated
            || in_dict
            || (depth < SUBCLASS_DEPTH && self.subclasses(class).iter().any(|s| *s != class && self.registered(s, depth + 1)))
    }

    /// Calls that pass one of the constructor's parameters by keyword to a project function
    /// that forwards its `**kwargs` to a call it looks up (`MODELS[name](**kwargs)`,
    /// `cls(**kwargs)` with `cls` a parameter), when `class` is registered.
    fn registry_sites(&self, class: &str, d: &Def, exclude: DefId, max: usize, out: &mut Vec<CallSite>) {
        if !self.registered(class, 0) {
            return;
        }
        let mut factories: Vec<(&str, String)> = Vec::new();
        for ids in self.functions.values() {
            for &fid in ids {
                let f = self.def(fid);
                let Some(kw) = f.params.iter().rev().find(|p| p.star) else { continue };
                for s in &f.stmts {
                    crate::analysis::flow::trace::stmt_exprs(&s.kind, &mut |e| {
                        let Expr::Call { func, args, .. } = e else { return };
                        let looked_up = match func.bare() {
                            Expr::Sub(..) | Expr::Call { .. } => true,
                            Expr::Name(n) => f.param_index(n).is_some(),
                            _ => false,
                        };
                        let passes =
                            args.iter().any(|a| matches!(a.bare(), Expr::Star(x) if matches!(x.bare(), Expr::Name(n) if *n == kw.name)));
                        if looked_up && passes && !factories.iter().any(|(n, _)| *n == f.name.as_str()) {
                            factories.push((f.name.as_str(), format!("through `{}`'s `**{}` into a registry's class", f.name, kw.name)));
                        }
                    });
                }
            }
        }
        let names: Vec<&str> = d.params.iter().skip(1).filter(|p| !p.star).map(|p| p.name.as_str()).collect();
        for (name, how) in factories {
            let mut sites = Vec::new();
            self.named_sites(name, usize::MAX, Some(&how), exclude, max, &mut sites);
            // only calls that name one of the constructor's parameters (positional arguments
            // are the factory's own)
            out.extend(sites.into_iter().filter(|c| c.kwargs.iter().any(|(k, _)| names.contains(&k.as_str()))).map(|mut c| {
                c.args.clear();
                c
            }));
            if out.len() >= max {
                out.truncate(max);
                return;
            }
        }
    }

    /// Integer data columns (CSV/TSV read by a literal path) named `name`.
    pub fn columns(&self, name: &str) -> Vec<(usize, &'a ColumnFact)> {
        let mut out = Vec::new();
        for (fi, f) in self.files.iter().enumerate() {
            for c in &f.columns {
                if c.name == name {
                    out.push((fi, c));
                }
            }
        }
        out
    }
}

/// The field a `register_buffer("name", value)` (or `register_parameter`) statement stores, and
/// the value.
pub fn registered_field(k: &StmtKind) -> Option<(&str, &Expr)> {
    let StmtKind::Expr(Expr::Call { func, args, .. }) = k else { return None };
    let Expr::Attr(_, m) = func.bare() else { return None };
    if !matches!(m.as_str(), "register_buffer" | "register_parameter") {
        return None;
    }
    match (args.first().map(Expr::bare), args.get(1)) {
        (Some(Expr::Str(name)), Some(v)) => Some((name.as_ref(), v)),
        _ => None,
    }
}

/// The module name a file is imported by (`pkg/data.py` → `data`, `pkg/__init__.py` → `pkg`).
pub fn module_name(path: &str) -> &str {
    let stem = path.rsplit('/').next().unwrap_or(path).trim_end_matches(".py").trim_end_matches(".ipynb");
    if stem == "__init__" {
        path.rsplit('/').nth(1).unwrap_or(stem)
    } else {
        stem
    }
}
