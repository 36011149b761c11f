"""cudasleuth loader: arms cudasleuth_shim, then runs the user's own sitecustomize, if any."""


def _cudasleuth_boot():
    import os
    import sys

    try:
        import cudasleuth_shim
        cudasleuth_shim.install()
    except Exception as e:  # never break the user's interpreter
        try:
            sys.stderr.write("cudasleuth: shim not installed: %s: %s\n" % (type(e).__name__, e))
        except Exception:
            pass

    here = os.path.dirname(os.path.abspath(__file__))
    mine = sys.modules.get("sitecustomize")
    saved_path = list(sys.path)
    try:
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
        sys.modules.pop("sitecustomize", None)
        try:
            import importlib
            importlib.invalidate_caches()
            import importlib.util
            spec = importlib.util.find_spec("sitecustomize")
            if spec is not None:
                importlib.import_module("sitecustomize")
        except Exception:
            import traceback
            sys.stderr.write("cudasleuth: error in the user's sitecustomize:\n")
            traceback.print_exc()
    finally:
        sys.path[:] = saved_path
        if mine is not None:
            sys.modules["sitecustomize"] = mine


_cudasleuth_boot()
del _cudasleuth_boot
