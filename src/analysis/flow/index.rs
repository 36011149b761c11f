//! The project's definitions, found by name: functions, methods (with their class's bases),
//! class bodies, module-level assignments, attribute stores (`self.y = …`), call sites, and the
//! config keys and data columns the scan read.

use std::collections::HashMap;

use crate::scan::facts::{ColumnFact, FileFacts};
use crate::scan::flow::{Def, DefKind, Expr, StmtKind};

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
    /// Statements that call a name (by the callee's last segment).
    calls: HashMap<String, Vec<StmtId>>,
}

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
            calls: HashMap::new(),
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
                    (DefKind::Class, _) => ix.classes.entry(d.name.as_str()).or_default().push(id),
                    _ => {}
                }
                for (si, s) in d.stmts.iter().enumerate() {
                    let sid = (id, si);
                    if let StmtKind::Assign { targets, .. } = &s.kind {
                        for t in targets {
                            if d.kind == DefKind::Module {
                                let mut names = Vec::new();
                                bound_names(t, &mut names);
                                for n in names {
                                    ix.globals.entry(n).or_default().push(sid);
                                }
                            }
                            if let Expr::Attr(_, a) = t {
                                ix.stores.entry(a.to_string()).or_default().push(sid);
                            }
                            if let Expr::Seq(_, xs) = t {
                                for x in xs {
                                    if let Expr::Attr(_, a) = x {
                                        ix.stores.entry(a.to_string()).or_default().push(sid);
                                    }
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

    pub fn methods_named(&self, name: &str) -> &[DefId] {
        self.methods_named.get(name).map_or(&[], |v| v)
    }

    pub fn globals(&self, name: &str) -> &[StmtId] {
        self.globals.get(name).map_or(&[], |v| v)
    }

    pub fn stores(&self, attr: &str) -> &[StmtId] {
        self.stores.get(attr).map_or(&[], |v| v)
    }

    pub fn calling(&self, name: &str) -> &[StmtId] {
        self.calls.get(name).map_or(&[], |v| v)
    }

    /// Config keys (YAML/JSON) whose last segment is `key`: (file, line, value).
    pub fn config(&self, key: &str) -> Vec<(usize, u32, Option<i64>)> {
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
