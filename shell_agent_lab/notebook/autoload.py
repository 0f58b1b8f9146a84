"""Load the extension in every kernel, opt-in, without clobbering other IPython config.

``python -m shell_agent_lab.notebook.autoload enable`` appends a marked block to the IPython
kernel config of this Python environment (``<sys.prefix>/etc/ipython/ipython_kernel_config.py``,
read by every ipykernel started from it); ``--user`` uses your profile's
``ipython_kernel_config.py`` instead; ``--file PATH`` any other. The block *appends* to
``c.InteractiveShellApp.extensions``, so extensions configured elsewhere stay; ``disable``
removes exactly that block and leaves the rest of the file as it was. ``status`` tells whether
the block is there.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

__all__ = ["BEGIN", "END", "add_block", "remove_block", "has_block", "env_config_file", "user_config_file",
           "enable", "disable", "main"]

BEGIN = "# >>> shell-agent-lab autoload >>>"
END = "# <<< shell-agent-lab autoload <<<"
_BLOCK = (f"{BEGIN}\n"
          "# added by `python -m shell_agent_lab.notebook.autoload enable`; remove with `... disable`\n"
          "c.InteractiveShellApp.extensions.append('shell_agent_lab')\n"
          f"{END}\n")


def has_block(text: str) -> bool:
    return BEGIN in text and END in text


def add_block(text: str) -> str:
    """``text`` with the autoload block at its end (unchanged if it is already there)."""
    if has_block(text):
        return text
    if text and not text.endswith("\n"):
        text += "\n"
    return text + ("\n" if text else "") + _BLOCK


def remove_block(text: str) -> str:
    """``text`` without the autoload block; everything else byte for byte."""
    start = text.find(BEGIN)
    end = text.find(END, start)
    if start < 0 or end < 0:
        return text
    end += len(END)
    if text[end:end + 1] == "\n":
        end += 1
    before = text[:start]
    if before.endswith("\n\n"):
        before = before[:-1]
    return before + text[end:]


def env_config_file(prefix: str | None = None) -> Path:
    """The kernel config file every ipykernel of this environment reads."""
    return Path(prefix or sys.prefix) / "etc" / "ipython" / "ipython_kernel_config.py"


def user_config_file() -> Path:
    from IPython.paths import get_ipython_dir

    return Path(get_ipython_dir()) / "profile_default" / "ipython_kernel_config.py"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def enable(path: Path) -> bool:
    """Add the block; returns False when it was already there."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    new = add_block(text)
    if new == text:
        return False
    _write(path, new)
    return True


def disable(path: Path) -> bool:
    """Remove the block; returns False when it was not there. An emptied file is removed."""
    if not path.exists():
        return False
    text = path.read_text(encoding="utf-8")
    new = remove_block(text)
    if new == text:
        return False
    if new.strip():
        _write(path, new)
    else:
        path.unlink()
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m shell_agent_lab.notebook.autoload",
                                     description="Load shell_agent_lab in every IPython kernel (opt-in).")
    parser.add_argument("action", choices=["enable", "disable", "status"])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="your IPython profile instead of this environment")
    where.add_argument("--file", type=Path, help="a specific ipython_kernel_config.py")
    ns = parser.parse_args(argv)
    path = ns.file or (user_config_file() if ns.user else env_config_file())
    if ns.action == "status":
        on = path.exists() and has_block(path.read_text(encoding="utf-8"))
        print(f"{'enabled' if on else 'disabled'}: {path}")
        return 0
    try:
        changed = enable(path) if ns.action == "enable" else disable(path)
    except OSError as exc:
        print(f"cannot update {path}: {exc.strerror or exc}; try --user", file=sys.stderr)
        return 1
    state = "enabled" if ns.action == "enable" else "disabled"
    print(f"{state}{'' if changed else ' (no change)'}: {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
