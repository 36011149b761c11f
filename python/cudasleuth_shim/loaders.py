"""DataLoader tracking: which dataset, which sample indices and which RNG state each batch came
from (guard mode), or the datasets to sweep and the first iteration that starts the sweep
(sweep mode)."""

import collections
import os
import sys

from ._rng import _rng_snapshot
from ._state import _S
from ._util import _caller_site, _is_iterable_ds, _torch
from .sweep import _run_sweep
from .tracking import _taint_batch


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
            except Exception:  # broad: a hook in the user's __getitem__ (reads their attributes)
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
        if _S.born is not None:
            # the born-at pass follows samples in this process: no worker processes
            k["num_workers"] = 0
            k.pop("persistent_workers", None)
            k.pop("prefetch_factor", None)
            k.pop("multiprocessing_context", None)
            if len(a) >= 5:
                a = a[:4] + (0,) + a[5:]
            if len(a) >= 5:
                k.pop("num_workers")
        orig_dl_init(self, dataset, *a, **k)
        if _S.sweeping:
            return
        try:
            rec = {"dataset": dataset, "collate_fn": getattr(self, "collate_fn", None),
                   "batch_size": getattr(self, "batch_size", None), "created": _caller_site()}
            _S.loaders.append(rec)
        except Exception:  # broad: a hook in DataLoader.__init__ (subclasses' attributes)
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
                except Exception:  # broad: a hook in the iterator; reads the user's dataset
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
        except Exception:  # broad: a hook in the iterator; walks the user's batch
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
