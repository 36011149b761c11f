"""Installation: an import hook that arms the shim once torch has finished importing, and the
arming itself (CPU mapping, DataLoader tracking, the guard or sweep, the modes pushed on every
thread, `loaded-<pid>.json`)."""

import os
import sys
import threading

from . import _files, _util, born
from ._state import _S
from ._util import _err, _rank, _read_env, _short_exc, _torch, _write_json
from .cpu import _install_cpu_mapping
from .guards import _make_guard_class, _patch_one_hot
from .loaders import _after_fork_child, _patch_dataloader
from .sweep import _patch_module_sites, _sweep_atexit


def _enter_modes():
    """Push the shim's modes on the current thread."""
    try:
        if _S.cpu_mode_cls is not None:
            _S.cpu_mode_cls().__enter__()
    except Exception as e:  # broad: runs at every thread start; the thread must start
        _err("cudasleuth: CPU device mode not entered: %s" % e)
    try:
        if _S.guard_cls is not None:
            m = _S.guard_cls()
            m.__enter__()
    except Exception as e:  # broad: runs at every thread start; the thread must start
        _err("cudasleuth: guard mode not entered: %s" % e)


def _patch_threads():
    T = threading.Thread
    orig = getattr(T, "_bootstrap_inner", None)
    if orig is None or getattr(orig, "_cudasleuth", False):
        return

    def _bootstrap_inner(self):
        _enter_modes()
        return orig(self)

    _bootstrap_inner._cudasleuth = True
    T._bootstrap_inner = _bootstrap_inner


def _seed_python():
    """Both runs of a repro start Python's and (once imported) numpy's and torch's generators
    from the same seed, so the born-at pass meets the same samples as the guarded run."""
    if _S.seed is None:
        return
    import random
    random.seed(_S.seed)


def _seed_libraries():
    if _S.seed is None:
        return
    np = sys.modules.get("numpy")
    if np is not None:
        try:
            np.random.seed(_S.seed % (2 ** 32))
        except (AttributeError, TypeError, ValueError):
            pass
    try:
        _torch().manual_seed(_S.seed)
    except (AttributeError, RuntimeError, TypeError):
        pass


def _note_bound_modules():
    """In the born-at pass, remember where each module that sets a bound was built."""
    nn = _torch().nn
    sizes = {"Linear": "out_features", "Embedding": "num_embeddings", "EmbeddingBag": "num_embeddings",
             "Conv1d": "out_channels", "Conv2d": "out_channels", "Conv3d": "out_channels", "LazyLinear": "out_features"}
    for cls_name, attr in sizes.items():
        cls = getattr(nn, cls_name, None)
        if cls is None or getattr(cls.__init__, "_cudasleuth", False):
            continue
        orig = cls.__init__

        def init(self, *a, _orig=orig, _attr=attr, **k):
            _orig(self, *a, **k)
            try:
                born.note_module(self, getattr(self, "weight", None), getattr(self, _attr, None))
            except Exception:  # broad: reads the module just built; the user's model must build
                pass

        init._cudasleuth = True
        cls.__init__ = init


def _patch_save(torch):
    """`torch.save` to a path writes the file from C++, where no audit event says so."""
    orig = getattr(torch, "save", None)
    if orig is None or getattr(orig, "_cudasleuth", False):
        return

    def save(obj, f, *a, **k):
        _files.note_written(f)
        return orig(obj, f, *a, **k)

    save.__doc__, save.__name__, save._cudasleuth = orig.__doc__, orig.__name__, True
    torch.save = save


