"""cudasleuth's Python package: where the installed `cudasleuth` command lives.

The tool itself is a compiled program; `python -m cudasleuth ARGS` runs it, and
`find_cudasleuth_bin()` returns its path. The repro shim is the separate module
`cudasleuth_shim` (`import cudasleuth_shim; cudasleuth_shim.install()`).
"""
import os
import sys
import sysconfig


def find_cudasleuth_bin():
    """Path of the `cudasleuth` executable installed with this package."""
    exe = "cudasleuth" + sysconfig.get_config_var("EXE") if sysconfig.get_config_var("EXE") else "cudasleuth"
    candidates = [os.path.join(sysconfig.get_path("scripts"), exe)]
    user = sysconfig.get_path("scripts", scheme=_user_scheme()) if _user_scheme() else None
    if user:
        candidates.append(os.path.join(user, exe))
    candidates.append(os.path.join(os.path.dirname(sys.executable), exe))
    for path in candidates:
        if os.path.isfile(path):
            return path
    raise FileNotFoundError("the cudasleuth executable was not found next to this Python (%s)" % ", ".join(candidates))


def _user_scheme():
    if sys.version_info >= (3, 10):
        try:
            return sysconfig.get_preferred_scheme("user")
        except Exception:
            return None
    return "posix_user" if os.name == "posix" else "nt_user"
