"""Sessions that travel: ``.shellagent`` bundles (export, import) and their safety checks."""
from __future__ import annotations

from ._limits import Limits
from ._names import default_filename, unique_title
from .errors import BundleError, BundleExportError, InvalidBundleError

__all__ = [
    "Limits", "default_filename", "unique_title",
    "BundleError", "BundleExportError", "InvalidBundleError",
]
