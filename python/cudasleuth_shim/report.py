"""Guard reporting: on the first violation, the operands as .npy files, `witness-<pid>.json`
(written once before the provenance analysis and once after it), one line on stderr, and the
exit (status 86) or, in an interactive session, a RuntimeError."""

import math
import os
import sys

from ._npy import _write_npy
from ._state import EXIT_VIOLATION, MAX_BAD, _S
from ._util import (_capture_stack, _dtype_name, _err, _innermost_user, _out_dir, _rank, _scalar, _short_exc,
                    _torch, _write_json)
from . import born as _born
from .provenance import _name_the_step, _provenance


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
    # (a NaN or an infinity has no integer part to compare with)
    if isinstance(x, float) and math.isfinite(x) and x == int(x) and abs(x) < 1e15:
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
    except (OSError, ValueError):
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
    except (RuntimeError, TypeError, ValueError, IndexError) as e:
        bad.append({"position": None, "value": None, "sample": None, "error": str(e)})
    batch = None
    if cur is not None:
        batch = {"indices": list(cur.get("indices") or []), "loader": cur.get("loader"),
                 "batch_number": cur.get("batch_number")}
    user = _innermost_user(stack)
    w = {"version": 1, "kind": "witness", "op": v["op"], "aten": v["aten"], "category": v["category"],
         "predicate": v["predicate"], "tensor": v["tensor_name"], "bound": v["bound"]}
    extra = dict(v.get("extra") or {})
    weight = extra.pop("_weight", None)
    w.update(extra)
    try:
        w.update({"shape": list(t.shape), "dtype": _dtype_name(t), "device": str(t.device)})
    except (AttributeError, TypeError, RuntimeError):
        pass
    w.update({"bad": bad, "bad_count": bad_count, "stack": stack, "batch": batch, "tensors": {},
              "rank": _rank(), "pid": pid, "torch": getattr(torch, "__version__", None),
              "cuda_launch_blocking": os.environ.get("CUDA_LAUNCH_BLOCKING") == "1",
              "compile_disabled": os.environ.get("TORCHDYNAMO_DISABLE") == "1",
              "cpu_mapped": bool(_S.cpu),
              "provenance": {"kind": "not_replayable", "reason": "provenance analysis did not finish"}})
    name = "witness-%d.json" % pid
    if _S.born is not None:
        # the born-at pass re-runs nothing: it follows the value back through what it traced,
        # and writes its result before the witness (repro stops the run soon after a witness)
        _born.stop()
        w["provenance"] = {"kind": "not_replayable", "reason": "the born-at pass does not replay samples"}
        try:
            res = _born.at_trip(first_value, first_sample, v["op"], weight, t)
            if res is not None:
                _write_json("born-%d.json" % pid, res)
        except Exception as e:  # broad: walks what the tracer kept of the user's objects
            _err("cudasleuth: born-at pass failed: %s" % _short_exc(e))
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
            except (OSError, RuntimeError, TypeError, ValueError, OverflowError):
                pass
    try:
        _write_json(name, w)
    except (OSError, TypeError, ValueError) as e:
        _err("cudasleuth: could not write witness: %s" % e)
    if _S.born is None:
        try:
            w["provenance"] = _provenance(first_value, first_sample, cur)
        except BaseException as e:  # broad: replays run the user's __getitem__ (even sys.exit)
            w["provenance"] = {"kind": "not_replayable", "reason": "provenance failed: %s" % _short_exc(e)}
    try:
        _name_the_step(w, t)
    except (KeyError, TypeError, AttributeError):
        pass
    try:
        _write_json(name, w)
    except (OSError, TypeError, ValueError) as e:
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
    except (OSError, ValueError, AttributeError):
        pass
    if _S.exit_on_violation:
        os._exit(EXIT_VIOLATION)
    _S.tripped = False  # interactive session: keep guarding after this error
    raise RuntimeError("cudasleuth: %s violates %s (witness in %s)" % (v["op"], v["predicate"],
                                                                      os.path.join(_out_dir(), name)))
