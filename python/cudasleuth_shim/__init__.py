"""cudasleuth shim: the Python half of ``cudasleuth repro``.

This module is loaded into the user's training process (through the
``sitecustomize.py`` next to it, through ``%load_ext cudasleuth_shim`` in
IPython, or by calling ``cudasleuth_shim.install()`` from a script).  It stays
dormant until ``torch`` has finished importing, so processes that never import
torch are left alone.  Once torch is imported it arms itself and writes
``loaded-<pid>.json`` into the output directory.

Modes (``CUDASLEUTH_MODE``):

* ``guard`` (default): a ``TorchDispatchMode`` is pushed for the whole process
  (and in every new Python thread).  For a small set of aten operators whose
  CUDA kernels contain a device-side assert (nll_loss, nll_loss2d, embedding,
  embedding_bag, index, index_put, index_select, index_add, index_copy,
  index_fill, gather, scatter*, multinomial, binary_cross_entropy, and
  ``F.one_hot``) the predicate that the kernel asserts is checked on the host
  before the kernel runs.  All other operators pass straight through through a
  single dictionary lookup.  On the first violation the shim writes the
  offending operands as ``.npy`` files, ``witness-<pid>.json`` (which op, which
  predicate, which positions, which dataset samples, the Python stack, and a
  provenance analysis that replays ``dataset[idx]`` under a line tracer to name
  the line of ``__getitem__`` that produced the bad value), prints one line to
  stderr and exits with status 86.
* ``sweep``: nothing trains.  Every Dataset handed to a DataLoader is
  recorded; when the script first iterates a DataLoader the shim derives the
  label bounds from the model objects it can see (last ``nn.Linear``,
  ``nn.Embedding``, the loss' ``ignore_index``), checks every sample of every
  recorded dataset on the CPU and writes ``sweep-<pid>.json``, then exits 0.

``CUDASLEUTH_CPU=1`` maps a script written for CUDA onto the CPU
(``.cuda()``, ``.to('cuda')``, ``device=`` arguments, ``map_location``,
autocast, GradScaler, NCCL, ``torch.cuda.*`` functions).  A CUDA-only call that
cannot be mapped is reported as ``unmapped-<pid>.json`` and exit status 3.
``CUDASLEUTH_NO_VALUES=1`` keeps tensor values out of every output.

Other environment: ``CUDASLEUTH_OUT`` (output directory; defaults to
``./cudasleuth-out``), ``CUDASLEUTH_PROJECT`` (project root: frames below it
are user code).

Supported: Python 3.9+, torch 1.13 through 2.x (tested on 1.13; only public
or long-standing APIs are used and version differences are guarded).  Only the
standard library and torch are required; numpy is used when importable.
"""

import collections
import json
import linecache
import os
import re
import sys
import threading
import time
import traceback
import weakref

_SHIM_FILE = os.path.realpath(__file__) if "__file__" in globals() else "<cudasleuth_shim>"
if _SHIM_FILE.endswith((".pyc", ".pyo")):
    _SHIM_FILE = _SHIM_FILE[:-1]
# the package's directory: every module of the shim is in it, the loader's sitecustomize.py beside it
_SHIM_DIR = os.path.dirname(_SHIM_FILE)


def _is_shim_file(p):
    """Whether the real path `p` is one of the shim's own files (its modules or the loader)."""
    return p == _SHIM_FILE or p.startswith(_SHIM_DIR + os.sep) or \
        (os.path.basename(p) == "sitecustomize.py" and os.path.dirname(p) == os.path.dirname(_SHIM_DIR))

EXIT_VIOLATION = 86
EXIT_UNMAPPED = 3
MAX_BAD = 64
MAX_STACK = 50
MAX_SWEEP_BAD = 10000
MAX_REPLAYS = 64


class _State(object):
    def __init__(self):
        self.installed = False
        self.armed = False
        self.finder = None
        self.out = None
        self.mode = "guard"
        self.cpu = False
        self.no_values = False
        self.project = None
        self.exit_on_violation = True
        self.tripped = False
        self.lock = threading.Lock()
        self.guard_cls = None
        self.cpu_mode_cls = None
        self.cur_batch = None
        self.prev_batch = None
        self.rng = collections.OrderedDict()
        self.recording_rng = True
        self.loaders = []
        self.swept = False
        self.sweeping = False
        self.module_sites = None
        self.real_cuda_available = None
        self.main_pid = os.getpid()
        self.prev_excepthook = None
        # integer tensors of the current batch: id -> (weakref, where their values changed)
        self.taint = {}


_S = _State()


# --------------------------------------------------------------------------
# small utilities
# --------------------------------------------------------------------------

def _env_flag(name):
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def _read_env():
    out = os.environ.get("CUDASLEUTH_OUT") or os.path.join(os.getcwd(), "cudasleuth-out")
    _S.out = os.path.abspath(out)
    mode = (os.environ.get("CUDASLEUTH_MODE") or "guard").strip().lower()
    _S.mode = mode if mode in ("guard", "sweep") else "guard"
    _S.cpu = _env_flag("CUDASLEUTH_CPU")
    _S.no_values = _env_flag("CUDASLEUTH_NO_VALUES")
    proj = os.environ.get("CUDASLEUTH_PROJECT")
    _S.project = os.path.realpath(proj) if proj else None


def _out_dir():
    if _S.out is None:
        _read_env()
    try:
        os.makedirs(_S.out, exist_ok=True)
    except OSError:
        pass
    return _S.out


def _jsonable(x):
    if isinstance(x, float):
        if x != x:
            return "nan"
        if x in (float("inf"), float("-inf")):
            return "inf" if x > 0 else "-inf"
        return x
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if x is None or isinstance(x, (bool, int, str)):
        return x
    return str(x)


def _write_json(name, obj):
    d = _out_dir()
    path = os.path.join(d, name)
    tmp = os.path.join(d, ".%s.%d.tmp" % (name, os.getpid()))
    with open(tmp, "w") as f:
        json.dump(_jsonable(obj), f, indent=1)
        f.flush()
        try:
            os.fsync(f.fileno())
        except OSError:
            pass
    os.replace(tmp, path)
    return path


def _err(line):
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except Exception:
        pass


def _rank():
    r = os.environ.get("RANK")
    try:
        return int(r) if r is not None else None
    except ValueError:
        return None


_USER_CACHE = {}
_LIB_MARKERS = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep)


def _lib_roots():
    roots = []
    try:
        import sysconfig
        for key in ("stdlib", "platstdlib"):
            p = sysconfig.get_paths().get(key)
            if p:
                roots.append(os.path.realpath(p))
    except Exception:
        pass
    for p in (getattr(sys, "base_prefix", None), getattr(sys, "prefix", None)):
        if p:
            roots.append(os.path.realpath(os.path.join(p, "lib")))
    tm = sys.modules.get("torch")
    if tm is not None and getattr(tm, "__file__", None):
        roots.append(os.path.dirname(os.path.realpath(tm.__file__)))
    return tuple(r + os.sep for r in roots)


_LIB_ROOTS = None


def _is_user_file(fn):
    r = _USER_CACHE.get(fn)
    if r is not None:
        return r
    global _LIB_ROOTS
    if not fn:
        r = False
    elif fn.startswith("<"):
        r = fn.startswith("<ipython-input") or fn == "<stdin>"
    else:
        p = os.path.realpath(fn)
        if _is_shim_file(p):
            r = False
        elif any(m in p for m in _LIB_MARKERS):
            r = False
        elif _S.project:
            r = p == _S.project or p.startswith(_S.project + os.sep)
        else:
            if _LIB_ROOTS is None:
                _LIB_ROOTS = _lib_roots()
            r = not p.startswith(_LIB_ROOTS)
    _USER_CACHE[fn] = r
    return r


def _frame_record(f, lineno=None):
    fn = f.f_code.co_filename
    line = f.f_lineno if lineno is None else lineno
    code = linecache.getline(fn, line).strip() if line else ""
    return {"file": os.path.abspath(fn) if not fn.startswith("<") else fn, "line": line,
            "function": f.f_code.co_name, "code": code, "user_code": _is_user_file(fn)}


def _capture_stack(start=None):
    f = start or sys._getframe(1)
    frames = []
    while f is not None:
        fn = f.f_code.co_filename
        real = os.path.realpath(fn) if not fn.startswith("<") else fn
        if not _is_shim_file(real) and not fn.endswith(("_python_dispatch.py",)):
            frames.append(_frame_record(f))
        f = f.f_back
    frames.reverse()
    return frames[-MAX_STACK:]


def _innermost_user(stack):
    for fr in reversed(stack):
        if fr.get("user_code"):
            return fr
    return stack[-1] if stack else None


def _torch():
    return sys.modules.get("torch")


def _dtype_name(t):
    return str(t.dtype).replace("torch.", "")


def _scalar(x):
    try:
        if hasattr(x, "item"):
            x = x.item()
    except Exception:
        return None
    if isinstance(x, bool):
        return x
    if isinstance(x, (int, float)):
        return x
    return str(x)


