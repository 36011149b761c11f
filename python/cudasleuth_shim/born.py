"""The born-at pass (``CUDASLEUTH_BORN=<spec.json>``): ``cudasleuth repro`` runs the command a
second time, seeded as the first run was, with a line tracer over the project's files.

The tracer keeps, for every live frame of a project file, which locals (and attributes of
``self``) hold the first run's bad value (bit 1) or a scalar equal to its bound (bit 2), and
records an event each time one of them starts to hold it: the line that made it hold, the
line's inputs that already held it, the calls made on that line that returned it, and for
parameters, the caller's line.  Nothing is re-run: when the guard trips again on the same op
with the same value, the value is followed back from the op's call line, producer by producer,
to the first line whose output holds it while none of its inputs did -- where it was born.  The
bound is followed the same way from the constructor of the module that sets it.  The lines the
static analysis named (``watch``) are marked as run or not, with what they set."""

import ast
import itertools
import json
import keyword
import linecache
import os
import re
import sys
import threading

from . import _files
from ._state import _S, _is_shim_file
from ._util import _is_user_file, _torch

MAX_EVENTS = 200000
KEEP_FIRST_EVENTS = MAX_EVENTS // 4
MAX_STEPS = 60
# range mode: how far upstream of lines where values inside the range met one outside it
MAX_UPSTREAM = 1
MAX_WATCH_SEEN = 3
# a line's first summaries of the values it set (a loop's line sets one every iteration)
MAX_POPULATIONS_PER_LINE = 2
MAX_POPULATION = 2000000
# range mode: the largest array or tensor whose elements are checked against the range
MAX_RANGE_CHECK = 4000000
# VALUE: holds the bad value (range mode: an element outside the range); BOUND: a scalar equal
# to the bound; INSIDE (range mode): an array of two or more numbers all inside the range
VALUE, BOUND, INSIDE = 1, 2, 4

_NAME = re.compile(r"(?<![\w.'\"])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)")
_STR = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_ARITH = re.compile(r"[+\-*/%]|<<|>>|\b(?:max|min|len|sum|round|abs|argmax|nunique|count|index)\(")


_STARRED = re.compile(r"(?:(?<=[(,])|^)\s*\*{1,2}\s*[A-Za-z_][\w.]*")


_ASSIGN = re.compile(r"(?<![=!<>+\-*/%&|^:])=(?!=)")


def _rhs(text):
    """What a statement assigns from: after its first `=` outside brackets (not a keyword
    argument's: `return x.sum(dim=1)` assigns nothing), else the whole text."""
    depth = 0
    for m in re.finditer(r"[()\[\]{}]|%s" % _ASSIGN.pattern, text):
        c = m.group(0)
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0:
            return text[m.end():]
    return text


class _Born(object):
    """The pass's state: the spec, the events, the frames being traced."""

    def __init__(self, spec):
        self.spec = spec
        self.v = spec.get("value")
        self.n = (spec.get("bound") or {}).get("value")
        # range mode (a probability, a rate): the value is any element outside [lo, hi] (hi
        # None: no upper end), not one number followed by equality
        rng = spec.get("range")
        self.range = None
        if isinstance(rng, list) and len(rng) == 2 and isinstance(rng[0], (int, float)):
            self.range = (float(rng[0]), float(rng[1]) if isinstance(rng[1], (int, float)) else None)
            self.n = None
        self.events = []
        self.truncated = False
        self.serial = itertools.count(1)
        self.seq = itertools.count(1)
        self.live = {}  # id(frame) -> _Frame
        self.codes = {}  # code object -> traced?
        self.names = {}  # (file, line) -> identifiers of the line
        self.watch = {}
        for w in spec.get("watch") or []:
            try:
                self.watch[(os.path.realpath(w[0]), int(w[1]))] = {"file": w[0], "line": int(w[1]), "ran": 0,
                                                                 "seen": []}
            except (TypeError, ValueError, IndexError):
                pass
        self.modules = []  # constructions of bound-setting modules: (weight id, frame, line, holders)
        self.populations = {}  # (file, line) -> summaries taken there
        self.busy = False
        self.armed = False


class _Frame(object):
    __slots__ = ("serial", "parent", "file", "code", "line", "mark", "snap", "frame", "local", "gen", "start")

    def __init__(self, serial, parent, f):
        self.serial = serial
        self.parent = parent
        self.file = f.f_code.co_filename
        self.code = f.f_code
        self.line = f.f_lineno
        self.mark = 0
        self.start = 0
        self.snap = {}
        self.frame = f
        self.local = None
        # generators and coroutines: the frame is resumed many times (CO_GENERATOR, CO_COROUTINE,
        # CO_ASYNC_GENERATOR)
        self.gen = bool(f.f_code.co_flags & (0x20 | 0x80 | 0x200))


_B = None


def _np():
    return sys.modules.get("numpy")


def _has(x, v, depth=0):
    """Whether x is, or holds, the number v: a scalar, an integer tensor, array or Series, a
    DataFrame's columns, a list, tuple or dict (two levels deep)."""
    if v is None or x is None or isinstance(x, (bool, str, bytes)):
        return False
    if isinstance(x, (int, float)):
        return x == v
    torch = _torch()
    if torch is not None and isinstance(x, torch.Tensor):
        if x.is_complex() or x.dtype == torch.bool:
            return False
        n = x.numel()
        if x.is_floating_point() and n > 4096:
            return False
        if n == 0 or n > 50000000 or x.device.type == "meta":
            return False
        try:
            return bool((x == v).any())
        except (RuntimeError, TypeError, ValueError):
            return False
    np = _np()
    if np is not None:
        if isinstance(x, np.generic):
            try:
                return x.dtype.kind in "iuf" and bool(x == v)
            except (TypeError, ValueError):
                return False
        if isinstance(x, np.ndarray):
            if x.size == 0 or x.size > 50000000:
                return False
            if x.dtype.kind in "iuf":
                return bool((x == v).any())
            if x.dtype.kind == "O" and depth < 2 and x.size <= 100000:
                return any(_has(e, v, depth + 1) for e in x.flat)
            return False
    pd = sys.modules.get("pandas")
    if pd is not None:
        if isinstance(x, (pd.Series, pd.Index)):
            try:
                return _has(x.to_numpy(), v, depth)
            except (TypeError, ValueError, AttributeError):
                return False
        if isinstance(x, pd.DataFrame):
            if depth > 0 or x.size > 50000000:
                return False
            try:
                return any(_has(x.iloc[:, j].to_numpy(), v, 1) for j in range(min(x.shape[1], 256)))
            except (TypeError, ValueError, AttributeError, IndexError):
                return False
    if isinstance(x, tuple) and depth == 0 and 0 < len(x) <= 16:
        # several values returned or assigned at once (`return videos, mapping`): each is looked
        # at as deep as it would be on its own
        return any(_has(e, v, 0) for e in x)
    if isinstance(x, (list, tuple)):
        if depth >= 2 or len(x) > 5000000:
            return False
        if not x:
            return False
        try:
            if v in x:
                return True
            if type(x[0]) in (int, float):
                return False  # a list of numbers: `in` looked at every one
        except (RuntimeError, TypeError, ValueError):
            pass  # tensors in the list: `in` cannot compare them
        return any(_has(e, v, depth + 1) for e in itertools.islice(x, 100000))
    if isinstance(x, dict):
        if depth >= 2 or len(x) > 1000000:
            return False
        return any(_has(e, v, depth + 1) for e in itertools.islice(x.values(), 100000))
    if depth == 0 and _holder_object(x):
        # a plain object that holds data (a graph, a splits container, a dataclass of arrays)
        return any(_has(e, v, 1) for e in list(vars(x).values())[:256])
    return False


def _holder_object(x):
    """A user object whose attributes may hold data: not a module, class, function or nn.Module."""
    d = getattr(x, "__dict__", None)
    if not isinstance(d, dict) or len(d) > 256 or isinstance(x, type) or callable(x):
        return False
    if type(x).__name__ == "module":
        return False
    torch = _torch()
    if torch is not None and isinstance(x, (torch.nn.Module, torch.Tensor)):
        return False
    return not type(x).__module__.startswith(("torch", "numpy", "pandas", "builtins"))


