"""Imported inside a load-test kernel: a scripted model that answers every question with a
Finding and an answer and every extraction request with a fact, plus a timer of the time each
turn spends in the store.

``install(n)`` sets both up for kernel ``n``; ``ask(n, i)`` asks question ``i`` and returns the
milliseconds that turn spent in the store.
"""
from __future__ import annotations

import re
import threading
import time
from contextlib import contextmanager

from shell_agent_lab.llm.scripted import call
from shell_agent_lab.notebook.runtime import get_agent
from shell_agent_lab.store._db import Database

_QUESTION = re.compile(r"kernel (\d+) question (\d+)")
_TURN = re.compile(r"\[turn (\d+)\|")
_spent: dict[str, float] = {}          # wall / cpu / lock -> seconds in the store this turn
_lock = threading.Lock()


def _answer(messages, tools):
    text = "\n".join(str(m.content) for m in messages)
    n, i = _QUESTION.findall(text)[-1]
    if not tools:                        # memory extraction (or a title): one fact from the question
        turns = _TURN.findall(text)
        return f"fact|turn-{turns[-1] if turns else 1}|Dataset ds{n}q{i} holds {1000 + int(i)} rows|"
    if messages[-1].role == "tool":
        return f"Answer {n}.{i}: noted."
    return call("promote_finding", {"content": f"Kernel {n} finding {i}: region r{i} leads"})


def _on_turn_path() -> bool:
    return threading.current_thread().name != "shell-agent-background"   # extraction is not


def _add(key: str, seconds: float) -> None:
    with _lock:
        _spent[key] = _spent.get(key, 0.0) + seconds


_depth = threading.local()      # shared by reads and writes: a read inside a write is part of it


def _timed(method, writes: bool = False):
    """Wall and CPU time of each outermost store transaction on the turn's path; for writes
    also their number and the time from taking the write lock to the commit (``held``)."""

    @contextmanager
    def wrapper(self, *args, **kwargs):
        if not _on_turn_path() or getattr(_depth, "n", 0):
            with method(self, *args, **kwargs) as conn:
                yield conn
            return
        _depth.n = 1
        wall, cpu = time.perf_counter(), time.thread_time()
        _depth.locked = None
        try:
            with method(self, *args, **kwargs) as conn:
                yield conn
        finally:
            _depth.n = 0
            end = time.perf_counter()
            _add("wall", end - wall)
            _add("cpu", time.thread_time() - cpu)
            if writes:
                _add("writes", 1)
                _add("held", end - (_depth.locked or end))
    return wrapper


def _timed_begin(begin):
    def wrapper(conn):
        start = time.perf_counter()
        try:
            return begin(conn)
        finally:
            if _on_turn_path():
                _depth.locked = time.perf_counter()
                _add("lock", _depth.locked - start)
    return wrapper


def install(n: int) -> None:
    from shell_agent_lab.store import _db

    agent = get_agent()
    agent.backend.set_fn(_answer)
    Database.write = _timed(Database.write, writes=True)
    Database.read = _timed(Database.read)
    if hasattr(_db, "_begin_immediate"):
        _db._begin_immediate = _timed_begin(_db._begin_immediate)


def ask(n: int, i: int) -> dict[str, float]:
    """One question as the magic asks it; returns the milliseconds the turn spent in the store:
    ``wall`` (what the user waits), ``cpu`` (this thread's own work), ``lock`` (waiting for
    another writer) and ``held`` (holding the write lock), plus ``turn`` (the whole turn) and
    ``writes`` (the number of write transactions)."""
    with _lock:
        _spent.clear()
    start = time.perf_counter()
    result = get_agent().run(f"This is kernel {n} question {i}: dataset ds{n}q{i} holds {1000 + i} rows.")
    turn = time.perf_counter() - start
    if result.error:
        raise RuntimeError(result.error)
    with _lock:
        return {"turn": turn * 1000, "writes": int(_spent.get("writes", 0)),
                **{k: _spent.get(k, 0.0) * 1000 for k in ("wall", "cpu", "lock", "held")}}
