"""Which runner a model-written program gets: the sandbox, or, where the operating system's
boundary cannot be set up, the kernel after a person approves it (as ``run_python`` asks).

Fail closed: a program is never run in the kernel unasked. When the approval is declined (or
no person can be asked), the turn ends with one line that says why and what to do.
"""
from __future__ import annotations

from typing import Any, Callable

from ..answers.program_run import ProgramRun, run_program, run_program_in_kernel

__all__ = ["ProgramDeclined", "program_runner", "APPROVAL_TOOL"]

#: the tool whose approval an in-kernel program run asks for (same prompt, same policy)
APPROVAL_TOOL = "run_python"


class ProgramDeclined(Exception):
    """An in-kernel run was declined; the message is the one line the user reads."""


def program_runner(*, gate: Any, registry: Any, cancel: Any = None,
                   waited: Callable[[float], None] | None = None,
                   clock: Callable[[], float] | None = None) -> Callable[..., ProgramRun]:
    """A ``run_program`` for the answer path: the sandbox when there is one; else an approval,
    then the guarded in-kernel run. ``waited`` hears the seconds a person took to decide."""
    import time

    now = clock or time.monotonic

    def run(code: str, frames: Any, *, timeout: float = 20.0) -> ProgramRun:
        result = run_program(code, frames, timeout=timeout)
        if not result.unavailable:
            return result
        why = (result.error or "").split("(", 1)[-1].split(")", 1)[0] or "no sandbox"
        descriptor = registry.get(APPROVAL_TOOL) if registry is not None else None
        if descriptor is None or gate is None:
            raise ProgramDeclined(f"Not run: programs cannot be isolated on this machine ({why}) and "
                                  f"`{APPROVAL_TOOL}` is not available to approve one. Install bubblewrap to "
                                  "answer with programs.")
        asked = now()
        decision = gate.check(descriptor, {"code": code}, cancel=cancel)
        if waited is not None:
            waited(now() - asked)
        if not decision.approved:
            raise ProgramDeclined(f"Not run: programs cannot be isolated on this machine ({why}), so each one "
                                  "asks first, and this one was declined. Install bubblewrap to answer without "
                                  "asking, or approve the program.")
        return run_program_in_kernel(code, frames, timeout=timeout)

    return run
