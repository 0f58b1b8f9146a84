"""Run the command line in-process: ``run("sessions", "show", ID, "--json")`` → (code, out, err)."""
from __future__ import annotations

import contextlib
import io


def run(*argv: str) -> tuple[int, str, str]:
    from shell_agent_lab.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse usage errors
            code = exc.code if isinstance(exc.code, int) else 1
    return int(code or 0), out.getvalue(), err.getvalue()
