"""Sessions that travel: ``.shellagent`` bundles.

``export_session(store, session_id, dest)`` writes one ZIP file; ``import_session(store, path)``
adds it as a new session with fresh ids, all or nothing. Every bundle is checked before a byte
is written: entry names, entry types, counts, declared and actual sizes, compression ratios, the
manifest, every JSON section and the object index (see :mod:`._archive` and :mod:`._contents`).
"""
from __future__ import annotations

from ._active import export_active_session
from ._export import ExportResult, export_session
from ._import import ImportResult, import_session
from ._limits import Limits
from ._names import default_filename, unique_title
from .errors import BundleError, BundleExportError, InvalidBundleError

__all__ = [
    "export_session", "import_session", "export_active_session",
    "ExportResult", "ImportResult", "Limits", "default_filename", "unique_title",
    "BundleError", "BundleExportError", "InvalidBundleError",
]
