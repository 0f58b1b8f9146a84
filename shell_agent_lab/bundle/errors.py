"""Errors raised by bundle export and import.

    BundleError              every bundle failure; ``str()`` is one actionable line
     ├── InvalidBundleError  the file is not an acceptable ``.shellagent`` bundle (nothing was written)
     └── BundleExportError   the session could not be exported (nothing was left at the destination)
"""
from __future__ import annotations

__all__ = ["BundleError", "InvalidBundleError", "BundleExportError"]


class BundleError(Exception):
    """Base class for bundle failures."""


class InvalidBundleError(BundleError):
    """A bundle was rejected; the data directory is unchanged."""


class BundleExportError(BundleError):
    """An export failed; no partial file is left behind."""
