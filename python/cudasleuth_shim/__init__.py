"""cudasleuth shim: the Python half of ``cudasleuth repro``.

This package is loaded into the user's training process (through the
``sitecustomize.py`` next to it, through ``%load_ext cudasleuth_shim`` in
IPython, or by calling ``cudasleuth_shim.install()`` from a script).  It stays
dormant until ``torch`` has finished importing, so processes that never import
torch are left alone.  Once torch is imported it arms itself and writes
``loaded-<pid>.json`` into the output directory.

Modes (``CUDASLEUTH_MODE``):

* ``guard`` (default): a ``TorchDispatchMode`` is pushed for the whole process
  (and in every new Python thread).  For a small set of aten operators whose
  CUDA kernels contain a device-side assert (nll_loss, nll_loss2d, embedding,
  embedding_bag, index, index_put, index_select, index_add, index_copy,
  index_fill, gather, scatter*, multinomial, binary_cross_entropy, bernoulli, and
  ``F.one_hot``) the predicate that the kernel asserts is checked on the host
  before the kernel runs.  All other operators pass straight through through a
  single dictionary lookup.  On the first violation the shim writes the
  offending operands as ``.npy`` files, ``witness-<pid>.json`` (which op, which
  predicate, which positions, which dataset samples, the Python stack, and a
  provenance analysis that replays ``dataset[idx]`` under a line tracer to name
  the line of ``__getitem__`` that produced the bad value), prints one line to
  stderr and exits with status 86.
* ``sweep``: nothing trains.  Every Dataset handed to a DataLoader is
  recorded; when the script first iterates a DataLoader the shim derives the
  label bounds from the model objects it can see (last ``nn.Linear``,
  ``nn.Embedding``, the loss' ``ignore_index``), checks every sample of every
  recorded dataset on the CPU and writes ``sweep-<pid>.json``, then exits 0.

``CUDASLEUTH_CPU=1`` maps a script written for CUDA onto the CPU
(``.cuda()``, ``.to('cuda')``, ``device=`` arguments, ``map_location``, NCCL,
``torch.cuda.*`` functions; autocast and GradScaler disable themselves once the
GPUs are hidden).  A CUDA-only call that
cannot be mapped is reported as ``unmapped-<pid>.json`` and exit status 3.
``CUDASLEUTH_NO_VALUES=1`` keeps tensor values out of every output.

``CUDASLEUTH_BORN=<spec.json>`` arms the born-at pass (``born``) and
``CUDASLEUTH_SEED`` seeds random, numpy and torch when torch is imported (``cudasleuth
repro`` sets both for its second run, and the seed for both runs).

Other environment: ``CUDASLEUTH_OUT`` (output directory; defaults to
``./cudasleuth-out``), ``CUDASLEUTH_PROJECT`` (project root: frames below it
are user code).

Supported: Python 3.9+, torch 1.13 through 2.x (tested on 1.13; only public
or long-standing APIs are used and version differences are guarded).  Only the
standard library and torch are required; numpy is used when importable.

The package is flat (no sub-packages: ``cudasleuth repro`` writes every
``*.py`` of it into one directory beside its ``sitecustomize.py``).  Its
modules, in import order: each imports only modules above it in this list, at
the top of the file, so there is no import cycle.

* ``_state``: constants, the shared state ``_S``, which files are the shim's
* ``_files``: the files the first run creates, hidden from the born-at pass until it writes them
* ``_util``: environment, output directory and JSON files, stderr, user files,
  stacks, small tensor helpers
* ``_npy``: .npy writing
* ``tracking``: a batch's integer tensors on their way to the op
* ``_rng``: RNG snapshots for replays
* ``sweep``: sweep mode
* ``loaders``: DataLoader tracking (starts the sweep in sweep mode)
* ``provenance``: replaying a sample under a line tracer
* ``born``: the born-at pass (``CUDASLEUTH_BORN``): a traced second run that follows the
  caught value back to the line that made it
* ``report``: the witness
* ``guards``: the checkers and the dispatch mode that runs them
* ``cpu``: CPU mapping
* ``install``: the import hook and arming
* ``__init__``: the public surface (``install``, the IPython extension hooks)

Everything the shim writes is described by ``output.schema.json`` next to
these modules (one ``$defs`` entry per file kind).
"""

import os
import sys

from ._npy import _write_npy  # noqa: F401 (tests/shim writes .npy files through it)
from ._state import EXIT_UNMAPPED, EXIT_VIOLATION, _S  # noqa: F401
from .install import _arm, install

__all__ = ["install", "load_ipython_extension", "unload_ipython_extension", "EXIT_VIOLATION", "EXIT_UNMAPPED"]


def load_ipython_extension(ip):
    """``%load_ext cudasleuth_shim``: arm the shim in an IPython session (raise instead of exiting)."""
    _S.exit_on_violation = False
    if not os.environ.get("CUDASLEUTH_OUT"):
        _S.out = None
    install()
    if sys.modules.get("torch") is not None and not _S.armed:
        _arm()


def unload_ipython_extension(ip):
    pass
