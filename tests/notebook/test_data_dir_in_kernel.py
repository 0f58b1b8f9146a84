"""Inside a kernel, ``data_dir()`` without arguments (the embedded model's folder, anything without
the settings at hand) follows the kernel's live ``ShellAgent.data_dir``."""
from __future__ import annotations

from nbhelpers import run

from shell_agent_lab import paths


def test_data_dir_follows_the_kernels_settings(shell, tmp_path, monkeypatch):
    monkeypatch.delenv(paths.ENV_DATA_DIR, raising=False)
    target = tmp_path / "kernel-data"
    run(shell, f"%config ShellAgent.data_dir = {str(target)!r}")[0].raise_error()
    assert paths.data_dir(create=False) == target
    monkeypatch.setenv(paths.ENV_DATA_DIR, str(tmp_path / "env"))
    assert paths.data_dir(create=False) == tmp_path / "env"


def test_a_relative_data_dir_is_refused(shell, caplog):
    from shell_agent_lab.notebook.extension import settings_for

    run(shell, "%config ShellAgent.data_dir = 'data'")          # %config logs the refusal
    assert "ShellAgent.data_dir must be an absolute path" in caplog.text
    assert settings_for(shell).data_dir is None
