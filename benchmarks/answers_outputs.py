"""What a benchmark session left behind, read back (pure: dicts and records in, facts out).

* :func:`answer_text` and :func:`cell_error` read an executed ``%%agent`` cell's outputs: the
  reply is Markdown (``text/markdown``); tool lines and tables are plain text and HTML and
  are not part of it; an error shows as an ``error`` output, a ``UsageError`` on stderr or the
  reply's ``**Error:**`` line.
* :func:`turn_facts` splits a session's records (the store's user / assistant / tool rows)
  into turns and matches them to the questions asked, in order.
* :func:`prompt_tokens` matches a cassette's recorded requests to the questions by the last
  user message of each request and lists their prompt (input) tokens.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

__all__ = ["TurnRecord", "answer_text", "cell_error", "turn_facts", "prompt_tokens"]

_ERROR_LINE = "**Error:**"


def _text(data: Any) -> str:
    return "".join(data) if isinstance(data, list) else str(data or "")


def answer_text(outputs: Iterable[Mapping[str, Any]]) -> str:
    """The Markdown the cell displayed, in order (the reply and what comes with it)."""
    parts = []
    for out in outputs:
        if out.get("output_type") in ("display_data", "execute_result", "update_display_data"):
            markdown = (out.get("data") or {}).get("text/markdown")
            if markdown is not None:
                parts.append(_text(markdown))
    return "\n\n".join(parts)


def cell_error(outputs: Iterable[Mapping[str, Any]]) -> str | None:
    """The error the cell ended with, if any (one line)."""
    for out in outputs:
        kind = out.get("output_type")
        if kind == "error":
            return f"{out.get('ename', 'Error')}: {out.get('evalue', '')}".strip()
        if kind == "stream" and out.get("name") == "stderr" and "UsageError" in _text(out.get("text")):
            return _text(out.get("text")).strip().splitlines()[0]
    for line in answer_text(outputs).splitlines():
        if line.startswith(_ERROR_LINE):
            return line[len(_ERROR_LINE):].strip()
    return None


@dataclass
class TurnRecord:
    """One turn as the store kept it."""

    message: str
    tool_calls: int = 0
    tool_statuses: list[str] = field(default_factory=list)
    final_text: str = ""

    @property
    def last_tool_status(self) -> str | None:
        return self.tool_statuses[-1] if self.tool_statuses else None


def _same(message: str, prompt: str) -> bool:
    a, b = " ".join(message.split()), " ".join(prompt.split())
    return a == b or b in a


def _turns(records: Iterable[Any]) -> list[TurnRecord]:
    turns: list[TurnRecord] = []
    for r in records:
        if r.role == "user":
            turns.append(TurnRecord(r.content))
        elif not turns:
            continue
        elif r.role == "assistant":
            calls = list(r.tool_calls or [])
            turns[-1].tool_calls += len(calls)
            if not calls and (r.content or "").strip():
                turns[-1].final_text = r.content
        elif r.role == "tool":
            turns[-1].tool_statuses.append(r.status or "")
    return turns


def turn_facts(records: Iterable[Any], prompts: Sequence[str]) -> list[TurnRecord | None]:
    """For each prompt (asked in this order), its turn, or None when it never started.

    ``records`` are the store's :class:`Record` rows (``role``, ``content``, ``tool_calls``,
    ``status``) of one session.
    """
    turns = _turns(records)
    out: list[TurnRecord | None] = []
    position = 0
    for prompt in prompts:
        match = next((i for i in range(position, len(turns)) if _same(turns[i].message, prompt)), None)
        if match is None:
            out.append(None)
            continue
        out.append(turns[match])
        position = match + 1
    return out


def _last_user(request: Mapping[str, Any]) -> str:
    for message in reversed(request.get("messages") or []):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


def prompt_tokens(interactions: Iterable[Mapping[str, Any]], prompts: Sequence[str]) -> list[list[int]]:
    """For each prompt, the input tokens of the requests made while answering it, in order.

    A request belongs to the prompt its last user message holds (the product wraps the message,
    so containment is what counts); requests of no listed prompt (titles, memory) are skipped.
    """
    out: list[list[int]] = [[] for _ in prompts]
    for item in interactions:
        last = " ".join(_last_user(item.get("request") or {}).split())
        for index, prompt in enumerate(prompts):
            if " ".join(prompt.split()) in last:
                usage = (item.get("response") or {}).get("usage") or {}
                out[index].append(int(usage.get("input_tokens") or 0))
                break
    return out