def _arm():
    if _S.armed:
        return
    torch = _torch()
    if torch is None:
        return
    _S.armed = True
    _S.main_pid = os.getpid()
    _util._forget_user_files()
    _seed_libraries()
    if _S.born is not None:
        try:
            _note_bound_modules()
        except (AttributeError, TypeError) as e:
            _err("cudasleuth: module constructions not followed: %s" % _short_exc(e))
    try:
        _S.real_cuda_available = bool(torch.cuda.is_available())
    except (RuntimeError, AttributeError, OSError):
        _S.real_cuda_available = False
    if _S.cpu:
        try:
            _install_cpu_mapping()
        except Exception as e:  # broad: install step over torch internals; the rest still arms
            _err("cudasleuth: CPU mapping incomplete: %s" % _short_exc(e))
    try:
        _patch_dataloader()
    except Exception as e:  # broad: install step over torch internals; the rest still arms
        _err("cudasleuth: DataLoader tracking not installed: %s" % _short_exc(e))
    if _S.created is not None:
        _patch_save(torch)
    if _S.mode == "guard":
        try:
            _S.guard_cls = _make_guard_class()
        except Exception as e:  # broad: install step over torch internals; the rest still arms
            _err("cudasleuth: guard not available in torch %s: %s" % (torch.__version__, _short_exc(e)))
        try:
            _patch_one_hot()
        except (AttributeError, TypeError):
            pass
    else:
        try:
            _patch_module_sites()
        except (AttributeError, TypeError):
            pass
        import atexit
        atexit.register(_sweep_atexit)
    _enter_modes()
    try:
        _patch_threads()
    except (AttributeError, TypeError):
        pass
    try:
        os.register_at_fork(after_in_child=_after_fork_child)
    except (AttributeError, TypeError):  # no fork on this platform
        pass
    try:
        _write_json("loaded-%d.json" % os.getpid(), {
            "pid": os.getpid(), "rank": _rank(), "argv": list(sys.argv), "python": sys.version.split()[0],
            "torch": torch.__version__, "mode": _S.mode, "cpu": bool(_S.cpu),
            "cuda_available": _S.real_cuda_available})
    except (OSError, TypeError, ValueError, AttributeError) as e:
        _err("cudasleuth: could not write to %s: %s" % (_S.out, e))


class _TorchLoader(object):
    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        cm = getattr(self._loader, "create_module", None)
        return cm(spec) if cm else None

    def exec_module(self, module):
        self._loader.exec_module(module)
        try:
            spec = getattr(module, "__spec__", None)
            if spec is not None and spec.loader is self:
                spec.loader = self._loader
            if getattr(module, "__loader__", None) is self:
                module.__loader__ = self._loader
        except (AttributeError, TypeError):
            pass
        _remove_finder()
        try:
            _arm()
        except Exception as e:  # broad: the install entry, inside the user's `import torch`
            _err("cudasleuth: shim not armed: %s" % _short_exc(e))

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _TorchFinder(object):
    def __init__(self):
        self.busy = False

    def find_spec(self, name, path=None, target=None):
        if name != "torch" or self.busy:
            return None
        # the born-at pass traces the processes that import torch, from here on
        born.arm()
        self.busy = True
        try:
            spec = None
            for f in sys.meta_path:
                if f is self:
                    continue
                fs = getattr(f, "find_spec", None)
                if fs is None:
                    continue
                try:
                    spec = fs(name, path, target)
                except Exception:  # broad: another finder (third-party code) may raise anything
                    spec = None
                if spec is not None:
                    break
        finally:
            self.busy = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None
        spec.loader = _TorchLoader(spec.loader)
        return spec


def _remove_finder():
    f = _S.finder
    if f is not None:
        try:
            sys.meta_path.remove(f)
        except ValueError:
            pass
        _S.finder = None


def _note_process():
    """Under repro, leave ``proc-<pid>`` (pid, process group, start time) in the output directory:
    a process that left the command's group (a daemon started with ``start_new_session=True``)
    is then stopped with the group; the start time tells it from a later process of the same pid."""
    if not os.environ.get("CUDASLEUTH_OUT"):
        return
    try:
        with open("/proc/self/stat") as f:
            stat = f.read()
        fields = stat[stat.rindex(")") + 2:].split()
        line = "%d %d %d\n" % (os.getpid(), int(fields[2]), int(fields[19]))
        d = _util._out_dir()
        with open(os.path.join(d, "proc-%d" % os.getpid()), "w") as f:
            f.write(line)
    except (OSError, ValueError, IndexError):
        pass


def install():
    """Arm the shim now if torch is imported, else as soon as torch finishes importing."""
    if _S.installed:
        return
    _S.installed = True
    _read_env()
    _note_process()
    if os.environ.get("CUDASLEUTH_OUT") and not os.environ.get("CUDASLEUTH_BORN") and _S.mode == "guard":
        _files.record(_util._out_dir())
    _seed_python()
    try:
        born.start()
    except (OSError, ValueError, TypeError) as e:
        _err("cudasleuth: born-at pass not started: %s" % _short_exc(e))
    tm = sys.modules.get("torch")
    if tm is not None and hasattr(tm, "Tensor") and hasattr(tm, "ops"):
        _arm()
        return
    _S.finder = _TorchFinder()
    sys.meta_path.insert(0, _S.finder)
