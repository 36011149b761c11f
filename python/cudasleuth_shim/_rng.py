"""Snapshots of the random number generators (torch, random, numpy, and the generators a dataset
holds) so that a sample can be replayed under the state it was first drawn with."""

import sys

from ._util import _torch


def _rng_snapshot(ds):
    torch = _torch()
    st = {"torch": torch.get_rng_state()}
    import random
    st["random"] = random.getstate()
    np = sys.modules.get("numpy")
    if np is not None:
        try:
            st["numpy"] = np.random.get_state()
        except (AttributeError, TypeError, ValueError):
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
        except (RuntimeError, TypeError):
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
