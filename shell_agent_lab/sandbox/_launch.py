"""How the sandbox process is started: bubblewrap's command line, built from where this
interpreter and its libraries live.

Inside: new user, PID, network, IPC, UTS and cgroup namespaces, no capabilities, a fresh
``/proc`` (the kernel's process is not in it) and a minimal ``/dev``; read-only, the system's
``/usr``, the interpreter's prefix, the directories its packages are installed in and this
package's own source (at a neutral path); nothing else of the file system (no home, no working
directory, no notebook folder, no ``/tmp``). The environment is cleared but for what numpy needs
to run correctly. The process dies with its parent.
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

__all__ = ["bwrap_path", "command", "PACKAGE_MOUNT", "BOOT"]

#: where this package's source is mounted inside the sandbox
PACKAGE_MOUNT = "/opt/shell-agent-lab"
#: the environment variables passed in (numpy's OpenBLAS reads the first two to pick a safe kernel)
_PASSED = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "TZ", "LANG", "LC_ALL")
_SINGLE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")
#: pyarrow's allocator starts no background thread (the process that forks stays single-threaded)
_FIXED = (("JE_ARROW_MALLOC_CONF", "background_thread:false"), ("HOME", "/nonexistent"), ("PYTHONHASHSEED", "0"))

#: the interpreter's first lines inside: the path it is told, this package and the two it runs
#: from as bare namespaces (the package's ``__init__`` loads the notebook side, which the sandbox
#: must not), then the worker
BOOT = """
import sys, types, json
sys.path[:] = json.loads(sys.argv[2])
for name in ("shell_agent_lab", "shell_agent_lab.answers", "shell_agent_lab.sandbox"):
    module = types.ModuleType(name)
    module.__path__ = [sys.argv[3] + "/" + "/".join(name.split(".")[1:])]
    sys.modules[name] = module
from shell_agent_lab.sandbox._worker import main
main(int(sys.argv[1]))
"""


def bwrap_path() -> str | None:
    """bubblewrap's executable (``SHELL_AGENT_LAB_BWRAP`` may name another), or None."""
    named = os.environ.get("SHELL_AGENT_LAB_BWRAP")
    if named:
        return named if os.path.isfile(named) and os.access(named, os.X_OK) else None
    return shutil.which("bwrap")


def _roots() -> list[str]:
    """Directories the interpreter needs: its prefix and every package directory on its path."""
    wanted = [sys.base_prefix, sys.base_exec_prefix]       # a virtual environment's own folder is not
    wanted += [p for p in sys.path if p and os.path.isdir(p) and Path(p).name in ("site-packages", "dist-packages")]
    wanted += [os.path.dirname(os.path.dirname(m.__file__)) for m in _modules()]
    kept: list[str] = []
    for path in sorted({os.path.realpath(p) for p in wanted}, key=len):
        if path == "/" or any(path == k or path.startswith(k + "/") for k in kept):
            continue
        if path.startswith("/usr/"):
            continue                   # /usr is mounted whole
        kept.append(path)
    return kept


def _modules() -> list:
    import numpy
    import pandas

    found = [numpy, pandas]
    try:
        import scipy
        found.append(scipy)
    except ImportError:
        pass
    return [m for m in found if getattr(m, "__file__", None)]


def _system() -> list[str]:
    """/usr, and /lib, /lib64, /bin as the host has them (links into /usr, or directories)."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/lib", "/lib64", "/lib32", "/bin", "/sbin"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for path in ("/etc/ld.so.cache", "/etc/localtime"):
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    return args


def command(fd: int, *, bwrap: str) -> list[str]:
    """The command that starts the sandbox, talking on descriptor ``fd``."""
    package = str(Path(__file__).resolve().parent.parent)
    python = os.path.realpath(sys.executable)
    roots = _roots()
    path = [p for p in sys.path if p and os.path.isdir(p)
            and any(os.path.realpath(p) == r or os.path.realpath(p).startswith(r + "/") for r in roots + ["/usr"])
            and not os.path.realpath(p).startswith(package)]
    args = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL", *_system()]
    for root in roots:
        args += ["--ro-bind", root, root]
    args += ["--ro-bind", package, f"{PACKAGE_MOUNT}/shell_agent_lab", "--proc", "/proc", "--dev", "/dev",
             "--chdir", "/", "--clearenv"]
    for name, value in _FIXED:
        args += ["--setenv", name, value]
    for name in _SINGLE_THREAD:
        args += ["--setenv", name, "1"]
    for name in _PASSED:
        if os.environ.get(name):
            args += ["--setenv", name, os.environ[name]]
    import json

    args += ["--", python, "-I", "-S", "-B", "-c", BOOT, str(fd), json.dumps(path),
             f"{PACKAGE_MOUNT}/shell_agent_lab"]
    return args
