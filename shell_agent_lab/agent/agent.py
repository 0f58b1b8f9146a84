"""The kernel's one agent: a state machine in front of the tool loop.

Front doors call it from several threads at once (a cell on the main thread, the side panel's
comm on a subshell thread), so every field that decides what may run lives under one lock, and
the state machine is the single authority:

    READY ──send──▶ BUSY ──turn ends──▶ READY, or EXTRACTING when memory extraction follows
    EXTRACTING ──send──▶ QUEUED (one slot, the most recent message wins)
    EXTRACTING / QUEUED ──extraction ends (even failed)──▶ READY, or BUSY with the queued message
    any ──abort──▶ the turn is cancelled, the queue cleared, extraction no longer holds the state

A send while BUSY is refused. State changes are published as ``state_changed`` events *after*
the state is set, strictly in the order they happened (a dedicated publish lock spans each
transition), so a listener never sees READY while the agent is actually queued.

Work that must not overlap a turn (an export that closes the analysis engine, a model, profile
or session switch) runs under the *maintenance hold* (:meth:`Agent.maintenance`). The hold is
granted under the same lock as the idle check — READY, nothing queued, no background job — so
no turn can start between the check and the work. It is refused at once while a turn runs,
waits (bounded) for background work, and nests on the thread that holds it. A send that
arrives meanwhile waits up to :attr:`Agent.maintenance_wait` seconds, then is refused with one
line; Stop releases it at once.
"""
from __future__ import annotations

import contextlib
import itertools
import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from ..events import EventBus
from ..llm.errors import LLMError
from ..llm.types import Backend
from ..tools.approval import ApprovalGate, Approver
from ..tools.registry import ToolRegistry
from . import _context
from ._backends import (BackendSlot, answer_strategy_for, auto_extract_on, auto_title_on, schema_in_prompt_on,
                        tool_set_for)
from ._destination import rows_go_to
from ._no_data import no_data_answer
from ._program_path import PROGRAM_TOOL
from ._sharing import SharingNotices, compose_from_results, sharing_level, sharing_status
from ._engines import EngineSlot
from ._titles import DEFAULT_TITLE, make_title
from ._loop import TurnEnv, run_turn
from ._types import AgentState, Reply, SendResult

__all__ = ["Agent", "AgentBusyError"]

log = logging.getLogger(__name__)

_BUSY_TEXT = ("Still answering the previous message. Wait for it to finish, or stop it with /stop "
              "(or the Stop button).")
_CANCELLED_TEXT = "Cancelled before it was sent."
_turn_ids = itertools.count(1)


class AgentBusyError(RuntimeError):
    """An operation that needs the agent idle was asked for while a turn runs."""


def _held_text(what: str | None) -> str:
    return f"Not sent: the assistant is busy ({what}); send the message again in a moment."


@dataclass
class _Turn:
    message: str
    id: str = field(default_factory=lambda: f"turn-{next(_turn_ids)}")
    done: threading.Event = field(default_factory=threading.Event)
    reply: Reply | None = None
    queued_at: float | None = None
    cancel: threading.Event = field(default_factory=threading.Event)

    def finish(self, reply: Reply) -> None:
        if self.reply is None:
            reply.turn_id = self.id
            self.reply = reply
        self.done.set()


