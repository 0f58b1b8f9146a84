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
from ._after_turn import extract_memories, run_after_turn, wants_title
from ._backends import BackendSlot, auto_extract_on
from ._connections import ConnectionSlot, wanted_connections
from ._engines import EngineSlot
from ._profiles import bind_profile, follow_profile_tools, profile_name, profile_settings, use_model
from ._sessions import SessionPresence, create_next_session, export_open_session, find_or_create_session
from ._sharing import SharingNotices, sharing_level, sharing_status
from ._titles import DEFAULT_TITLE
from ._turn_env import build_turn_env
from ._turn_reply import answer_turn, reply_without_backend
from ._turn_state import TurnEnv
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
        self._connection_slot = ConnectionSlot(store)
        self.connections = self._connection_slot.connections
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
        self._presence = SessionPresence(store, self._publish)     # this process has the session open
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
        with self.maintenance("export the session"):
            return export_open_session(self.store, self._engines, self.session, dest, **options)

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
            session = find_or_create_session(self.store, self.settings, session_id, notebook_path=notebook_path,
                                             key=key, private=private)
            self._switch_to(session)
            return session

    def new_session(self, *, private: bool | None = None, title: str = DEFAULT_TITLE) -> Any:
        """Start a fresh session for the same notebook (``/reset``, ``/private``); the old one is kept."""
        with self.maintenance("start a new session"):
            session = create_next_session(self.store, self.session, private=private, title=title)
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
        return self._connection_slot.connect(self.session, name, url)

    def disconnect(self, name: str) -> bool:
        return self._connection_slot.disconnect(name)

    def _with_connections(self, engine: Any, session: Any) -> Any:
        """``engine`` behind :class:`~shell_agent_lab.engines.Sources` when connections exist
        (after adding those the settings and the session's profile name)."""
        wanted = wanted_connections(self.settings, self._profile_dict(session))
        return self._connection_slot.beside(engine, session, wanted)

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
            session, backend = bind_profile(self.store, self._backends, self.settings, self.session, name,
                                            self.refresh_session)
            self._follow_profile_tools(session)
        self._publish("profile_changed", {"profile": name, "backend": backend.name, "model": backend.model})
        return backend

    def set_model(self, model: str | None) -> Backend:
        """Use ``model`` within the current profile (under the maintenance hold)."""
        self._backends.require_factory()
        with self.maintenance("change the model"):
            session, backend = use_model(self.settings, self._backends, model, lambda: self.session)
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
        self._presence.move_to(None)

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
                reply = reply_without_backend(self.store, session, turn.message, exc, self._publish)
            else:
                env = self._turn_env(turn, session, backend)
                notice = self._sharing_notices.first_request(session.id, self.settings,
                                                             self._profile_dict(session), backend)
                if notice is not None:      # said before the first request leaves the machine
                    self._publish("data_sharing", notice)
                reply, answered = answer_turn(env, turn.message, self._engines.error, self._publish)
        except BaseException as exc:  # recovered: the state machine must never stay BUSY
            log.exception("turn crashed")
            reply = Reply(error=f"{type(exc).__name__}: {exc}")
        finally:
            reply = reply or Reply(error="the turn ended without a reply")
            self._end_turn(turn, session, backend, reply, answered)

    def _end_turn(self, turn: _Turn, session: Any, backend: Backend | None, reply: Reply,
                  answered: bool) -> None:
        do_extract = answered and backend is not None and \
            auto_extract_on(self.settings, self._profile_dict(session), backend)
        do_title = answered and backend is not None and \
            wants_title(self.store, self.settings, self._profile_dict(session), session, backend)
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
            run_after_turn(self.store, session, backend, cancel, self._publish, title=do_title, extract=do_extract,
                           extractor=self._extractor)
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
        return build_turn_env(
            turn.id, turn.cancel, session, backend, settings=self.settings, store=self.store,
            builder=self._builder, registry=self.registry, gate=self.gate, events=self.events, clock=self._clock,
            open_engine=lambda: self._with_connections(self._engines.get(session), session),
            connection_names=self.connections.names, namespace=self._namespace,
            profile_settings=lambda: self._profile_dict(session),
            follow_profile_tools=lambda: self._follow_profile_tools(session, start=True))

    def _publish(self, type_: str, data: dict | None = None) -> None:
        with self._cond:
            sid = self._session.id if self._session is not None else None
        self.events.publish(type_, data or {}, session_id=sid)

    def _switch_to(self, session: Any) -> None:
        """Make ``session`` current (the caller holds the maintenance hold: nothing runs)."""
        with self._cond:
            self._session = session
            self._epoch += 1
        self._presence.move_to(session)
        self._engines.switch(session.id)
        self._follow_profile_tools(session)
        try:
            self._builder.reset_guard(session.id)
        except Exception:
            log.exception("resetting the guard failed")
        self._engines.get(session)
        self._publish("session_changed", {"session_id": session.id, "title": session.title,
                                          "private": bool(session.private)})

    def _follow_profile_tools(self, session: Any, *, start: bool = False) -> None:
        follow_profile_tools(self.extensions, self.settings, session, start=start)

    def _profile_of(self, session: Any) -> str | None:
        return profile_name(self.settings, session)

    def _profile_dict(self, session: Any) -> dict[str, Any]:
        return profile_settings(self.settings, session)

    def _extract(self, session: Any, backend: Backend, cancel: threading.Event) -> Any:
        """The default memory extraction, at the session's data-sharing level."""
        level = sharing_level(self.settings, self._profile_dict(session), backend)
        return extract_memories(self.store, self.events, session, backend, cancel, level)
