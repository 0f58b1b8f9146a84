"""Opt-in autoload config that merges with other config, and the `make run` launcher's pieces."""
from __future__ import annotations

import pytest
from traitlets.config.loader import PyFileConfigLoader

from shell_agent_lab import launch
from shell_agent_lab.notebook import autoload


def _extensions(path):
    """The extensions a kernel reading ``path`` would load (lazy appends resolved as traitlets does)."""
    loader = PyFileConfigLoader(path.name, path=str(path.parent))
    value = loader.load_config().InteractiveShellApp.extensions
    return list(value.get_value([]) if hasattr(value, "get_value") else value)


def test_enable_keeps_other_config_and_extensions(tmp_path):
    cfg = tmp_path / "ipython_kernel_config.py"
    original = "c.InteractiveShellApp.extensions = ['autoreload']\nc.InteractiveShell.colors = 'nocolor'\n"
    cfg.write_text(original)
    assert autoload.enable(cfg) is True
    assert autoload.enable(cfg) is False                      # idempotent
    assert _extensions(cfg) == ["autoreload", "shell_agent_lab"]
    assert cfg.read_text().startswith(original)
    assert autoload.disable(cfg) is True
    assert cfg.read_text() == original                         # byte for byte
    assert autoload.disable(cfg) is False


def test_enable_on_a_missing_file_and_disable_removes_it(tmp_path):
    cfg = tmp_path / "sub" / "ipython_kernel_config.py"
    autoload.enable(cfg)
    assert _extensions(cfg) == ["shell_agent_lab"]
    autoload.disable(cfg)
    assert not cfg.exists()


def test_cli_status_enable_disable(tmp_path, capsys):
    cfg = tmp_path / "k.py"
    assert autoload.main(["status", "--file", str(cfg)]) == 0
    assert capsys.readouterr().out.startswith("disabled")
    autoload.main(["enable", "--file", str(cfg)])
    autoload.main(["status", "--file", str(cfg)])
    assert "enabled" in capsys.readouterr().out.splitlines()[-1]


def test_unwritable_target_is_a_one_line_error(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert autoload.main(["enable", "--file", str(blocker / "k.py")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("cannot update") and err.count("\n") == 1


def test_a_kernel_config_with_the_block_loads_the_extension(tmp_path):
    """What a kernel of this environment does at start: read the file, load the extensions."""
    from IPython.core.interactiveshell import InteractiveShell

    cfg = tmp_path / "ipython_kernel_config.py"
    autoload.enable(cfg)
    ip = InteractiveShell.instance()
    try:
        for ext in _extensions(cfg):
            ip.extension_manager.load_extension(ext)
        assert "agent" in ip.magics_manager.magics["line"]
    finally:
        ip.extension_manager.unload_extension("shell_agent_lab")
    assert "agent" not in ip.magics_manager.magics["line"]


def test_lab_command_opens_the_quickstart(tmp_path):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "quickstart.ipynb").write_text("{}")
    nbs = launch.find_notebooks(tmp_path)
    cmd = launch.lab_command(nbs, ["--no-browser"], is_root=True, python="py")
    assert cmd == ["py", "-m", "jupyter", "lab", f"--ServerApp.root_dir={nbs}", "--allow-root", "--no-browser",
                   "quickstart.ipynb"]
    assert "--allow-root" not in launch.lab_command(nbs, is_root=False)


def test_find_notebooks_in_the_checkout():
    assert (launch.find_notebooks() / "quickstart.ipynb").is_file()


def test_missing_notebooks_say_where_to_run(tmp_path, monkeypatch):
    monkeypatch.setattr(launch, "__file__", str(tmp_path / "pkg" / "launch.py"))
    with pytest.raises(FileNotFoundError, match="run this from the shell-agent-lab checkout"):
        launch.find_notebooks(tmp_path)


def test_launch_kernelspec_loads_the_extension_and_comes_first(tmp_path):
    import json

    base = launch.write_kernelspec(tmp_path / "launch", python="/venv/bin/python")
    spec = json.loads((base / "kernels" / "python3" / "kernel.json").read_text())
    assert spec["argv"][:3] == ["/venv/bin/python", "-m", "ipykernel_launcher"]
    assert "--IPKernelApp.extra_extensions=shell_agent_lab" in spec["argv"]
    env = launch.lab_env(base, {"JUPYTER_PATH": "/other", "HOME": "/h"})
    assert env["JUPYTER_PATH"].split(":") == [str(base), "/other"] and env["HOME"] == "/h"


def test_the_server_uses_our_kernelspec(tmp_path, monkeypatch):
    from jupyter_client.kernelspec import KernelSpecManager

    base = launch.write_kernelspec(tmp_path / "launch")
    monkeypatch.setenv("JUPYTER_PATH", launch.lab_env(base, {})["JUPYTER_PATH"])
    spec = KernelSpecManager().get_kernel_spec("python3")
    assert "--IPKernelApp.extra_extensions=shell_agent_lab" in spec.argv
