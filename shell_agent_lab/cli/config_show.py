"""``shell-agent-lab config show``: the settings a kernel would use, resolved.

Settings come from the same place the kernel reads them: ``ShellAgent`` options in the default
IPython profile's ``ipython_config.py`` (or ``--config FILE``), with ``SHELL_AGENT_LAB_DATA_DIR``
winning for the data directory. Secrets are never printed: for each key variable only whether
it is set.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from .._config_file import ConfigFileError, load_settings

__all__ = ["register", "load_settings", "resolved_config", "ConfigFileError"]

_KEY_VARS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "GEMINI_API_KEY",
             "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_CLOUD_PROJECT",
             "GOOGLE_CLOUD_LOCATION")
_SHOWN_VALUES = {"OPENAI_BASE_URL", "OPENAI_MODEL", "GOOGLE_GENAI_USE_VERTEXAI",
                 "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"}


def resolved_config(settings: Any, env: dict[str, str], config_file: Path | None, *,
                    plan: Any) -> dict[str, Any]:
    from ..paths import ENV_DATA_DIR, data_dir

    root = data_dir(settings.data_dir, create=False)
    source = (f"${ENV_DATA_DIR}" if env.get(ENV_DATA_DIR) else
              "ShellAgent.data_dir" if settings.data_dir else "Jupyter data directory")
    traits = {name: getattr(settings, name) for name in sorted(settings.trait_names(config=True))
              if name not in ("profiles",)}
    return {
        "config_file": str(config_file) if config_file else None,
        "data_dir": str(root),
        "data_dir_source": source,
        "profile": settings.profile,
        "profiles": {name: dict(body) for name, body in sorted(settings.profiles.items())},
        "backend": plan.as_dict(),
        "environment": {k: (env[k] if k in _SHOWN_VALUES else "set") for k in _KEY_VARS if env.get(k)},
        "settings": traits,
    }


def _run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    from ._backend_plan import plan_backend

    out, err = out or sys.stdout, err or sys.stderr
    try:
        settings, path = load_settings(Path(args.config) if args.config else None,
                                       use_default=not args.no_config)
    except ConfigFileError as exc:
        err.write(f"error: {exc}\n")
        return 1
    env = dict(os.environ)
    body = resolved_config(settings, env, path, plan=plan_backend(settings, env))
    if args.json:
        json.dump(body, out, indent=2, default=str)
        out.write("\n")
        return 0
    backend = body["backend"]
    out.write(f"config file    {body['config_file'] or '(none)'}\n")
    out.write(f"data dir       {body['data_dir']}  (from {body['data_dir_source']})\n")
    out.write(f"profile        {body['profile'] or '(automatic)'}\n")
    for name, prof in body["profiles"].items():
        mark = "●" if name == body["profile"] else "○"
        desc = ", ".join(f"{k}={v}" for k, v in prof.items() if k != "options")
        out.write(f"  {mark} {name}: {desc}\n")
    model = f" {backend['model']}" if backend["model"] else ""
    where = f" at {backend['endpoint']}" if backend["endpoint"] else ""
    out.write(f"backend        {backend['backend']}{model}{where}  ({backend['reason']})\n")
    for key, value in body["environment"].items():
        out.write(f"  env {key} = {value}\n")
    for key, value in body["settings"].items():
        if key not in ("data_dir", "profile"):
            out.write(f"  {key} = {value!r}\n")
    return 0


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    config = subparsers.add_parser("config", help="show the resolved configuration")
    actions = config.add_subparsers(dest="config_command", metavar="{show}")
    actions.required = True
    p = actions.add_parser("show", help="data dir, profiles, and the backend a kernel would use",
                           description="Show the resolved configuration (secrets are never printed).")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--config", metavar="FILE", help="read ShellAgent settings from this file")
    p.add_argument("--no-config", action="store_true", help="ignore ipython_config.py")
    p.set_defaults(func=_run)
