"""Where a batch's integer tensors change on the way to the op, outside __getitem__: the tensors
the DataLoader returned are remembered, and the guard passes their record on to the outputs of
each op that consumes them, with the user line that changed the values."""

import linecache
import os
import sys
import weakref

from ._state import _S
from ._util import _int_tensor, _is_user_file, _torch


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
