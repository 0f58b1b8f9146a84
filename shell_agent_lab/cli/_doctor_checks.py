"""The checks behind ``shell-agent-lab doctor``; each returns one :class:`Check`.

Every check takes what it inspects as arguments (a path, the settings, the environment, search
paths), so tests point them at their own fixtures.
"""
from __future__ import annotations

import json
import os
import sqlite3
import stat
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from . import _backend_plan

__all__ = ["Check", "check_data_dir", "check_database", "check_session_dirs", "check_backend",
           "check_data_sharing", "check_labextension", "LABEXTENSION_NAME", "DB_NAME"]

LABEXTENSION_NAME = "shell-agent-lab"
DB_NAME = "shell_agent_lab.sqlite3"


@dataclass(frozen=True)
class Check:
    name: str
    status: str          # ok | warn | fail
    detail: str
    data: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


def check_data_dir(path: Path) -> Check:
    """The data dir exists (or can be created), is a real directory we may write, and is private."""
    name = "data directory"
    if path.is_symlink():
        target = path.resolve()
        if not target.is_dir():
            return Check(name, "fail", f"{path} is a symlink to {target}, which is not a directory")
    if not path.exists():
        parent = next((p for p in path.parents if p.exists()), None)
        if parent is not None and os.access(parent, os.W_OK | os.X_OK):
            return Check(name, "ok", f"{path} does not exist yet; it is created on first use",
                         {"path": str(path), "exists": False})
        return Check(name, "fail", f"{path} does not exist and {parent} is not writable; set "
                                   "SHELL_AGENT_LAB_DATA_DIR to a writable folder",
                     {"path": str(path), "exists": False})
    if not path.is_dir():
        return Check(name, "fail", f"{path} is not a directory; move it aside or set "
                                   "SHELL_AGENT_LAB_DATA_DIR", {"path": str(path)})
    if not os.access(path, os.R_OK | os.W_OK | os.X_OK):
        return Check(name, "fail", f"{path} is not readable and writable by this user; fix its "
                                   "permissions (chmod 700)", {"path": str(path)})
    mode = stat.S_IMODE(path.stat().st_mode)
    data = {"path": str(path), "exists": True, "mode": oct(mode)}
    if mode & 0o077:
        return Check(name, "warn", f"{path} is readable by other users (mode {oct(mode)}); "
                                   f"run: chmod 700 {path}", data)
    return Check(name, "ok", f"{path} (mode {oct(mode)})", data)


def check_database(data_dir: Path) -> Check:
    """SQLite ``integrity_check`` on the store, opened read-only (never modified here)."""
    name = "database"
    db = data_dir / DB_NAME
    if not db.exists():
        return Check(name, "ok", "no database yet; it is created on first use", {"path": str(db)})
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error as exc:
        return Check(name, "fail", f"cannot open {db} ({exc}); check its permissions", {"path": str(db)})
    try:
        rows = [r[0] for r in con.execute("PRAGMA integrity_check").fetchall()]
        version = con.execute("PRAGMA user_version").fetchone()[0]
        sessions = con.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] if con.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='sessions'").fetchone() else 0
    except sqlite3.DatabaseError as exc:
        return Check(name, "fail", f"{db} is not a readable database ({exc}); move it aside "
                                   f"(e.g. to {db.name}.broken) to start fresh, or restore a backup",
                     {"path": str(db)})
    finally:
        con.close()
    data = {"path": str(db), "schema_version": version, "sessions": sessions,
            "integrity": rows[:5]}
    if rows != ["ok"]:
        return Check(name, "fail", f"{db} failed its integrity check ({rows[0]}); restore a backup "
                                   "or export what you can with `shell-agent-lab memory export`", data)
    return Check(name, "ok", f"integrity ok, schema version {version}, {sessions} session"
                             f"{'s' if sessions != 1 else ''}", data)


def check_session_dirs(data_dir: Path) -> Check:
    """Every ``sessions/<id>/`` folder belongs to a session the database knows (a crash or a
    hand-copied folder can leave strays; they are reported, never removed here)."""
    name = "session folders"
    root = data_dir / "sessions"
    db = data_dir / DB_NAME
    if not root.is_dir():
        return Check(name, "ok", "none yet")
    folders = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.is_symlink())
    links = sorted(p.name for p in root.iterdir() if p.is_symlink())
    known: set[str] = set()
    if db.exists():
        try:
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
            try:
                known = {r[0] for r in con.execute("SELECT id FROM sessions")}
            finally:
                con.close()
        except sqlite3.Error:
            return Check(name, "warn", "not checked: the database cannot be read (see above)")
    strays = [f for f in folders if f not in known]
    data = {"folders": len(folders), "strays": strays[:20], "symlinks": links[:20]}
    if links:
        return Check(name, "warn", f"{len(links)} symbolic link(s) under {root} (e.g. {links[0]}); "
                                   "session folders should be real directories — move them aside", data)
    if strays:
        return Check(name, "warn", f"{len(strays)} folder(s) under {root} belong to no session "
                                   f"(e.g. {strays[0]}); delete them if you do not need their files", data)
    return Check(name, "ok", f"{len(folders)} folder{'s' if len(folders) != 1 else ''}, all known", data)


