"""The bare-model baseline: the same model with no product around it.

For each question the model gets one prompt: the table's columns and dtypes (as ``df.dtypes``
prints them for ``df = pd.read_csv(path)``, nothing more), the question with its constraints
and answer format, and the request for ONE Python code block that prints the answer lines.
The block is run in a subprocess with ``import pandas as pd`` and ``df = pd.read_csv(path)``
put before it (60 s limit). The table is ``df`` unless the question names another variable for
it (its ``frame``, as the external set's questions do); the prompt and the run then use that name.
When the run fails (an exception, a time-out) or the reply holds no code block, the model is
asked once more with the error and the code, and the fix is run. What the code printed is the
answer, scored exactly like the product's: by the scoring function the caller passes (default
``heldout_score.score_question``; the benchmark passes ``answers_sets.score_question``).

The model is reached through the product's model layer: the backend ``build_backend`` makes
for the profile (the embedded model by default: the same shared llama.cpp server and weights
the benchmark's kernels use), wrapped in a :class:`~shell_agent_lab.llm.replay.ReplayBackend` on
``<cassettes>/bare.json``, so a baseline run is recorded and replays without a model like the
product's sessions. Requests are sent with temperature 0.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import pandas as pd

from benchmarks.answers_report import question_row
from benchmarks.answers_score import TurnFacts, Verdict
from benchmarks.answers_sets import set_of, style_of, wording_of
from benchmarks.heldout_score import score_question
from shell_agent_lab.llm.profiles import Profile
from shell_agent_lab.llm.selection import build_backend
from shell_agent_lab.llm.types import Backend, ChatOptions, Message

__all__ = ["BARE_CASSETTE", "SYSTEM", "Scorer", "RunOutcome", "BareAnswer", "system_prompt", "dtypes_text",
           "bare_messages", "extract_code", "run_code", "ask_bare", "run_bare", "bare_backend"]

BARE_CASSETTE = "bare.json"
RUN_TIMEOUT = 60.0
_OUTPUT_CHARS = 4000

_SYSTEM = ("You are a Python data analyst. A pandas DataFrame named {frame} is already loaded from a CSV file. "
           "Reply with exactly ONE Python code block (```python ... ```) and nothing else. The code must compute "
           "the answer from {frame} and print the final answer line(s) in exactly the format the question asks for.")
SYSTEM = _SYSTEM.format(frame="df")

#: judges a reply: (question, its reference, the text, what the turn did) -> a verdict
Scorer = Callable[[Any, Mapping[str, Any], str, TurnFacts], Verdict]


def system_prompt(frame: str = "df") -> str:
    """The system message, naming the table's variable."""
    return _SYSTEM.format(frame=frame)

