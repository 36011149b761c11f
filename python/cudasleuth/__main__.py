"""`python -m cudasleuth ...` runs the installed command."""
import os
import subprocess
import sys

from cudasleuth import find_cudasleuth_bin


def main():
    exe = find_cudasleuth_bin()
    if os.name == "posix":
        os.execv(exe, [exe] + sys.argv[1:])
    sys.exit(subprocess.call([exe] + sys.argv[1:]))


if __name__ == "__main__":
    main()
