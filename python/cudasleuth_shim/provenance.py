"""Provenance: replay `dataset[idx]` of the sample that held the bad value under a line tracer and
name the line of `__getitem__` that produced it (`code_line`), or say that the value was
already in the data (`raw_data`), appeared after `__getitem__` (`outside_getitem`), or why the
sample cannot be replayed (`not_replayable`)."""

import linecache
import os
import re
import sys

from ._rng import _rng_restore, _rng_snapshot
from ._state import MAX_REPLAYS, _S
from ._util import _is_iterable_ds, _is_user_file, _short_exc, _torch
from .tracking import _taint_of


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
        except (RuntimeError, TypeError, ValueError):
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
        except (RuntimeError, TypeError, ValueError):
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
            except Exception:  # broad: in the trace callback, over arbitrary user locals
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
            except Exception:  # broad: a settrace callback must not raise into the traced code
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
    except (ImportError, TypeError):
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
    except (RuntimeError, TypeError, ValueError, AttributeError):
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
                            except Exception:  # broad: the user's __getitem__
                                pass
                except (RuntimeError, TypeError, ValueError, AttributeError, KeyError):
                    continue
            try:
                with torch.no_grad():
                    out, tr = _replay(ds, sample, value)
            except Exception as e:  # broad: the user's __getitem__
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
            except (RuntimeError, TypeError, ValueError, AttributeError, KeyError):
                pass