# --------------------------------------------------------------------------
# .npy writing
# --------------------------------------------------------------------------

_NPY_CODES = {
    "int64": ("<i8", "q"), "int32": ("<i4", "i"), "int16": ("<i2", "h"), "int8": ("|i1", "b"),
    "uint8": ("|u1", "B"), "bool": ("|b1", "B"), "float64": ("<f8", "d"), "float32": ("<f4", "f"),
}


def _write_npy(path, t):
    torch = _torch()
    t = t.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    if t.is_complex():
        return False
    name = _dtype_name(t)
    if name not in _NPY_CODES:
        t = t.to(torch.float32)
        name = "float32"
    t = t.contiguous()
    try:
        import numpy as np
        arr = t.numpy()
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            np.save(f, arr)
        os.replace(tmp, path)
        return True
    except ImportError:
        pass
    import array
    descr, code = _NPY_CODES[name]
    shape = tuple(t.shape)
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, repr(shape))
    pad = 64 - ((10 + len(header) + 1) % 64)
    if pad == 64:
        pad = 0
    header = header + " " * pad + "\n"
    vals = t.reshape(-1).tolist()
    if name == "bool":
        vals = [1 if v else 0 for v in vals]
    a = array.array(code, vals)
    if sys.byteorder != "little":
        a.byteswap()
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00")
        f.write(len(header).to_bytes(2, "little"))
        f.write(header.encode("latin1"))
        f.write(a.tobytes())
    os.replace(tmp, path)
    return True


# --------------------------------------------------------------------------
# guard: checkers
# --------------------------------------------------------------------------

def _arg(args, kwargs, i, name, default=None):
    if len(args) > i:
        return args[i]
    return kwargs.get(name, default)


def _is_index_tensor(t):
    torch = _torch()
    if not isinstance(t, torch.Tensor):
        return False
    if t.device.type == "meta" or t.numel() == 0:
        return False
    if t.is_floating_point() or t.is_complex() or t.dtype == torch.bool:
        return False
    return True


def _range_bad(t, lo, hi, ignore=None):
    if not _is_index_tensor(t):
        return None
    bad = (t < lo) | (t >= hi)
    if ignore is not None:
        bad = bad & (t != ignore)
    if not bool(bad.any()):
        return None
    return bad


def _dim_size(t, dim):
    if t.dim() == 0:
        return 1
    return t.size(dim)


def _viol(op, aten, category, predicate, name, tensor, mask, bound, operands, lo=None, hi=None,
          vals=None, extra=None, range_text=None):
    v = {"op": op, "aten": aten, "category": category, "predicate": predicate, "tensor_name": name,
         "tensor": tensor, "mask": mask, "bound": bound, "operands": operands,
         "vals": vals if vals is not None else tensor, "extra": extra or {}}
    if range_text is None and lo is not None:
        range_text = "[%s, %s)" % (lo, hi)
    v["range_text"] = range_text
    return v


def _aten_name(func):
    try:
        return func._schema.name
    except Exception:
        return str(func)


def _chk_nll(op):
    def chk(func, a, k):
        inp = _arg(a, k, 0, "self")
        tgt = _arg(a, k, 1, "target")
        ii = _arg(a, k, 4, "ignore_index", -100)
        if inp.dim() == 0:
            return None
        c = inp.size(0) if inp.dim() == 1 else inp.size(1)
        bad = _range_bad(tgt, 0, c, ii)
        if bad is None:
            return None
        return _viol(op, _aten_name(func), "label_out_of_range",
                     "target == ignore_index or 0 <= target < n_classes", "target", tgt, bad,
                     {"name": "n_classes", "value": c}, {"target": tgt, "input": inp}, 0, c,
                     extra={"ignore_index": int(ii)})
    return chk


def _chk_embedding(op, wpos, ipos):
    def chk(func, a, k):
        w = _arg(a, k, wpos, "weight")
        idx = _arg(a, k, ipos, "indices")
        n = w.size(0)
        bad = _range_bad(idx, 0, n)
        if bad is None:
            return None
        return _viol(op, _aten_name(func), "embedding_index_out_of_range",
                     "0 <= indices < num_embeddings", "indices", idx, bad,
                     {"name": "num_embeddings", "value": n}, {"indices": idx}, 0, n)
    return chk


def _chk_dim_index(op, negative_ok=False):
    def chk(func, a, k):
        self_ = _arg(a, k, 0, "self")
        dim = _arg(a, k, 1, "dim")
        idx = _arg(a, k, 2, "index")
        if not isinstance(dim, int):
            return None
        nd = max(self_.dim(), 1)
        d = dim + nd if dim < 0 else dim
        size = _dim_size(self_, d)
        lo = -size if negative_ok else 0
        bad = _range_bad(idx, lo, size)
        if bad is None:
            return None
        pred = ("-dim_size <= index < dim_size" if negative_ok else "0 <= index < dim_size")
        return _viol(op, _aten_name(func), "index_out_of_range", pred, "index", idx, bad,
                     {"name": "dim_size", "value": size}, {"index": idx, "input": self_}, lo, size,
                     extra={"dim": d})
    return chk


def _chk_indices(op):
    def chk(func, a, k):
        torch = _torch()
        self_ = _arg(a, k, 0, "self")
        indices = _arg(a, k, 1, "indices")
        if indices is None:
            return None
        cursor = 0
        multi = len([i for i in indices if i is not None]) > 1
        for pos, ix in enumerate(indices):
            if ix is None:
                cursor += 1
                continue
            if not isinstance(ix, torch.Tensor):
                cursor += 1
                continue
            name = "index%d" % pos if multi else "index"
            if ix.dtype in (torch.bool, torch.uint8):
                want = list(self_.shape[cursor:cursor + ix.dim()])
                if list(ix.shape) != want:
                    mask = torch.zeros(0, dtype=torch.bool)
                    return _viol(op, _aten_name(func), "index_out_of_range",
                                 "mask.shape == self.shape[dim:dim+mask.dim()]", name, ix, mask,
                                 {"name": "mask_shape", "value": want}, {name: ix}, None, None,
                                 extra={"dim": cursor}, range_text="shape %s" % (want,))
                cursor += max(ix.dim(), 1)
                continue
            if cursor >= self_.dim() and self_.dim() > 0:
                return None
            size = _dim_size(self_, cursor)
            bad = _range_bad(ix, -size, size)
            if bad is not None:
                return _viol(op, _aten_name(func), "index_out_of_range",
                             "-dim_size <= index < dim_size", name, ix, bad,
                             {"name": "dim_size", "value": size}, {name: ix, "input": self_},
                             -size, size, extra={"dim": cursor})
            cursor += 1
        return None
    return chk


def _chk_multinomial(func, a, k):
    torch = _torch()
    p = _arg(a, k, 0, "self")
    if not isinstance(p, torch.Tensor) or p.numel() == 0 or not p.is_floating_point():
        return None
    if p.device.type == "meta":
        return None
    bad = (~torch.isfinite(p)) | (p < 0)
    if bool(bad.any()):
        return _viol("multinomial", _aten_name(func), "invalid_distribution",
                     "probabilities finite and >= 0", "input", p, bad, None, {"input": p},
                     range_text="finite and >= 0")
    sums = p.sum(-1)
    rbad = sums <= 0
    if bool(rbad.any()):
        if rbad.dim() == 0:
            rbad = rbad.reshape(1)
            sums = sums.reshape(1)
        return _viol("multinomial", _aten_name(func), "invalid_distribution",
                     "sum of each row's probabilities > 0", "input", p, rbad, None, {"input": p},
                     vals=sums, range_text="row sum > 0")
    return None


def _chk_bce(func, a, k):
    torch = _torch()
    x = _arg(a, k, 0, "self")
    t = _arg(a, k, 1, "target")
    for name, ten in (("input", x), ("target", t)):
        if not isinstance(ten, torch.Tensor) or ten.numel() == 0 or not ten.is_floating_point():
            continue
        if ten.device.type == "meta":
            continue
        bad = (ten < 0) | (ten > 1) | torch.isnan(ten)
        if bool(bad.any()):
            return _viol("binary_cross_entropy", _aten_name(func), "probability_out_of_range",
                         "0 <= %s <= 1" % name, name, ten, bad, {"name": "range", "value": [0, 1]},
                         {"input": x, "target": t}, range_text="[0, 1]")
    return None


def _chk_one_hot_args(t, num_classes):
    if num_classes is None or num_classes == -1:
        bad = _range_bad(t, 0, float("inf"))
        bound = None
        hi = "inf"
    else:
        bad = _range_bad(t, 0, num_classes)
        bound = {"name": "num_classes", "value": int(num_classes)}
        hi = num_classes
    if bad is None:
        return None
    return _viol("one_hot", "aten::one_hot", "index_out_of_range",
                 "0 <= input < num_classes", "input", t, bad, bound, {"input": t}, 0, hi)


