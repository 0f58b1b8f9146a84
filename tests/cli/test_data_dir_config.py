"""One data directory everywhere: with ``c.ShellAgent.data_dir`` in ``ipython_config.py`` and no
``SHELL_AGENT_LAB_DATA_DIR``, the command line, the launcher, the embedded model's folder and a
kernel all use the configured directory."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from shell_agent_lab import launch, paths
from shell_agent_lab.llm import local
from shell_agent_lab.store import Store

from tests.support.cli_harness import run


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A home of its own (IPython and Jupyter dirs inside it), no data-dir variable, and no
    IPython shell in this process (as for the console script)."""
    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.setattr(InteractiveShell, "_instance", None)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.delenv(paths.ENV_DATA_DIR, raising=False)
    for var in ("IPYTHONDIR", "JUPYTER_DATA_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(home / ".jupyter"))
    return home


def _configure(home: Path, body: str) -> Path:
    profile = home / ".ipython" / "profile_default"
    profile.mkdir(parents=True, exist_ok=True)
    (profile / "ipython_config.py").write_text(body)
    return profile / "ipython_config.py"


@pytest.fixture
def configured(home, tmp_path):
    target = tmp_path / "configured-data"
    _configure(home, f"c.ShellAgent.data_dir = {str(target)!r}\n")
    return target


def _default_dir() -> Path:
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "shell_agent_lab"


def test_cli_writes_memory_into_the_configured_dir(configured, home):
    assert str(_default_dir()).startswith(str(home))  # the default is inside the fake home
    code, out, err = run("memory", "add", "User prefers plotly", "--category", "preference")
    assert code == 0, err
    store = Store.open(configured)
    try:
        assert [e.fact for e in store.global_memory.list()] == ["User prefers plotly"]
    finally:
        store.close()
    assert not _default_dir().exists()
    code, out, _ = run("sessions", "list", "--json")           # the other store opener agrees
    assert code == 0 and json.loads(out) == []
    assert not _default_dir().exists()


def test_config_show_reports_the_configured_dir(configured):
    code, out, _ = run("config", "show", "--json")
    body = json.loads(out)
    assert body["data_dir"] == str(configured) and body["data_dir_source"] == "ShellAgent.data_dir"
    assert paths.data_dir(create=False) == configured


def test_the_variable_still_wins_over_the_config(configured, tmp_path, monkeypatch):
    other = tmp_path / "from-env"
    monkeypatch.setenv(paths.ENV_DATA_DIR, str(other))
    assert run("memory", "add", "User prefers Go", "--category", "preference")[0] == 0
    assert (other / "shell_agent_lab.sqlite3").is_file() and not configured.exists()


def test_without_config_the_default_dir_is_used(home):
    assert paths.data_dir(create=False) == _default_dir()
    assert run("memory", "add", "User prefers R", "--category", "preference")[0] == 0
    assert (_default_dir() / "shell_agent_lab.sqlite3").is_file()


def test_embedded_model_folder_follows_the_config(configured, tmp_path):
    part = tmp_path / "part01.bin"
    part.write_bytes(b"GGUF" + b"\0" * 60)
    digest = hashlib.sha256(part.read_bytes()).hexdigest()
    target = local.assemble_model(parts=[part], expected_sha256=digest, filename="m.gguf")
    assert target == configured / "models" / "m.gguf"


def test_launcher_prints_the_configured_dir(configured, monkeypatch, capsys, tmp_path):
    notebooks = tmp_path / "nbs"
    notebooks.mkdir()
    (notebooks / "quickstart.ipynb").write_text("{}")
    monkeypatch.setattr(launch, "find_notebooks", lambda: notebooks)
    calls = []
    monkeypatch.setattr(launch.os, "execve", lambda *a: calls.append(a))
    monkeypatch.chdir(tmp_path)
    assert launch.main(["--no-browser"]) == 0
    assert f"data in {configured}" in capsys.readouterr().out
    assert (configured / "launch" / "kernels" / "python3" / "kernel.json").is_file()
    assert calls


def test_broken_config_is_one_line_not_the_default_dir(home):
    config = _configure(home, "c.ShellAgent.data_dir = \n")
    code, out, err = run("memory", "list")
    assert code == 1 and err.count("\n") == 1 and str(config) in err
    assert not _default_dir().exists()


@pytest.mark.parametrize("value", ["42", "'relative/data'"])
def test_non_text_or_relative_data_dir_is_refused(home, value):
    _configure(home, f"c.ShellAgent.data_dir = {value}\n")
    code, _, err = run("memory", "list")
    assert code == 1 and "data_dir" in err and err.count("\n") == 1
    assert not (home / "relative").exists() and not _default_dir().exists()


@pytest.mark.timeout(120)
def test_a_kernel_side_store_reads_what_the_cli_wrote(configured, home):
    """A real IPython application loads the same profile config a kernel does; the agent it
    builds reads the fact the command line added, and ``data_dir()`` there agrees."""
    assert run("memory", "add", "User prefers plotly", "--category", "preference")[0] == 0
    code = ("%load_ext shell_agent_lab\n"
            "import json\n"
            "from shell_agent_lab.notebook.runtime import get_agent\n"
            "from shell_agent_lab.paths import data_dir\n"
            "agent = get_agent()\n"
            "print('RESULT ' + json.dumps({'store': str(agent.store.data_dir), 'data_dir': str(data_dir()),"
            " 'facts': [e.fact for e in agent.store.global_memory.list()]}))\n")
    ipython = Path(sys.executable).with_name("ipython")
    done = subprocess.run([str(ipython), "--no-banner", "--colors=NoColor", "-c", code],
                          capture_output=True, text=True, timeout=110, cwd=home)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")]
    assert lines, done.stdout + done.stderr
    result = json.loads(lines[0][len("RESULT "):])
    assert result == {"store": str(configured), "data_dir": str(configured),
                      "facts": ["User prefers plotly"]}


def test_a_data_dir_set_only_in_the_kernel_config_is_followed(home, tmp_path):
    target = tmp_path / "kernel-config-data"
    profile = home / ".ipython" / "profile_default"
    profile.mkdir(parents=True)
    (profile / "ipython_kernel_config.py").write_text(f"c.ShellAgent.data_dir = {str(target)!r}\n")
    code, out, err = run("memory", "add", "User prefers plotly", "--category", "preference")
    assert code == 0, err
    assert (target / "shell_agent_lab.sqlite3").is_file()
    assert not (_default_dir() / "shell_agent_lab.sqlite3").exists()


def test_the_profile_overrides_the_environment_wide_kernel_config(home, tmp_path, monkeypatch):
    from shell_agent_lab import _config_file

    env_wide, mine = tmp_path / "prefix", tmp_path / "mine"
    (env_wide / "etc" / "ipython").mkdir(parents=True)
    (env_wide / "etc" / "ipython" / "ipython_kernel_config.py").write_text(
        f"c.ShellAgent.data_dir = {str(tmp_path / 'env-wide')!r}\n")
    monkeypatch.setattr(_config_file.sys, "prefix", str(env_wide))
    assert paths.configured_data_dir() == str(tmp_path / "env-wide")
    _configure(home, f"c.ShellAgent.data_dir = {str(mine)!r}\n")
    assert paths.configured_data_dir() == str(mine)
