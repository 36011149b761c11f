"""Files the command made: the born-at pass must meet the project as the first run met it.

The first run of ``cudasleuth repro`` notes every file its processes create (an audit hook on
``open`` for writing and on renames, and ``torch.save`` to a path, which opens its file in C++)
in ``created-<pid>.txt`` of the output directory.  The born-at pass runs the same command again;
without this, a Dataset that caches its preprocessing (``if os.path.exists(cache): load it``)
would load what the first run saved, and the line that made the bad value would never run.  So
in the pass a file the first run created is not there (``os.stat``, ``open`` for reading,
``os.listdir``, ``os.scandir`` say so) until the pass writes it itself: a file modified after
the pass began is the pass's own.  Files that were there before the first run are left as they
are; nothing is deleted or written by the shim."""

import builtins
import errno
import io
import os
import sys

from ._state import _S

_STAT = os.stat  # as it was before the pass replaced it
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | getattr(os, "O_APPEND", 0)


def _path_of(p):
    try:
        p = os.fspath(p)
    except TypeError:
        return None
    if isinstance(p, bytes):
        try:
            p = os.fsdecode(p)
        except (UnicodeDecodeError, ValueError):
            return None
    return p if isinstance(p, str) and p else None


def _writes(mode, flags):
    if isinstance(mode, str):
        return any(c in mode for c in "wax+")
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)


class _Recorder(object):
    """The first run's side: append each file created to ``created-<pid>.txt``."""

    def __init__(self, out):
        self.out = out
        self.path = os.path.join(out, "created-%d.txt" % os.getpid())
        self.seen = set()
        self.busy = False

    def note(self, p):
        p = _path_of(p)
        if p is None or self.busy:
            return
        self.busy = True
        try:
            real = os.path.realpath(p)
            if real in self.seen or real.startswith(self.out + os.sep):
                return
            try:
                _STAT(real)
                return  # there already: not made by this run (or noted when it was)
            except OSError:
                pass
            self.seen.add(real)
            with io.open(self.path, "a") as fh:
                fh.write(real + "\n")
        except (OSError, ValueError):
            pass
        finally:
            self.busy = False

    def hook(self, event, args):
        if event == "open":
            if len(args) >= 3 and _writes(args[1], args[2]):
                self.note(args[0])
        elif event == "os.rename":
            if len(args) >= 2:
                self.note(args[1])


class _Hider(object):
    """The born-at pass's side: the first run's files are absent until the pass writes them."""

    def __init__(self, created, since):
        self.created = created
        self.names = {os.path.basename(p) for p in created}
        self.since = since

    def hidden(self, p):
        p = _path_of(p)
        if p is None or os.path.basename(p.rstrip(os.sep)) not in self.names:
            return False
        real = os.path.realpath(p)
        if real not in self.created:
            return False
        try:
            return _STAT(real).st_mtime < self.since
        except OSError:
            return False

    def shows(self, name, path):
        """Whether a directory's entry `name` (at `path`) is listed: only names the first run
        created are looked at further."""
        return name not in self.names or not self.hidden(path)


def _absent(p):
    return FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), os.fspath(p))


def record(out):
    """Under the first run: note the files the command creates."""
    if not hasattr(sys, "addaudithook"):
        return
    rec = _Recorder(os.path.realpath(out))
    _S.created = rec
    sys.addaudithook(rec.hook)


def note_written(p):
    """A file written where no audit event says so (``torch.save`` to a path)."""
    rec = _S.created
    if rec is not None:
        rec.note(p)


def _read_created(first_run):
    out = set()
    try:
        names = os.listdir(first_run)
    except OSError:
        return out
    for n in names:
        if n.startswith("created-") and n.endswith(".txt"):
            try:
                with io.open(os.path.join(first_run, n)) as fh:
                    out.update(line.rstrip("\n") for line in fh if line.strip())
            except OSError:
                pass
    return out


def hide(spec, spec_path):
    """Under the born-at pass: hide what the first run created (``spec["first_run"]`` is its
    output directory; the pass began when the spec was written)."""
    first = spec.get("first_run")
    if not isinstance(first, str):
        return
    created = _read_created(first)
    if not created:
        return
    try:
        since = _STAT(spec_path).st_mtime
    except OSError:
        return
    h = _Hider(created, since)
    real_stat, real_open, real_listdir, real_scandir = os.stat, builtins.open, os.listdir, os.scandir

    def stat(path, *a, **k):
        if h.hidden(path):
            raise _absent(path)
        return real_stat(path, *a, **k)

    def open_(file, mode="r", *a, **k):
        if not _writes(mode, None) and h.hidden(file):
            raise _absent(file)
        return real_open(file, mode, *a, **k)

    def listdir(path="."):
        names = real_listdir(path)
        if isinstance(path, int):
            return names
        base = os.fspath(path)
        return [n for n in names if h.shows(n, os.path.join(base, n))]

    class _Scan(object):
        def __init__(self, it):
            self.it = it

        def __iter__(self):
            return (e for e in self.it if h.shows(e.name, e.path))

        def __next__(self):
            while True:
                e = next(self.it)
                if h.shows(e.name, e.path):
                    return e

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.close()

        def close(self):
            close = getattr(self.it, "close", None)
            if close is not None:
                close()

    def scandir(path="."):
        it = real_scandir(path)
        return it if isinstance(path, int) else _Scan(it)

    for fn, orig in ((stat, real_stat), (open_, real_open), (listdir, real_listdir), (scandir, real_scandir)):
        fn.__doc__ = orig.__doc__
        fn.__name__ = orig.__name__
    os.stat, os.listdir, os.scandir = stat, listdir, scandir
    builtins.open = io.open = open_
