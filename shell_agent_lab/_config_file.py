"""Reading ``ShellAgent`` settings outside a kernel: the default IPython profile's config file.

A kernel gets its settings from the configuration files IPython loads (this Python's
``etc/ipython`` and ``<ipython dir>/profile_default``, ``ipython_config.py`` and
``ipython_kernel_config.py`` in each); the command line and the launcher read the same files
here, so all of them agree on every setting, the data directory first of all.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

__all__ = ["ConfigFileError", "default_config_file", "default_config_files", "load_config", "load_settings", "configured_data_dir"]


class ConfigFileError(Exception):
    """The configuration file could not be read, or a ``ShellAgent`` value in it is invalid."""


_FILE_NAMES = ("ipython_config.py", "ipython_kernel_config.py")


def default_config_files() -> list[Path]:
    """The configuration files an IPython kernel of this environment reads, lowest priority
    first: this Python's ``etc/ipython`` (where ``shell-agent-lab autoload`` writes), then the
    default profile; in each, ``ipython_config.py`` then ``ipython_kernel_config.py``."""
    try:
        from IPython.paths import get_ipython_dir
    except ImportError:  # pragma: no cover - IPython is a dependency
        return []
    folders = [Path(sys.prefix) / "etc" / "ipython", Path(get_ipython_dir()) / "profile_default"]
    return [folder / name for folder in folders for name in _FILE_NAMES if (folder / name).is_file()]


def default_config_file() -> Path | None:
    """The default profile's ``ipython_config.py`` when it exists (where settings are documented)."""
    files = [p for p in default_config_files() if p.name == "ipython_config.py"]
    return files[-1] if files else None


def _load_one(path: Path) -> Any:
    from traitlets.config.loader import ConfigFileNotFound, PyFileConfigLoader

    loader = PyFileConfigLoader(path.name, path=str(path.parent))
    try:
        return loader.load_config()
    except ConfigFileNotFound as exc:
        raise ConfigFileError(f"{path}: no such configuration file") from exc
    except Exception as exc:  # the user's Python file: report any failure in one line
        raise ConfigFileError(f"{path} could not be loaded ({type(exc).__name__}: {exc})") from exc


def load_config(config_file: Path | None = None, *, use_default: bool = True) -> tuple[Any, Path | None]:
    """The traitlets ``Config`` in ``config_file``, or merged from every file a kernel reads
    (:func:`default_config_files`); with the path of the (last) file that sets ``ShellAgent``."""
    from traitlets.config import Config

    if config_file is not None:
        return _load_one(config_file), config_file
    merged, source = Config(), None
    for path in default_config_files() if use_default else []:
        config = _load_one(path)
        if "ShellAgent" in config or source is None:
            source = path
        merged.merge(config)
    return merged, source


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