_BLOCK = re.compile(r"```[ \t]*(?:python|py|python3)?[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)
_OPEN_BLOCK = re.compile(r"```[ \t]*(?:python|py|python3)?[ \t]*\n(.*)$", re.DOTALL | re.IGNORECASE)


def dtypes_text(csv_path: Path) -> str:
    """``df.dtypes`` as pandas prints it for ``pd.read_csv(csv_path)``."""
    return str(pd.read_csv(csv_path).dtypes)


def bare_messages(prompt: str, dtypes: str, frame: str = "df") -> list[Message]:
    """The one request for a question: the columns and dtypes, the question, the code asked for."""
    user = (f"{frame}.dtypes:\n{dtypes}\n\nQuestion: {prompt}\n\n"
            f"Write ONE Python code block that computes this from {frame} and prints the answer line(s) exactly as "
            "the question asks.")
    return [Message("system", system_prompt(frame)), Message("user", user)]


def extract_code(text: str) -> str | None:
    """The first fenced code block of a reply (a block left open at the end counts); None when
    there is none."""
    match = _BLOCK.search(text or "") or _OPEN_BLOCK.search(text or "")
    if not match:
        return None
    code = match.group(1).strip("\n")
    return code if code.strip() else None


@dataclass
class RunOutcome:
    stdout: str
    error: str | None = None            # the last lines of stderr, or the time-out
    timed_out: bool = False
    seconds: float = 0.0


def run_code(code: str, csv_path: Path, *, timeout: float = RUN_TIMEOUT, python: str = sys.executable,
             frame: str = "df") -> RunOutcome:
    """Run ``code`` after ``<frame> = pd.read_csv(csv_path)`` in a fresh interpreter (cwd: the file's folder)."""
    if not frame.isidentifier():
        raise ValueError(f"not a variable name: {frame!r}")
    script = f"import pandas as pd\n{frame} = pd.read_csv({str(csv_path)!r})\n{code}\n"
    with tempfile.TemporaryDirectory(prefix="answers-bare-") as tmp:
        path = Path(tmp) / "answer.py"
        path.write_text(script, encoding="utf-8")
        started = time.perf_counter()
        try:
            done = subprocess.run([python, str(path)], cwd=str(csv_path.parent), capture_output=True, text=True,
                                  timeout=timeout, env={**os.environ, "PYTHONIOENCODING": "utf-8"})
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode("utf-8", "replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            return RunOutcome(out[:_OUTPUT_CHARS], f"the code ran past {timeout:.0f} s", True,
                              time.perf_counter() - started)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        # the script's temporary path would make the fix request differ on every run (no replay)
        stderr = done.stderr.replace(str(path), "answer.py")
        tail = "\n".join(stderr.strip().splitlines()[-8:]) or f"exit status {done.returncode}"
        return RunOutcome(done.stdout[:_OUTPUT_CHARS], tail, False, seconds)
    return RunOutcome(done.stdout[:_OUTPUT_CHARS], None, False, seconds)


@dataclass
class BareAnswer:
    text: str                            # what the last run printed
    codes: list[str] = field(default_factory=list)
    runs: int = 0                        # code blocks run
    error: str | None = None             # the last run's error
    timed_out: bool = False
    seconds: float = 0.0
    tokens: list[int] = field(default_factory=list)
    model_error: str | None = None       # the model could not be asked


def _fix_request(code: str | None, error: str) -> str:
    if code is None:
        return ("Your reply had no Python code block. Reply with ONE ```python code block that computes the answer "
                "from df and prints the answer line(s).")
    return (f"Running this code:\n```python\n{code}\n```\nfailed with:\n```\n{error}\n```\n"
            "Fix it. Reply with the whole corrected code in ONE ```python code block.")


def ask_bare(backend: Backend, prompt: str, csv_path: Path, dtypes: str, *, timeout: float = RUN_TIMEOUT,
             python: str = sys.executable, frame: str = "df") -> BareAnswer:
    """Ask one question the bare way: one request, run its code, and at most one fix."""
    started = time.perf_counter()
    messages = bare_messages(prompt, dtypes, frame)
    answer = BareAnswer("")
    options = ChatOptions(temperature=0.0)
    for attempt in range(2):
        try:
            response = backend.chat(messages, [], options=options)
        except Exception as exc:        # noqa: BLE001 - a failed request ends the question, not the run
            answer.model_error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            break
        answer.tokens.append(int(response.usage.input_tokens or 0))
        code = extract_code(response.text)
        if code is None:
            answer.error = "the reply has no code block"
        else:
            answer.codes.append(code)
            outcome = run_code(code, csv_path, timeout=timeout, python=python, frame=frame)
            answer.runs += 1
            answer.text, answer.error, answer.timed_out = outcome.stdout, outcome.error, outcome.timed_out
            if outcome.error is None:
                break
        if attempt == 0:
            messages = messages + [Message("assistant", response.text or ""),
                                   Message("user", _fix_request(code, answer.error or ""))]
    answer.seconds = time.perf_counter() - started
    return answer


def run_bare(questions: Sequence[Any], backend: Backend, files_dir: Path, expected: Mapping[str, Mapping[str, Any]],
             *, timeout: float = RUN_TIMEOUT, progress: Callable[[str], None] | None = None,
             score: Scorer = score_question) -> list[dict[str, Any]]:
    """Ask every question the bare way (one after another) and score it with ``score``; one
    report row each."""
    dtypes: dict[str, str] = {}
    rows = []
    for index, q in enumerate(questions, 1):
        path = files_dir / q.file
        if q.file not in dtypes:
            dtypes[q.file] = dtypes_text(path)
        answer = ask_bare(backend, q.prompt, path, dtypes[q.file], timeout=timeout, frame=getattr(q, "frame", "df"))
        facts = TurnFacts(tool_calls=answer.runs, last_tool_status="error" if answer.error and answer.runs else None,
                          error=answer.model_error, timed_out=answer.timed_out)
        verdict = score(q, expected[q.id], answer.text, facts)
        row = question_row(question=q, session="bare", position=1, expected=expected[q.id], verdict=verdict,
                           seconds=answer.seconds, text=answer.text, timed_out=answer.timed_out,
                           error=answer.model_error or answer.error, tool_calls=answer.runs,
                           last_tool_status=facts.last_tool_status, tokens=answer.tokens,
                           set_name=set_of(q), style=style_of(q), wording=wording_of(q))
        row["code"] = answer.codes[-1] if answer.codes else None
        rows.append(row)
        if progress:
            progress(f"[bare {index}/{len(questions)}] {q.id}: {'right' if verdict.correct else verdict.kind}, "
                     f"{answer.seconds:.0f} s")
    return rows


def _source(profile: str | None) -> tuple[Any, dict[str, Profile]]:
    """The profile to ask (JSON, a configured name, or the embedded model) and the configured ones."""
    if not profile:
        return {"backend": "local"}, {}
    if profile.lstrip().startswith("{"):
        return json.loads(profile), {}
    from shell_agent_lab._config_file import load_settings

    settings, _ = load_settings()
    known = {name: body if isinstance(body, Profile) else Profile.from_dict(name, body)
             for name, body in (getattr(settings, "profiles", None) or {}).items()}
    if profile not in known:
        raise SystemExit(f"answers.py: no configured profile {profile!r}")
    return profile, known


@contextmanager
def bare_backend(profile: str | None, cassettes: Path, mode: str, data_dir: Path) -> Iterator[Backend]:
    """The backend the baseline asks: ``profile`` (default: the embedded model, sharing the
    kernels' data directory and so their server) recorded to or replayed from
    ``cassettes/bare.json`` (``mode`` ``record`` or ``replay``)."""
    if mode == "replay" and not (cassettes / BARE_CASSETTE).exists():
        raise SystemExit(f"answers.py: {cassettes} holds no bare-model recording ({BARE_CASSETTE}); "
                         "record one with --baseline bare")
    source, known = _source(profile)
    saved = os.environ.get("SHELL_AGENT_LAB_DATA_DIR")
    os.environ["SHELL_AGENT_LAB_DATA_DIR"] = str(data_dir)
    backend = build_backend(Profile("bare", "replay", options={
        "cassette": str(cassettes / BARE_CASSETTE), "source": source, "mode": mode}), profiles=known)
    try:
        yield backend
    finally:
        backend.close()
        if saved is None:
            os.environ.pop("SHELL_AGENT_LAB_DATA_DIR", None)
        else:
            os.environ["SHELL_AGENT_LAB_DATA_DIR"] = saved
