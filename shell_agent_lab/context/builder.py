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

import bisect
import inspect
import copy
import json
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

from ..llm.types import Backend, Message
from ._render import needs_marker, render_record
from ._text import jaccard, time_marker, token_set
from .guard import SessionGuards, clean_reply, wrap
from .prompt import BASE_PROMPT, RULES_FILENAME, PromptParts, RulesFile, render_system_prompt
from .summaries import (
    KIND, content_key, record_digest, summarize, summary_header, unavailable_block,
)
from .tokens import estimate_tokens

__all__ = ["Budget", "Built", "ContextBuilder"]

_DEAD_STATES = frozenset({"dormant", "archived"})
_ANCHOR_CATEGORIES = frozenset({"preference", "decision"})


@dataclass(frozen=True)
class Budget:
    """Token budget of one request, from the active profile. ``max_context_tokens <= 0`` = no limit."""

    max_context_tokens: int = 0
    output_reserve: int = 0
    max_tool_result_tokens: int = 4000
    far_share: float = 0.05
    near_share: float = 0.15
    anchor_threshold: float = 0.4
    dead_topic_threshold: float = 0.4
    #: tokens of transcript one summarizer call may receive; 0 = half the context (no limit
    #: when the context is unlimited). Newest records are kept when a tier is longer.
    summary_input_tokens: int = 0
    #: the window start snaps to a grid of this share of the raw budget, so it moves in steps
    #: and the requests in between extend each other; 0 moves it with every record
    window_step: float = 0.5

    def __post_init__(self) -> None:
        for name in ("max_context_tokens", "output_reserve", "max_tool_result_tokens",
                     "summary_input_tokens"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"Budget.{name} must be a whole number ≥ 0, got {value!r}")
        for name in ("far_share", "near_share", "window_step"):
            value = getattr(self, name)
            if not 0 <= value < 1:
                raise ValueError(f"Budget.{name} must be between 0 and 1 (exclusive), got {value!r}")
        if self.far_share + self.near_share >= 1:
            raise ValueError("Budget.far_share + near_share must stay below 1 so the raw window "
                             f"keeps some room, got {self.far_share + self.near_share:g}")
        for name in ("anchor_threshold", "dead_topic_threshold"):
            value = getattr(self, name)
            if not 0 < value <= 1:
                raise ValueError(f"Budget.{name} must be in (0, 1], got {value!r}")

    def summarizer_input(self) -> int:
        """Token limit of one summarizer transcript (0 = unlimited)."""
        if self.summary_input_tokens:
            return self.summary_input_tokens
        if self.max_context_tokens <= 0:
            return 0
        return max(500, (self.max_context_tokens - self.output_reserve) // 2)

    def raw_budget(self, system_tokens: int) -> int | None:
        """Tokens left for the raw window, or ``None`` when unlimited."""
        if self.max_context_tokens <= 0:
            return None
        available = max(0, self.max_context_tokens - system_tokens - self.output_reserve)
        return available - int(available * self.far_share) - int(available * self.near_share)


@dataclass
class Built:
    messages: list[Message]
    system_prompt: str
    stats: dict[str, Any] = field(default_factory=dict)


def _message_tokens(message: Message) -> int:
    tokens = estimate_tokens(message.content)
    for call in message.tool_calls:
        tokens += estimate_tokens(call.name) + estimate_tokens(
            json.dumps(call.arguments, ensure_ascii=False, sort_keys=True))
    return tokens


def _is_placeholder(record: Any) -> bool:
    return record.role == "assistant" and (record.content or "").startswith("[Calling:") \
        and not getattr(record, "tool_calls", None)


@dataclass
class _Candidates:
    """The summarisable part of the history for one (start, memory) state."""

    anchors: list[Any]
    remaining: list[Any]
    anchor_indices: list[int]
    dropped: int
    fingerprints: list[str]


class _SessionState:
    """Everything cached for one session. Records are append-only, so caches only grow."""

    def __init__(self) -> None:
        self.seen = 0                    # number of store records processed
        self.last_id: Any = None
        self.last_seq = 0
        self.raw: list[Any] = []         # records that may be sent (oldest first)
        self.legacy: list[Any] = []      # legacy "summary" records
        self.render_key: tuple[str, int] | None = None   # (tag, tool cap) the renders were made with
        self.tokens: list[int] = []      # tokens of raw[i] as rendered in sequence
        self.cum: list[int] = [0]        # prefix sums of tokens
        self.messages: dict[tuple[Any, bool], Message] = {}
        self.token_sets: dict[Any, frozenset[str]] = {}
        self.digests: dict[Any, bytes] = {}
        self.classes: dict[Any, tuple[bool, tuple[str, ...]]] = {}
        self.class_sig: Any = None
        self.candidates_key: Any = None
        self.candidates: _Candidates | None = None
        self.summaries: dict[str, str] = {}
        self.tiers_key: Any = None
        self.tiers: list[tuple[str, list[Any], int, str]] = []

    def clear(self) -> None:
        self.__init__()  # type: ignore[misc]

    def reset_renders(self, key: tuple[str, int]) -> None:
        self.render_key = key
        self.tokens = []
        self.cum = [0]
        self.messages = {}


class ContextBuilder:
    """Builds the messages of each request for a session (see the module docstring)."""

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
        self._sessions: dict[str, _SessionState] = {}
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
              notes: Sequence[str] = (), data_schema: str | None = None) -> Built:
        """System prompt and history within ``budget``; ``notes`` are transient system messages."""
        with self._lock:
            state = self._state(session_id)
            self._guards.prepare(session_id, self._sync_records(session_id, state))
            system = self._system_prompt(session_id, data_schema)
            tag = self._guards.tag(session_id)
            stats: dict[str, Any] = {
                "records": state.seen, "system_tokens": estimate_tokens(system),
                "raw_records": 0, "raw_tokens": 0, "summarized_records": 0,
                "anchored_records": 0, "dropped_dead_topics": 0, "summary_blocks": 0,
                "summary_cache_hits": 0, "summarizer_calls": 0, "summary_unavailable": 0,
                "summary_errors": [], "used_cache": False, "guard_rotations":
                self._guards.rotations(session_id),
            }
            self._sync_renders(state, tag, budget.max_tool_result_tokens)
            start = self._window_start(state, budget.raw_budget(stats["system_tokens"]),
                                       budget.window_step)
            blocks = [self._legacy_block(r) for r in state.legacy]
            cands = self._candidates(session_id, state, start, budget)
            blocks += self._summary_blocks(session_id, state, cands, summarizer, tag, stats, budget)
            summary = [Message(role="system", content="\n\n".join(blocks))] if blocks else []
            anchored = self._render_slice(cands.anchors, tag, budget.max_tool_result_tokens,
                                          anchors=True)
            window = self._window_messages(state, start)
            extra = [Message(role="system", content=n) for n in notes if n]
            messages = [Message(role="system", content=system), *summary, *anchored, *window,
                        *extra]

            stats["summary_blocks"] = len(blocks)
            stats["raw_records"] = len(state.raw) - start
            stats["raw_tokens"] = state.cum[-1] - state.cum[start]   # as rendered in sequence
            stats["anchored_records"] = len(cands.anchors)
            stats["dropped_dead_topics"] = cands.dropped
            stats["summarized_records"] = len(cands.remaining)
            stats["window_start"] = start
            stats["total_tokens"] = stats["system_tokens"] + stats["raw_tokens"] + sum(
                _message_tokens(m) for m in (*summary, *anchored, *extra))
            stats["guard_rotations"] = self._guards.rotations(session_id)
            return Built(messages=messages, system_prompt=system, stats=stats)

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
        store = self._store
        global_block = store.global_memory.render() or ""
        session_block = store.session_memory.render(session_id) or ""
        findings_block = store.findings.render(session_id) or ""
        schema = (data_schema or "").strip("\n")
        untrusted = [schema, session_block, findings_block]
        tag = self._guards.avoid(session_id, untrusted)
        parts = PromptParts(
            base=self._base, rules=self._rules.text(),
            data_schema=wrap(tag, "\n" + schema + "\n") if schema.strip() else "",
            global_memory=global_block,
            session_memory=wrap(tag, "\n" + session_block.rstrip("\n") + "\n")
            if session_block.strip() else "",
            findings=wrap(tag, "\n" + findings_block.rstrip("\n") + "\n")
            if findings_block.strip() else "",
        )
        return render_system_prompt(parts)

    # --- records and renders ------------------------------------------------------------------

    def _state(self, session_id: str) -> _SessionState:
        state = self._sessions.get(session_id)
        if state is None:
            state = self._sessions[session_id] = _SessionState()
        return state

    def _sync_records(self, session_id: str, state: _SessionState) -> list[Any]:
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
            elif record.role in ("user", "assistant", "tool") and not _is_placeholder(record):
                state.raw.append(record)
        if fresh:
            state.seen += len(fresh)
            state.last_id = fresh[-1].id
            state.last_seq = fresh[-1].seq
        return fresh

    def _sync_renders(self, state: _SessionState, tag: str, tool_cap: int) -> None:
        key = (tag, tool_cap)
        if state.render_key != key:
            state.reset_renders(key)
        for i in range(len(state.tokens), len(state.raw)):
            message = self._render(state, i, first=(i == 0))
            state.tokens.append(_message_tokens(message))
            state.cum.append(state.cum[-1] + state.tokens[-1])

    def _render(self, state: _SessionState, i: int, *, first: bool) -> Message:
        record = state.raw[i]
        previous = state.raw[i - 1].created_at if i > 0 else None
        marker = needs_marker(record.role, record.created_at, previous, first)
        key = (record.id, marker)
        message = state.messages.get(key)
        if message is None:
            tag, cap = state.render_key  # type: ignore[misc]
            message = render_record(record, tag=tag, tool_cap=cap, marker=marker)
            state.messages[key] = message
        return message

    def _window_start(self, state: _SessionState, raw_budget: int | None, step: float) -> int:
        n = len(state.raw)
        if n == 0 or raw_budget is None:
            return 0
        cum = state.cum
        smallest = min(bisect.bisect_left(cum, cum[n] - raw_budget), n - 1)
        grid = int(raw_budget * step)
        start = smallest
        if grid > 0:
            line = -(-cum[smallest] // grid) * grid
            start = min(max(bisect.bisect_left(cum, line), smallest), n - 1)
        while start < n - 1 and state.raw[start].role == "tool":
            start += 1                       # never open the window with an orphan tool result
        return start

    def _window_messages(self, state: _SessionState, start: int) -> list[Message]:
        out = [copy.copy(self._render(state, i, first=(i == start)))
               for i in range(start, len(state.raw))]
        if len(state.messages) > 4 * (len(out) + 64):
            keep = {(r.id, m) for r in state.raw[start:] for m in (True, False)}
            state.messages = {k: v for k, v in state.messages.items() if k in keep}
        return _pair_tool_calls(out)

    def _render_slice(self, records: list[Any], tag: str, cap: int, *, anchors: bool) -> list[Message]:
        out: list[Message] = []
        previous = None
        for i, record in enumerate(records):
            marker = needs_marker(record.role, record.created_at, previous, i == 0)
            previous = record.created_at
            message = render_record(record, tag=tag, tool_cap=cap, marker=marker)
            if anchors and message.role == "tool":
                label = f"[Earlier result of tool {record.tool_name or 'unknown'}]"
                message = Message(role="user", content=f"{label}\n{message.content}")
            elif anchors and message.role == "assistant":
                message = Message(role="assistant", content=message.content)
            out.append(message)
        return out

    # --- older records: anchors, dead topics, summaries ---------------------------------------

    def _memory_signature(self, session_id: str, budget: Budget) -> tuple:
        anchors = tuple(sorted({e.fact for e in self._store.global_memory.list()
                                if e.category in _ANCHOR_CATEGORIES}))
        dead, live = set(), set()
        for entry in self._store.session_memory.list(session_id):
            (dead if entry.state in _DEAD_STATES else live).add(entry.fact)
        return (anchors, tuple(sorted(dead)), tuple(sorted(live)),
                budget.anchor_threshold, budget.dead_topic_threshold)

    def _candidates(self, session_id: str, state: _SessionState, start: int,
                    budget: Budget) -> _Candidates:
        if start == 0:
            return _Candidates([], [], [], 0, [])
        sig = self._memory_signature(session_id, budget)
        key = (start, sig)
        if state.candidates_key == key and state.candidates is not None:
            return state.candidates
        if state.class_sig != sig:
            state.class_sig, state.classes = sig, {}
        anchor_sets = [token_set(f) for f in sig[0]]
        dead_sets = [(f, token_set(f)) for f in sig[1]]
        live_sets = [token_set(f) for f in sig[2]]
        athr, dthr = sig[3], sig[4]
        result = _Candidates([], [], [], 0, [])
        fingerprints: set[str] = set()
        for index, record in enumerate(state.raw[:start]):
            cls = state.classes.get(record.id)
            if cls is None:
                words = state.token_sets.get(record.id)
                if words is None:
                    words = state.token_sets[record.id] = token_set(record.content or "")
                if any(jaccard(words, a) >= athr for a in anchor_sets):
                    cls = (True, ())
                else:
                    hits = tuple(f for f, d in dead_sets if jaccard(words, d) >= dthr)
                    if hits and any(jaccard(words, live) >= dthr for live in live_sets):
                        hits = ()
                    cls = (False, hits)
                state.classes[record.id] = cls
            if cls[0]:
                result.anchors.append(record)
                result.anchor_indices.append(index)
            elif cls[1]:
                result.dropped += 1
                fingerprints.update(cls[1])
            else:
                result.remaining.append(record)
        result.fingerprints = sorted(fingerprints)
        state.candidates_key, state.candidates = key, result
        return result

    def _summary_blocks(self, session_id: str, state: _SessionState, cands: _Candidates,
                        summarizer: Backend | None, tag: str, stats: dict[str, Any],
                        budget: Budget) -> list[str]:
        summarizer_id = summarizer.identity if summarizer is not None else "none"
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
                                        record_tokens=min(caps) if caps else 0)
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

    def _tiers(self, state: _SessionState, cands: _Candidates,
               summarizer_id: str) -> list[tuple[str, list[Any], int, str]]:
        """(tier, records, dropped, key) for the far and near tiers; cached per candidate set."""
        memo = (id(cands), summarizer_id)
        if state.tiers_key == memo:
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

    def _cached_summary(self, session_id: str, state: _SessionState, key: str) -> str:
        text = state.summaries.get(key)
        if text is not None:
            return text
        entry = self._store.get_summary(session_id, key)
        if entry is None or getattr(entry, "kind", "") != KIND or not entry.summary:
            return ""
        state.summaries[key] = entry.summary
        return entry.summary

    def _put_summary(self, session_id: str, state: _SessionState, key: str, tier: str,
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


def _pair_tool_calls(messages: list[Message]) -> list[Message]:
    """Keep native tool calling consistent: every call answered, every answer called.

    Calls without a result in the window are dropped from their assistant message (an
    assistant message left empty is dropped); results whose call is not in the window become
    user text labelled with the tool's name.
    """
    answered = {m.tool_call_id for m in messages if m.role == "tool" and m.tool_call_id}
    out: list[Message] = []
    called: set[str] = set()
    for message in messages:
        if message.role == "assistant" and message.tool_calls:
            calls = [c for c in message.tool_calls if c.id in answered]
            if len(calls) != len(message.tool_calls):
                message.tool_calls = calls
            if not calls and not message.content:
                continue
            called.update(c.id for c in calls)
        elif message.role == "tool" and message.tool_call_id not in called:
            label = f"[Result of tool {message.name or 'unknown'}]"
            message = Message(role="user", content=f"{label}\n{message.content}")
        out.append(message)
    return out


def _summary_entry(**fields: Any) -> Any:
    """A ``SummaryEntry`` of the store (the one seam to the store's model classes)."""
    try:
        from ..store.models import SummaryEntry
    except ImportError:  # the store package is not importable: hand back a plain record
        from types import SimpleNamespace

        return SimpleNamespace(**fields)
    return SummaryEntry(**fields)
