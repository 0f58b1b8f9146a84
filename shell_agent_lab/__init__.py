"""shell-agent-lab: a Jupyter-native data-analysis assistant.

In a notebook: ``%load_ext shell_agent_lab``, then ``%agent <question>``.
"""
from ._version import __version__
from .tools.python_tools import tool

__all__ = ["__version__", "tool", "attach", "load_ipython_extension", "unload_ipython_extension"]


def attach(source, *, name=None, mime=None):  # noqa: ANN001, ANN201 - mirrors notebook.attach.attach
    """Attach a text document or an image (a path, or bytes) to this notebook's session.

    The next ``%agent`` question carries it; the model reads documents with its text tools
    (``grep_text``, ``get_text``, ``analyze_text``) and sees images when its backend can.
    Returns the stored object's metadata; one-line ``ValueError`` when it cannot be attached.
    """
    from .notebook.attach import attach as _attach

    return _attach(source, name=name, mime=mime)


def load_ipython_extension(ipython):  # noqa: ANN001 - IPython's hook signature
    """``%load_ext shell_agent_lab``: the magics, the ``?`` handling, settings, the side-panel comm."""
    from .notebook.extension import load

    load(ipython)


def unload_ipython_extension(ipython):  # noqa: ANN001
    from .notebook.extension import unload

    unload(ipython)


def _jupyter_labextension_paths():
    """Where the prebuilt side panel lives in the package (shipped in the wheel)."""
    return [{"src": "labextension", "dest": "shell-agent-lab"}]