class Agent:
    """One per kernel. See the module docstring for the state machine."""

    #: seconds a send waits for a maintenance hold (an export, a switch) before it is refused
    maintenance_wait: float = 120.0
    #: the user's tools and MCP servers (``tools.extensions.Extensions``), set by ``build_agent``
    extensions: Any = None

    def __init__(self, *, store: Any, registry: ToolRegistry | None = None, events: EventBus | None = None,
                 settings: Any = None, backend: Backend | None = None,
                 backend_factory: Callable[[str | None], Backend] | None = None,
                 engine_factory: Callable[[Any], Any] | None = None,
                 namespace: Callable[[], dict] | None = None, approver: Approver | None = None,
                 builder: Any = None, clock: Callable[[], Any] | None = None,
                 extractor: Callable[[Any, Backend, threading.Event], Any] | None = None) -> None:
        if settings is None:
            from ..config import ShellAgent
            settings = ShellAgent()
        self.store = store
        self.registry = registry or ToolRegistry()
        #: the last finished turn's reply
        self.last_reply: Reply | None = None
        self.events = events or EventBus()
        self.settings = settings
        self._backends = BackendSlot(backend, backend_factory)
        self._engines = EngineSlot(engine_factory)
        from ..engines import Connections
        self.connections = Connections()
        self._configured: dict[str, str] = {}      # connection name -> URL taken from the settings
        self._sources: tuple[Any, Any] = (None, None)
        self._namespace = namespace
        self._clock = clock
        self._builder = builder if builder is not None else _context.make_builder(store)
        self._extractor = extractor or self._extract
        self._sharing_notices = SharingNotices()
        self.gate = ApprovalGate(settings.approval_overrides, settings.approval_policy, approver=approver,
                                 publish=self._publish)
        # -- guarded by _cond ------------------------------------------------------------------
        self._cond = threading.Condition(threading.Lock())
        self._emit_lock = threading.RLock()       # spans a transition and its state_changed event
        self._phase = AgentState.READY             # READY | BUSY | EXTRACTING
        self._queued: _Turn | None = None
        self._current: _Turn | None = None
        self._background = 0                       # running background jobs (title, extraction)
        self._epoch = 0                            # bumped by abort/session switch: stale jobs keep out
        self._bg_cancel = threading.Event()        # set by abort: cancels background model calls
        self._session: Any = None
        self._turn_thread: threading.Thread | None = None
        self._aborts = 0                           # bumped by abort: a send waiting for a hold gives up
        self._hold: str | None = None              # what the maintenance hold is held for
        self._hold_owner: threading.Thread | None = None
        self._hold_depth = 0
        self._hold_waiters = 0                     # sends waiting for the hold to end
        self._violations: list[str] = []
        self._presence: Any = None                 # this process has the session open (store hold)
        # a rename from any front door refreshes the session this agent holds
        self.events.subscribe(self._on_renamed, ["session_renamed"])

    # == public surface ==========================================================================
    @property
    def state(self) -> AgentState:
        with self._cond:
            return self._state_locked()

    @property
    def session(self) -> Any:
        with self._cond:
            session = self._session
        if session is not None:
            return session
        with self.maintenance("open a session"):     # two first uses open one session, not two
            with self._cond:
                session = self._session
            return session if session is not None else self.open_session(None)

    @property
    def backend(self) -> Backend:
        """The backend for the current session's profile (built on first use)."""
        return self._backends.get(self._profile_of(self.session))

    def data_sharing_status(self) -> dict[str, Any]:
        """Where the current session's requests go and at which data-sharing level:
        {level, remote, destination, explicit, text} (see :mod:`shell_agent_lab.sharing`)."""
        session = self.session
        return sharing_status(self.settings, self._profile_dict(session), self.backend)

    @property
    def approver(self) -> Approver | None:
        return self.gate.approver

    @approver.setter
    def approver(self, value: Approver | None) -> None:
        self.gate.approver = value

    def send(self, message: str, *, wait: bool = True) -> SendResult:
        """Run one turn (or a slash command). See :class:`SendResult` for the phases."""
        text = (message or "").strip()
        if not text:
            return SendResult("error", error_message="Nothing to send: the message is empty.")
        from . import commands
        if commands.is_command(text):
            result = commands.run_command(self, text)
            if result.error:
                return SendResult("error", cmd_result=result, error_message=result.error)
            return SendResult("command", content=result.text, cmd_result=result)
        turn = _Turn(text)
        accepted = self._submit(turn)
        if accepted.phase != "started" or not wait:
            return accepted
        turn.done.wait()
        reply = turn.reply or Reply(error="the turn ended without a reply")
        if reply.error:
            return SendResult("error", content=reply.text, reply=reply, error_message=reply.error, turn_id=turn.id)
        return SendResult("completed", content=reply.text, reply=reply, turn_id=turn.id)

    def run(self, message: str, *, timeout: float | None = None) -> Reply:
        """Blocking: one full turn (waits through a queue slot too). Used by the magic."""
        text = (message or "").strip()
        if not text:
            return Reply(error="Nothing to send: the message is empty.")
        from . import commands
        if commands.is_command(text):
            result = commands.run_command(self, text)
            return Reply(text=result.text, error=result.error, command=result)
        turn = _Turn(text)
        accepted = self._submit(turn)
        if accepted.phase == "error":
            return Reply(error=accepted.error_message)
        if not turn.done.wait(timeout):
            return Reply(error=f"No answer within {timeout:g} s; the turn keeps running (use /stop to cancel).",
                         turn_id=turn.id)
        return turn.reply or Reply(error="the turn ended without a reply")

    def abort(self) -> None:
        """Cancel the running turn, clear the queue and release the extraction hold."""
        def mutate() -> list[tuple[str, dict]]:
            events: list[tuple[str, dict]] = []
            self._epoch += 1
            self._aborts += 1
            self._bg_cancel.set()
            self._bg_cancel = threading.Event()
            if self._current is not None:
                self._current.cancel.set()
            if self._queued is not None:
                self._queued.finish(Reply(text="", error=_CANCELLED_TEXT))
                self._queued = None
                events.append(("queue_cleared", {}))
            if self._phase == AgentState.EXTRACTING:
                self._phase = AgentState.READY
            return events
        self._transition(mutate)
        self.gate.cancel_all()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until no turn, queue or background job is left. False on timeout."""
        if threading.current_thread() is self._turn_thread:
            raise AgentBusyError("wait_idle was called from inside a turn")
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._phase != AgentState.READY or self._queued is not None or self._background:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._cond.wait(remaining)
            return True

    @contextlib.contextmanager
    def maintenance(self, what: str, *, timeout: float | None = None) -> Iterator[None]:
        """Hold the agent idle while ``what`` runs (``what`` completes "cannot …", e.g.
        "export the session").

        Granted atomically with the idle check, so no turn starts until the block ends; sends
        that arrive meanwhile wait for it (see :attr:`maintenance_wait`). Raises
        :class:`AgentBusyError` at once while a turn runs (or from inside one), and when
        background work or another thread's hold does not end within ``timeout`` seconds
        (None: no limit). The thread holding it may take it again (nested blocks).
        """
        self._acquire_hold(what, timeout)
        try:
            yield
        finally:
            self._release_hold()

    def export_session(self, dest: Path | str | None = None, **options: Any) -> Any:
        """Write the current session to a ``.shellagent`` bundle, analysis database included.

        Runs under the maintenance hold: tables still being stored in the background are
        finished first, then the session's engine is closed for the copy and opened again
        before any turn can use it (also when the export fails). ``dest`` and ``options``
        are those of :func:`shell_agent_lab.bundle.export_session`.
        """
        from ..bundle import export_active_session

        with self.maintenance("export the session"):
            session = self.session

            def reopen() -> None:
                self._engines.resume()
                self._engines.get(session)   # a failure is kept in engine_error; the next use retries

            engine = self._engines.get(session)
            if engine is not None:   # a table still being stored from its file goes in whole
                engine.wait_loaded()
            try:
                return export_active_session(self.store, session.id, dest, close_engine=self._engines.suspend,
                                             reopen_engine=reopen, **options)
            finally:
                self._engines.resume()

    def resolve_approval(self, request_id: str, approved: bool, feedback: str = "",
                         action: str | None = None) -> bool:
        """Answer an approval request; a stale or repeated answer is a no-op (returns False)."""
        return self.gate.resolve(request_id, approved, feedback, action)

    def open_session(self, session_id: str | None = None, *, notebook_path: str | None = None,
                     key: str | None = None, private: bool = False) -> Any:
        """Switch to a session (found by id, key or notebook path; created when none exists).

        Runs under the maintenance hold (waits for background work first), resets the
        session's guard nonce and opens its analysis engine.
        """
        with self.maintenance("switch sessions"):
            store = self.store
            session = None
            if session_id is not None:
                session = store.get_session(session_id)
                if session is None:
                    raise KeyError(f"no session with id {session_id!r}; /sessions lists them")
            elif notebook_path is not None or key is not None:
                session = store.find_session(notebook_path, key=key)
                if session is not None and private and not session.private:
                    session = None          # a private session for this notebook was asked for
            if session is None:
                session = store.create_session(notebook_path=notebook_path, private=private,
                                               profile=self.settings.profile, key=key)
            self._switch_to(session)
            return session

    def new_session(self, *, private: bool | None = None, title: str = DEFAULT_TITLE) -> Any:
        """Start a fresh session for the same notebook (``/reset``, ``/private``); the old one is kept."""
        with self.maintenance("start a new session"):
            old = self.session
            session = self.store.create_session(title=title, notebook_path=old.notebook_path,
                                                private=bool(old.private if private is None else private),
                                                profile=old.profile)
            self._switch_to(session)
            return session

    def refresh_session(self) -> Any:
        """Re-read the current session from the store (after a rename or profile change)."""
        with self._cond:
            current = self._session
        if current is None:
            return None
        fresh = self.store.get_session(current.id)
        with self._cond:
            if self._session is not None and self._session.id == current.id and fresh is not None:
                self._session = fresh
        return fresh

    def engine(self) -> Any:
        """The current session's analysis engine (opened on first use; None without a factory),
        with the session's connections beside it when there are any."""
        session = self.session
        return self._with_connections(self._engines.get(session), session)

    def connect(self, name: str, url: str) -> Any:
        """Add (or replace) the read-only connection ``name``; returns its spec (redacted URL)."""
        spec = self.connections.add(name, url)
        self._record_connection(self.session, spec.name)
        return spec

    def disconnect(self, name: str) -> bool:
        return self.connections.remove(name)

    def _record_connection(self, session: Any, name: str) -> None:
        from ..engines.usage import record_use
        try:
            record_use(self.store.session_dir(session.id), name)
        except Exception:
            log.debug("recording the connection name failed", exc_info=True)

    def _with_connections(self, engine: Any, session: Any) -> Any:
        """``engine`` behind :class:`~shell_agent_lab.engines.Sources` when connections exist."""
        self._sync_connections(session)
        if engine is None or not self.connections:
            return engine
        held, sources = self._sources
        if held is not engine or sources is None:
            from ..engines import Sources
            sources = Sources(engine, self.connections, on_use=lambda n: self._record_connection(session, n))
            self._sources = (engine, sources)
        return sources

    def _sync_connections(self, session: Any) -> None:
        """Add the connections the settings and the session's profile name (once per URL)."""
        wanted = dict(getattr(self.settings, "connections", None) or {})
        wanted.update(self._profile_dict(session).get("connections") or {})
        for name, url in wanted.items():
            if self._configured.get(name) == url:
                continue
            self._configured[name] = url
            try:
                self.connections.add(name, url)
            except Exception as exc:   # a bad entry is reported by /connect, not fatal
                log.warning("connection %s from the settings is not usable: %s", name, exc)

    @property
    def engine_error(self) -> str | None:
        """Why the current session's analysis database could not be opened (None when it could)."""
        return self._engines.error

    def auto_extract_enabled(self, session: Any = None, backend: Backend | None = None) -> bool:
        """Whether memory extraction follows a turn (setting → profile → the backend's default)."""
        session = session or self.session
        backend = backend or self._backends.get(self._profile_of(session))
        return auto_extract_on(self.settings, self._profile_dict(session), backend)

    @property
    def profile(self) -> str | None:
        """The profile the current session uses (its own, else ``ShellAgent.profile``)."""
        return self._profile_of(self.session)

    def set_profile(self, name: str | None) -> Backend:
        """Bind the current session to profile ``name`` and build its backend (under the maintenance hold)."""
        if name is not None:
            self.settings.profile_settings(name)        # unknown names raise KeyError with the list
        self._backends.require_factory()
        with self.maintenance("change the profile"):
            session = self.session
            previous = session.profile
            self.store.set_session_profile(session.id, name)
            session = self.refresh_session() or session
            try:
                backend = self._backends.rebuild(self._profile_of(session))
            except Exception:       # the old binding stays when the new backend cannot be built
                self.store.set_session_profile(session.id, previous)
                self.refresh_session()
                raise
            self._follow_profile_tools(session)
        self._publish("profile_changed", {"profile": name, "backend": backend.name, "model": backend.model})
        return backend

    def set_model(self, model: str | None) -> Backend:
        """Use ``model`` within the current profile (under the maintenance hold)."""
        self._backends.require_factory()
        with self.maintenance("change the model"):
            previous = self.settings.model
            self.settings.model = model or None
            session = self.session
            try:
                backend = self._backends.rebuild(self._profile_of(session))
            except Exception:       # the old model stays when the new backend cannot be built
                self.settings.model = previous
                raise
        self._publish("profile_changed", {"profile": self._profile_of(session), "backend": backend.name,
                                          "model": backend.model})
        return backend

    def close(self) -> None:
        """Stop everything and release the engine and backend (kernel shutdown)."""
        self.abort()
        self.wait_idle(timeout=10)
        self._engines.close()
        self.connections.close()
        self._backends.close()
        self._mark_open(None)

    def _on_renamed(self, event: Any) -> None:
        with self._cond:
            current = self._session.id if self._session is not None else None
        if current is not None and event.data.get("session_id") == current:
            self.refresh_session()

    # == state machine ===========================================================================
    def _state_locked(self) -> AgentState:
        if self._phase == AgentState.EXTRACTING and self._queued is not None:
            return AgentState.QUEUED
        return self._phase

    def _check_locked(self) -> None:
        if self._queued is not None and self._phase != AgentState.EXTRACTING:
            self._violations.append(f"queue held while {self._phase}")
            log.error("agent state invariant broken: queue held while %s", self._phase)
        if self._hold is not None and self._phase == AgentState.BUSY:
            self._violations.append(f"a turn started during {self._hold}")
            log.error("agent state invariant broken: a turn started during %s", self._hold)

    def _acquire_hold(self, what: str, timeout: float | None) -> None:
        me = threading.current_thread()
        if me is self._turn_thread:
            raise AgentBusyError(f"cannot {what} from inside a turn")
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            if self._hold_owner is me:
                self._hold_depth += 1
                return
            while True:
                if self._phase == AgentState.BUSY:
                    raise AgentBusyError(f"cannot {what} while a turn runs; wait for the reply or press Stop "
                                         "(/stop), then try again")
                if self._hold is None and self._phase == AgentState.READY and self._queued is None \
                        and not self._background:
                    self._hold, self._hold_owner, self._hold_depth = what, me, 1
                    return
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    reason = f"the assistant is busy ({self._hold})" if self._hold is not None \
                        else "memory extraction is still running"
                    raise AgentBusyError(f"cannot {what} yet: {reason}; try again in a moment")
                self._cond.wait(remaining)

    def _release_hold(self) -> None:
        with self._cond:
            self._hold_depth -= 1
            if self._hold_depth == 0:
                self._hold = self._hold_owner = None
                self._cond.notify_all()

    def _transition(self, mutate: Callable[[], list[tuple[str, dict]] | None]) -> None:
        with self._emit_lock:
            with self._cond:
                before = self._state_locked()
                events = mutate() or []
                self._check_locked()
                after = self._state_locked()
                self._cond.notify_all()
            if after != before:
                self._publish("state_changed", {"state": after.value, "previous": before.value})
            for type_, data in events:
                self._publish(type_, data)

    def _submit(self, turn: _Turn) -> SendResult:
        self.session       # open the default session before taking the lock
        wait = self.maintenance_wait
        deadline = None if wait is None else time.monotonic() + wait
        with self._cond:
            aborts = self._aborts
        while True:
            outcome: dict[str, Any] = {}

            def mutate() -> list[tuple[str, dict]]:
                if self._hold is not None:
                    outcome["held"] = True
                    return []
                if self._phase == AgentState.BUSY:
                    outcome["result"] = SendResult("error", error_message=_BUSY_TEXT)
                    return []
                if self._phase == AgentState.EXTRACTING:
                    replaced = self._queued
                    turn.queued_at = time.time()
                    self._queued = turn
                    if replaced is not None:
                        replaced.finish(Reply(error="Replaced by a newer message before it was sent."))
                    outcome["result"] = SendResult("queued", content=turn.message, queued_at=turn.queued_at,
                                                   turn_id=turn.id)
                    return [("queued", {"message": turn.message, "at": turn.queued_at, "turn_id": turn.id})]
                self._phase = AgentState.BUSY
                self._current = turn
                outcome["session"] = self._session
                outcome["result"] = SendResult("started", turn_id=turn.id)
                return []

            self._transition(mutate)
            if "held" not in outcome:
                break
            refusal, waited = self._wait_for_hold(aborts, deadline)
            if refusal is not None:
                turn.finish(Reply(error=refusal))
                if waited:          # the front door may have moved on: tell it through the events too
                    self._publish("turn_finished", {"turn_id": turn.id, "phase": "error", "text": "",
                                                    "error": refusal})
                return SendResult("error", error_message=refusal, turn_id=turn.id)
        if "session" in outcome:
            self._start_turn(turn, outcome["session"])
        return outcome["result"]

    def _wait_for_hold(self, aborts: int, deadline: float | None) -> tuple[str | None, bool]:
        """Wait for the maintenance hold to end. Returns (why the send is refused or None,
        whether it actually waited)."""
        waited = False
        with self._cond:
            if self._hold is not None and self._hold_owner is threading.current_thread():
                return _held_text(self._hold), False        # it would wait for itself
            self._hold_waiters += 1
            self._cond.notify_all()
            try:
                while self._hold is not None and self._aborts == aborts:
                    remaining = None if deadline is None else deadline - time.monotonic()
                    if remaining is not None and remaining <= 0:
                        return _held_text(self._hold), waited
                    waited = True
                    self._cond.wait(remaining)
                return (_CANCELLED_TEXT if self._aborts != aborts else None), waited
            finally:
                self._hold_waiters -= 1

    def _start_turn(self, turn: _Turn, session: Any) -> None:
        thread = threading.Thread(target=self._turn_main, args=(turn, session), name="shell-agent-turn",
                                  daemon=True)
        with self._cond:
            self._turn_thread = thread
        thread.start()

    def _turn_main(self, turn: _Turn, session: Any) -> None:
        reply: Reply | None = None
        answered = False
        backend: Backend | None = None
        try:
            self._publish("turn_started", {"turn_id": turn.id, "message": turn.message})
            try:
                backend = self._backends.get(self._profile_of(session))
            except (LLMError, KeyError) as exc:
                self.store.append_record(session.id, "user", turn.message)
                self._publish("records_updated", {})
                reply = Reply(error=str(exc).strip("'\""))
            else:
                env = self._turn_env(turn, session, backend)
                notice = self._sharing_notices.first_request(session.id, self.settings,
                                                             self._profile_dict(session), backend)
                if notice is not None:      # said before the first request leaves the machine
                    self._publish("data_sharing", notice)
                blocked = no_data_answer(turn.message, self._engines.error, env.engine, env.namespace)
                if blocked is not None:     # the data cannot be read here: the model could only guess
                    reply = self._answer_without_model(session, turn, blocked)
                else:
                    reply = run_turn(env, turn.message)
                    computed = any(a.name == PROGRAM_TOOL for a in reply.tool_activity)
                    if env.data_sharing == "schema" and reply.error is None and reply.text and not computed:
                        # (a program's answer is composed from its printed results already)
                        reply.text = compose_from_results(reply.text, reply.tables, turn.message, spec=reply.spec)
                    answered = env.answered and reply.error is None and not turn.cancel.is_set()
        except BaseException as exc:  # recovered: the state machine must never stay BUSY
            log.exception("turn crashed")
            reply = Reply(error=f"{type(exc).__name__}: {exc}")
        finally:
            reply = reply or Reply(error="the turn ended without a reply")
            self._end_turn(turn, session, backend, reply, answered)

    def _answer_without_model(self, session: Any, turn: _Turn, text: str) -> Reply:
        self.store.append_record(session.id, "user", turn.message)
        self.store.append_record(session.id, "assistant", text)
        self._publish("records_updated", {})
        return Reply(text=text)

    def _end_turn(self, turn: _Turn, session: Any, backend: Backend | None, reply: Reply,
                  answered: bool) -> None:
        do_extract = answered and backend is not None and \
            auto_extract_on(self.settings, self._profile_dict(session), backend)
        do_title = answered and backend is not None and self._wants_title(session, backend)
        outcome: dict[str, Any] = {}

        def mutate() -> list[tuple[str, dict]]:
            self._current = None
            self._turn_thread = None
            # Stop pressed as the answer arrived (after the checks above): abort set the turn's
            # cancel under this lock while the turn was current, so nothing follows the reply
            stopped = turn.cancel.is_set()
            extract, title = do_extract and not stopped, do_title and not stopped
            self._phase = AgentState.EXTRACTING if extract else AgentState.READY
            if extract or title:
                self._background += 1
                outcome.update(epoch=self._epoch, cancel=self._bg_cancel, extract=extract, title=title)
            return []

        self._transition(mutate)
        phase = "error" if reply.error else "completed"
        self.last_reply = reply     # read by turn_finished subscribers (the panel's cells)
        self._publish("turn_finished", {"turn_id": turn.id, "phase": phase, "text": reply.text,
                                        "error": reply.error})
        turn.finish(reply)
        if "epoch" in outcome:
            threading.Thread(target=self._post_turn, name="shell-agent-background", daemon=True,
                             args=(session, backend, outcome["title"], outcome["extract"], outcome["epoch"],
                                   outcome["cancel"])).start()

    def _post_turn(self, session: Any, backend: Backend, do_title: bool, do_extract: bool, epoch: int,
                   cancel: threading.Event) -> None:
        """Background work after a turn: the first turn's title, then memory extraction."""
        try:
            if do_title and not cancel.is_set():
                try:
                    self._generate_title(session, backend, cancel)
                except BaseException:
                    log.exception("title generation failed")
            if do_extract and not cancel.is_set():
                self._publish("extraction_started", {})
                error = None
                try:
                    self._extractor(session, backend, cancel)
                except BaseException as exc:   # recovered; the queue is still dispatched
                    log.exception("memory extraction failed")
                    error = f"{type(exc).__name__}: {exc}"
                self._publish("extraction_done", {"success": error is None, "error": error})
        finally:
            self._finish_background(do_extract, epoch)

    def _finish_background(self, held_state: bool, epoch: int) -> None:
        outcome: dict[str, Any] = {}

        def mutate() -> list[tuple[str, dict]]:
            self._background -= 1
            if not held_state or epoch != self._epoch or self._phase != AgentState.EXTRACTING:
                return []          # aborted or switched meanwhile: the state is no longer ours
            queued, self._queued = self._queued, None
            if queued is None:
                self._phase = AgentState.READY
                return []
            self._phase = AgentState.BUSY
            self._current = queued
            outcome["turn"], outcome["session"] = queued, self._session
            return [("queue_dispatched", {"message": queued.message, "turn_id": queued.id})]

        self._transition(mutate)
        turn = outcome.get("turn")
        if turn is not None:
            self._start_turn(turn, outcome["session"])

    # == turn plumbing ===========================================================================
    def _turn_env(self, turn: _Turn, session: Any, backend: Backend) -> TurnEnv:
        settings = self.settings
        self.gate.overrides = settings.approval_overrides
        self.gate.policy = settings.approval_policy
        engine = self._with_connections(self._engines.get(session), session)
        self.gate.rows_go_to = rows_go_to(backend, settings)
        self.gate.connections = frozenset(self.connections.names())
        namespace = None
        if self._namespace is not None:
            try:
                namespace = self._namespace()
            except Exception:
                log.exception("namespace callable failed")
        profile = self._profile_dict(session)
        tool_set = tool_set_for(settings, profile, backend)
        self._follow_profile_tools(session, start=True)
        sid = session.id

        def publish(type_: str, data: dict) -> None:
            self.events.publish(type_, data, session_id=sid)

        return TurnEnv(store=self.store, session=session, builder=self._builder, backend=backend,
                       registry=self.registry, gate=self.gate, publish=publish, cancel=turn.cancel,
                       turn_id=turn.id, max_rounds=settings.max_tool_rounds,
                       max_args_bytes=settings.max_tool_call_args_bytes, disabled=settings.disabled(),
                       auto_extract=auto_extract_on(settings, profile, backend), engine=engine,
                       namespace=namespace,
                       settings=settings, clock=self._clock,
                       budget=_context.make_budget(backend, profile, settings.max_context_tokens),
                       schema_in_prompt=schema_in_prompt_on(settings, backend, tool_set),
                       tool_set=tool_set, require_tool_first=tool_set == "compact",
                       answer_strategy=answer_strategy_for(settings, tool_set),
                       program_timeout=float(getattr(settings, "program_timeout", 30.0) or 30.0),
                       question_budget=settings.question_budget,
                       data_sharing=sharing_level(settings, profile, backend),
                       route_by_model=bool(getattr(settings, "route_by_model", True)))

    def _publish(self, type_: str, data: dict | None = None) -> None:
        with self._cond:
            sid = self._session.id if self._session is not None else None
        self.events.publish(type_, data or {}, session_id=sid)

    def _switch_to(self, session: Any) -> None:
        """Make ``session`` current (the caller holds the maintenance hold: nothing runs)."""
        with self._cond:
            self._session = session
            self._epoch += 1
        self._mark_open(session)
        self._engines.switch(session.id)
        self._follow_profile_tools(session)
        try:
            self._builder.reset_guard(session.id)
        except Exception:
            log.exception("resetting the guard failed")
        self._engines.get(session)
        self._publish("session_changed", {"session_id": session.id, "title": session.title,
                                          "private": bool(session.private)})

    def _mark_open(self, session: Any) -> None:
        """Hold ``session`` open in this process (None: hold nothing), and record as interrupted
        the turns a killed kernel left half done in it."""
        old, self._presence = self._presence, None
        if old is not None:
            old.release()
        if session is None or not hasattr(self.store, "hold_session"):
            return
        try:
            self._presence = self.store.hold_session(session.id)
            if self.store.record_interrupted_turns(session.id):
                self._publish("records_updated", {})
        except Exception:
            log.warning("could not mark session %s as open here", session.id, exc_info=True)

    def _follow_profile_tools(self, session: Any, *, start: bool = False) -> None:
        """Make the MCP servers those of ``session``'s profile (new ones start with ``start``)."""
        if self.extensions is None:
            return
        try:
            self.extensions.follow(self.settings, self._profile_dict(session), start=start)
        except Exception:
            log.exception("updating the MCP servers for the profile failed")

    def _profile_of(self, session: Any) -> str | None:
        return getattr(session, "profile", None) or self.settings.profile

    def _profile_dict(self, session: Any) -> dict[str, Any]:
        try:
            return self.settings.profile_settings(self._profile_of(session))
        except KeyError:
            return {}

    def _wants_title(self, session: Any, backend: Backend) -> bool:
        if not auto_title_on(self.settings, self._profile_dict(session), backend):
            return False
        fresh = self.store.get_session(session.id) or session
        if fresh.title_locked or fresh.title != DEFAULT_TITLE:
            return False
        return self.store.count_user_records(session.id) == 1

    def _extract(self, session: Any, backend: Backend, cancel: threading.Event) -> Any:
        sid = session.id

        def publish(type_: str, data: dict | None = None) -> None:
            self.events.publish(type_, data or {}, session_id=sid)

        level = sharing_level(self.settings, self._profile_dict(session), backend)
        return _context.run_extraction(self.store, publish, sid, backend, bool(session.private), cancel,
                                       sharing=level)

    def _generate_title(self, session: Any, backend: Backend, cancel: threading.Event) -> None:
        first = next((r.content for r in self.store.list_records(session.id) if r.role == "user"), "")
        title = make_title(backend, first, cancel)
        if title and self.store.set_auto_title(session.id, title):
            self._publish("session_renamed", {"session_id": session.id, "title": title})
