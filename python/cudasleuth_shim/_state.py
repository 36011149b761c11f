"""The shim's constants and its one piece of shared mutable state (`_S`), and how it knows its
own files. Every other module of the package imports this one; it imports none of them."""

import collections
import os
import threading

# this module's file; the package's directory holds every module of the shim, and the loader's
# sitecustomize.py is beside that directory
_SHIM_FILE = os.path.realpath(__file__) if "__file__" in globals() else "<cudasleuth_shim>"
if _SHIM_FILE.endswith((".pyc", ".pyo")):
    _SHIM_FILE = _SHIM_FILE[:-1]
_SHIM_DIR = os.path.dirname(_SHIM_FILE)


def _is_shim_file(p):
    """Whether the real path `p` is one of the shim's own files (any module of the package, or the
    loader)."""
    return p == _SHIM_FILE or p.startswith(_SHIM_DIR + os.sep) or \
        (os.path.basename(p) == "sitecustomize.py" and os.path.dirname(p) == os.path.dirname(_SHIM_DIR))


# exit statuses: a guarded op's bad value, a CUDA call the CPU mapping cannot map
EXIT_VIOLATION = 86
EXIT_UNMAPPED = 3
# caps: bad positions listed in a witness, frames in its stack, bad samples per swept dataset,
# replays of one sample
MAX_BAD = 64
MAX_STACK = 50
MAX_SWEEP_BAD = 10000
MAX_REPLAYS = 64


class _State(object):
    """What the shim knows about this process; one instance, `_S`, shared by every module."""

    def __init__(self):
        self.installed = False
        self.armed = False
        self.finder = None
        self.out = None
        self.mode = "guard"
        self.cpu = False
        self.no_values = False
        self.project = None
        self.exit_on_violation = True
        self.tripped = False
        self.lock = threading.Lock()
        self.guard_cls = None
        self.cpu_mode_cls = None
        self.cur_batch = None
        self.prev_batch = None
        self.rng = collections.OrderedDict()
        self.recording_rng = True
        self.loaders = []
        self.swept = False
        self.sweeping = False
        self.module_sites = None
        self.real_cuda_available = None
        self.main_pid = os.getpid()
        self.prev_excepthook = None
        # integer tensors of the current batch: id -> (weakref, where their values changed)
        self.taint = {}
        # the born-at pass (born._Born) when CUDASLEUTH_BORN names a spec; the seed both runs use
        self.born = None
        self.seed = None
        # the first run's record of the files the command creates (_files._Recorder)
        self.created = None


_S = _State()
