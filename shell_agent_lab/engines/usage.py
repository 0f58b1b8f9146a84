"""Which connection names a session used: ``connections.json`` in its folder (names only)."""
from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path

__all__ = ["record_use", "used_names", "USAGE_FILE"]

log = logging.getLogger(__name__)

USAGE_FILE = "connections.json"
_lock = threading.Lock()


def used_names(session_dir: Path) -> list[str]:
    try:
        data = json.loads((Path(session_dir) / USAGE_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        return []
    return sorted(n for n in data.get("names", []) if isinstance(n, str)) if isinstance(data, dict) else []


def record_use(session_dir: Path, name: str) -> None:
    """Add ``name`` to the session's list (never a URL or a secret)."""
    with _lock:
        names = used_names(session_dir)
        if name in names:
            return
        path = Path(session_dir) / USAGE_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"names": sorted(set(names) | {name})}), "utf-8")
        os.replace(tmp, path)