def _scalar_is(x, n, depth=0):
    """Whether x is the scalar n, or a config object (dict, namespace, dataclass) holding it."""
    if n is None or x is None or isinstance(x, bool):
        return False
    if isinstance(x, int):
        return x == n
    np = _np()
    if np is not None and isinstance(x, np.integer):
        return int(x) == n
    torch = _torch()
    if torch is not None and isinstance(x, torch.Tensor):
        return x.dim() == 0 and not x.is_floating_point() and x.dtype != torch.bool and x.item() == n
    if isinstance(x, tuple) and depth == 0 and len(x) <= 16:
        return any(_scalar_is(e, n, 1) for e in x)  # a function's several results
    if depth >= 2 or isinstance(x, (str, bytes, list, tuple, set)):
        return False
    if isinstance(x, dict):
        vals = x.values() if len(x) <= 256 else ()
    else:
        d = getattr(x, "__dict__", None)
        if not isinstance(d, dict) or len(d) > 256 or type(x).__module__.startswith(("torch", "numpy", "pandas")):
            return False
        if isinstance(x, type) or type(x).__name__ == "module":
            return False
        vals = d.values()
    return any(_scalar_is(e, n, depth + 1) for e in vals)


def _range_bits(x, depth=0):
    """Range mode: VALUE when x is, or holds, a float outside the range (NaN included);
    INSIDE when x is a float array or tensor of two or more numbers all inside it. Integers
    (a step, a count, indices, ids, a mask) are neither: they are not what a range is about."""
    if x is None or isinstance(x, (bool, str, bytes)):
        return 0
    lo, hi = _B.range
    if isinstance(x, float):
        return 0 if lo <= x and (hi is None or x <= hi) else VALUE
    if isinstance(x, int):
        return 0
    torch = _torch()
    if torch is not None and isinstance(x, torch.Tensor):
        n = x.numel()
        if n == 0 or n > MAX_RANGE_CHECK or x.device.type == "meta" or not x.is_floating_point():
            return 0
        try:
            with torch.no_grad():
                out = (x < lo) | (x > hi) if hi is not None else (x < lo)
                if bool((out | torch.isnan(x)).any()):
                    return VALUE
        except (RuntimeError, TypeError, ValueError):
            return 0
        return INSIDE if n > 1 else 0
    np = _np()
    if np is not None:
        if isinstance(x, np.generic):
            if x.dtype.kind != "f":
                return 0
            return _range_bits(float(x), depth)
        if isinstance(x, np.ndarray):
            if x.dtype.kind != "f" or x.size == 0 or x.size > MAX_RANGE_CHECK:
                return 0
            out = (x < lo) | (x > hi) if hi is not None else (x < lo)
            if bool((out | np.isnan(x)).any()):
                return VALUE
            return INSIDE if x.size > 1 else 0
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(x, (pd.Series, pd.DataFrame)):
        if depth > 0 or x.size > MAX_RANGE_CHECK:
            return 0
        try:
            num = x.select_dtypes("number") if isinstance(x, pd.DataFrame) else x
            if isinstance(num, pd.Series) and num.dtype.kind != "f":
                return 0
            return _range_bits(num.to_numpy(), depth) & VALUE
        except (TypeError, ValueError, AttributeError):
            return 0
    if isinstance(x, (list, tuple)):
        if depth >= 2 or not x or len(x) > 5000000:
            return 0
        if depth == 0 and type(x[0]) is float:
            try:
                return _range_bits(np.asarray(x, dtype=float), 1) if np is not None else 0
            except (TypeError, ValueError):
                return 0
        if type(x[0]) is int:
            return 0
        got = 0
        for e in itertools.islice(x, 100000):
            got |= _range_bits(e, depth + 1)
            if got & VALUE:
                return VALUE
        return 0
    if isinstance(x, dict):
        if depth >= 2 or len(x) > 1000000:
            return 0
        for e in itertools.islice(x.values(), 100000):
            if _range_bits(e, depth + 1) & VALUE:
                return VALUE
        return 0
    if depth == 0 and _holder_object(x):
        for e in list(vars(x).values())[:256]:
            if _range_bits(e, 1) & VALUE:
                return VALUE
    return 0


def _flags(x):
    b = _B
    if b.range is not None:
        try:
            return _range_bits(x)
        except Exception:  # broad: attribute walks over user objects
            return 0
    f = 0
    try:
        if _has(x, b.v):
            f |= VALUE
    except Exception:  # broad: comparisons run user types' __eq__
        pass
    try:
        if _scalar_is(x, b.n):
            f |= BOUND
    except Exception:  # broad: attribute walks over user objects
        pass
    return f


def _size(x):
    try:
        return len(x) if isinstance(x, (list, dict)) else -1
    except TypeError:
        return -1


def _lite(x):
    if isinstance(x, bool) or x is None:
        return None
    if isinstance(x, (int, float)):
        return x
    torch = _torch()
    if torch is not None and isinstance(x, torch.Tensor):
        if x.numel() == 1:
            try:
                return x.item()
            except (RuntimeError, ValueError):
                return None
        return "<tensor %s>" % list(x.shape)
    np = _np()
    if np is not None and isinstance(x, np.generic):
        try:
            return x.item()
        except (TypeError, ValueError):
            return None
    if isinstance(x, (list, tuple)) and len(x) <= 8 and all(isinstance(e, (int, float)) for e in x):
        return list(x)
    return "<%s>" % type(x).__name__


def _population(val):
    """The integer values a container holds, summarized: their smallest, largest and number of
    distinct values (a label list whose codes run 0..6 holds seven; ids 1..n start at one), and
    how many distinct values lie inside the op's bound, or None for anything else (floats, text,
    one number, more than MAX_POPULATION values)."""
    torch = _torch()
    np = _np()
    bound = _B.n if type(_B.n) is int else None
    try:
        if torch is not None and isinstance(val, torch.Tensor):
            if val.is_floating_point() or val.is_complex() or val.dtype == torch.bool or not 1 < val.numel() <= MAX_POPULATION:
                return None
            u = torch.unique(val.detach().reshape(-1).cpu())
            lo, hi, n = int(u[0]), int(u[-1]), int(u.numel())
        elif np is not None and isinstance(val, np.ndarray):
            if val.dtype.kind not in "iu" or not 1 < val.size <= MAX_POPULATION:
                return None
            u = np.unique(val)
            lo, hi, n = int(u[0]), int(u[-1]), int(u.size)
        elif isinstance(val, (list, tuple, dict)):
            items = list(val.values()) if isinstance(val, dict) else val
            if not 1 < len(items) <= MAX_POPULATION:
                return None
            if not all(type(x) is int for x in itertools.islice(items, 1000)):
                return None
            got = set(items)
            if not all(type(x) is int for x in got):
                return None
            u = None
            lo, hi, n = min(got), max(got), len(got)
        else:
            return None
    except (RuntimeError, TypeError, ValueError, MemoryError):
        return None
    out = {"min": lo, "max": hi, "distinct": n}
    if bound is not None:
        # the distinct values inside [0, bound): of the tensor's or array's `unique`, or the set
        out["inside"] = int(((u >= 0) & (u < bound)).sum()) if u is not None else sum(1 for x in got if 0 <= x < bound)
    return out


_LEN_OF = re.compile(r"\blen\(\s*([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*\)")


def _counted(f, rhs):
    """A count's line (`n = len(freq)`): the integers of what it counted, summarized like a
    population (a dict's keys, a set's or list's elements), or None (text, floats, no `len`)."""
    m = _LEN_OF.search(rhs)
    if m is None:
        return None
    parts = m.group(1).split(".")
    val = f.f_locals.get(parts[0], f.f_globals.get(parts[0]))
    try:
        for attr in parts[1:]:
            val = getattr(val, attr)
    except Exception:  # broad: a property of a user type may raise anything
        return None
    if isinstance(val, dict):
        val = list(val.keys())
    elif isinstance(val, (set, frozenset)):
        val = list(val)
    if not isinstance(val, (list, tuple)):
        return None
    return _population(val)


def _summarize(fs, line, val):
    key = (fs.file, line)
    taken = _B.populations.get(key, 0)
    if taken >= MAX_POPULATIONS_PER_LINE:
        return None
    _B.populations[key] = taken + 1
    return _population(val)


_STMTS = {}


def _statement(file, line):
    """The (first, last) line of the simple statement (or compound header) holding `line`."""
    spans = _STMTS.get(file)
    if spans is None:
        spans = {}
        try:
            src = "".join(linecache.getlines(file))
            for node in ast.walk(ast.parse(src)):
                if isinstance(node, ast.stmt):
                    end = getattr(node, "end_lineno", node.lineno)
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For,
                                         ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)):
                        body = getattr(node, "body", None) or []
                        end = body[0].lineno - 1 if body else node.lineno
                        end = max(end, node.lineno)
                    if end > node.lineno:
                        for ln in range(node.lineno, end + 1):
                            old = spans.get(ln)
                            if old is None or old[1] - old[0] > end - node.lineno:
                                spans[ln] = (node.lineno, end)
        except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
            pass
        _STMTS[file] = spans
    return spans.get(line, (line, line))


