"""Small utilities shared by the whole shim: the environment, the output directory and its JSON
files, stderr messages, which files are the user's, stack capture, and small tensor helpers.

Imports only `_state`."""

import json
import linecache
import os
import sys

from ._state import MAX_STACK, _S, _is_shim_file


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
    try:
        _S.seed = int(os.environ["CUDASLEUTH_SEED"]) if os.environ.get("CUDASLEUTH_SEED") else None
    except ValueError:
        _S.seed = None


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
    except Exception:  # broad: the last-resort reporter of every hook; sys.stderr may be any object
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
    except (ImportError, KeyError, OSError, ValueError):
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


def _forget_user_files():
    """Classify every file afresh (once torch is imported, its directory is a library root)."""
    global _LIB_ROOTS
    _LIB_ROOTS = None
    _USER_CACHE.clear()


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


def _torch():
    return sys.modules.get("torch")


def _dtype_name(t):
    return str(t.dtype).replace("torch.", "")


def _scalar(x):
    try:
        if hasattr(x, "item"):
            x = x.item()
    except (RuntimeError, TypeError, ValueError):
        return None
    if isinstance(x, bool):
        return x
    if isinstance(x, (int, float)):
        return x
    return str(x)


def _short_exc(e):
    return "%s: %s" % (type(e).__name__, str(e)[:300])


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


def _is_iterable_ds(ds):
    torch = _torch()
    try:
        return isinstance(ds, torch.utils.data.IterableDataset)
    except (AttributeError, TypeError):
        return False
