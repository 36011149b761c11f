"""Sweep mode: the label bounds read from the model objects in the calling frames, every sample of
every dataset handed to a DataLoader checked on the CPU, `sweep-<pid>.json` written."""

import os
import sys
import time

from ._state import MAX_SWEEP_BAD, _S
from ._util import (_caller_site, _err, _int_scalar, _int_tensor, _is_iterable_ds, _is_user_file, _out_dir,
                    _short_exc, _torch, _write_json)

# How far the sweep is, for cudasleuth's progress line: "CHECKED TOTAL CLASS" (TOTAL "?" for an
# iterable dataset), rewritten at most twice a second.
PROGRESS = ".progress"


class _Progress(object):
    def __init__(self, cls, total):
        self.cls, self.total, self.last = cls, total, 0.0

    def tick(self, checked, force=False):
        now = time.time()
        if not force and now - self.last < 0.5:
            return
        self.last = now
        try:
            d = _out_dir()
            tmp = os.path.join(d, ".progress.%d.tmp" % os.getpid())
            with open(tmp, "w") as f:
                f.write("%d %s %s\n" % (checked, "?" if self.total is None else self.total, self.cls))
            os.replace(tmp, os.path.join(d, PROGRESS))
        except (OSError, TypeError):
            pass


_LABEL_KEYS = ("label", "labels", "target", "targets", "y", "mask", "masks")
_TOKEN_KEYS = ("input_ids", "tokens", "token_ids")


def _identity_collate(batch):
    return batch


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
        except Exception as e:  # broad: the user's __getitem__
            return (i, None, _short_exc(e))
        try:
            return (i, _check_sample(i, s, self.bounds), None)
        except (RuntimeError, TypeError, ValueError, AttributeError, IndexError, KeyError) as e:
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
                    except (TypeError, AttributeError):
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
        except Exception:  # broad: a hook in every nn.Module.__init__ (user __hash__)
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
        progress = _Progress(res["class"], None)
        try:
            for s in ds:
                try:
                    add(_check_sample(i, s, bounds))
                except (RuntimeError, TypeError, ValueError, AttributeError, IndexError, KeyError) as e:
                    errors.append({"index": i, "error": _short_exc(e)})
                i += 1
                progress.tick(i)
                if i >= 1000000 or time.time() - t0 > 300:
                    res["note"] += "; stopped after %d samples" % i
                    break
        except Exception as e:  # broad: the user's __iter__
            errors.append({"index": i, "error": _short_exc(e)})
        res["checked"] = i
        res["length"] = i
        res["seconds"] = round(time.time() - t0, 3)
        return res
    try:
        res["length"] = len(ds)
    except Exception as e:  # broad: the user's __len__
        res["note"] = "dataset has no length: %s" % _short_exc(e)
        return res
    wrapped = _SweepDataset(ds, bounds)
    nw = min(4, os.cpu_count() or 1)
    progress = _Progress(res["class"], res["length"])

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
            progress.tick(checked)
        progress.tick(checked, force=True)
        return out_bad, out_err, checked

    try:
        b, e, checked = walk(nw) if nw > 0 else walk(0)
    except Exception:  # broad: workers pickle and run the user's dataset; retry in-process
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
        except Exception as e:  # broad: inspects every object in the user's frames
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
            except Exception as e:  # broad: runs the user's dataset; the others still get swept
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
    except BaseException as e:  # broad: the sweep entry (from a DataLoader hook), then exit 0
        _err("cudasleuth: sweep failed: %s" % _short_exc(e))
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass
    os._exit(0)


def _sweep_atexit():
    if not _S.swept and _S.mode == "sweep" and os.getpid() == _S.main_pid:
        _S.swept = True
        try:
            _write_json("sweep-%d.json" % os.getpid(),
                        {"version": 1, "kind": "sweep", "bounds": None, "datasets": [],
                         "note": "the script never iterated a DataLoader (%d created)" % len(_S.loaders)})
        except Exception:  # broad: an atexit handler
            pass