def _text(file, line):
    first, last = _statement(file, line)
    return " ".join(linecache.getline(file, ln).split("#", 1)[0].strip() for ln in range(first, last + 1))


def _idents(text):
    got = set()
    for m in _NAME.finditer(text):
        name = m.group(1)
        head = name.split(".", 1)[0]
        if keyword.iskeyword(head):
            continue
        got.add(head)
        if name.startswith("self."):
            got.add(name)
    return got


def _names(fs, line, rhs=False):
    """The identifiers of a line (`self.x` kept whole); with `rhs`, of what it assigns from."""
    key = (fs.file, line, rhs)
    got = _B.names.get(key)
    if got is None:
        text = _STR.sub("''", _text(fs.file, line))
        got = _idents(_rhs(text) if rhs else text)
        _B.names[key] = got
    return got


_AUG = r"(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)"
_MUTATORS = r"(?:append|extend|insert|pop|remove|clear|update|setdefault|sort|reverse|popitem|\w+_)"


def _mutated(fs, line):
    """The names of a line whose value the statement may change in place: a store through a
    subscript or attribute (`xs[i] = v`, `d["k"] += 1`), an augmented assignment (`t += 1`), a
    mutating method (`xs.append(v)`, `t.add_(1)`). A container mentioned any other way (a loop
    over it, a read of one element) is not scanned again: scanning a long list at every line
    that reads it made the pass quadratic."""
    key = (fs.file, line, "mut")
    got = _B.names.get(key)
    if got is None:
        text = _STR.sub("''", _text(fs.file, line))
        got = set()
        for name in _names(fs, line):
            esc = r"(?<![\w.])" + re.escape(name)
            if (re.search(esc + r"\s*(?:\[[^\]]*\]|\.\w+)+\s*" + _AUG, text)
                    or re.search(esc + r"\s*" + _AUG, text)
                    or re.search(esc + r"\." + _MUTATORS + r"\s*\(", text)):
                got.add(name)
        _B.names[key] = got
    return got


def _items(f):
    loc = f.f_locals
    items = list(loc.items())
    me = loc.get("self")
    if me is not None and f.f_code.co_name != "<module>":
        d = getattr(me, "__dict__", None)
        if isinstance(d, dict) and len(d) <= 512:
            items.extend(("self." + k, val) for k, val in list(d.items()))
            if _B.range is not None:
                # range mode: a module's buffers and parameters (`self.prior`, `self.w`) are
                # values too
                for slot in ("_buffers", "_parameters"):
                    more = d.get(slot)
                    if isinstance(more, dict) and len(more) <= 256:
                        items.extend(("self." + k, val) for k, val in list(more.items()) if val is not None)
    return items


def _mutable(val):
    if isinstance(val, (list, dict)) or hasattr(val, "dtype") or hasattr(val, "iloc"):
        return True
    d = getattr(val, "__dict__", None)
    return isinstance(d, dict) and len(d) <= 256 and not isinstance(val, type) and type(val).__name__ != "module"


def _rank(val):
    """Which holder of a value to follow first: arrays and lists, then dicts and tuples, then
    scalars (a count that equals the value by chance)."""
    if isinstance(val, (int, float)):
        return 2
    if isinstance(val, (dict, tuple)) or hasattr(val, "__dict__") and not hasattr(val, "dtype"):
        return 1
    return 0


def _scalar_lite(val):
    """A number as the report shows it: ints, floats, 0-d tensors and numpy scalars."""
    if isinstance(val, bool):
        return None
    if isinstance(val, (int, float)):
        return val
    if getattr(val, "shape", None) == () or getattr(val, "ndim", None) == 0:
        try:
            x = val.item()
            return x if isinstance(x, (int, float)) and not isinstance(x, bool) else None
        except (AttributeError, RuntimeError, TypeError, ValueError):
            return None
    return None


def _rescan(fs, f, mentioned):
    """Update the frame's snapshot (name -> (id, length, bits, scalar)); return the names that
    started to hold a watched value, and the entries they had before."""
    started = []
    old_entries = {}
    snap = fs.snap
    for name, val in _items(f):
        if name == "self":
            continue  # its attributes are followed one by one (`self.x`)
        old = snap.get(name)
        oid = id(val)
        size = _size(val)
        same = old is not None and old[0] == oid
        if same and old[1] == size and (name not in mentioned or not _mutable(val)):
            continue
        if same and isinstance(val, (list, dict)) and old[1] >= 0 and size > old[1]:
            # grown in place (append, a new key): only the new elements need a look
            fl = old[2]
            if not fl & VALUE:
                tail = itertools.islice(reversed(val) if isinstance(val, list) else reversed(val.values()),
                                        size - old[1])
                try:
                    if any(_range_bits(e, 1) & VALUE if _B.range else _has(e, _B.v, 1) for e in tail):
                        fl |= VALUE
                except Exception:  # broad: comparisons run user types' __eq__
                    pass
        else:
            fl = _flags(val)
        was = old[2] if same else 0
        old_entries[name] = old
        snap[name] = (oid, size, fl, _scalar_lite(val), _rank(val))
        new = fl & ~was & (VALUE | BOUND)
        if new:
            started.append((name, new, val))
    return started, old_entries


def _entry(fs, name, old):
    if old and name in old:
        return old[name]
    return fs.snap.get(name)


def _is_code(val):
    """A module, function or class: a name of the program, holding no data (`np` has a `dtype`)."""
    return type(val).__name__ in ("module", "function", "type", "builtin_function_or_method")


def _holders(fs, names, bits, f=None, old=None):
    """The names of a line that held a watched value before the line ran (`old`: the entries
    the line changed, as they were)."""
    out = []
    for name in sorted(names):
        got = _entry(fs, name, old)
        if got is not None:
            if got[2] & bits:
                out.append((name, got[2], got[0], got[4]))
        elif old is not None and name in old:
            continue  # made by the line itself
        elif f is not None and "." not in name and name in f.f_globals:
            val = f.f_globals[name]
            if _is_code(val):
                continue
            fl = _flags(val) & bits
            if fl:
                out.append((name, fl, id(val), _rank(val)))
    return out


def _before(fs, names, old=None, f=None):
    """The numbers the line's names held before it ran (for the report's "before"), a module's
    constants included (`UNLABELED = -1`, read inside a function)."""
    out = {}
    for name in sorted(names):
        got = _entry(fs, name, old)
        # a local, or a field of the instance (`self.ignore_index`)
        plain = "." not in name or (name.startswith("self.") and name.count(".") == 1)
        if got is not None and got[3] is not None and plain:
            out[name] = got[3]
        elif got is None and f is not None and "." not in name and type(f.f_globals.get(name)) in (int, float):
            out[name] = f.f_globals[name]
        if len(out) >= 4:
            break
    return out


