"""Fixtures for the side-panel protocol: a real Store, a small agent double, the dispatcher.

The doubles implement the surface the comm handlers use, declared as Protocols in
``notebook/_panel_types.py`` (``PanelAgent``, ``PanelRuntime``).
"""
from __future__ import annotations

import contextlib
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from shell_agent_lab.agent import SendResult
from shell_agent_lab.events import EventBus
from shell_agent_lab.notebook.comm import Dispatcher, load_protocol
from shell_agent_lab.store import Store

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "shell_agent_lab" / "notebook" / "protocol.json"


def validator_for(pointer: str) -> Draft202012Validator:
    root = json.loads(SCHEMA_PATH.read_text())
    return Draft202012Validator({"$ref": pointer, "$defs": root["$defs"], "ops": root["ops"], "events": root["events"],
                                 "commands": root["commands"]})


def assert_valid(pointer: str, value: Any) -> None:
    errors = sorted(validator_for(pointer).iter_errors(value), key=lambda e: list(e.absolute_path))
    assert not errors, f"{pointer}: " + "; ".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


@dataclass
class TableInfo:
    name: str
    kind: str
    rows: int | None
    columns: list[tuple[str, str]]


class FakeEngine:
    def __init__(self) -> None:
        self.refreshed = 0
        self.infos = [TableInfo("sales", "table", 3, [("region", "VARCHAR"), ("amount", "DOUBLE")]),
                      TableInfo("df", "dataframe", 2, [("x", "BIGINT")])]

    def refresh_dataframes(self) -> None:
        self.refreshed += 1

    def tables(self) -> list[TableInfo]:
        return list(self.infos)


@dataclass
class FakeSettings:
    auto_extract: bool = False
    approval_overrides: dict[str, bool] = field(default_factory=dict)
    disabled_tools: list[str] = field(default_factory=list)
    profiles: dict[str, dict[str, str]] = field(default_factory=lambda: {
        "replay": {"backend": "replay", "model": "cassette"}, "local": {"backend": "local", "model": "smollm2"}})
    profile: str = "replay"
    model: str | None = None


class FakeAgent:
    """Publishes the same events a real turn does; answers from a function."""

    def __init__(self, store: Store, session_id: str, reply=lambda m: f"echo: {m}") -> None:
        self.store = store
        self.events = EventBus()
        self.session = store.get_session(session_id)
        self.state = SimpleNamespace(name="READY")
        self.reply = reply
        self.fake_engine = FakeEngine()
        self.gate = None                 # no gate: pending approvals come from the bus
        self.connections = None          # no external sources
        self.settings = FakeSettings()
        self.backend = SimpleNamespace(model="cassette")
        self.registry = SimpleNamespace(all=lambda: [
            SimpleNamespace(name="query_sql", category="read", approval_default=True),
            SimpleNamespace(name="describe_table", category="read", approval_default=False)])
        self.aborted = 0
        self.sent: list[str] = []
        self.profile_switches: list[tuple[Any, Any]] = []

    def open_session(self, session_id, *, notebook_path=None, key=None, private=False):
        if key:
            self.store.set_session_key(session_id, key)
        self.session = self.store.get_session(session_id)
        self.events.publish("session_changed", {"session_id": session_id, "title": self.session.title,
                                                "private": self.session.private}, session_id=session_id)
        return self.session

    def send(self, message: str, *, wait: bool = True):
        assert wait is False, "the comm must never block on a turn"
        self.sent.append(message)
        sid = self.session.id
        if message.startswith("/"):
            return SendResult("command", content=f"ran {message}")
        turn = f"t{len(self.sent)}"
        self.store.append_record(sid, "user", message)
        self.events.publish("turn_started", {"turn_id": turn, "message": message}, session_id=sid)
        text = self.reply(message)
        self.events.publish("stream_token", {"turn_id": turn, "text": text}, session_id=sid)
        self.store.append_record(sid, "assistant", text)
        self.events.publish("turn_finished", {"turn_id": turn, "phase": "completed", "text": text, "error": None},
                            session_id=sid)
        return SendResult("completed", content=text, turn_id=turn)

    def abort(self) -> None:
        self.aborted += 1

    def engine(self) -> FakeEngine:
        return self.fake_engine

    def refresh_session(self):
        self.session = self.store.get_session(self.session.id)
        return self.session

    @contextlib.contextmanager
    def maintenance(self, what: str, *, timeout: float | None = None):
        yield

    def auto_extract_enabled(self, session=None, backend=None) -> bool:
        return bool(self.settings.auto_extract)

    def export_session(self, dest=None, **options):
        from shell_agent_lab.bundle import export_session

        return export_session(self.store, self.session.id, dest)

    def set_profile(self, name):
        self.profile_switches.append(("profile", name))

    def set_model(self, model):
        self.profile_switches.append(("model", model))


class FakeRuntime:
    """The notebook runtime's surface the comm uses (``notebook/runtime.py``)."""

    def __init__(self, agent: FakeAgent) -> None:
        self._agent = agent
        self.panel_connected = False
        self.keys: list[str | None] = []
        self.approvals: list[tuple[str, bool, str]] = []
        self.pending: set[str] = set()
        self.lock = threading.Lock()

    @property
    def agent(self) -> FakeAgent:
        return self._agent

    @property
    def started(self) -> bool:
        return False                     # the key selects the session, as before the agent exists

    def set_notebook_key(self, key):
        self.keys.append(key)
        found = self._agent.store.find_session(None, key=key)
        sid = found.id if found else self._agent.session.id
        return self._agent.open_session(sid, key=key)

    def resolve_approval(self, request_id, approved, feedback=""):
        with self.lock:
            if request_id not in self.pending:
                return False
            self.pending.discard(request_id)
        self.approvals.append((request_id, approved, feedback))
        self._agent.events.publish("approval_resolved", {"request_id": request_id, "approved": approved,
                                                         "feedback": feedback}, session_id=self._agent.session.id)
        return True


@pytest.fixture
def session(store):
    return store.create_session(title="Sales review", notebook_path="/nb/sales.ipynb")


@pytest.fixture
def agent(store, session):
    return FakeAgent(store, session.id)


@pytest.fixture
def runtime(agent):
    return FakeRuntime(agent)


@pytest.fixture
def dispatcher(runtime):
    return Dispatcher(lambda: runtime)


@pytest.fixture
def call(dispatcher):
    """Send one request; assert the response and its result match the schema; return the response."""
    counter = iter(range(1, 10_000))

    def _call(op: str, args: dict | None = None, *, ok: bool | None = True) -> dict:
        request = {"v": 1, "id": f"r{next(counter)}", "op": op, "args": args or {}}
        if op in load_protocol()["ops"] and ok:
            assert_valid(f"#/ops/{op}/args", request["args"])
        response = dispatcher.handle(request)
        assert_valid("#/$defs/ResponseMessage", response)
        assert response["id"] == request["id"]
        if ok is not None:
            assert response["ok"] is ok, response
        if response["ok"]:
            assert_valid(f"#/ops/{op}/result", response["result"])
        return response

    return _call
