"""A scripted model for recording the answer benchmark's test cassette: an OpenAI-compatible
server on 127.0.0.1 that answers each benchmark question the way a plan says.

Each question gets one *intent*, and the replies that carry it out, computed from the
question's reference answer so the numbers are the benchmark's own:

* ``right`` — a ``query_sql`` call selecting the answer's values, then the answer in the closed
  form, decorated the ways models write it (bold, backticks, thousands separators, ``%``);
* ``right_without_tools`` — the right answer straight away, which is not stated: no tool computed it;
* ``wrong_number`` — a ``query_sql`` call selecting near misses (one unit off in the last place
  asked for), then those values;
* ``no_tool_call`` — a wrong answer straight away;
* ``format`` — a ``query_sql`` call, then prose with no ``@name[…]``;
* ``tool_error`` — a ``query_sql`` call on a column that does not exist, then prose;
* ``error`` — the server answers HTTP 400, so the turn ends with an error.

The intent is also the outcome the benchmark must report for the question (:data:`OUTCOMES`).
"""
from __future__ import annotations

import dataclasses
import json
import threading
from typing import Any, Mapping, Sequence

from tests.support.fake_model_servers import FakeOpenAIServer, Reply, call

__all__ = ["ScriptedAnswerServer", "OUTCOMES", "replies_for"]

MODEL = "scripted-answers"

#: intent -> (correct, failure kind); a right value no tool computed is not stated (the answer's
#: part says "could not compute"), so it scores as an answer without a tool call
OUTCOMES: dict[str, tuple[bool, str | None]] = {
    "right": (True, None), "right_without_tools": (False, "no_tool_call"), "wrong_number": (False, "wrong_number"),
    "no_tool_call": (False, "no_tool_call"), "format": (False, "format"), "tool_error": (False, "tool_error"),
    "error": (False, "error"),
}


def _literal(value: Any) -> str:
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return repr(int(value)) if isinstance(value, int) else repr(float(value))


def _select(values: Mapping[str, Any]) -> str:
    return "SELECT " + ", ".join(f"{_literal(v)} AS \"{k}\"" for k, v in values.items())


def _written(part: Any, value: Any, style: int) -> str:
    """``value`` as a model might write it inside ``@name[…]``."""
    if part.kind == "text":
        return (value, f"**{value}**", f"`{value}`")[style % 3]
    if part.kind == "int":
        return (f"{value:,}", str(value))[style % 2]
    text = f"{value:,.{part.decimals}f}"
    return (text, f"`{text}`", text.replace(",", ""))[style % 3]


def _answer(parts: Sequence[Any], values: Mapping[str, Any]) -> str:
    shown = [f"@{p.name}[{_written(p, values[p.name], i)}]" for i, p in enumerate(parts)]
    return "From the query result: " + ", ".join(shown) + "."


def _off(part: Any, value: Any) -> Any:
    """A near miss: one unit off in the last place asked for (another name for a text)."""
    if part.kind == "text":
        return f"Not {value}"
    if part.kind == "int":
        return int(value) + 1
    return round(float(value) + 10.0 ** -part.decimals, part.decimals)


def replies_for(intent: str, parts: Sequence[Any], expected: Mapping[str, Any]) -> list[Reply]:
    """The replies that carry out ``intent`` for a question with these parts and expected values."""
    rounded = {p.name: (round(expected[p.name], p.decimals) if p.kind == "float" else expected[p.name])
               for p in parts}
    if intent == "right":
        return [Reply(tool_calls=[call("query_sql", {"sql": _select(expected)})]), Reply(text=_answer(parts, rounded))]
    if intent == "right_without_tools":
        return [Reply(text=_answer(parts, rounded))]
    if intent == "wrong_number":
        wrong = {p.name: _off(p, rounded[p.name]) for p in parts}
        return [Reply(tool_calls=[call("query_sql", {"sql": _select(wrong)})]), Reply(text=_answer(parts, wrong))]
    if intent == "no_tool_call":
        return [Reply(text=" ".join(f"@{p.name}[7]" if p.kind != "text" else f"@{p.name}[unknown]" for p in parts))]
    if intent == "format":
        return [Reply(tool_calls=[call("query_sql", {"sql": "SELECT count(*) AS n FROM df"})]),
                Reply(text="The figures are in the query result above.")]
    if intent == "tool_error":
        return [Reply(tool_calls=[call("query_sql", {"sql": "SELECT no_such_column_here FROM df"})]),
                Reply(text="The column I needed is not there, so I cannot answer.")]
    if intent == "error":
        return [Reply(status=400, body={"error": {"message": "scripted failure", "type": "invalid_request_error"}})]
    raise ValueError(f"unknown intent {intent!r} (known: {', '.join(OUTCOMES)})")


class ScriptedAnswerServer(FakeOpenAIServer):
    """Answers each request from the script of the question its last user message holds.

    ``scripts`` maps a question's prompt to its replies, served in order (the last one repeats).
    Usage reports a prompt-token estimate (a quarter of the request's characters)."""

    def __init__(self, scripts: Mapping[str, Sequence[Reply]]) -> None:
        super().__init__(models=(MODEL,))
        self.scripts = {" ".join(p.split()): list(r) for p, r in scripts.items()}
        self._served: dict[str, int] = {}
        self._local = threading.local()
        self._script_lock = threading.Lock()

    def route(self, handler: Any, request: Any) -> None:
        self._local.body = request.json
        super().route(handler, request)

    def _next(self) -> Any:
        body = getattr(self._local, "body", None) or {}
        messages = body.get("messages") or []
        last = next((m.get("content") for m in reversed(messages) if m.get("role") == "user"), "") or ""
        if not isinstance(last, str):
            last = " ".join(p.get("text", "") for p in last if isinstance(p, dict))
        last = " ".join(last.split())
        for prompt, replies in self.scripts.items():
            if prompt in last:
                with self._script_lock:
                    index = self._served.get(prompt, 0)
                    self._served[prompt] = index + 1
                reply = replies[min(index, len(replies) - 1)]
                tokens = len(json.dumps(messages, ensure_ascii=False)) // 4
                return dataclasses.replace(reply, usage=(tokens, 20), model=MODEL)
        return Reply(text="(no script for this request)", model=MODEL)
