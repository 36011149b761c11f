"""CPU mapping (`CUDASLEUTH_CPU=1`): a script written for CUDA runs on the CPU; a CUDA-only call
that cannot be mapped is reported as `unmapped-<pid>.json` and exit status 3."""

import os
import re
import sys
import traceback

from ._state import EXIT_UNMAPPED, _S
from ._util import _err, _is_user_file, _torch, _write_json


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
            except AttributeError:
                pass
    except (ImportError, AttributeError, RuntimeError):
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
    except ImportError:
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
            except (OSError, TypeError, ValueError):
                pass
            try:
                sys.stdout.flush()
            except (OSError, ValueError, AttributeError):
                pass
            os._exit(EXIT_UNMAPPED)
    except Exception:  # broad: an excepthook; whatever fails here, the previous hook still reports
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
