"""``shell-agent-lab doctor``: is this installation ready to use?

Checks the configuration file, the data directory, the database's integrity, stray session
folders, which model backend would be used and whether it answers, and whether the side panel is
installed and enabled in JupyterLab.

Exit codes: 0 everything is usable (warnings may be printed); 1 at least one check failed;
with ``--strict`` warnings count as failures too.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, TextIO

from . import _doctor_checks as checks

__all__ = ["register", "run_checks", "exit_code"]

_MARK = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}


def _settings(results: list[checks.Check]) -> Any:
    from ..config import ShellAgent
    from .config_show import ConfigFileError, load_settings

    try:
        settings, path = load_settings()
    except ConfigFileError as exc:
        results.append(checks.Check("configuration", "fail", f"{exc}; defaults used below"))
        return ShellAgent()
    results.append(checks.Check("configuration", "ok", f"read {path}" if path else
                                "no ipython_config.py; defaults apply"))
    return settings


def run_checks(*, settings: Any = None, env: dict[str, str] | None = None, timeout: float = 3.0,
               skip_backend: bool = False) -> list[checks.Check]:
    from ..paths import data_dir

    results: list[checks.Check] = []
    settings = settings if settings is not None else _settings(results)
    env = dict(os.environ) if env is None else env
    root = data_dir(getattr(settings, "data_dir", None), create=False)
    results += [checks.check_data_dir(root), checks.check_database(root),
                checks.check_session_dirs(root)]
    if not skip_backend:
        results.append(checks.check_backend(settings, env, timeout=timeout))
        results.append(checks.check_data_sharing(settings, env))
    results.append(checks.check_labextension())
    return results


def exit_code(results: list[checks.Check], *, strict: bool = False) -> int:
    bad = {"fail", "warn"} if strict else {"fail"}
    return 1 if any(r.status in bad for r in results) else 0


def _run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    results = run_checks(timeout=args.timeout, skip_backend=args.offline)
    code = exit_code(results, strict=args.strict)
    if args.json:
        json.dump({"ok": code == 0, "checks": [r.as_dict() for r in results]}, out, indent=2)
        out.write("\n")
        return code
    for r in results:
        out.write(f"[{_MARK[r.status]}] {r.name}: {r.detail}\n")
    if code:
        out.write("Some checks failed; each line above says what to do.\n")
    return code


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = subparsers.add_parser(
        "doctor", help="check the data dir, database, model backend and side panel",
        description="Check that shell-agent-lab is ready: exit 0 when usable, 1 when a check failed.")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--strict", action="store_true", help="treat warnings as failures")
    p.add_argument("--offline", action="store_true", help="do not contact the model backend")
    p.add_argument("--timeout", type=float, default=3.0, metavar="SECONDS",
                   help="how long to wait for the model backend (default 3)")
    p.set_defaults(func=_run)