def _record(e):
    b = _B
    if len(b.events) >= MAX_EVENTS:
        # full: the oldest events after the first quarter go (what `__init__` read is kept,
        # and the recent steps that led to the op)
        b.truncated = True
        del b.events[KEEP_FIRST_EVENTS:KEEP_FIRST_EVENTS + MAX_EVENTS // 4]
    e["seq"] = next(b.seq)
    b.events.append(e)


_REAL = {}


def _real(file):
    got = _REAL.get(file)
    if got is None:
        got = _REAL[file] = os.path.realpath(file)
    return got


def _watch_hit(fs, f, line):
    w = _B.watch.get((_real(fs.file), line))
    if w is None:
        return
    w["ran"] += 1
    if len(w["seen"]) < MAX_WATCH_SEEN:
        names = _names(fs, line)
        seen = {}
        for name in sorted(names):
            if name in f.f_locals and "." not in name:
                lv = _lite(f.f_locals[name])
                if lv is not None:
                    seen[name] = lv
            if len(seen) >= 4:
                break
        if seen:
            w["seen"].append(seen)


def _numeric(f, names):
    """Whether any name the line computes from holds numbers (not paths or text: `root / name`
    joins a path)."""
    loc = f.f_locals
    for name in names:
        val = loc.get(name, f.f_globals.get(name)) if "." not in name else None
        if _is_code(val):
            continue
        if isinstance(val, (int, float)) and not isinstance(val, bool):
            return True
        if hasattr(val, "dtype") or isinstance(val, (list, tuple)) and val and isinstance(val[0], (int, float)):
            return True
    return False


def _local_for(fs):
    def local(f, ev, arg):
        if _B.busy or ev not in ("line", "return"):
            return local
        _B.busy = True
        try:
            line = fs.line
            names = _names(fs, line)
            started, old = _rescan(fs, f, _mutated(fs, line))
            if started:
                inputs = _holders(fs, names, VALUE | BOUND | INSIDE, f, old)
                rhs_names = _names(fs, line, True)
                before = _before(fs, rhs_names, old, f)
                numeric = _numeric(f, rhs_names)
                owner = id(f.f_locals.get("self")) if any(n.startswith("self.") for n, _b, _v in started) else None
                layer = _B.range is not None and _layer_called(f, rhs_names)
                # a count's line: what it counted (a bound that counts ids past their number)
                counted = _counted(f, _rhs(_text(fs.file, line))) if any(b & BOUND for _n, b, _v in started) else None
                for name, bits, val in started:
                    _record({"kind": "set", "frame": fs.serial, "parent": fs.parent, "file": fs.file,
                             "line": line, "function": fs.code.co_name, "var": name, "bits": bits,
                             "oid": id(val), "after": _lite(val), "inputs": inputs, "before": before,
                             "mark": fs.mark, "rank": _rank(val), "numeric": numeric, "layer": layer,
                             "owner": owner if name.startswith("self.") else None,
                             "population": _summarize(fs, line, val) if bits & VALUE and not _B.range else None,
                             "counted": counted if bits & BOUND else None})
            if _B.watch:
                _watch_hit(fs, f, line)
            if ev == "return":
                fl = _flags(arg) if arg is not None else 0
                if fl:
                    # a comprehension's calls happened over all its iterations
                    mark = fs.start if fs.code.co_name.startswith("<") and fs.code.co_name != "<module>" else fs.mark
                    rhs_names = _names(fs, line, True)
                    _record({"kind": "return", "frame": fs.serial, "parent": fs.parent, "file": fs.file,
                             "line": line, "function": fs.code.co_name, "var": "<return>", "bits": fl,
                             "oid": id(arg), "after": _lite(arg),
                             "inputs": _holders(fs, names, fl | INSIDE if _B.range else fl, f),
                             "before": _before(fs, rhs_names, None, f), "mark": mark,
                             "rank": _rank(arg), "numeric": _numeric(f, rhs_names),
                             "layer": bool(fl & VALUE) and _B.range is not None and _layer_called(f, rhs_names)})
                if not fs.gen:
                    _B.live.pop(id(f), None)
            else:
                # the calls a statement makes are its own until the next statement starts (a
                # call spread over lines has a line event for each)
                if _statement(fs.file, f.f_lineno) != _statement(fs.file, fs.line):
                    fs.mark = _B.events[-1]["seq"] if _B.events else 0
                fs.line = f.f_lineno
        except Exception:  # broad: a trace callback must never raise into the traced code
            pass
        finally:
            _B.busy = False
        return local
    return local


def _layer_called(f, names):
    """Range mode: whether the line calls a module with learned weights whose forward the
    tracer does not see (`self.head(h)`, an `nn.Sequential`): its output is whatever the
    weights make it, bounded by nothing."""
    torch = _torch()
    if torch is None:
        return False
    me = f.f_locals.get("self")
    for name in names:
        if name.startswith("self."):
            val = getattr(me, name[5:], None) if me is not None else None
        else:
            val = f.f_locals.get(name)
        if not isinstance(val, torch.nn.Module):
            continue
        code = getattr(getattr(type(val), "forward", None), "__code__", None)
        if code is not None and _traced(code):
            continue
        try:
            if next(val.parameters(), None) is not None:
                return True
        except (RuntimeError, TypeError, AttributeError):
            continue
    return False


def _traced(code):
    got = _B.codes.get(code)
    if got is None:
        fn = code.co_filename
        got = _is_user_file(fn) and not _is_shim_file(os.path.realpath(fn) if not fn.startswith("<") else fn)
        _B.codes[code] = got
    return got


def _parent_of(f):
    p = f.f_back
    while p is not None:
        st = _B.live.get(id(p))
        if st is not None and st.frame is p:
            return st
        p = p.f_back
    return None


def _global(f, ev, arg):
    if ev != "call" or _B is None or _B.busy:
        return None
    if not _traced(f.f_code):
        return None
    _B.busy = True
    try:
        parent = _parent_of(f)
        fs = _B.live.get(id(f))
        if fs is not None and fs.frame is f:
            # a generator resumed: the same frame, called from wherever the next value is asked
            fs.parent = parent.serial if parent else None
            fs.line = f.f_lineno
            fs.mark = _B.events[-1]["seq"] if _B.events else 0
            return fs.local
        fs = _Frame(next(_B.serial), parent.serial if parent else None, f)
        _B.live[id(f)] = fs
        started, _old = _rescan(fs, f, ())
        for name, bits, val in started:
            if parent is None or "." in name:
                continue  # attributes of `self` were there before the call
            pnames = _names(parent, parent.line)
            # called straight from the project's line, or by a library (a DataLoader calling a
            # `collate_fn`, a `functools.partial`): then the line did not pass it
            direct = f.f_back is parent.frame
            _record({"kind": "param", "direct": direct, "frame": parent.serial, "callee": fs.serial, "parent": parent.parent,
                     "file": parent.file, "line": parent.line, "function": parent.code.co_name, "var": name,
                     "bits": bits, "oid": id(val), "after": _lite(val),
                     "inputs": _holders(parent, pnames, bits, parent.frame), "before": {}, "mark": parent.mark})
        fs.mark = _B.events[-1]["seq"] if _B.events else 0
        fs.start = fs.mark
        fs.local = _local_for(fs)
    except Exception:  # broad: a trace callback must never raise into the traced code
        return None
    finally:
        _B.busy = False
    return fs.local


def start():
    """Arm the pass from ``CUDASLEUTH_BORN`` (a spec file written by ``cudasleuth repro``)."""
    global _B
    path = os.environ.get("CUDASLEUTH_BORN")
    if not path or _B is not None:
        return
    try:
        with open(path) as fh:
            spec = json.load(fh)
    except (OSError, ValueError):
        return
    if not isinstance(spec, dict):
        return
    if not isinstance(spec.get("value"), (int, float)) and not isinstance(spec.get("range"), list):
        return
    _files.hide(spec, path)
    _B = _Born(spec)
    _S.born = _B
    # a process that never imports torch never reaches the op, and only the process that does
    # writes the pass's result: a data script run before training (`python make_data.py`)
    # is not traced; the tracer starts when torch starts importing (install's finder calls
    # `arm`)
    if "torch" in sys.modules:
        arm()


def arm():
    """Start tracing: new calls from now on, and the project's frames already running (the
    module whose line imports torch, its callers) from their next line."""
    if _B is None or _B.armed:
        return
    _B.armed = True
    threading.settrace(_global)
    sys.settrace(_global)
    running = []
    f = sys._getframe(1)
    while f is not None:
        running.append(f)
        f = f.f_back
    # outermost first: a frame's caller is known when it is entered
    for f in reversed(running):
        try:
            if _traced(f.f_code):
                local = _global(f, "call", None)
                if local is not None:
                    f.f_trace = local
        except Exception:  # broad: arming must never raise into the user's import
            continue


def stop():
    sys.settrace(None)
    threading.settrace(None)


def note_module(module, weight, size):
    """A module that sets a bound was built (``nn.Linear``, ``nn.Embedding``): remember where,
    with the names on that line that held the bound's value, when its size is the bound."""
    b = _B
    if b is None or b.n is None or size != b.n:
        return
    f = sys._getframe(1)
    while f is not None:
        st = b.live.get(id(f))
        if st is not None and st.frame is f:
            # the frame's snapshot is as the line found it: the line has not finished
            held = _holders(st, _names(st, f.f_lineno), BOUND, f)
            # when: between the events before it and those after (the chain looks back from here)
            when = b.events[-1]["seq"] + 0.5 if b.events else 0.5
            b.modules.append({"weight": id(weight), "frame": st.serial, "parent": st.parent, "file": st.file,
                              "line": f.f_lineno, "function": st.code.co_name, "inputs": held,
                              "type": type(module).__name__, "seq": when, "mark": st.mark})
            return
        f = f.f_back


def _code(file, line):
    return linecache.getline(file, line).strip()


def _writes_number(text, v):
    """Whether `text` writes the integer v itself (`-1`, `255`)."""
    if not isinstance(v, int) or isinstance(v, bool):
        return False
    pat = r"(?<![\w.])-\s*%d(?![\w.])" % -v if v < 0 else r"(?<![\w.\-])%d(?![\w.])" % v
    return re.search(pat, text) is not None


def _literal_line(e, first, last):
    """The one line of a statement that writes the caught number itself (`.get(k, -1)` among
    the fields of a record appended over ten lines), if exactly one does."""
    v = _B.v if e.get("bits", VALUE) & VALUE else _B.n
    if not isinstance(v, int) or isinstance(v, bool):
        return None
    hits = [ln for ln in range(first, last + 1) if _writes_number(_STR.sub("''", _code(e["file"], ln)), v)]
    return hits[0] if len(hits) == 1 else None


def _line_of(e, origin=False):
    """Inside a multi-line statement, the line of the key the value was read under (a dict
    literal's entry); for the origin, the one line that writes the number itself; else the one
    line that computes (when one does)."""
    first, last = _statement(e["file"], e["line"])
    if first == last:
        return e["line"]
    for key in (e.get("key"), _param_name(e)):
        if not key:
            continue
        hits = [ln for ln in range(first, last + 1)
                if re.search(r"""(?:['"]%s['"]\s*:|\b%s\s*=[^=])""" % (re.escape(key), re.escape(key)), _code(e["file"], ln))]
        if len(hits) == 1:
            return hits[0]
    if origin:
        got = _literal_line(e, first, last)
        if got is not None:
            return got
    # the one line that names what held the value before (a module's size among the lines of
    # an `nn.Sequential(...)`)
    held = [h[0] for h in e.get("inputs") or [] if h[1] & e.get("bits", VALUE | BOUND)]
    if held:
        pats = [re.compile(r"(?<![\w.])%s(?!\w)" % re.escape(n)) for n in held]
        hits = [ln for ln in range(first, last + 1)
                if any(p.search(_STR.sub("''", _code(e["file"], ln))) for p in pats)]
        if len(hits) == 1:
            return hits[0]
    hits = [ln for ln in range(first, last + 1) if _ARITH.search(_STARRED.sub("", _STR.sub("''", _code(e["file"], ln))))]
    return hits[0] if len(hits) == 1 else e["line"]


def _key_names(e):
    """The names of the entry the value was read under, on a line that builds a dict or calls
    with keywords (`{"z": z, "label": label}`, `dict(y=labels)`): those of the entry `key`."""
    key = e.get("key")
    if not key:
        return None
    text = _text(e["file"], e["line"])
    m = re.search(r"""(?:['"]%s['"]\s*:|(?<![\w.])%s\s*=(?!=))""" % (re.escape(key), re.escape(key)), text)
    if m is None:
        return None
    depth, end = 0, len(text)
    for i in range(m.end(), len(text)):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                end = i
                break
            depth -= 1
        elif c == "," and depth == 0:
            end = i
            break
    return _idents(_STR.sub("''", text[m.end():end]))


def _split_top(text):
    """The parts of `text` between its top-level commas (brackets and strings kept whole)."""
    parts, depth, cur, quote = [], 0, [], None
    for c in text:
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(c)
    parts.append("".join(cur))
    return [p.strip() for p in parts]


def _unwrap(text):
    text = text.strip()
    while text.startswith("(") and text.endswith(")") and len(_split_top(text[1:-1])) > 1:
        text = text[1:-1].strip()
    return text


def _position(e):
    """Where the event's variable sits among the names a line unpacks into (`for x, y in
    loader`: y is 1), when it unpacks several."""
    text = _text(e["file"], e["line"])
    m = re.match(r"\s*(?:async\s+)?for\s+(.+?)\s+in\s+(.*)", text)
    if m and re.match(r"\s*(?:enumerate|zip)\(|.*\.items\(\)\s*:?\s*$", m.group(2)):
        return None  # the position is the pairing's, not the values'
    if m:
        lhs = m.group(1)
    else:
        eq = _ASSIGN.search(text)
        if eq is None:
            return None
        lhs = text[:eq.start()]
    names = [p.strip() for p in _split_top(_unwrap(lhs))]
    if len(names) < 2:
        return None
    return names.index(e["var"]) if e.get("var") in names else None


def _element(e):
    """The part of a line's value at the position the value was unpacked from (`return a, b`
    or `rows.append((a, b))` with position 1: `b`), or None."""
    pos = e.get("pos")
    if pos is None:
        return None
    text = _text(e["file"], e["line"])
    m = re.match(r"\s*(?:return|yield)\s+(.*)$", text) or \
        re.match(r"\s*[\w.\[\]'\"]+\.(?:append|add|put)\((.*)\)\s*$", text)
    rhs = m.group(1) if m else _rhs(text)
    parts = _split_top(_unwrap(rhs))
    return parts[pos] if len(parts) > 1 and pos < len(parts) else None


def _param_name(e):
    """The parameter a caller's line filled (a `call_arg` step): the keyword it may pass it by."""
    var = e.get("var")
    return var if e.get("kind") == "call_arg" and var and "." not in var and not var.startswith("<") else None


def _keyword_part(text, name):
    """The expression a call passes as keyword `name` (`num_classes=cfg.n_intents`), or None."""
    m = re.search(r"(?<![\w.])%s\s*=(?!=)" % re.escape(name), text)
    if m is None:
        return None
    rest = _split_top(text[m.end():])
    return rest[0] if rest else None


def _key_of(e, name):
    """The literal key a line reads `name` under (`name["k"]`, `name.k`), if any: in the part
    of the line the value was unpacked from, or passed as the parameter's keyword, when it was."""
    whole = _text(e["file"], e["line"])
    text = _element(e)
    for kw in (_param_name(e), e.get("key")):
        if text is None and kw:
            text = _keyword_part(whole, kw)
    text = text or whole
    m = re.search(r"""(?<![\w.])%s\s*\[\s*['"](\w+)['"]\s*\]""" % re.escape(name), text)
    if m is None and "." not in name:
        m = re.search(r"(?<![\w.])%s\.(\w+)" % re.escape(name), text)
    return m.group(1) if m else None


def _per_item(e, name):
    """How the line takes one field of every item of `name` (samples a collate function was
    handed): `a, b = zip(*name)` (the field at the unpacked name's position), `[s[1] for s in
    name]`, `[s["label"] for s in name]` -- in the part the value left by, when known. Returns
    ("pos", n), ("key", k) or None."""
    text = _element(e) or _text(e["file"], e["line"])
    if re.search(r"\bzip\(\s*\*\s*%s\s*\)" % re.escape(name), text):
        at = _position(e)
        return ("pos", at) if at is not None else None
    m = re.search(r"""(?<![\w.])(\w+)\s*\[\s*(?:(\d+)|['"](\w+)['"])\s*\]\s+for\s+\1\s+in\s+%s(?![\w.\[])"""
                  % re.escape(name), text)
    if m is None:
        return None
    return ("pos", int(m.group(2))) if m.group(2) is not None else ("key", m.group(3))


def _step(e, role):
    line = _line_of(e, role == "origin")
    return {"file": os.path.abspath(e["file"]) if not e["file"].startswith("<") else e["file"],
            "line": line, "code": _code(e["file"], line), "function": e.get("function"),
            "variable": e.get("var"), "value": e.get("after"), "role": role}


def _producer(frame, name, oid, bits, before, scalar):
    """The event that made `name` (in frame `frame`, object `oid`) start to hold the value."""
    evs = _B.events
    for e in reversed(evs):
        if e["seq"] >= before or not (e["bits"] & bits):
            continue
        if e["kind"] == "set" and e["frame"] == frame and e["var"] == name:
            return e
        if e["kind"] == "param" and e.get("callee") == frame and e["var"] == name:
            return e
    if not scalar:
        for e in reversed(evs):
            if e["seq"] < before and e["bits"] & bits and e["oid"] == oid and e["kind"] != "param":
                return e
    if "." not in name:
        # a module global set at module level of some file
        for e in reversed(evs):
            if e["seq"] < before and e["bits"] & bits and e["var"] == name and e["function"] == "<module>":
                return e
    return None


def _child_return(frame, after, before, bits, made=None):
    """A call made on the line (between `after` and `before`) that returned the value; or, for
    an object the line built (`made`: its id), its constructor's attribute that took it; else
    the last local of a function the line called that came to hold it (a value too deep in
    what the call returned to be seen there: a list of dicts of arrays)."""
    built = inside = None
    for e in reversed(_B.events):
        if e["seq"] >= before:
            continue
        if e["seq"] <= after:
            break
        if not e["bits"] & bits:
            continue
        if e["kind"] == "return" and e["parent"] == frame:
            return e
        if built is None and made is not None and e["kind"] == "set" and e.get("owner") == made:
            built = e
        if inside is None and e["kind"] == "set" and e["parent"] == frame:
            inside = e
    return built or inside


def _unbracketed(text):
    """`text` without what its square brackets hold (subscripts and list displays)."""
    while True:
        inner = re.sub(r"\[[^\[\]]*\]", "", text)
        if inner == text:
            return text
        text = inner


def _mentioned(name, idents):
    """Whether a holder (`x`, `self.x`) is among a part's identifiers: `self.x` by its own name,
    or by `self` alone only where the part names no attribute of it (`return self`)."""
    if name in idents:
        return True
    head = name.split(".", 1)[0]
    return head != name and head in idents and not any(i.startswith(head + ".") for i in idents)


def _follow(start, bits, depth=0):
    """Walk back from `start` (an event-like dict) to where the value was born (`depth`: how
    many walks upstream of a range's mixing line this one is)."""
    chain = [start]
    cur = start
    seen = set()
    reason = None
    inserted = None
    for _ in range(MAX_STEPS):
        key = (cur.get("kind"), cur.get("seq"), cur.get("frame"), cur.get("line"))
        if key in seen:
            reason = "the chain loops"
            break
        seen.add(key)
        before = cur.get("seq") or (1 << 62)
        if _B.range is not None and len(chain) > 1 and cur.get("kind") in ("set", "return"):
            step = _range_step(cur, before)
            if step is not None and step.get("range_kind") == "mixed" and depth < MAX_UPSTREAM:
                # values inside the range met one outside it here: where that one was made
                # from values inside the range (`prior + prior.t()` of a 0/1 matrix), it was
                # born there; where it never was inside (a logit, a value read), here is only
                # where it entered
                sub, sub_born, _r = _follow(dict(cur, kind="call", inputs=step["outs"]), VALUE, depth + 1)
                if sub_born is not None and sub_born.get("range_kind") == "made":
                    return chain + sub[1:], sub_born, None
            if step is not None and step.get("range_kind"):
                chain[-1] = step
                return chain, step, None
            if step is not None:
                chain.append(dict(step, pos=None))
                cur = step
                continue
        if bits == BOUND and cur.get("kind") == "set" and len(chain) > 1 and _born_kind(cur) == "count":
            # a bound counted here (`n = len(table)`): a table that holds the same number among
            # its entries (an atomic number 30 in a 30-row table) did not pass it on
            return chain, cur, None
        if bits == VALUE and cur.get("kind") == "set" and len(chain) > 1 and _born_kind(cur) == "size":
            # positions counted from another value's length (`arange(ids.size(1))`): that
            # value's elements, which may hold the same number, did not pass it on
            return chain, cur, None
        holders = [h for h in cur.get("inputs") or [] if h[1] & bits]
        if bits == VALUE and holders and cur.get("kind") in ("set", "return") and len(chain) > 1:
            # `lengths = torch.tensor([len(p) for p in batch])`: the elements were counted, not
            # passed on; the counts were made here
            text = _STR.sub("''", _element(cur) or _rhs(_text(cur["file"], cur["line"])))
            # (not where the line writes the number itself, `torch.full((len(batch), n), -1)`:
            # the counted samples are copied into the fill later, in place, where no event shows)
            if _uncounted(text) != text and not _writes_number(text, _B.v):
                left = _idents(_uncounted(text))
                if not any(_mentioned(h[0], left) for h in holders):
                    return chain, cur, None
        if bits == VALUE and cur.get("kind") == "set" and len(chain) > 1 and _counts_up(cur):
            # `arange(0, t, device=ids.device)`: positions up to a number; a tensor named on
            # the line (for its device, its size) did not pass its elements on
            holders = [h for h in holders if h[3] == 2]
            if not holders:
                chain[-1] = dict(cur, size=True)
                return chain, chain[-1], None
        if bits == VALUE and cur.get("rank", 0) != 2 and holders and all(h[3] == 2 for h in holders):
            # a number put into an array, list or tuple here: if it turns out to be a constant
            # (a sentinel written into a mask), the data holds the value from this line on
            inserted = len(chain) - 1
        nxt = None
        part = _element(cur)
        if part is not None and len(holders) > 1:
            # the value left this line at one position of what it returned or built
            inside = _idents(_STR.sub("''", part))
            holders = [h for h in holders if _mentioned(h[0], inside)] or holders
        if len(holders) > 1:
            # `y[idx]`: the values come from what is indexed, not from the index that picks them
            text = part if part is not None else _rhs(_text(cur["file"], cur["line"]))
            outside = _idents(_STR.sub("''", _unbracketed(text)))
            holders = [h for h in holders if _mentioned(h[0], outside)] or holders
        on = _key_names(cur) if holders else None
        if on:
            # the value was read under a key: the names of that entry, not its siblings'. A
            # container starts to hold the value once; when a sibling's equal number made it
            # (an atomic number 29 beside a label 29), the entry's own name took it later
            narrowed = [h for h in holders if _mentioned(h[0], on)]
            if narrowed:
                holders = narrowed
            else:
                until = chain[-2].get("seq") if len(chain) > 1 and chain[-2].get("seq") else before
                for name in sorted(on):
                    nxt = _producer(cur["frame"], name, None, bits, until, True)
                    if nxt is not None:
                        nxt = dict(nxt, key=cur["key"])
                        holders = []
                        break
        if nxt is None and holders:
            # a tensor or list holding the value before a scalar that equals it by chance
            holders.sort(key=lambda h: (h[3] if bits == VALUE else -h[3], h[0] == "self"))
            for name, _fl, oid, _rk in holders:
                nxt = _producer(cur["frame"], name, oid, bits, before, bits == BOUND)
                if nxt is not None:
                    # the key it was read under travels back with it, to the literal that set it
                    key = _key_of(cur, name) or cur.get("key")
                    if key:
                        nxt = dict(nxt, key=key)
                    item = _per_item(cur, name)
                    if item is not None:
                        nxt = dict(nxt, item=item)
                    break
            if nxt is None:
                reason = "%s held the value before it reached this line, and its origin was not traced" % holders[0][0]
                break
        elif nxt is None:
            nxt = _child_return(cur["frame"], cur.get("mark", 0), before, bits, cur.get("oid"))
            if nxt is not None and cur.get("item") and nxt["kind"] == "return":
                # one item of the samples (the list a collate function was handed): the field
                # it took of them, in what the sample's producer returned
                how, which = cur["item"]
                nxt = dict(nxt, key=which) if how == "key" else dict(nxt, item_pos=which)
            if nxt is None:
                if inserted is not None and _literal(cur):
                    return chain[:inserted + 1], chain[inserted], None
                if cur.get("library"):
                    # nothing the line called returned it either: its origin cannot be
                    # followed from here. A constant put into an array on the way joined the
                    # data there
                    if inserted is not None:
                        return _joined(chain, inserted)
                    reason = "`%s` was passed in by a library call, and its origin was not traced" % cur.get("var")
                    break
                return chain, cur, None
            if cur.get("key"):
                nxt = dict(nxt, key=cur["key"])
        if nxt["kind"] == "param":
            # a parameter a library filled from nothing the project's line holds (a
            # `collate_fn`'s default, a keyword a `functools.partial` bound, the samples a
            # DataLoader hands a `collate_fn`; not a module's `forward`, called through
            # `__call__` with what the line passes): the line did not pass it
            lib = not nxt.get("direct", True) and not [h for h in nxt.get("inputs") or [] if h[1] & bits]
            # the caller's line passed it: continue from that line's inputs (the one that is
            # the very object passed, where one is: `compute_loss(out, batch)`)
            exact = [h for h in nxt.get("inputs") or [] if h[2] == nxt.get("oid") and h[1] & bits]
            nxt = dict(nxt, kind="call_arg", library=lib, inputs=exact or nxt.get("inputs"))
        at = _position(cur) if cur.get("kind") == "set" else None
        if cur.get("item") and nxt["kind"] == "param":
            # the samples were handed over by a library: the field goes with them
            nxt = dict(nxt, item=cur["item"])
        if nxt.get("item_pos") is not None:
            at = nxt["item_pos"]
        nxt = dict(nxt, pos=at) if at is not None and nxt["line"] != cur["line"] else dict(nxt, pos=None)
        chain.append(nxt)
        cur = nxt
    return chain, None, reason or "the chain is longer than %d steps" % MAX_STEPS


def _child_inside(frame, after, before):
    """Whether a call made on the line (between `after` and `before`) returned an array inside
    the range (range mode)."""
    for e in reversed(_B.events):
        if e["seq"] >= before:
            continue
        if e["seq"] <= after:
            break
        if e["kind"] == "return" and e["parent"] == frame and e["bits"] & INSIDE and not e["bits"] & VALUE:
            return True
    return False


_CMP = r"(?:<=|>=|==|!=|<(?!<)|>(?!>))"


def _only_compared(name, text):
    """Whether every mention of `name` in `text` is a side of a comparison."""
    esc = re.escape(name)
    mentions = list(re.finditer(r"(?<![\w.])%s(?![\w])" % esc, text))
    if not mentions:
        return False
    for m in mentions:
        after = text[m.end():].lstrip()
        before = text[:m.start()].rstrip()
        if not (re.match(_CMP, after) or re.search(_CMP + r"$", before)):
            return False
    return True


def _weighted_sum(text, arrays):
    """Whether the line weights values and sums them: a product summed, a convolution, a
    matrix product (of `arrays` >= 2 inputs inside the range), or sums them by groups."""
    rhs = _rhs(text)
    if re.search(r"\b(?:index_add_?|scatter_add_?|scatter_reduce_?|segment_reduce|segment_sum|scatter_sum)\(", rhs):
        return True  # summed by groups: the grouping or the sum may be wrong
    if arrays < 2:
        return False
    if re.search(r"\b(?:conv\dd|conv_transpose\dd|matmul|einsum|bmm|mm|mv|dot|linear|tensordot)\(|@", rhs):
        return True
    return bool(re.search(r"\*(?!\*)", rhs) and re.search(r"\.sum\(|\bsum\(|\.mean\(", rhs))


# functions whose values lie in a range of their own, whatever their input: a line whose value
# is one of them made values in that range (`F.cosine_similarity(c, t)`: [-1, 1])
_BOUNDED = {"cosine_similarity": (-1.0, 1.0), "tanh": (-1.0, 1.0), "hardtanh": (-1.0, 1.0),
            "softsign": (-1.0, 1.0), "log_softmax": (None, 0.0), "logsigmoid": (None, 0.0),
            "cos": (-1.0, 1.0), "sin": (-1.0, 1.0), "erf": (-1.0, 1.0)}


def _bounded_outside(text):
    """Whether the line's value is what a function of `_BOUNDED` returned, and that function's
    range reaches outside the range the op needs."""
    m = re.match(r"\s*(?:return\s+)?(?:[\w.]+\.)?(\w+)\(", _rhs(text))
    got = _BOUNDED.get(m.group(1)) if m else None
    if got is None:
        return False
    lo, hi = _B.range
    flo, fhi = got
    return flo is None or flo < lo or hi is not None and (fhi is None or fhi > hi)


def _range_step(cur, before):
    """Range mode, at a line that computed or returned a value outside the range: the line
    itself as the origin (`cur` marked with how it made it), the call made on it that returned
    the value (to follow into), or None to follow the line's inputs as for any value.

    Origins: `made` where inputs inside the range made the value (`p = p_a + p_b`, a sum of
    probabilities); `weighted` where they were weighted and summed (`(w * p).sum(1)`); `mixed`
    where an array inside the range met one outside it (`prob + self.wide(x)`: a probability
    and a logit; `_follow` looks upstream of the other one); `layer` where a module with
    learned weights made it (`self.head(h)`: a logit, never a probability)."""
    inputs = cur.get("inputs") or []
    part = _element(cur)
    if part is not None:
        inside = _idents(_STR.sub("''", part))
        inputs = [h for h in inputs if _mentioned(h[0], inside)]
    text = _STR.sub("''", _text(cur["file"], cur["line"]))
    # a loop's own variables held the last item, not an input of this one; a name only
    # compared (`torch.where(side > 0, win, -win)`) chose between values and passed none
    targets = set()
    for m in re.finditer(r"\bfor\s+(.+?)\s+in\b", text):
        targets |= _idents(m.group(1))
    inputs = [h for h in inputs if h[0] not in targets and not _only_compared(h[0], text)]
    outs = [h for h in inputs if h[1] & VALUE]
    ins = [h for h in inputs if h[1] & INSIDE and not h[1] & VALUE]
    # a number outside the range beside arrays inside it is a coefficient (`logsumexp(r * p) /
    # r`), not a value that met them; alone, it is followed (`p = eps`)
    arrays = [h for h in outs if h[3] != 2]
    if _bounded_outside(text):
        # `match = F.cosine_similarity(c, t)`: values in [-1, 1] where [0, 1] is needed, made
        # here whatever c and t held
        return dict(cur, range_kind="made")
    child = _child_return(cur["frame"], cur.get("mark", 0), before, VALUE)
    child = child if child is not None and child["kind"] == "return" else None
    # a call that returned values inside the range is a term of the line only beside another
    # call (`super().forward(x) + self.wide(x)`), not as the argument of the one that
    # returned the value (`pool(self.region_probs(x), r)`)
    calls = len(re.findall(r"(?<![\w.)])[A-Za-z_][\w.]*\(\)", _uncalled(_rhs(text))))
    child_in = part is None and (child is None or calls > 1) and _child_inside(cur["frame"], cur.get("mark", 0), before)
    if child is not None and not child_in:
        # a call made the value from what the line passed it (`out = model(images)`: images
        # inside [0, 1] are the call's input, not a probability the line mixed in)
        return child
    if cur.get("layer"):
        # beside a layer's output, only a term of its own (`p + self.wide(x)`), not the
        # layer's input (`self.head(images)`)
        terms = _idents(_uncalled(text))
        ins = [h for h in ins if _mentioned(h[0], terms)]
    if child_in or ins and child is None:
        if arrays or child is not None or cur.get("layer"):
            return dict(cur, range_kind="mixed", outs=arrays)
        if _weighted_sum(text, len(ins) + bool(child_in)):
            # `(w * p).sum(1)`, `conv1d(p, kernel)`: values inside the range weighted and
            # summed; the weights (made elsewhere) or the sum may be what is wrong
            return dict(cur, range_kind="weighted")
        return dict(cur, range_kind="made")
    if cur.get("layer"):
        return dict(cur, range_kind="layer")
    if not outs:
        return dict(cur, range_kind=_born_kind(cur))
    return None


_CALL = re.compile(r"[A-Za-z_][\w.]*\s*\(")


def _uncalled(text):
    """`text` without the arguments of its calls (`p + self.wide(x)`: `p + self.wide()`)."""
    out, i = [], 0
    while i < len(text):
        m = _CALL.search(text, i)
        if m is None:
            out.append(text[i:])
            break
        out.append(text[i:m.end()])
        i = _close(text, m.end())
        out.append(")")
    return "".join(out)


def _close(text, i):
    """The index just past the bracket that closes the one opened at text[i - 1]."""
    depth = 1
    while i < len(text) and depth:
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(text[i], 0)
        i += 1
    return i


def _uncounted(text):
    """`text` without its counts of elements (`len(p)`, `x.size(1)`, `x.shape[0]`,
    `x.numel()`), and without a comprehension's `for p in ps` whose `p` was only counted: what
    is left names the values the line passes on."""
    while True:
        m = re.search(r"\blen\(|(?:[A-Za-z_][\w.]*)\.(?:size|numel|nelement)\(|(?:[A-Za-z_][\w.]*)\.shape\b", text)
        if m is None:
            break
        end = m.end()
        if text[end - 1] == "(":
            end = _close(text, end)
        elif end < len(text) and text[end:].lstrip().startswith("["):
            end = _close(text, text.index("[", end) + 1)
        text = text[:m.start()] + " 0 " + text[end:]
    for m in list(re.finditer(r"\bfor\s+(\w+)\s+in\s+([\w.]+)", text)):
        rest = text[:m.start()] + text[m.end():]
        if not re.search(r"(?<![\w.])%s(?!\w)" % re.escape(m.group(1)), rest):
            text = text.replace(m.group(0), " ", 1)
    return text


def _counts_up(e):
    """Whether the line makes positions with `arange`/`range` (numbers up to a stop)."""
    rhs = _rhs(_STR.sub("''", _text(e["file"], e["line"])))
    return re.match(r"\s*(?:[\w.]+\.)?(?:arange|range)\(", rhs) is not None


def _joined(chain, at):
    """The chain cut at step `at`, where a constant joined the data: that step the origin."""
    step = dict(chain[at], joined=True)
    return chain[:at] + [step], step, None


def _literal(e):
    """Whether the line sets a number written in the code (`VOID = 255`, `self.pad = -1`)."""
    return re.fullmatch(r"\s*[-+]?\d+\s*", _rhs(_STR.sub("''", _text(e["file"], e["line"])))) is not None


def _born_kind(e):
    """`made`: the line computed the value (arithmetic, a count, a literal, `enumerate` from a
    start); `count`: a count or a largest value; `size`: it counted positions from another value's length; `read`: it took the
    value as it came (from a file, a string, a library call)."""
    text = _STARRED.sub("", _STR.sub("''", _text(e["file"], e["line"])))
    rhs = _rhs(text)
    if re.search(r"\b(?:arange|range|randperm)\([^#]*(?:\.size\(|\.shape\b|\blen\()", rhs):
        return "size"  # positions or indices counted from another value's length
    m = re.search(r"\b(?:arange|range|randperm)\(\s*([A-Za-z_]\w*)\s*(?:,\s*(?:device|dtype)\s*=[^()]*)*\)", rhs)
    # (not the range a loop or comprehension runs over: `[f(i) for i in range(n)]`)
    over = m is not None and re.search(r"\bin\s*$", rhs[:m.start()]) is not None
    n = (e.get("before") or {}).get(m.group(1)) if m and not over else None
    if type(n) is int and type(_B.v) is int and 0 <= _B.v < n:
        return "size"  # positions counted up to a length a name held (`arange(T)`, T = 34)
    if re.search(r"\b(?:len|max|nunique|unique|count|bincount)\(|\.max\(\)|\.shape\b|\.size\(", rhs):
        # a count or a largest value of something; arithmetic on one is made here
        # (`system * len(SYSTEMS) + magnetic`)
        flat = rhs
        while True:
            inner = re.sub(r"\([^()]*\)|\[[^\[\]]*\]", "", flat)
            if inner == flat:
                break
            flat = inner
        return "made" if re.search(r"[+\-*/%](?!=)", flat) else "count"
    if re.fullmatch(r"\s*-?\d+\s*", rhs or "") or re.search(r"[+\-*/%|&^]=", text):
        return "made"
    # arithmetic on numbers: a name that held numbers, or a number written beside the operator
    if _ARITH.search(rhs) and (e.get("numeric", True) or re.search(r"[+\-*/%]\s*\d|\d\s*[+\-*/%]", rhs)):
        return "made"
    if re.search(r"\benumerate\([^()]*(?:\([^()]*\)[^()]*)*,\s*(?:start\s*=\s*)?-?\d", rhs):
        return "made"
    return "read"


def _describe(chain, born, reason):
    out = {"chain": [], "born": None}
    for i, e in enumerate(chain):
        role = "call" if i == 0 else ("origin" if e is born else "pass")
        step = _step(e, role)
        last = out["chain"][-1] if out["chain"] else None
        if last is not None and (last["file"], last["line"]) == (step["file"], step["line"]):
            if role == "origin":
                out["chain"][-1] = step
            continue  # one line a step (a loop's variable, taken again and again)
        out["chain"].append(step)
    if born is not None:
        b = _step(born, "origin")
        # `joined`: a constant (a marker, a padding value) put into the data on this line
        b["kind"] = born.get("range_kind") or ("joined" if born.get("joined") else "size" if born.get("size")
                                               else _born_kind(born))
        b["before"] = born.get("before") or {}
        # the first container that collected the value on its way to the op (the origin
        # itself, or the list its scalars were gathered into)
        pop = next((e.get("population") for e in reversed(chain) if e.get("population")), None)
        if pop:
            b["population"] = pop
        if born.get("counted"):
            b["counted"] = born["counted"]
        out["born"] = b
    else:
        out["reason"] = reason
    return out


def _same_data(x, t):
    """Whether `x` is the tensor `t` the op was given, or a tensor whose memory holds it (`t`
    a view or slice of `x`: `feats[:, i]`)."""
    if x is t:
        return True
    torch = _torch()
    if torch is None or not isinstance(x, torch.Tensor) or not isinstance(t, torch.Tensor):
        return False
    try:
        if x.device != t.device or x.dtype != t.dtype or x.numel() == 0:
            return False
        lo = x.data_ptr()
        return lo <= t.data_ptr() < lo + x.numel() * x.element_size()
    except (RuntimeError, TypeError, ValueError):
        return False


def _operand_holders(f, inputs, operand):
    """Of the op's line's names that hold the value, those that hold the very tensor the op
    was given (`self.tok(ids) + self.pos(pos)`: both may hold the number; only one tripped);
    all of them when none does (the operand was made on the line itself)."""
    if operand is None:
        return inputs
    vals = dict(_items(f))

    def holds(x):
        if _same_data(x, operand):
            return True
        # one entry of what the line reads from (`out["fraud"]`, `outputs[0]`)
        if isinstance(x, dict):
            return any(e is operand for e in itertools.islice(x.values(), 256))
        if isinstance(x, (list, tuple)):
            return any(e is operand for e in x[:256])
        return False
    exact = [h for h in inputs if holds(vals.get(h[0]))]
    if not exact and _B.range is not None:
        st = _B.live.get(id(f))
        if st is not None and any(e["kind"] == "return" and e["parent"] == st.serial and e["seq"] > st.mark
                                  and e["oid"] == id(operand) for e in _B.events[-2000:]):
            # a call on the op's line returned the very tensor the op got (`bce(view(win,
            # sides), y)`): the chain goes into that call, not to the line's other names
            return []
    return exact or inputs


def _close_to(a, b):
    """Range mode: the same bad number, give or take a GPU's rounding (NaN matches NaN)."""
    if b is None:
        return a is None or a != a  # NaN, which JSON cannot carry
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return False
    if a != a or b != b:
        return a != a and b != b
    return abs(a - b) <= 1e-4 * max(1.0, abs(b))


def at_trip(first_value, first_sample, op, weight=None, operand=None):
    """The guard tripped in the born-at pass: follow the value (and the bound) back; `operand`
    is the tensor the op found out of range."""
    b = _B
    if b is None:
        return None
    b.busy = True
    try:
        same = op == b.spec.get("op") and (first_value == b.v or b.range is not None and _close_to(first_value, b.v))
        spec_sample = b.spec.get("sample")
        res = {"version": 1, "kind": "born", "op": op, "value": first_value, "sample": first_sample,
               "same_witness": bool(same), "expected": {"op": b.spec.get("op"), "value": b.v, "sample": spec_sample},
               "events": len(b.events), "truncated": b.truncated}
        # the innermost traced frame still running: the line that called the op
        f = sys._getframe(1)
        top = None
        while f is not None:
            st = b.live.get(id(f))
            if st is not None and st.frame is f:
                top = (st, f)
                break
            f = f.f_back
        if top is not None and same:
            st, f = top
            names = _names(st, f.f_lineno)
            # the snapshot is as the op's line found it
            held = _holders(st, names, VALUE, f)
            if b.range is not None:
                # a name the op's line only measured or compared passed no values to it
                # (`torch.full(greedy.shape, eps)`)
                text = _STR.sub("''", _text(st.file, f.f_lineno))
                left = _idents(_uncounted(text))
                held = [h for h in held if _mentioned(h[0], left) and not _only_compared(h[0], text)] or held
            start = {"kind": "call", "frame": st.serial, "parent": st.parent, "file": st.file, "line": f.f_lineno,
                     "function": st.code.co_name, "var": None, "after": None, "mark": st.mark,
                     "inputs": _operand_holders(f, held, operand),
                     "before": _before(st, _names(st, f.f_lineno, True))}
            chain, born, reason = _follow(start, VALUE)
            res["value_chain"] = _describe(chain, born, reason)
            mods = [m for m in b.modules if weight is not None and m["weight"] == id(weight)] or b.modules[-1:]
            if mods:
                m = mods[-1]
                mstart = dict(m, kind="call", var=None, after=b.n, before={})
                chain, born, reason = _follow(mstart, BOUND)
                res["bound_chain"] = _describe(chain, born, reason)
        res["watch"] = [dict(w) for w in b.watch.values()]
        return res
    finally:
        b.busy = False
