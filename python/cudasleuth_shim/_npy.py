""".npy writing for the witness's operands (numpy when importable, else a writer of its own)."""

import os
import sys

from ._util import _dtype_name, _torch


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
