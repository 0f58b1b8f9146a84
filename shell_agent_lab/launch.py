"""``make run``: JupyterLab on the quickstart notebook, the extension loaded in every kernel.

``python -m shell_agent_lab.launch [jupyter lab options…]``

1. makes sure the data directory exists — the one every kernel uses
   (:func:`shell_agent_lab.paths.data_dir`: ``$SHELL_AGENT_LAB_DATA_DIR``, else
   ``ShellAgent.data_dir`` from ``ipython_config.py``, else the default);
2. loads the extension in every kernel this server starts: a ``python3`` kernelspec of its own
   (``<data dir>/launch/kernels/python3``, found first through ``JUPYTER_PATH``) starts ipykernel
   with ``--IPKernelApp.extra_extensions=shell_agent_lab``. Nothing outside the data directory
   changes; to load it in every kernel everywhere, see :mod:`shell_agent_lab.notebook.autoload`;
3. reports the model the kernels will use — with nothing configured, the embedded local
   model (the ``local`` extra), so it works offline;
4. starts ``jupyter lab`` on ``notebooks/quickstart.ipynb`` (``--allow-root`` when root).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Mapping, Sequence

__all__ = ["main", "lab_command", "find_notebooks", "write_kernelspec", "lab_env"]


def write_kernelspec(base: Path, python: str | None = None) -> Path:
    """A ``python3`` kernelspec under ``base`` whose kernels load the extension; returns ``base``."""
    spec_dir = base / "kernels" / "python3"
    spec_dir.mkdir(parents=True, exist_ok=True)
    spec = {"argv": [python or sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}",
                     "--IPKernelApp.extra_extensions=shell_agent_lab"],
            "display_name": "Python 3 (shell-agent-lab)", "language": "python",
            "metadata": {"debugger": True}}
    (spec_dir / "kernel.json").write_text(json.dumps(spec, indent=1) + "\n", encoding="utf-8")
    return base


def lab_env(base: Path, environ: Mapping[str, str]) -> dict[str, str]:
    """The server's environment: our kernelspec directory first on ``JUPYTER_PATH``."""
    env = dict(environ)
    env["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(base), environ.get("JUPYTER_PATH", "")) if p)
    return env


def find_notebooks(cwd: Path | None = None) -> Path:
    """The example notebooks: ``./notebooks`` when run from a checkout, else beside the package."""
    for candidate in ((cwd or Path.cwd()) / "notebooks", Path(__file__).resolve().parent.parent / "notebooks"):
        if (candidate / "quickstart.ipynb").is_file():
            return candidate
    raise FileNotFoundError("notebooks/quickstart.ipynb not found; run this from the shell-agent-lab checkout")


def lab_command(notebooks: Path, extra: Sequence[str] = (), *, is_root: bool | None = None,
                python: str | None = None) -> list[str]:
    """The ``jupyter lab`` command line that opens the quickstart notebook."""
    root = is_root if is_root is not None else (hasattr(os, "geteuid") and os.geteuid() == 0)
    cmd = [python or sys.executable, "-m", "jupyter", "lab", f"--ServerApp.root_dir={notebooks}"]
    if root:
        cmd.append("--allow-root")
    cmd += list(extra)
    cmd.append("quickstart.ipynb")
    return cmd


def _model_line(env: Mapping[str, str]) -> str:
    from .llm.errors import ConfigurationError
    from .llm.selection import resolve_profile

    try:
        profile = resolve_profile(None, None, env=env)
    except ConfigurationError as exc:
        return f"model: none found ({exc}). {getattr(exc, 'hint', '')}".strip()
    if profile.backend == "local":
        return "model: the embedded local model (offline; the first answer loads it, ~2 GB RAM)"
    where = f" at {profile.endpoint}" if profile.endpoint else ""
    return f"model: {profile.backend} {profile.model or ''}{where}".rstrip()


def main(argv: Sequence[str] | None = None) -> int:
    from ._config_file import ConfigFileError
    from .paths import data_dir

    extra = list(sys.argv[1:] if argv is None else argv)
    try:
        data = data_dir()
    except ConfigFileError as exc:
        print(f"shell-agent-lab: error: {exc}", file=sys.stderr)
        return 1
    notebooks = find_notebooks()
    base = write_kernelspec(data / "launch")
    print(f"shell-agent-lab: data in {data}")
    print(f"shell-agent-lab: {_model_line(os.environ)}")
    print("shell-agent-lab: the extension loads in every kernel of this server")
    cmd = lab_command(notebooks, extra)
    sys.stdout.flush()
    os.chdir(notebooks)
    os.execve(cmd[0], cmd, lab_env(base, os.environ))
    return 0  # pragma: no cover - execv does not return


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
