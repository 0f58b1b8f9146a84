"""Context building: the system prompt plus as much history as the budget allows.

Records are never rewritten. Each request is assembled from them:

    system prompt → summaries (far tier, near tier) → anchored records → raw window → notes

* The raw window runs newest-first and always holds the newest record. Its start snaps to a
  token grid (half the raw budget) over the append-only history, so it moves in steps rather
  than one record per turn: between steps every request begins with the complete previous one,
  and the summaries in front of it keep hitting the cache.
* Older records are summarised by the model in two tiers (older half / newer half), cached by
  content (see :mod:`.summaries`) in the store.
* Old records that match a remembered preference/decision (anchors) stay verbatim; old records
  that only match dormant or archived session notes (dead topics) are dropped and counted.
* User and tool content is guard-wrapped; user records carry their own stored time; tool records
  and records after a pause carry a time marker; the first record of a slice never does.

Per-record renders, token counts and digests are cached by record id, so a turn costs work in
proportion to what changed, not to the length of the session.
"""
from __future__ import annotations

import copy
import inspect
import logging
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

from ..llm.types import Backend, Message
from ..sharing import answer_view
from ._history import (
    Older, SessionState, classify_older, is_placeholder, memory_signature, message_tokens,
    pair_tool_calls, window_start,
)
from .anchors import split_anchors
from ._render import ImageLoader, images_of, needs_marker, render_record
from ._text import time_marker
from .budget import Budget
from .guard import SessionGuards, clean_reply, wrap
from .prompt import BASE_PROMPT, RULES_FILENAME, PromptParts, RulesFile, render_system_prompt, split_system_prompt
from .summaries import (
    KIND, content_key, record_digest, summarize, summary_header, unavailable_block,
)
from .tokens import estimate_tokens

__all__ = ["Budget", "Built", "ContextBuilder"]

log = logging.getLogger(__name__)


@dataclass
class Built:
    """One request's messages.

    ``stats``: records, system_tokens, raw_records, raw_tokens, window_start,
    summarized_records, anchored_records, dropped_dead_topics, summary_blocks,
    summary_cache_hits, summarizer_calls, summary_unavailable, summary_errors (one line each),
    used_cache, guard_rotations, total_tokens.
    """

    messages: list[Message]
    system_prompt: str
    stats: dict[str, Any] = field(default_factory=dict)