def _chk_one_hot(func, a, k):
    return _chk_one_hot_args(_arg(a, k, 0, "self"), _arg(a, k, 1, "num_classes", -1))


_CHECK_TABLE = None
_CHECK_CACHE = {}


def _build_check_table():
    torch = _torch()
    aten = torch.ops.aten
    table = {}

    def add(name, chk):
        try:
            pkt = getattr(aten, name)
        except Exception:
            return
        table[pkt] = chk

    add("nll_loss_forward", _chk_nll("nll_loss"))
    add("nll_loss2d_forward", _chk_nll("nll_loss2d"))
    add("nll_loss_nd", _chk_nll("nll_loss"))
    add("nll_loss", _chk_nll("nll_loss"))
    add("nll_loss2d", _chk_nll("nll_loss2d"))
    add("embedding", _chk_embedding("embedding", 0, 1))
    for n in ("_embedding_bag", "_embedding_bag_forward_only", "embedding_bag"):
        add(n, _chk_embedding("embedding_bag", 0, 1))
    add("index_select", _chk_dim_index("index_select"))
    add("gather", _chk_dim_index("gather"))
    for n in ("scatter", "scatter_", "scatter_add", "scatter_add_", "scatter_reduce", "scatter_reduce_"):
        add(n, _chk_dim_index(n.rstrip("_")))
    for n in ("index_add", "index_add_", "index_copy", "index_copy_"):
        add(n, _chk_dim_index(n.rstrip("_")))
    for n in ("index_fill", "index_fill_"):
        add(n, _chk_dim_index(n.rstrip("_"), negative_ok=True))
    add("index", _chk_indices("index"))
    for n in ("index_put", "index_put_", "_index_put_impl_", "_index_put_impl"):
        add(n, _chk_indices("index_put"))
    add("multinomial", _chk_multinomial)
    add("binary_cross_entropy", _chk_bce)
    add("one_hot", _chk_one_hot)
    return table


def _resolve_checker(func):
    global _CHECK_TABLE
    if _CHECK_TABLE is None:
        _CHECK_TABLE = _build_check_table()
    pkt = getattr(func, "overloadpacket", None)
    if pkt is None:
        return None
    return _CHECK_TABLE.get(pkt)


def _run_check(chk, func, args, kwargs):
    if _S.tripped:
        return
    try:
        v = chk(func, args, kwargs)
    except Exception:
        return
    if v is not None:
        _report(v)



# --------------------------------------------------------------------------
# where a batch's integer tensors change on the way to the op (outside __getitem__)
# --------------------------------------------------------------------------

# ops that move, copy or reshape values without changing them
_KEEP_VALUES = frozenset((
    "_to_copy", "to", "clone", "contiguous", "view", "_unsafe_view", "reshape", "expand",
    "squeeze", "unsqueeze", "t", "transpose", "permute", "slice", "select", "detach", "alias",
    "lift_fresh", "lift_fresh_copy", "flatten", "copy_", "_reshape_alias", "as_strided",
    "unbind", "split", "split_with_sizes", "chunk", "narrow", "repeat", "cat", "stack",
))
_MAX_TAINT = 64


def _is_int_tensor(x):
    # an integer torch tensor itself (_int_tensor also converts integer numpy arrays)
    return _int_tensor(x) is x


def _taint_batch(data, path="batch", depth=0):
    """Remember the integer tensors of a batch the DataLoader returned (labels, ids, masks)."""
    if depth == 0:
        _S.taint = {}
    if depth > 2 or len(_S.taint) >= _MAX_TAINT:
        return
    if _is_int_tensor(data):
        _S.taint[id(data)] = (weakref.ref(data), {"field": path, "changed": None})
    elif isinstance(data, (list, tuple)):
        for i, x in enumerate(data[:16]):
            _taint_batch(x, "%s[%d]" % (path, i), depth + 1)
    elif isinstance(data, dict):
        for k in list(data)[:16]:
            _taint_batch(data[k], "%s[%r]" % (path, k), depth + 1)


def _taint_of(t):
    rec = _S.taint.get(id(t))
    if rec is not None and rec[0]() is t:
        return rec[1]
    return None


def _first_user_line():
    f = sys._getframe(2)
    while f is not None:
        fn = f.f_code.co_filename
        if _is_user_file(fn):
            line = f.f_lineno
            return {"file": os.path.abspath(fn) if not fn.startswith("<") else fn, "line": line,
                    "function": f.f_code.co_name, "code": linecache.getline(fn, line).strip()}
        f = f.f_back
    return None


def _propagate_taint(func, args, kwargs, out):
    """Outputs of an op on a remembered tensor are remembered too, with the line that changed
    the values (ops in _KEEP_VALUES keep the input's record)."""
    src = None
    torch = _torch()
    for a in args:
        if isinstance(a, torch.Tensor):
            src = _taint_of(a)
        elif isinstance(a, (list, tuple)):
            for b in a:
                if isinstance(b, torch.Tensor):
                    src = _taint_of(b)
                    if src is not None:
                        break
        if src is not None:
            break
    if src is None:
        return
    name = getattr(getattr(func, "overloadpacket", None), "__name__", str(func))
    if name in _KEEP_VALUES:
        rec = src
    else:
        where = _first_user_line()
        rec = {"field": src["field"], "changed": dict(where or {}, op="aten::" + name)}
    outs = out if isinstance(out, (list, tuple)) else (out,)
    for o in outs:
        if _is_int_tensor(o) and len(_S.taint) < 4 * _MAX_TAINT:
            _S.taint[id(o)] = (weakref.ref(o), rec)


