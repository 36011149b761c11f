"""Guard mode's checkers: for each guarded aten operator, the predicate its CUDA kernel asserts,
checked on the host before the kernel runs; and the TorchDispatchMode (and the F.one_hot
wrapper) that runs them."""

from ._state import _S
from ._util import _torch
from .report import _report
from .tracking import _propagate_taint


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
    except (AttributeError, RuntimeError):
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
                     {"name": "num_embeddings", "value": n}, {"indices": idx}, 0, n,
                     extra={"_weight": w})
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


def _chk_bernoulli(func, a, k):
    """bernoulli(p), bernoulli_(self, p): every probability in [0, 1] (the kernel asserts
    `0 <= p && p <= 1`; NaN fails it too)."""
    torch = _torch()
    overload = getattr(func, "_overloadname", "default")
    p = _arg(a, k, 0, "self") if overload in ("default", "out") else _arg(a, k, 1, "p")
    if isinstance(p, (int, float)) and not isinstance(p, bool):
        if 0 <= p <= 1:
            return None
        p = torch.tensor([float(p)])
    if not isinstance(p, torch.Tensor) or p.numel() == 0 or not p.is_floating_point() or p.device.type == "meta":
        return None
    bad = (p < 0) | (p > 1) | torch.isnan(p)
    if not bool(bad.any()):
        return None
    return _viol("bernoulli", _aten_name(func), "probability_out_of_range", "0 <= p <= 1", "p", p, bad,
                 {"name": "range", "value": [0, 1]}, {"p": p}, range_text="[0, 1]")


def _chk_poisson(func, a, k):
    """poisson(rates): every rate >= 0 (the kernel asserts `lambda >= 0`; NaN fails it too)."""
    torch = _torch()
    r = _arg(a, k, 0, "self")
    if not isinstance(r, torch.Tensor) or r.numel() == 0 or not r.is_floating_point() or r.device.type == "meta":
        return None
    bad = (r < 0) | torch.isnan(r)
    if not bool(bad.any()):
        return None
    return _viol("poisson", _aten_name(func), "invalid_distribution", "rate >= 0", "input", r, bad,
                 None, {"input": r}, range_text="[0, inf)")


def _chk_take(op, index_pos):
    """take(self, index), put(_)(self, index, source): every flat index in [-numel, numel)."""
    def chk(func, a, k):
        x = _arg(a, k, 0, "self")
        idx = _arg(a, k, index_pos, "index")
        n = x.numel()
        bad = _range_bad(idx, -n, n)
        if bad is None:
            return None
        return _viol(op, _aten_name(func), "index_out_of_range", "-numel <= index < numel", "index", idx, bad,
                     {"name": "numel", "value": n}, {"index": idx}, -n, n)
    return chk


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
        except (AttributeError, RuntimeError):  # not in this torch (1.13 raises RuntimeError)
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
    add("bernoulli", _chk_bernoulli)
    add("bernoulli_", _chk_bernoulli)
    add("poisson", _chk_poisson)
    add("take", _chk_take("take", 1))
    for n in ("put", "put_"):
        add(n, _chk_take("take", 1))
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
    except Exception:  # broad: a check of arbitrary operands must never break the op
        return
    if v is not None:
        _report(v)


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
                except Exception:  # broad: in the dispatch handler, the op has run
                    pass
            return out

    return CudasleuthGuard


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
            except Exception:  # broad: the user's call, whatever they passed
                v = None
            if v is not None:
                _report(v)
        return orig(tensor, num_classes)

    one_hot._cudasleuth = True
    one_hot.__doc__ = orig.__doc__
    F.one_hot = one_hot
