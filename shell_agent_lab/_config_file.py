"""Reading ``ShellAgent`` settings outside a kernel: the default IPython profile's config file.

A kernel gets its settings from the configuration IPython loaded
(``<ipython dir>/profile_default/ipython_config.py``); the command line and the launcher read
the same file here, so all of them agree on every setting, the data directory first of all.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["ConfigFileError", "default_config_file", "load_config", "load_settings", "configured_data_dir"]


class ConfigFileError(Exception):
    """The configuration file could not be read, or a ``ShellAgent`` value in it is invalid."""


def default_config_file() -> Path | None:
    """``<ipython dir>/profile_default/ipython_config.py`` when it exists."""
    try:
        from IPython.paths import get_ipython_dir
    except ImportError:  # pragma: no cover - IPython is a dependency
        return None
    path = Path(get_ipython_dir()) / "profile_default" / "ipython_config.py"
    return path if path.is_file() else None


def load_config(config_file: Path | None = None, *, use_default: bool = True) -> tuple[Any, Path | None]:
    """The traitlets ``Config`` in ``config_file`` (or the default profile's file) and its path."""
    from traitlets.config import Config
    from traitlets.config.loader import ConfigFileNotFound, PyFileConfigLoader

    path = config_file or (default_config_file() if use_default else None)
    if path is None:
        return Config(), None
    loader = PyFileConfigLoader(path.name, path=str(path.parent))
    try:
        return loader.load_config(), path
    except ConfigFileNotFound as exc:
        raise ConfigFileError(f"{path}: no such configuration file") from exc
    except Exception as exc:  # the user's Python file: report any failure in one line
        raise ConfigFileError(f"{path} could not be loaded ({type(exc).__name__}: {exc})") from exc


def load_settings(config_file: Path | None = None, *, use_default: bool = True) -> tuple[Any, Path | None]:
    """A ``ShellAgent`` built from ``config_file`` (or the default IPython profile's config)."""
    from .config import ShellAgent

    config, path = load_config(config_file, use_default=use_default)
    try:
        return ShellAgent(config=config), path
    except Exception as exc:  # traitlets validation errors
        raise ConfigFileError(f"{path}: {exc}" if path else str(exc)) from exc


def configured_data_dir(config: Any, path: Path | None) -> str | None:
    """``ShellAgent.data_dir`` from a loaded ``Config`` (validated alone, so an unrelated bad
    setting does not stop the command line from finding its data)."""
    from traitlets.config import Config

    from .config import ShellAgent

    section = config["ShellAgent"] if "ShellAgent" in config else None
    if section is None or "data_dir" not in section:
        return None
    try:
        return ShellAgent(config=Config({"ShellAgent": {"data_dir": section["data_dir"]}})).data_dir
    except Exception as exc:  # traitlets validation errors
        raise ConfigFileError(f"{path}: {exc}" if path else str(exc)) from exc