def _make_guard_class():
    from torch.utils._python_dispatch import TorchDispatchMode
    cache = _CHECK_CACHE

    class CudasleuthGuard(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if kwargs is None:
                kwargs = {}
            try:
                chk = cache[func]
            except KeyError:
                chk = cache[func] = _resolve_checker(func)
            except TypeError:
                chk = None
            if chk is not None and not _S.tripped:
                _run_check(chk, func, args, kwargs)
            out = func(*args, **kwargs)
            if _S.taint:
                try:
                    _propagate_taint(func, args, kwargs, out)
                except Exception:
                    pass
            return out

    return CudasleuthGuard


def _enter_modes():
    """Push the shim's modes on the current thread."""
    try:
        if _S.cpu_mode_cls is not None:
            _S.cpu_mode_cls().__enter__()
    except Exception as e:
        _err("cudasleuth: CPU device mode not entered: %s" % e)
    try:
        if _S.guard_cls is not None:
            m = _S.guard_cls()
            m.__enter__()
    except Exception as e:
        _err("cudasleuth: guard mode not entered: %s" % e)


def _patch_threads():
    T = threading.Thread
    orig = getattr(T, "_bootstrap_inner", None)
    if orig is None or getattr(orig, "_cudasleuth", False):
        return

    def _bootstrap_inner(self):
        _enter_modes()
        return orig(self)

    _bootstrap_inner._cudasleuth = True
    T._bootstrap_inner = _bootstrap_inner


def _patch_one_hot():
    torch = _torch()
    F = torch.nn.functional
    orig = F.one_hot
    if getattr(orig, "_cudasleuth", False):
        return

    def one_hot(tensor, num_classes=-1):
        if not _S.tripped:
            try:
                v = _chk_one_hot_args(tensor, num_classes)
            except Exception:
                v = None
            if v is not None:
                _report(v)
        return orig(tensor, num_classes)

    one_hot._cudasleuth = True
    one_hot.__doc__ = orig.__doc__
    F.one_hot = one_hot


# --------------------------------------------------------------------------
# guard: reporting
# --------------------------------------------------------------------------

def _batch_sample(cur, tensor, pos):
    if cur is None:
        return None
    idxs = cur.get("indices")
    if cur.get("single"):
        s = idxs[0] if idxs else None
        return s if isinstance(s, int) else None
    if not idxs or not pos or tensor.dim() == 0:
        return None
    if tensor.size(0) == len(idxs):
        s = idxs[pos[0]]
        return int(s) if isinstance(s, int) else None
    # a batch flattened before the op (labels.view(-1), target.reshape(-1) of an N x H x W
    # mask): a batch-major layout puts sample i's elements at [i*k, (i+1)*k)
    n = tensor.numel()
    if tensor.dim() == 1 and n > len(idxs) and n % len(idxs) == 0:
        s = idxs[pos[0] // (n // len(idxs))]
        return int(s) if isinstance(s, int) else None
    return None


def _fmt_val(x):
    if isinstance(x, float) and x == int(x) and abs(x) < 1e15:
        return repr(x)
    return str(x)


def _report(v):
    with _S.lock:
        if _S.tripped:
            return
        _S.tripped = True
    torch = _torch()
    pid = os.getpid()
    stack = []
    try:
        stack = _capture_stack(sys._getframe(1))
    except Exception:
        pass
    cur = _S.cur_batch
    t = v["tensor"]
    mask = v["mask"]
    bad = []
    bad_count = 0
    first_value = None
    first_sample = None
    try:
        with torch.no_grad():
            if mask.numel() > 0:
                bad_count = int(mask.sum())
                pos_list = mask.nonzero()[:MAX_BAD].tolist()
                vals = v["vals"]
                for p in pos_list:
                    val = _scalar(vals[tuple(p)]) if vals.dim() > 0 else _scalar(vals)
                    s = _batch_sample(cur, t, p)
                    if first_value is None:
                        first_value, first_sample = val, s
                    bad.append({"position": p, "value": None if _S.no_values else val, "sample": s})
    except Exception as e:
        bad.append({"position": None, "value": None, "sample": None, "error": str(e)})
    batch = None
    if cur is not None:
        batch = {"indices": list(cur.get("indices") or []), "loader": cur.get("loader"),
                 "batch_number": cur.get("batch_number")}
    user = _innermost_user(stack)
    w = {"version": 1, "kind": "witness", "op": v["op"], "aten": v["aten"], "category": v["category"],
         "predicate": v["predicate"], "tensor": v["tensor_name"], "bound": v["bound"]}
    w.update(v.get("extra") or {})
    try:
        w.update({"shape": list(t.shape), "dtype": _dtype_name(t), "device": str(t.device)})
    except Exception:
        pass
    w.update({"bad": bad, "bad_count": bad_count, "stack": stack, "batch": batch, "tensors": {},
              "rank": _rank(), "pid": pid, "torch": getattr(torch, "__version__", None),
              "cuda_launch_blocking": os.environ.get("CUDA_LAUNCH_BLOCKING") == "1",
              "compile_disabled": os.environ.get("TORCHDYNAMO_DISABLE") == "1",
              "cpu_mapped": bool(_S.cpu),
              "provenance": {"kind": "not_replayable", "reason": "provenance analysis did not finish"}})
    name = "witness-%d.json" % pid
    # operands first, then a first witness, then provenance, then the final witness
    if not _S.no_values:
        for oname, ten in (v.get("operands") or {}).items():
            try:
                if not isinstance(ten, torch.Tensor) or ten.numel() > 16 * 1024 * 1024:
                    continue
                fname = "%s.npy" % oname
                if os.path.exists(os.path.join(_out_dir(), fname)):
                    fname = "%s-%d.npy" % (oname, pid)
                if _write_npy(os.path.join(_out_dir(), fname), ten):
                    w["tensors"][oname] = fname
            except Exception:
                pass
    try:
        _write_json(name, w)
    except Exception as e:
        _err("cudasleuth: could not write witness: %s" % e)
    try:
        w["provenance"] = _provenance(first_value, first_sample, cur)
    except BaseException as e:
        w["provenance"] = {"kind": "not_replayable", "reason": "provenance failed: %s" % _short_exc(e)}
    try:
        _name_the_step(w, t)
    except Exception:
        pass
    try:
        _write_json(name, w)
    except Exception as e:
        _err("cudasleuth: could not write witness: %s" % e)
    where = ""
    if user:
        where = " at %s:%s" % (os.path.basename(user["file"]), user["line"])
    val = "" if (_S.no_values or first_value is None) else " " + _fmt_val(first_value)
    rng = v.get("range_text")
    what = " out of %s" % rng if rng and v["category"] not in ("invalid_distribution",) else \
        (" violates %s" % v["predicate"])
    if (v.get("bound") or {}).get("name") == "mask_shape":
        what = " mask shape %s does not match %s" % (list(t.shape), v["bound"]["value"])
    samp = " (sample %s)" % first_sample if first_sample is not None else ""
    _err("cudasleuth: caught %s %s%s%s%s%s" % (v["op"], v["tensor_name"], val, what, where, samp))
    try:
        sys.stdout.flush()
    except Exception:
        pass
    if _S.exit_on_violation:
        os._exit(EXIT_VIOLATION)
    _S.tripped = False  # interactive session: keep guarding after this error
    raise RuntimeError("cudasleuth: %s violates %s (witness in %s)" % (v["op"], v["predicate"],
                                                                      os.path.join(_out_dir(), name)))


def _short_exc(e):
    return "%s: %s" % (type(e).__name__, str(e)[:300])


# --------------------------------------------------------------------------
# DataLoader tracking
# --------------------------------------------------------------------------

def _is_iterable_ds(ds):
    torch = _torch()
    try:
        return isinstance(ds, torch.utils.data.IterableDataset)
    except Exception:
        return False


def _caller_site():
    f = sys._getframe(2)
    first = None
    while f is not None:
        fn = f.f_code.co_filename
        if first is None and not _is_shim_file(os.path.realpath(fn)):
            first = f
        if _is_user_file(fn):
            return {"file": os.path.abspath(fn), "line": f.f_lineno}
        f = f.f_back
    if first is not None:
        return {"file": first.f_code.co_filename, "line": first.f_lineno}
    return {"file": None, "line": None}


def _rng_snapshot(ds):
    torch = _torch()
    st = {"torch": torch.get_rng_state()}
    import random
    st["random"] = random.getstate()
    np = sys.modules.get("numpy")
    if np is not None:
        try:
            st["numpy"] = np.random.get_state()
        except Exception:
            pass
    inst = {}
    try:
        for k, val in vars(ds).items():
            s = _gen_state(val)
            if s is not None:
                inst[k] = s
    except TypeError:
        pass
    st["inst"] = inst
    return st


def _gen_state(val):
    import random
    torch = _torch()
    if isinstance(val, random.Random):
        return ("random", val.getstate())
    if isinstance(val, torch.Generator):
        try:
            return ("torch", val.get_state())
        except Exception:
            return None
    np = sys.modules.get("numpy")
    if np is not None:
        if isinstance(val, np.random.Generator):
            return ("npgen", val.bit_generator.state)
        if isinstance(val, np.random.RandomState):
            return ("nprs", val.get_state())
    return None


def _rng_restore(st, ds):
    torch = _torch()
    import random
    torch.set_rng_state(st["torch"])
    random.setstate(st["random"])
    np = sys.modules.get("numpy")
    if np is not None and "numpy" in st:
        np.random.set_state(st["numpy"])
    for k, (kind, s) in st.get("inst", {}).items():
        g = getattr(ds, k, None)
        if g is None:
            continue
        if kind == "random":
            g.setstate(s)
        elif kind == "torch":
            g.set_state(s)
        elif kind == "npgen":
            g.bit_generator.state = s
        elif kind == "nprs":
            g.set_state(s)


def _wrap_getitem(ds):
    if _is_iterable_ds(ds):
        return
    cls = type(ds)
    orig = getattr(cls, "__getitem__", None)
    if orig is None or getattr(orig, "_cudasleuth", False):
        return

    def __getitem__(self, idx):
        if _S.recording_rng and os.getpid() == _S.main_pid and isinstance(idx, int):
            try:
                snap = _rng_snapshot(self)
                key = (id(self), idx)
                _S.rng[key] = snap
                _S.rng.move_to_end(key)
                while len(_S.rng) > 4096:
                    _S.rng.popitem(last=False)
            except Exception:
                pass
        return orig(self, idx)

    __getitem__._cudasleuth = True
    __getitem__._cudasleuth_orig = orig
    try:
        cls.__getitem__ = __getitem__
    except (TypeError, AttributeError):
        pass


def _prune_rng(ds):
    keep = set()
    for b in (_S.cur_batch, _S.prev_batch):
        if b and b.get("dataset_id") == id(ds):
            keep.update(i for i in (b.get("indices") or []) if isinstance(i, int))
    dsid = id(ds)
    for key in [k for k in _S.rng if k[0] == dsid and k[1] not in keep]:
        del _S.rng[key]


def _patch_dataloader():
    torch = _torch()
    from torch.utils.data import dataloader as dl
    DL = dl.DataLoader
    Base = dl._BaseDataLoaderIter
    if getattr(DL.__init__, "_cudasleuth", False):
        return

    orig_dl_init = DL.__init__

    def dl_init(self, dataset, *a, **k):
        orig_dl_init(self, dataset, *a, **k)
        if _S.sweeping:
            return
        try:
            rec = {"dataset": dataset, "collate_fn": getattr(self, "collate_fn", None),
                   "batch_size": getattr(self, "batch_size", None), "created": _caller_site()}
            _S.loaders.append(rec)
        except Exception:
            pass

    dl_init._cudasleuth = True
    DL.__init__ = dl_init

    if _S.mode == "sweep":
        orig_iter = DL.__iter__

        def dl_iter(self):
            if not _S.sweeping and not _S.swept:
                _run_sweep(sys._getframe(1))
            return orig_iter(self)

        DL.__iter__ = dl_iter
        return

    orig_init = Base.__init__

    def it_init(self, loader, *a, **k):
        self._cs_q = collections.deque()
        self._cs_n = 0
        orig_init(self, loader, *a, **k)

    orig_reset = Base._reset

    def it_reset(self, loader, *a, **k):
        q = getattr(self, "_cs_q", None)
        if q is not None:
            q.clear()
        return orig_reset(self, loader, *a, **k)

    orig_next_index = Base._next_index

    def it_next_index(self):
        idx = orig_next_index(self)
        q = getattr(self, "_cs_q", None)
        if q is not None:
            # one RNG snapshot per batch, taken just before the batch's samples are fetched in
            # this process (num_workers=0); replaying sample k re-runs samples 0..k-1 first
            snap = None
            if (_S.recording_rng and getattr(self, "_num_workers", 1) == 0
                    and os.getpid() == _S.main_pid):
                try:
                    snap = _rng_snapshot(getattr(self, "_dataset", None))
                except Exception:
                    snap = None
            q.append((idx, snap))
        return idx

    orig_next = Base.__next__

    def it_next(self):
        data = orig_next(self)
        try:
            q = getattr(self, "_cs_q", None)
            idx, snap = q.popleft() if q else (None, None)
            self._cs_n = getattr(self, "_cs_n", 0) + 1
            ds = getattr(self, "_dataset", None)
            single = not getattr(self, "_auto_collation", True)
            if single:
                indices = [idx]
            else:
                indices = list(idx) if idx is not None else []
            indices = [int(i) if hasattr(i, "__index__") and not isinstance(i, bool) else i
                       for i in indices]
            if _S.mode == "guard" and os.getpid() == _S.main_pid:
                _taint_batch(data)
            _S.prev_batch = _S.cur_batch
            _S.cur_batch = {"indices": indices, "single": single, "dataset": ds, "rng": snap,
                            "dataset_id": id(ds), "collate_fn": getattr(self, "_collate_fn", None),
                            "loader": type(ds).__name__, "batch_number": self._cs_n}
            _prune_rng(ds)
        except Exception:
            pass
        return data

    Base.__init__ = it_init
    Base._reset = it_reset
    Base._next_index = it_next_index
    Base.__next__ = it_next


def _after_fork_child():
    _S.taint = {}
    _S.cur_batch = None
    _S.prev_batch = None
    _S.rng.clear()


# --------------------------------------------------------------------------
# provenance
# --------------------------------------------------------------------------

def _holds(x, v, depth=0):
    torch = _torch()
    if isinstance(x, bool):
        return False
    if isinstance(x, int):
        return x == v
    if torch is not None and isinstance(x, torch.Tensor):
        if x.is_floating_point() or x.is_complex() or x.dtype == torch.bool:
            return False
        n = x.numel()
        if n == 0 or n > 10000000:
            return False
        try:
            return bool((x == v).any())
        except Exception:
            return False
    np = sys.modules.get("numpy")
    if np is not None:
        if isinstance(x, np.integer):
            return int(x) == v
        if isinstance(x, np.ndarray) and x.dtype.kind in "iu" and 0 < x.size <= 10000000:
            return bool((x == v).any())
    if depth < 2:
        if isinstance(x, (tuple, list)) and len(x) <= 8:
            return any(_holds(e, v, depth + 1) for e in x)
        if isinstance(x, dict) and len(x) <= 16:
            return any(_holds(e, v, depth + 1) for e in x.values())
    return False


def _lite(x):
    torch = _torch()
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return x
    if torch is not None and isinstance(x, torch.Tensor):
        if x.is_complex() or x.numel() > 16:
            return "<tensor %s>" % list(x.shape)
        try:
            return x.item() if x.numel() == 1 and x.dim() == 0 else x.tolist()
        except Exception:
            return None
    np = sys.modules.get("numpy")
    if np is not None and isinstance(x, np.integer):
        return int(x)
    return None


_ARITH = re.compile(r"(\+|-|\*|/|%|<<|>>|\^|\|)")


def _line_computes(code):
    s = code.split("#", 1)[0]
    if re.search(r"[+\-*/%|&^]=", s):
        return True
    m = re.search(r"(?<![=!<>])=(?!=)", s)
    rhs = s[m.end():] if m else s
    rhs = re.sub(r"'[^']*'|\"[^\"]*\"", "", rhs)
    if _ARITH.search(rhs):
        return True
    if re.fullmatch(r"\s*-?\d+\s*", rhs or ""):
        return True
    return False


class _Tracer(object):
    def __init__(self, v):
        self.v = v
        self.events = []

    def _scan(self, f):
        held = set()
        lite = {}
        for name, val in list(f.f_locals.items()):
            try:
                if _holds(val, self.v):
                    held.add(name)
                lite[name] = _lite(val)
            except Exception:
                pass
        return held, lite

    def global_trace(self, frame, event, arg):
        if event != "call":
            return None
        if not _is_user_file(frame.f_code.co_filename):
            return None
        st = {"line": frame.f_lineno}
        st["held"], st["lite"] = self._scan(frame)
        fid = id(frame)
        tracer = self

        def local(f, ev, a):
            try:
                if ev in ("line", "return"):
                    held, lite = tracer._scan(f)
                    for name in sorted(held - st["held"]):
                        existed = name in st["lite"]
                        tracer.events.append({
                            "fid": fid, "frame": f, "line": st["line"], "variable": name,
                            "existed": existed, "before": st["lite"].get(name),
                            "before_all": dict(st["lite"]), "after": lite.get(name), "keep": True})
                    if ev == "return":
                        for e in tracer.events:
                            if e["fid"] == fid and e["keep"] and e.get("frame") is f:
                                e["keep"] = _holds(f.f_locals.get(e["variable"]), tracer.v) \
                                    if e["variable"] != "<return>" else True
                        if not held and _holds(a, tracer.v):
                            tracer.events.append({
                                "fid": fid, "frame": f, "line": f.f_lineno, "variable": "<return>",
                                "existed": False, "before": None, "before_all": dict(lite),
                                "after": _lite(a), "keep": True})
                    st["held"], st["lite"] = held, lite
                    st["line"] = f.f_lineno
            except Exception:
                pass
            return local

        return local

    def result(self):
        for e in self.events:
            if not e["keep"]:
                continue
            f = e["frame"]
            fn = f.f_code.co_filename
            code = linecache.getline(fn, e["line"]).strip()
            before = e["before"]
            is_code = False
            if e["existed"] and before is not None:
                is_code = True
            elif _line_computes(code):
                is_code = True
                if before is None:
                    for name, val in e["before_all"].items():
                        if isinstance(val, int) and re.search(r"\b%s\b" % re.escape(name), code.split("=", 1)[-1]):
                            before = val
                            break
            return {"code": is_code, "file": os.path.abspath(fn), "line": e["line"],
                    "function": f.f_code.co_name, "code_text": code, "variable": e["variable"],
                    "before": before, "after": e["after"]}
        return None


def _replay(ds, idx, v):
    tr = _Tracer(v)
    old = sys.gettrace()
    sys.settrace(tr.global_trace)
    try:
        out = ds[idx]
    finally:
        sys.settrace(old)
    return out, tr


def _collate_site(fn):
    torch = _torch()
    try:
        from torch.utils.data._utils import collate as c
        if fn is None or fn in (getattr(c, "default_collate", None), getattr(c, "default_convert", None)):
            return None
    except Exception:
        pass
    target = fn
    inner = getattr(fn, "func", None)  # functools.partial
    if inner is not None:
        target = inner
    code = getattr(target, "__code__", None)
    if code is None:
        call = getattr(type(target), "__call__", None)
        code = getattr(call, "__code__", None)
    if code is None:
        return {"name": repr(fn)[:200], "file": None, "line": None}
    return {"name": getattr(target, "__qualname__", getattr(target, "__name__", "collate_fn")),
            "file": os.path.abspath(code.co_filename), "line": code.co_firstlineno}


def _name_the_step(w, t):
    """For a value made after __getitem__: the line of the training step (or model) that last
    changed the batch tensor on its way to the op, from the remembered batch tensors."""
    p = w.get("provenance") or {}
    rec = _taint_of(t)
    if rec is None:
        return
    w["batch_field"] = rec["field"]
    ch = rec.get("changed")
    if not ch or p.get("kind") not in ("outside_getitem", "not_replayable"):
        return
    if p.get("kind") == "outside_getitem" and p.get("collate_fn"):
        return
    p.setdefault("sample", None)
    p["kind"] = "outside_getitem"
    p["file"], p["line"] = ch.get("file"), ch.get("line")
    p["function"], p["code"] = ch.get("function"), ch.get("code")
    p["op"] = ch.get("op")
    reason = p.get("reason") or ""
    p["reason"] = ("%s%s changed %s on its way to %s" % (reason + "; " if reason else "", ch.get("op"),
                   rec["field"], w.get("op")))
    w["provenance"] = p


def _provenance(value, sample, cur):
    if cur is None:
        return {"kind": "not_replayable", "reason": "the op did not consume a DataLoader batch"}
    if sample is None:
        return {"kind": "not_replayable",
                "reason": "no dataset index maps to the bad position (batch size differs from the tensor's first dim)"}
    ds = cur.get("dataset")
    if ds is None or _is_iterable_ds(ds):
        return {"kind": "not_replayable", "reason": "iterable dataset: samples cannot be replayed by index"}
    if isinstance(value, bool) or not isinstance(value, int):
        return {"kind": "not_replayable", "reason": "bad value is not an integer"}
    torch = _torch()
    _S.recording_rng = False
    saved = None
    try:
        saved = _rng_snapshot(ds)
    except Exception:
        pass
    try:
        tries = 0
        restored = False
        st = cur.get("rng") or _S.rng.get((id(ds), sample))
        prefix = []
        if cur.get("rng") is not None:
            idxs = cur.get("indices") or []
            prefix = idxs[:idxs.index(sample)] if sample in idxs else []
        found = None
        last_exc = None
        in_range_restored = False
        attempts = []
        if st is not None:
            attempts.append(True)
        attempts.extend([False] * (MAX_REPLAYS - len(attempts)))
        for use_state in attempts:
            tries += 1
            if use_state:
                try:
                    _rng_restore(st, ds)
                    with torch.no_grad():
                        for i in prefix:
                            try:
                                ds[i]
                            except Exception:
                                pass
                except Exception:
                    continue
            try:
                with torch.no_grad():
                    out, tr = _replay(ds, sample, value)
            except Exception as e:
                last_exc = e
                if use_state:
                    continue
                return {"kind": "not_replayable", "sample": sample,
                        "reason": "dataset[%d] raised on replay: %s" % (sample, _short_exc(e))}
            if _holds(out, value):
                found = tr
                restored = use_state
                break
            if use_state:
                in_range_restored = True
        if found is None:
            if last_exc is not None and tries == 1:
                return {"kind": "not_replayable", "sample": sample,
                        "reason": "dataset[%d] raised on replay: %s" % (sample, _short_exc(last_exc))}
            reason = ("dataset[%d] returns in-range values on replay (RNG state restored)" % sample
                      if in_range_restored else
                      "dataset[%d] never produced the bad value in %d replays" % (sample, tries))
            res = {"kind": "outside_getitem", "sample": sample, "reason": reason, "replays": tries}
            site = _collate_site(cur.get("collate_fn"))
            if site is not None:
                res["collate_fn"] = site
                res["reason"] += "; the batch goes through the custom collate_fn %s at %s:%s" % (
                    site["name"], site["file"], site["line"])
            else:
                res["reason"] += "; the value changed after __getitem__ (in the training step)"
            return res
        r = found.result()
        nv = _S.no_values
        if r is None:
            return {"kind": "raw_data", "sample": sample, "file": None, "line": None, "code": None,
                    "variable": None, "value": None if nv else value, "replays": tries,
                    "rng_restored": restored}
        if r["code"]:
            return {"kind": "code_line", "file": r["file"], "line": r["line"], "function": r["function"],
                    "code": r["code_text"], "variable": r["variable"],
                    "before": None if nv else r["before"], "after": None if nv else r["after"],
                    "sample": sample, "replays": tries, "rng_restored": restored}
        return {"kind": "raw_data", "sample": sample, "file": r["file"], "line": r["line"],
                "function": r["function"], "code": r["code_text"], "variable": r["variable"],
                "value": None if nv else value, "replays": tries, "rng_restored": restored}
    finally:
        if saved is not None:
            try:
                _rng_restore(saved, ds)
            except Exception:
                pass


# --------------------------------------------------------------------------
# CPU mapping
# --------------------------------------------------------------------------

class _Unmapped(RuntimeError):
    def __init__(self, call):
        RuntimeError.__init__(self, "cudasleuth: %s cannot be mapped to the CPU" % call)
        self.call = call


def _is_cuda_dev(d):
    torch = _torch()
    if isinstance(d, bool):
        return False
    if isinstance(d, int):
        return True
    if isinstance(d, str):
        return d.strip().lower().startswith("cuda")
    if torch is not None and isinstance(d, torch.device):
        return d.type == "cuda"
    return False


class _NullContext(object):
    def __init__(self, *a, **k):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        return fn


def _unmapped_stub(call, as_class=False):
    if as_class:
        def __new__(cls, *a, **k):
            raise _Unmapped(call)
        return type(call.rsplit(".", 1)[-1], (object,), {"__new__": __new__})

    def stub(*a, **k):
        raise _Unmapped(call)
    stub.__name__ = call.rsplit(".", 1)[-1]
    return stub


def _noop_named(call):
    """A do-nothing function of its own for one name: torch._dynamo keys its trace rules by the
    function object, so one object under two names (two rules) stops `import torch._dynamo`."""
    def noop(*a, **k):
        return None
    noop.__name__ = noop.__qualname__ = call.rsplit(".", 1)[-1]
    return noop


def _null_context_class(call):
    """A context manager and decorator that does nothing, as a class of its own per name."""
    return type(call.rsplit(".", 1)[-1], (_NullContext,), {})


def _install_cpu_mapping():
    torch = _torch()
    T = torch.Tensor

    orig_to = T.to

    def to(self, *args, **kwargs):
        if args and _is_cuda_dev(args[0]):
            args = ("cpu",) + tuple(args[1:])
        d = kwargs.get("device")
        if d is not None and _is_cuda_dev(d):
            kwargs["device"] = "cpu"
        return orig_to(self, *args, **kwargs)

    T.to = to
    T.cuda = lambda self, *a, **k: self
    T.pin_memory = lambda self, *a, **k: self
    T.record_stream = lambda self, *a, **k: None
    torch.nn.Module.cuda = lambda self, *a, **k: self

    orig_load = torch.load

    def load(f, map_location=None, *a, **k):
        return orig_load(f, "cpu", *a, **k)

    load.__doc__ = orig_load.__doc__
    torch.load = load

    c = torch.cuda
    c.is_available = lambda: False
    c.device_count = lambda: 1
    c.current_device = lambda: 0
    c.get_device_name = lambda *a, **k: "cpu"
    for name in ("set_device", "synchronize", "manual_seed", "manual_seed_all", "seed", "seed_all",
                 "empty_cache", "init", "ipc_collect", "reset_max_memory_allocated"):
        setattr(c, name, _noop_named("torch.cuda." + name))
    c.is_initialized = lambda: False
    c.device = _null_context_class("torch.cuda.device")
    c.device_of = _null_context_class("torch.cuda.device_of")
    for name in ("Stream", "Event", "ExternalStream", "CUDAGraph"):
        setattr(c, name, _unmapped_stub("torch.cuda." + name, as_class=True))
    for name in ("current_stream", "default_stream", "stream", "set_stream", "memory_allocated",
                 "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
                 "memory_summary", "memory_snapshot", "reset_peak_memory_stats", "mem_get_info",
                 "get_device_properties", "get_device_capability", "graph", "make_graphed_callables",
                 "utilization", "set_per_process_memory_fraction", "memory_cached", "max_memory_cached"):
        if hasattr(c, name):
            setattr(c, name, _unmapped_stub("torch.cuda." + name))

    # autocast and GradScaler are left as they are: with the GPUs hidden, torch disables both
    # itself ("CUDA is not available ... Disabling"), and dynamo and torch.compile keep the
    # classes they know.

    if hasattr(torch, "set_default_device"):
        orig_sdd = torch.set_default_device

        def set_default_device(device):
            return orig_sdd("cpu" if _is_cuda_dev(device) else device)
        torch.set_default_device = set_default_device
    if hasattr(torch, "set_default_tensor_type"):
        orig_sdt = torch.set_default_tensor_type

        def set_default_tensor_type(t):
            if isinstance(t, str):
                t = t.replace("torch.cuda.", "torch.")
            elif "cuda" in getattr(t, "__module__", ""):
                t = getattr(torch, t.__name__, t)
            return orig_sdt(t)
        torch.set_default_tensor_type = set_default_tensor_type

    # distributed
    try:
        import torch.distributed as dist
        if dist.is_available():
            orig_ipg = dist.init_process_group

            def init_process_group(backend=None, *a, **k):
                if isinstance(backend, str) and "nccl" in backend.lower():
                    backend = "gloo"
                elif backend is None and isinstance(k.get("backend"), str):
                    pass
                return orig_ipg(backend, *a, **k)
            dist.init_process_group = init_process_group
            try:
                DDP = torch.nn.parallel.DistributedDataParallel
                orig_ddp = DDP.__init__

                def ddp_init(self, module, *a, **k):
                    a = list(a)
                    if a:
                        a[0] = None
                    if len(a) > 1:
                        a[1] = None
                    k.pop("device_ids", None)
                    k.pop("output_device", None)
                    return orig_ddp(self, module, *a, **k)
                DDP.__init__ = ddp_init
            except Exception:
                pass
    except Exception:
        pass

    # device= arguments of factory functions
    try:
        from torch.overrides import TorchFunctionMode

        class CudasleuthCpu(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                if kwargs:
                    d = kwargs.get("device")
                    if d is not None and _is_cuda_dev(d):
                        kwargs = dict(kwargs)
                        kwargs["device"] = "cpu"
                else:
                    kwargs = {}
                return func(*args, **kwargs)

        _S.cpu_mode_cls = CudasleuthCpu
    except Exception:
        _S.cpu_mode_cls = None

    _S.prev_excepthook = sys.excepthook
    sys.excepthook = _cpu_excepthook


_CUDA_MSG = re.compile(r"CUDA|cuda|NVIDIA|nccl|NCCL")


def _cpu_excepthook(etype, value, tb):
    try:
        frames = traceback.extract_tb(tb)
        from_cuda = any((os.sep + "torch" + os.sep + "cuda" + os.sep) in fr.filename for fr in frames)
        if isinstance(value, _Unmapped) or from_cuda or \
                (isinstance(value, (RuntimeError, AssertionError, AttributeError)) and _CUDA_MSG.search(str(value))):
            user_i = None
            for i, fr in enumerate(frames):
                if _is_user_file(fr.filename):
                    user_i = i
            user = frames[user_i] if user_i is not None else (frames[-1] if frames else None)
            if isinstance(value, _Unmapped):
                call = value.call
            else:
                call = None
                if user_i is not None and user_i + 1 < len(frames):
                    nxt = frames[user_i + 1]
                    call = "%s.%s" % (_module_of(nxt.filename), nxt.name)
                if not call:
                    call = "%s: %s" % (etype.__name__, str(value).splitlines()[0][:200] if str(value) else "")
            fname = os.path.abspath(user.filename) if user else None
            line = user.lineno if user else None
            _err("cudasleuth: cannot map to CPU: %s at %s:%s" % (
                call, os.path.basename(fname) if fname else "?", line))
            try:
                _write_json("unmapped-%d.json" % os.getpid(),
                            {"call": call, "file": fname, "line": line,
                             "error": "%s: %s" % (etype.__name__, str(value)[:500])})
            except Exception:
                pass
            try:
                sys.stdout.flush()
            except Exception:
                pass
            os._exit(EXIT_UNMAPPED)
    except Exception:
        pass
    (_S.prev_excepthook or sys.__excepthook__)(etype, value, tb)


def _module_of(filename):
    p = os.path.realpath(filename)
    parts = p.split(os.sep)
    if "torch" in parts:
        i = len(parts) - 1 - parts[::-1].index("torch")
        mod = parts[i:]
        mod[-1] = os.path.splitext(mod[-1])[0]
        if mod[-1] == "__init__":
            mod = mod[:-1]
        return ".".join(mod)
    return os.path.splitext(os.path.basename(p))[0]


# --------------------------------------------------------------------------
# sweep
# --------------------------------------------------------------------------

_LABEL_KEYS = ("label", "labels", "target", "targets", "y", "mask", "masks")
_TOKEN_KEYS = ("input_ids", "tokens", "token_ids")


def _identity_collate(batch):
    return batch


def _int_scalar(x):
    torch = _torch()
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return x
    if isinstance(x, torch.Tensor) and x.numel() == 1 and x.dim() <= 1 and \
            not (x.is_floating_point() or x.is_complex() or x.dtype == torch.bool):
        return int(x.reshape(()).item())
    np = sys.modules.get("numpy")
    if np is not None:
        if isinstance(x, np.integer):
            return int(x)
        if isinstance(x, np.ndarray) and x.size == 1 and x.dtype.kind in "iu":
            return int(x.reshape(()))
    return None


def _int_tensor(x):
    torch = _torch()
    if isinstance(x, torch.Tensor):
        if x.is_floating_point() or x.is_complex() or x.dtype == torch.bool:
            return None
        return x
    np = sys.modules.get("numpy")
    if np is not None and isinstance(x, np.ndarray) and x.dtype.kind in "iu":
        return torch.as_tensor(x)
    return None


def _sample_fields(sample):
    """Yield (field, kind, value); kind is 'class', 'mask' or 'tokens'."""
    if isinstance(sample, dict):
        for k, val in sample.items():
            lk = str(k).lower()
            if lk in _LABEL_KEYS:
                s = _int_scalar(val)
                if s is not None:
                    yield str(k), "class", s
                    continue
                t = _int_tensor(val)
                if t is not None:
                    yield str(k), "mask", t
            elif lk in _TOKEN_KEYS:
                t = _int_tensor(val)
                if t is not None:
                    yield str(k), "tokens", t
        return
    if isinstance(sample, (tuple, list)):
        for i, val in enumerate(sample):
            s = _int_scalar(val)
            if s is not None:
                yield str(i), "class", s
                continue
            t = _int_tensor(val)
            if t is None:
                continue
            if t.dim() >= 2 and i >= 1:
                yield str(i), "mask", t
            elif t.dim() == 1 and t.numel() > 1:
                yield str(i), "tokens", t
        return
    s = _int_scalar(sample)
    if s is not None:
        yield "", "class", s


def _check_sample(index, sample, bounds):
    n = bounds.get("n_classes")
    e = bounds.get("num_embeddings")
    ii = bounds.get("ignore_index", -100)
    out = []
    for field, kind, val in _sample_fields(sample):
        if kind == "tokens":
            if e is None:
                continue
            lo, hi, name, ign = 0, e, "num_embeddings", None
        else:
            if n is None:
                lo, hi, name, ign = 0, None, "non_negative", ii
            else:
                lo, hi, name, ign = 0, n, "n_classes", ii
        if kind == "class":
            if (val < lo or (hi is not None and val >= hi)) and val != ign:
                out.append({"index": index, "field": field, "value": val, "bound": hi, "name": name})
        else:
            bad = val < lo
            if hi is not None:
                bad = bad | (val >= hi)
            if ign is not None:
                bad = bad & (val != ign)
            cnt = int(bad.sum())
            if cnt:
                first = int(val[bad].reshape(-1)[0])
                pos = bad.nonzero()[0].tolist()
                out.append({"index": index, "field": field, "value": first, "bound": hi, "name": name,
                            "count": cnt, "position": pos})
    return out


class _SweepDataset(object):
    def __init__(self, ds, bounds):
        self.ds = ds
        self.bounds = bounds

    def __len__(self):
        return len(self.ds)

    def __getitem__(self, i):
        try:
            s = self.ds[i]
        except Exception as e:
            return (i, None, _short_exc(e))
        try:
            return (i, _check_sample(i, s, self.bounds), None)
        except Exception as e:
            return (i, None, "check failed: %s" % _short_exc(e))


def _holder_object(val):
    """An instance of a user class (e.g. a trainer) whose attributes may hold the model."""
    import types
    if isinstance(val, (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
                        types.MethodType)):
        return False
    if not hasattr(val, "__dict__"):
        return False
    mod = sys.modules.get(type(val).__module__)
    fn = getattr(mod, "__file__", None) or ""
    return bool(fn) and _is_user_file(fn)


def _find_modules(frame):
    torch = _torch()
    nn = torch.nn
    found = {}
    f = frame
    seen_globals = set()
    while f is not None:
        spaces = [f.f_locals]
        if id(f.f_globals) not in seen_globals:
            seen_globals.add(id(f.f_globals))
            spaces.append(f.f_globals)
        for space in spaces:
            for val in list(space.values()):
                if isinstance(val, nn.Module):
                    found[id(val)] = val
                elif _holder_object(val):
                    try:
                        for sub in list(vars(val).values())[:64]:
                            if isinstance(sub, nn.Module):
                                found[id(sub)] = sub
                    except Exception:
                        pass
        f = f.f_back
    return list(found.values())


def _site_of(mod):
    sites = _S.module_sites
    if sites is None:
        return None
    try:
        return sites.get(mod)
    except TypeError:
        return None


def _find_bounds(frame):
    torch = _torch()
    nn = torch.nn
    mods = _find_modules(frame)
    loss_types = tuple(t for t in (getattr(nn, "CrossEntropyLoss", None), getattr(nn, "NLLLoss", None)) if t)
    losses = [m for m in mods if isinstance(m, loss_types)]
    models = [m for m in mods if not isinstance(m, loss_types)]
    ignore = -100
    if losses:
        ignore = int(getattr(losses[0], "ignore_index", -100))
    if not models:
        return None
    model = max(models, key=lambda m: sum(p.numel() for p in m.parameters()))
    last_lin = None
    last_conv = None
    first_emb = None
    for m in model.modules():
        if isinstance(m, nn.Linear):
            last_lin = m
        elif isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
            last_conv = m
        elif isinstance(m, nn.Embedding) and first_emb is None:
            first_emb = m
    head = last_lin if last_lin is not None else last_conv
    n = None
    if last_lin is not None:
        n = int(last_lin.out_features)
    elif last_conv is not None:
        n = int(last_conv.out_channels)
    if n is None and first_emb is None:
        return None
    site = _site_of(head if head is not None else first_emb) or _site_of(model)
    return {"n_classes": n, "num_embeddings": int(first_emb.num_embeddings) if first_emb is not None else None,
            "ignore_index": ignore, "model": type(model).__name__,
            "layer": type(head).__name__ if head is not None else None,
            "from": "%s:%s" % (os.path.basename(site["file"]), site["line"]) if site else None}


def _patch_module_sites():
    import weakref
    torch = _torch()
    _S.module_sites = weakref.WeakKeyDictionary()
    M = torch.nn.Module
    orig = M.__init__

    def init(self, *a, **k):
        orig(self, *a, **k)
        try:
            if self not in _S.module_sites:
                _S.module_sites[self] = _caller_site()
        except Exception:
            pass
    M.__init__ = init


def _sweep_dataset(rec, bounds):
    torch = _torch()
    ds = rec["dataset"]
    t0 = time.time()
    res = {"class": type(ds).__name__, "created": rec.get("created"), "length": None, "checked": 0,
           "seconds": 0.0, "bad": [], "errors": []}
    bad, errors = res["bad"], res["errors"]

    def add(items):
        for b in items:
            if len(bad) >= MAX_SWEEP_BAD:
                res["truncated"] = True
                return
            bad.append(b)

    if _is_iterable_ds(ds):
        res["note"] = "iterable dataset: walked by iteration"
        i = 0
        try:
            for s in ds:
                try:
                    add(_check_sample(i, s, bounds))
                except Exception as e:
                    errors.append({"index": i, "error": _short_exc(e)})
                i += 1
                if i >= 1000000 or time.time() - t0 > 300:
                    res["note"] += "; stopped after %d samples" % i
                    break
        except Exception as e:
            errors.append({"index": i, "error": _short_exc(e)})
        res["checked"] = i
        res["length"] = i
        res["seconds"] = round(time.time() - t0, 3)
        return res
    try:
        res["length"] = len(ds)
    except Exception as e:
        res["note"] = "dataset has no length: %s" % _short_exc(e)
        return res
    wrapped = _SweepDataset(ds, bounds)
    nw = min(4, os.cpu_count() or 1)

    def walk(workers):
        out_bad, out_err, checked = [], [], 0
        kw = {}
        if workers > 0:
            import multiprocessing as mp
            if "fork" in mp.get_all_start_methods():
                kw["multiprocessing_context"] = "fork"
        loader = torch.utils.data.DataLoader(wrapped, batch_size=64, shuffle=False, num_workers=workers,
                                             collate_fn=_identity_collate, **kw)
        for batch in loader:
            for i, items, error in batch:
                checked += 1
                if error is not None:
                    if len(out_err) < 1000:
                        out_err.append({"index": i, "error": error})
                else:
                    out_bad.extend(items[:MAX_SWEEP_BAD])
        return out_bad, out_err, checked

    try:
        b, e, checked = walk(nw) if nw > 0 else walk(0)
    except Exception:
        b, e, checked = walk(0)
    add(b)
    errors.extend(e)
    res["checked"] = checked
    res["seconds"] = round(time.time() - t0, 3)
    return res


def _run_sweep(frame):
    _S.swept = True
    _S.sweeping = True
    t0 = time.time()
    try:
        try:
            bounds = _find_bounds(frame)
        except Exception as e:
            bounds = None
            _err("cudasleuth: could not read the model: %s" % _short_exc(e))
        doc = {"version": 1, "kind": "sweep", "bounds": bounds, "datasets": []}
        if bounds is None:
            doc["note"] = ("no nn.Linear / nn.Embedding found in the calling frames; only negative labels "
                           "(other than ignore_index -100) were flagged")
            check_bounds = {"n_classes": None, "num_embeddings": None, "ignore_index": -100}
        else:
            check_bounds = bounds
        seen = set()
        for rec in list(_S.loaders):
            if id(rec["dataset"]) in seen:
                continue
            seen.add(id(rec["dataset"]))
            try:
                doc["datasets"].append(_sweep_dataset(rec, check_bounds))
            except Exception as e:
                doc["datasets"].append({"class": type(rec["dataset"]).__name__, "created": rec.get("created"),
                                        "error": _short_exc(e), "bad": [], "errors": [], "checked": 0})
        doc["seconds"] = round(time.time() - t0, 3)
        _write_json("sweep-%d.json" % os.getpid(), doc)
        nbad = sum(len(d.get("bad", [])) for d in doc["datasets"])
        nchk = sum(d.get("checked", 0) or 0 for d in doc["datasets"])
        if bounds is not None:
            bt = "n_classes=%s num_embeddings=%s ignore_index=%s" % (
                bounds["n_classes"], bounds["num_embeddings"], bounds["ignore_index"])
        else:
            bt = "no model bounds found"
        _err("cudasleuth: sweep checked %d samples in %d dataset(s) (%s): %d bad" % (
            nchk, len(doc["datasets"]), bt, nbad))
    except BaseException as e:
        _err("cudasleuth: sweep failed: %s" % _short_exc(e))
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    os._exit(0)


def _sweep_atexit():
    if not _S.swept and _S.mode == "sweep" and os.getpid() == _S.main_pid:
        _S.swept = True
        try:
            _write_json("sweep-%d.json" % os.getpid(),
                        {"version": 1, "kind": "sweep", "bounds": None, "datasets": [],
                         "note": "the script never iterated a DataLoader (%d created)" % len(_S.loaders)})
        except Exception:
            pass


# --------------------------------------------------------------------------
# installation
# --------------------------------------------------------------------------

def _arm():
    if _S.armed:
        return
    torch = _torch()
    if torch is None:
        return
    _S.armed = True
    _S.main_pid = os.getpid()
    global _LIB_ROOTS
    _LIB_ROOTS = None
    _USER_CACHE.clear()
    try:
        _S.real_cuda_available = bool(torch.cuda.is_available())
    except Exception:
        _S.real_cuda_available = False
    if _S.cpu:
        try:
            _install_cpu_mapping()
        except Exception as e:
            _err("cudasleuth: CPU mapping incomplete: %s" % _short_exc(e))
    try:
        _patch_dataloader()
    except Exception as e:
        _err("cudasleuth: DataLoader tracking not installed: %s" % _short_exc(e))
    if _S.mode == "guard":
        try:
            _S.guard_cls = _make_guard_class()
        except Exception as e:
            _err("cudasleuth: guard not available in torch %s: %s" % (torch.__version__, _short_exc(e)))
        try:
            _patch_one_hot()
        except Exception:
            pass
    else:
        try:
            _patch_module_sites()
        except Exception:
            pass
        import atexit
        atexit.register(_sweep_atexit)
    _enter_modes()
    try:
        _patch_threads()
    except Exception:
        pass
    try:
        os.register_at_fork(after_in_child=_after_fork_child)
    except Exception:
        pass
    try:
        _write_json("loaded-%d.json" % os.getpid(), {
            "pid": os.getpid(), "rank": _rank(), "argv": list(sys.argv), "python": sys.version.split()[0],
            "torch": torch.__version__, "mode": _S.mode, "cpu": bool(_S.cpu),
            "cuda_available": _S.real_cuda_available})
    except Exception as e:
        _err("cudasleuth: could not write to %s: %s" % (_S.out, e))


class _TorchLoader(object):
    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        cm = getattr(self._loader, "create_module", None)
        return cm(spec) if cm else None

    def exec_module(self, module):
        self._loader.exec_module(module)
        try:
            spec = getattr(module, "__spec__", None)
            if spec is not None and spec.loader is self:
                spec.loader = self._loader
            if getattr(module, "__loader__", None) is self:
                module.__loader__ = self._loader
        except Exception:
            pass
        _remove_finder()
        try:
            _arm()
        except Exception as e:
            _err("cudasleuth: shim not armed: %s" % _short_exc(e))

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _TorchFinder(object):
    def __init__(self):
        self.busy = False

    def find_spec(self, name, path=None, target=None):
        if name != "torch" or self.busy:
            return None
        self.busy = True
        try:
            spec = None
            for f in sys.meta_path:
                if f is self:
                    continue
                fs = getattr(f, "find_spec", None)
                if fs is None:
                    continue
                try:
                    spec = fs(name, path, target)
                except Exception:
                    spec = None
                if spec is not None:
                    break
        finally:
            self.busy = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None
        spec.loader = _TorchLoader(spec.loader)
        return spec


def _remove_finder():
    f = _S.finder
    if f is not None:
        try:
            sys.meta_path.remove(f)
        except ValueError:
            pass
        _S.finder = None


def install():
    """Arm the shim now if torch is imported, else as soon as torch finishes importing."""
    if _S.installed:
        return
    _S.installed = True
    _read_env()
    tm = sys.modules.get("torch")
    if tm is not None and hasattr(tm, "Tensor") and hasattr(tm, "ops"):
        _arm()
        return
    _S.finder = _TorchFinder()
    sys.meta_path.insert(0, _S.finder)


def load_ipython_extension(ip):
    """``%load_ext cudasleuth_shim``: arm the shim in an IPython session (raise instead of exiting)."""
    _S.exit_on_violation = False
    if not os.environ.get("CUDASLEUTH_OUT"):
        _S.out = None
    install()
    if sys.modules.get("torch") is not None and not _S.armed:
        _arm()


def unload_ipython_extension(ip):
    pass