class ContextBuilder:
    """Builds the messages of each request for a session (see the module docstring)."""

    #: sessions whose render caches are kept; older ones are rebuilt on their next turn
    max_cached_sessions = 8

    def __init__(self, store: Any, *, base_prompt: str | None = None, rules_path: Path | None = None,
                 clock: Callable[[], datetime] | None = None) -> None:
        self._store = store
        self._base = base_prompt if base_prompt is not None else BASE_PROMPT
        if rules_path is None:
            rules_path = Path(store.data_dir) / RULES_FILENAME
        self._rules = RulesFile(Path(rules_path))
        self._clock = clock or (lambda: datetime.now(timezone.utc))
        self._guards = SessionGuards()
        self._lock = threading.RLock()
        #: per-session caches, most recently used last (a kernel may visit many sessions)
        self._sessions: OrderedDict[str, SessionState] = OrderedDict()
        try:
            params = inspect.signature(store.list_records).parameters
        except (TypeError, ValueError):  # pragma: no cover - builtins without signatures
            params = {}
        self._incremental = "after_seq" in params

    # --- public API ---------------------------------------------------------------------------

    @property
    def rules_file(self) -> RulesFile:
        return self._rules

    def guard_tag(self, session_id: str) -> str:
        """The session's current guard tag (after checking records not seen yet)."""
        with self._lock:
            state = self._state(session_id)
            return self._guards.prepare(session_id, self._sync_records(session_id, state))

    def system_prompt(self, session_id: str, *, data_schema: str | None = None) -> str:
        """The system prompt; byte-identical across calls while memory and rules are unchanged."""
        with self._lock:
            self.guard_tag(session_id)
            return self._system_prompt(session_id, data_schema)

    def build(self, session_id: str, *, budget: Budget, summarizer: Backend | None,
              notes: Sequence[str] = (), data_schema: str | None = None,
              base_prompt: str | None = None, history: str = "full", sharing: str = "rows") -> Built:
        """System prompt and history within ``budget``.

        ``summarizer`` folds older records into cached summaries (``None``: they are elided);
        it is the backend the request goes to, so when its capabilities include images, the
        pictures that user messages in the raw window attached (image anchors) go along;
        ``notes`` are transient system messages appended last; ``data_schema`` is the tables'
        schema text, guard-wrapped into the system prompt (keep it byte-stable across turns);
        ``base_prompt`` replaces the builder's base prompt for this request (the compact one
        for small models). The fixed part of the system prompt is the first message, the data
        schema and memory a second system message (see :func:`.prompt.split_system_prompt`).
        ``history="turn"`` sends the current question's records only; when the question refers
        back to earlier ones, the last questions and their answers go as a short block of text in
        the second system message (a small model copies earlier answers, filters and tool
        results when it sees them as conversation).
        ``sharing``: the data-sharing level (see :mod:`shell_agent_lab.sharing`); every tool
        record, raw, anchored or summarised, goes out as its view at that level.
        """
        with self._lock:
            state = self._state(session_id)
            self._guards.prepare(session_id, self._sync_records(session_id, state))
            fixed, context = split_system_prompt(self._prompt_parts(session_id, data_schema, base_prompt))
            tag = self._guards.tag(session_id)
            current = _current_turn(state) if history == "turn" else None
            if current is not None and refers_back(state.raw[current].content or ""):
                earlier = earlier_turns(state.raw[:current], self._clean_for_digest(tag), sharing=sharing)
                if earlier:
                    block = wrap(tag, "\n" + earlier + "\n")
                    context = (context + "\n" if context else "") + f"{EARLIER_HEADER}\n{block}\n"
            system = fixed + "\n" + context if context else fixed
            stats: dict[str, Any] = {
                "records": state.seen, "system_tokens": estimate_tokens(system),
                "raw_records": 0, "raw_tokens": 0, "summarized_records": 0,
                "anchored_records": 0, "dropped_dead_topics": 0, "summary_blocks": 0,
                "summary_cache_hits": 0, "summarizer_calls": 0, "summary_unavailable": 0,
                "summary_errors": [], "used_cache": False, "guard_rotations":
                self._guards.rotations(session_id),
            }
            self._sync_renders(state, tag, budget.max_tool_result_tokens, sharing)
            if current is not None:
                start, blocks, cands = current, [], classify_older(state, 0, ())
            else:
                start = window_start(state, budget.raw_budget(stats["system_tokens"]),
                                     budget.window_step)
                blocks = [self._legacy_block(r) for r in state.legacy]
                cands = classify_older(state, start, memory_signature(
                    self._store, session_id, budget.anchor_threshold, budget.dead_topic_threshold)
                    if start else ())
                blocks += self._summary_blocks(session_id, state, cands, summarizer, tag, stats, budget,
                                               sharing)
            summary = [Message(role="system", content="\n\n".join(blocks))] if blocks else []
            anchored = self._render_slice(cands.anchors, tag, budget.max_tool_result_tokens,
                                          anchors=True, sharing=sharing)
            window = self._window_messages(state, start, self._image_loader(session_id, summarizer))
            extra = [Message(role="system", content=n) for n in notes if n]
            head = [Message(role="system", content=fixed)]
            if context:
                head.append(Message(role="system", content=context))
            messages = [*head, *summary, *anchored, *window, *extra]

            stats["summary_blocks"] = len(blocks)
            stats["raw_records"] = len(state.raw) - start
            stats["raw_tokens"] = state.cum[-1] - state.cum[start]   # as rendered in sequence
            stats["anchored_records"] = len(cands.anchors)
            stats["dropped_dead_topics"] = cands.dropped
            stats["summarized_records"] = len(cands.remaining)
            stats["window_start"] = start
            stats["total_tokens"] = stats["system_tokens"] + stats["raw_tokens"] + sum(
                message_tokens(m) for m in (*summary, *anchored, *extra))
            stats["guard_rotations"] = self._guards.rotations(session_id)
            return Built(messages=messages, system_prompt=system, stats=stats)

    @staticmethod
    def _clean_for_digest(tag: str) -> Callable[[str], str]:
        return lambda text: text.replace(tag, "")

    def clean_reply(self, session_id: str, text: str) -> str:
        """A model reply with think blocks and this session's guard tags removed."""
        return clean_reply(text, self._guards.tag(session_id))

    def reset_guard(self, session_id: str) -> None:
        """Forget the session's tag and caches (on session load or delete)."""
        with self._lock:
            self._guards.reset(session_id)
            self._sessions.pop(session_id, None)

    # --- system prompt ------------------------------------------------------------------------

    def _system_prompt(self, session_id: str, data_schema: str | None) -> str:
        return render_system_prompt(self._prompt_parts(session_id, data_schema))

    def _prompt_parts(self, session_id: str, data_schema: str | None,
                      base_prompt: str | None = None) -> PromptParts:
        store = self._store
        global_block = store.global_memory.render() or ""
        session_block = store.session_memory.render(session_id) or ""
        findings_block = store.findings.render(session_id) or ""
        schema = (data_schema or "").strip("\n")
        untrusted = [schema, session_block, findings_block]
        tag = self._guards.avoid(session_id, untrusted)
        return PromptParts(
            base=base_prompt if base_prompt is not None else self._base, rules=self._rules.text(),
            data_schema=wrap(tag, "\n" + schema + "\n") if schema.strip() else "",
            global_memory=global_block,
            session_memory=wrap(tag, "\n" + session_block.rstrip("\n") + "\n")
            if session_block.strip() else "",
            findings=wrap(tag, "\n" + findings_block.rstrip("\n") + "\n")
            if findings_block.strip() else "",
        )

    # --- records and renders ------------------------------------------------------------------

    def _state(self, session_id: str) -> SessionState:
        state = self._sessions.get(session_id)
        if state is None:
            state = self._sessions[session_id] = SessionState()
            while len(self._sessions) > self.max_cached_sessions:
                self._sessions.popitem(last=False)   # rebuilt from the store if visited again
        else:
            self._sessions.move_to_end(session_id)
        return state

    def _sync_records(self, session_id: str, state: SessionState) -> list[Any]:
        """Fetch records appended since the last call (all of them the first time); return them."""
        if state.seen and self._incremental:
            fresh = self._store.list_records(session_id, after_seq=state.last_seq)
        else:
            records = self._store.list_records(session_id)
            if state.seen and (len(records) < state.seen
                               or records[state.seen - 1].id != state.last_id):
                state.clear()                # history changed under us (import, delete)
            fresh = records[state.seen:]
        for record in fresh:
            if record.role == "summary":
                state.legacy.append(record)
            elif record.role in ("user", "assistant", "tool") and not is_placeholder(record):
                state.raw.append(record)
        if fresh:
            state.seen += len(fresh)
            state.last_id = fresh[-1].id
            state.last_seq = fresh[-1].seq
        return fresh

    def _sync_renders(self, state: SessionState, tag: str, tool_cap: int, sharing: str = "rows") -> None:
        key: tuple[Any, ...] = (tag, tool_cap) if sharing == "rows" else (tag, tool_cap, sharing)
        if state.render_key != key:
            state.reset_renders(key)
        for i in range(len(state.tokens), len(state.raw)):
            message = self._render(state, i, first=(i == 0))
            state.tokens.append(message_tokens(message))
            state.cum.append(state.cum[-1] + state.tokens[-1])

    def _render(self, state: SessionState, i: int, *, first: bool) -> Message:
        record = state.raw[i]
        previous = state.raw[i - 1].created_at if i > 0 else None
        marker = needs_marker(record.role, record.created_at, previous, first)
        key = (record.id, marker)
        message = state.messages.get(key)
        if message is None:
            tag, cap, *level = state.render_key  # type: ignore[misc]
            message = render_record(record, tag=tag, tool_cap=cap, marker=marker,
                                    sharing=level[0] if level else "rows")
            state.messages[key] = message
        return message

    def _image_loader(self, session_id: str, backend: Backend | None) -> ImageLoader | None:
        """Reads this session's image objects, when ``backend`` can see images (else None)."""
        capabilities = getattr(backend, "capabilities", None)
        objects = getattr(self._store, "objects", None)
        if not getattr(capabilities, "images", False) or objects is None:
            return None

        def load(object_id: str) -> tuple[str, bytes] | None:
            try:
                meta, data = objects.get(object_id)
            except Exception:       # deleted since, or its file is gone: the anchor stays as text
                log.info("image object %s is not available", object_id, exc_info=True)
                return None
            if meta.session_id != session_id or meta.type != "image" or not meta.mime_type.startswith("image/"):
                return None
            return meta.mime_type, data
        return load

    def _window_messages(self, state: SessionState, start: int,
                         images: ImageLoader | None = None) -> list[Message]:
        out = []
        for i in range(start, len(state.raw)):
            message = copy.copy(self._render(state, i, first=(i == start)))
            if images is not None and message.role == "user":
                # looked up per request (not cached with the render): a deleted image stops going out
                message.images = images_of(state.raw[i].content or "", images)
            out.append(message)
        if len(state.messages) > 4 * (len(out) + 64):
            keep = {(r.id, m) for r in state.raw[start:] for m in (True, False)}
            state.messages = {k: v for k, v in state.messages.items() if k in keep}
        return pair_tool_calls(out)

    def _render_slice(self, records: list[Any], tag: str, cap: int, *, anchors: bool,
                      sharing: str = "rows") -> list[Message]:
        out: list[Message] = []
        previous = None
        for i, record in enumerate(records):
            marker = needs_marker(record.role, record.created_at, previous, i == 0)
            previous = record.created_at
            message = render_record(record, tag=tag, tool_cap=cap, marker=marker, sharing=sharing)
            if anchors and message.role == "tool":
                label = f"[Earlier result of tool {record.tool_name or 'unknown'}]"
                message = Message(role="user", content=f"{label}\n{message.content}")
            elif anchors and message.role == "assistant":
                message = Message(role="assistant", content=message.content)
            out.append(message)
        return out

    # --- older records: anchors, dead topics, summaries ---------------------------------------

    def _summary_blocks(self, session_id: str, state: SessionState, cands: Older,
                        summarizer: Backend | None, tag: str, stats: dict[str, Any],
                        budget: Budget, sharing: str = "rows") -> list[str]:
        summarizer_id = summarizer.identity if summarizer is not None else "none"
        if sharing != "rows":       # a summary made at one level is never reused at a lower one
            summarizer_id += f"@{sharing}"
        blocks: list[str] = []
        for tier, records, dropped, key in self._tiers(state, cands, summarizer_id):
            text = ""
            if records:
                text = self._cached_summary(session_id, state, key)
                if text:
                    stats["summary_cache_hits"] += 1
                    stats["used_cache"] = True
                elif summarizer is not None:
                    stats["summarizer_calls"] += 1
                    limit = budget.summarizer_input()
                    caps = [c for c in (budget.max_tool_result_tokens, limit // 4) if c > 0]
                    outcome = summarize(summarizer, records, max_tokens=limit,
                                        record_tokens=min(caps) if caps else 0, sharing=sharing)
                    if outcome.error:
                        stats["summary_errors"].append(outcome.error)
                    text = outcome.text
                    if text:
                        self._put_summary(session_id, state, key, tier, summarizer_id, records, text)
            lines = []
            if records and text:
                header = summary_header(tier, len(records), records[0].created_at,
                                        records[-1].created_at)
                body = text.replace(tag, "")
                lines.append(f"{header}\n{wrap(tag, body)}")
            elif records:
                stats["summary_unavailable"] += 1
                lines.append(unavailable_block(tier, len(records)))
            if dropped:
                lines.append(f"[{dropped} dead-topic turns suppressed]")
            blocks.append("\n".join(lines))
        return blocks

    def _tiers(self, state: SessionState, cands: Older,
               summarizer_id: str) -> list[tuple[str, list[Any], int, str]]:
        """(tier, records, dropped, key) for the far and near tiers; cached per candidate set."""
        memo = (state.candidates_key, summarizer_id) if cands is state.candidates else None
        if memo is not None and state.tiers_key == memo:
            return state.tiers
        remaining = cands.remaining
        mid = len(remaining) // 2
        out = []
        for tier, records, dropped in (("far", remaining[:mid], cands.dropped),
                                       ("near", remaining[mid:], 0)):
            if not records and not dropped:
                continue
            digests = []
            for record in records:
                digest = state.digests.get(record.id)
                if digest is None:
                    digest = state.digests[record.id] = record_digest(record)
                digests.append(digest)
            key = content_key(digests, summarizer_id, cands.fingerprints, cands.anchor_indices,
                              tier) if records else ""
            out.append((tier, records, dropped, key))
        state.tiers_key, state.tiers = memo, out
        return out

    def _cached_summary(self, session_id: str, state: SessionState, key: str) -> str:
        text = state.summaries.get(key)
        if text is not None:
            return text
        entry = self._store.get_summary(session_id, key)
        if entry is None or getattr(entry, "kind", "") != KIND or not entry.summary:
            return ""
        state.summaries[key] = entry.summary
        return entry.summary

    def _put_summary(self, session_id: str, state: SessionState, key: str, tier: str,
                     summarizer_id: str, records: list[Any], text: str) -> None:
        entry = _summary_entry(key=key, kind=KIND, tier=tier, summarizer_id=summarizer_id,
                               from_ts=records[0].created_at, to_ts=records[-1].created_at,
                               record_count=len(records), summary=text, created_at=self._clock())
        self._store.put_summary(session_id, entry)
        state.summaries[key] = text
        if len(state.summaries) > 64:
            state.summaries.pop(next(iter(state.summaries)))

    @staticmethod
    def _legacy_block(record: Any) -> str:
        when = f" — {time_marker(record.created_at)}" if record.created_at else ""
        return f"[Summary of earlier conversation{when}]\n{record.content or ''}"


EARLIER_HEADER = "Earlier questions in this notebook and the answers given (for reference; compute new numbers with a tool):"


_LEANS_ON = re.compile(
    r"^\W*(?:and|also|but|so|then|now|ok|okay|what\s+about|how\s+about|same|instead)\b|"
    r"\b(?:the\s+same|again|instead|this\s+one|the\s+above|(?:as|from)\s+(?:above|before)|"
    r"(?:the|your|my|that)\s+(?:previous|last|earlier)\s+(?:answer|question|result|one|query|number)|"
    r"that\s+(?:answer|result|number|value|figure|table|query|group))\b",
    re.IGNORECASE)
#: a pronoun leans on an earlier question only in a short one ("Why is that so high?"); in a
#: standalone question ("rows that are exact copies", "its mean") it is grammar
_PRONOUN = re.compile(r"\b(?:that|those|these|it|its|them|they)\b", re.IGNORECASE)
_SHORT_WORDS = 8


def refers_back(question: str) -> bool:
    """The question leans on an earlier one ("And for 2021?", "Why is that so high?"). Only then
    are earlier questions shown: a small model copies their filters into a standalone question."""
    text = split_anchors(question)[2]
    if _LEANS_ON.search(text):
        return True
    return len(text.split()) <= _SHORT_WORDS and _PRONOUN.search(text) is not None


def _current_turn(state: SessionState) -> int | None:
    """Index of the newest user record (the question being answered), or None."""
    for i in range(len(state.raw) - 1, -1, -1):
        if state.raw[i].role == "user":
            return i
    return None


def earlier_turns(records: Sequence[Any], clean: Callable[[str], str], *, turns: int = 3,
                  max_chars: int = 300, sharing: str = "rows") -> str:
    """The last ``turns`` questions of ``records`` with their final answers, one line each (an
    answer as the model may read it at data-sharing level ``sharing``)."""
    pairs: list[tuple[str, str]] = []
    for record in records:
        content = answer_view(record.content or "", getattr(record, "meta", None), sharing)
        text = clean(content).strip().replace("\n", " ")
        if record.role == "user":
            pairs.append((text, ""))
        elif record.role == "assistant" and text and pairs and not getattr(record, "tool_calls", None):
            pairs[-1] = (pairs[-1][0], text)
    lines = []
    for question, answer in pairs[-turns:]:
        lines.append(f"Q: {_clip(question, max_chars)}\nA: {_clip(answer, max_chars) or '(no answer)'}")
    return "\n".join(lines)


def last_question(records: Sequence[Any], *, max_chars: int = 300) -> str:
    """The last question of ``records`` on one line, as :func:`earlier_turns` writes it ("" when
    there is none)."""
    for record in reversed(records):
        if record.role == "user":
            return _clip((record.content or "").strip().replace("\n", " "), max_chars)
    return ""


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _summary_entry(**fields: Any) -> Any:
    """A ``SummaryEntry`` of the store (the one seam to the store's model classes)."""
    try:
        from ..store.models import SummaryEntry
    except ImportError:  # the store package is not importable: hand back a plain record
        from types import SimpleNamespace

        return SimpleNamespace(**fields)
    return SummaryEntry(**fields)