def check_backend(settings: Any, env: Mapping[str, str], *, timeout: float = 3.0,
                  **plan_options: Any) -> Check:
    """Which backend would be used, and whether it answers within ``timeout`` seconds."""
    plan = _backend_plan.plan_backend(settings, env, **plan_options)
    result = _backend_plan.probe(plan, env, timeout=timeout)
    what = plan.backend if plan.backend != "none" else "no backend"
    if plan.model:
        what += f" ({plan.model})"
    return Check("model backend", result.status, f"{what} — {plan.reason}; {result.detail}",
                 {"plan": plan.as_dict(), "probe": result.detail})


def check_data_sharing(settings: Any, env: Mapping[str, str], **plan_options: Any) -> Check:
    """Where requests would go and what of the data the model may read (nothing is contacted)."""
    from ..sharing import effective_sharing, leaves_machine

    plan = _backend_plan.plan_backend(settings, env, **plan_options)
    profile: dict[str, Any] = {"backend": plan.backend, "endpoint": plan.endpoint or ""}
    if plan.profile:
        try:
            profile = {**settings.profile_settings(plan.profile), **profile}
        except KeyError:
            pass
    remote = plan.backend != "none" and leaves_machine(profile, env)
    level = effective_sharing(settings, profile, env=env) if plan.backend != "none" else \
        (getattr(settings, "data_sharing", None) or "rows")
    where = (plan.endpoint or plan.backend) if remote else "this machine"
    how = "set" if getattr(settings, "data_sharing", None) or profile.get("data_sharing") else "default"
    return Check("data sharing", "ok", f"{level} ({how}); requests go to {where}",
                 {"level": level, "remote": remote, "destination": where})


def _labextension_dirs() -> list[Path]:
    from jupyter_core.paths import jupyter_path

    return [Path(p) for p in jupyter_path("labextensions")]


def _config_dirs() -> list[Path]:
    from jupyter_core.paths import jupyter_config_path

    return [Path(p) for p in jupyter_config_path()]


def _disabled(config_dirs: Iterable[Path], name: str) -> Path | None:
    """The page_config.json that disables ``name``, if any (JupyterLab's own mechanism)."""
    for directory in config_dirs:
        page = directory / "labconfig" / "page_config.json"
        try:
            body = json.loads(page.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        disabled = body.get("disabledExtensions", {}) if isinstance(body, dict) else {}
        if isinstance(disabled, dict) and any(
                v and (k == name or k.startswith(name + ":")) for k, v in disabled.items()):
            return page
        if isinstance(disabled, list) and name in disabled:
            return page
    return None


def check_labextension(extension_dirs: Iterable[Path] | None = None,
                       config_dirs: Iterable[Path] | None = None,
                       name: str = LABEXTENSION_NAME) -> Check:
    """The prebuilt side panel is installed where JupyterLab looks, and not disabled."""
    label = "side panel"
    dirs = list(extension_dirs) if extension_dirs is not None else _labextension_dirs()
    found = next((d / name for d in dirs if (d / name / "package.json").is_file()), None)
    if found is None:
        return Check(label, "warn", f"the JupyterLab extension {name!r} is not installed "
                                    "(the %agent magic works without it); reinstall with "
                                    "`pip install --force-reinstall shell-agent-lab`, or in a source "
                                    "checkout run `jupyter labextension develop --overwrite .`",
                     {"searched": [str(d) for d in dirs]})
    try:
        version = json.loads((found / "package.json").read_text("utf-8")).get("version", "?")
    except (OSError, ValueError):
        return Check(label, "fail", f"{found / 'package.json'} is unreadable; reinstall the package")
    page = _disabled(config_dirs if config_dirs is not None else _config_dirs(), name)
    data = {"path": str(found), "version": version}
    if page is not None:
        return Check(label, "warn", f"installed ({version}) but disabled in {page}; run "
                                    f"`jupyter labextension enable {name}`", data)
    return Check(label, "ok", f"installed and enabled ({version}) at {found}", data)
