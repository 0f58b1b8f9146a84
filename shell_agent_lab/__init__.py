"""shell-agent-lab: a Jupyter-native data-analysis assistant."""
from ._version import __version__

__all__ = ["__version__"]
