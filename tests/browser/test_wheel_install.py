"""``pip install .`` into a fresh virtualenv ships the prebuilt side panel (marked ``slow``).

The project is copied without any build output or ``node_modules`` so the wheel's build hook
really runs (``jlpm install`` from the committed lockfile, TypeScript, webpack) in pip's
isolated build environment, as on a user's machine. The pip and yarn caches may be warm.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_SKIP = {".git", ".venv", "node_modules", "lib", ".yarn", "labextension", "build", "dist", "site",
         "test-artifacts", "__pycache__", ".pytest_cache", ".ipynb_checkpoints"}


def _copy_sources(dest: Path) -> None:
    def ignore(directory: str, names: list[str]) -> set[str]:
        skipped = {n for n in names if n in _SKIP or n.endswith(".egg-info")}
        # the TypeScript package itself is kept; only build output inside it is dropped
        if Path(directory) == ROOT and "labextension" in names:
            skipped.discard("labextension")
        return skipped

    shutil.copytree(ROOT, dest, ignore=ignore)
    assert not (dest / "shell_agent_lab" / "labextension").exists()
    assert (dest / "labextension" / "yarn.lock").exists()


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_pip_install_into_a_fresh_venv_lists_the_extension_enabled_and_ok(tmp_path):
    src = tmp_path / "src"
    _copy_sources(src)
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update({"CI": "true", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
                "PATH": f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"})
    started = time.monotonic()
    install = subprocess.run([str(py), "-m", "pip", "install", "-q", str(src)], env=env, cwd=tmp_path,
                             capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=1400)
    took = time.monotonic() - started
    assert install.returncode == 0, install.stdout[-4000:] + install.stderr[-4000:]
    listed = subprocess.run([str(env_dir / "bin" / "jupyter"), "labextension", "list"], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    text = listed.stdout + listed.stderr
    line = next((ln for ln in text.splitlines() if "shell-agent-lab" in ln), "")
    assert "enabled" in line and "OK" in line and "(python, shell-agent-lab)" in line, text
    shipped = env_dir / "share" / "jupyter" / "labextensions" / "shell-agent-lab"
    assert (shipped / "static" / "style.js").exists() and (shipped / "install.json").exists()
    assert (shipped / "schemas" / "shell-agent-lab" / "plugin.json").exists()
    print(f"pip install . into a fresh venv: {took:.0f} s")
    sys.stdout.flush()
