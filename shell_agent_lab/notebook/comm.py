"""Kernel side of the side panel: the ``shell_agent_lab`` comm target and its request handlers.

The panel opens one comm per notebook kernel and sends requests ``{v, id, op, args}``; each gets
exactly one response ``{v, id, ok, result | error}``. The agent's event bus is forwarded as
``{v, event, data, session_id, seq}``. Every shape is described once, in ``protocol.json`` next
to this module; requests are validated against it here, and the tests validate every response
and event against it too (the panel's TypeScript types are generated from the same file).
The handlers themselves are in ``_panel_ops.py``; validation and JSON shaping in ``_panel_wire.py``.

JupyterLab 4.6 with ipykernel 7 delivers comm messages on a *subshell thread*, so handlers run
while a cell executes: they only touch the agent and the store (both thread-safe) and guard
their own state with a lock. Requests that may take long (a chat turn) run on a worker thread
so that approvals and Stop still get through.
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Mapping

from ._panel_ops import OPS as _OPS
from ._panel_types import PanelAgent, PanelRuntime
from . import _notebook_ops  # noqa: F401,E402 - adds the notebook_cells op
from ._panel_wire import (PROTOCOL_VERSION, RequestError, check, event_message, json_safe, load_protocol,
                          map_exception)

__all__ = ["COMM_TARGET", "PROTOCOL_VERSION", "Dispatcher", "RequestError", "load_protocol",
           "register_comm_target"]

log = logging.getLogger(__name__)

COMM_TARGET = "shell_agent_lab"


class Dispatcher:
    """Answers protocol requests for one kernel.

    ``runtime`` is a callable returning the notebook runtime (``get_runtime``), a
    :class:`~._panel_types.PanelRuntime`: ``.agent`` (built on first use), ``started``,
    ``set_notebook_key(key)``, ``resolve_approval(...)`` and ``panel_connected``. Tests pass
    their own. The dispatcher is the :class:`~._panel_types.PanelHost` the op handlers receive.
    """

    def __init__(self, runtime: Callable[[], PanelRuntime]) -> None:
        self._runtime_provider = runtime
        self._lock = threading.RLock()
        self._pending: dict[str, dict[str, Any]] = {}
        self._tracked_bus: Any = None
        self._untrack: Callable[[], None] | None = None
        self._panels = 0
        self._current = threading.local()     # the request a handler is answering, per thread

    # -- entry point ---------------------------------------------------------------------------
    def handle(self, message: Any) -> dict[str, Any]:
        """Validate ``message``, run its op, and return the response (never raises)."""
        request_id = message.get("id") if isinstance(message, Mapping) else None
        if not isinstance(request_id, str):
            request_id = None
        try:
            check("#/$defs/RequestMessage", message, "malformed request")
            op = message["op"]
            handler = _OPS.get(op)
            if handler is None or op not in load_protocol()["ops"]:
                raise RequestError("unknown_op", f"unknown op {op!r}; this kernel speaks {', '.join(sorted(_OPS))}")
            args = message["args"]
            check(f"#/ops/{op}/args", args, f"{op}: bad arguments")
            self._current.request_id = request_id
            try:
                result = handler(self, args)
            finally:
                self._current.request_id = None
            return {"v": PROTOCOL_VERSION, "id": request_id, "ok": True, "result": result}
        except RequestError as exc:
            return self._error(request_id, exc.code, exc.message)
        except Exception as exc:  # mapped to a one-line error; the traceback goes to the log
            code, text = map_exception(exc)
            if code == "internal":
                log.exception("side-panel request failed")
            return self._error(request_id, code, text)

    @staticmethod
    def _error(request_id: str | None, code: str, message: str) -> dict[str, Any]:
        return {"v": PROTOCOL_VERSION, "id": request_id, "ok": False,
                "error": {"code": code, "message": message or code}}

    # -- the runtime and the agent ---------------------------------------------------------------
    @property
    def runtime(self) -> PanelRuntime:
        return self._runtime_provider()

    @property
    def agent(self) -> PanelAgent:
        try:
            agent = self.runtime.agent
        except RequestError:
            raise
        except Exception as exc:
            raise RequestError("no_agent", f"the assistant could not start in this kernel: {exc}") from exc
        self._track_approvals(agent.events)
        return agent

    @property
    def store(self) -> Any:
        return self.agent.store

    def session_id(self) -> str:
        return str(self.agent.session.id)

    @property
    def request_id(self) -> str | None:
        return getattr(self._current, "request_id", None)

    def publish(self, event: str, data: dict[str, Any] | None = None) -> None:
        """Tell every listener (the notebook's widgets, other panels) that something changed."""
        agent = self.agent
        agent.events.publish(event, data or {}, session_id=str(agent.session.id))

    # -- approvals seen on the bus (so a panel opened late still shows them) ---------------------
    def _track_approvals(self, bus: Any) -> None:
        with self._lock:
            if self._tracked_bus is bus:
                return
            if self._untrack is not None:
                self._untrack()
            self._pending.clear()
            self._tracked_bus = bus
            self._untrack = bus.subscribe(self._on_approval_event, ["approval_request", "approval_resolved"])

    def _on_approval_event(self, event: Any) -> None:
        with self._lock:
            if event.type == "approval_request":
                self._pending[str(event.data.get("request_id"))] = json_safe(event.data)
            else:
                self._pending.pop(str(event.data.get("request_id")), None)

    # -- connected panels (the notebook runtime routes approvals to a panel when one listens) ---
    def panel_joined(self) -> None:
        with self._lock:
            self._panels += 1

    def panel_left(self) -> None:
        with self._lock:
            self._panels = max(0, self._panels - 1)
            if self._panels:
                return
        try:
            self.runtime.panel_connected = False
        except Exception:  # the runtime may be gone with the kernel
            pass

    def pending_approvals(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._pending.values())



# --------------------------------------------------------------------------------------------
# the comm target


class _Endpoint:
    """One open comm: requests in, responses and forwarded events out."""

    def __init__(self, comm: Any, dispatcher: Dispatcher) -> None:
        self._comm = comm
        self._dispatcher = dispatcher
        self._send_lock = threading.Lock()
        self._unsubscribe: Callable[[], None] | None = None
        self._bus: Any = None
        self._closed = False
        self._handlers: list[Callable[[str], Any]] | None = None
        self._command_handlers: list[Callable[[str, dict[str, Any]], Any]] | None = None
        comm.on_msg(self._on_msg)
        comm.on_close(self._on_close)

    def _on_msg(self, msg: dict[str, Any]) -> None:
        data = msg.get("content", {}).get("data")
        response = self._dispatcher.handle(data)
        if response.get("ok") and isinstance(data, Mapping) and data.get("op") == "hello":
            self._subscribe()
        self._send(response)

    def _subscribe(self) -> None:
        try:
            bus = self._dispatcher.agent.events
        except RequestError:
            return
        if bus is self._bus:
            return
        if self._unsubscribe is not None:
            self._unsubscribe()
        else:
            self._dispatcher.panel_joined()
            self._offer_insert_cell()
        self._bus = bus
        self._unsubscribe = bus.subscribe(self._forward)

    def _offer_insert_cell(self) -> None:
        """Let the notebook's "Insert SQL as cell" reach this panel's notebook."""
        handlers = getattr(self._dispatcher.runtime, "insert_cell_handlers", None)
        if handlers is not None and self._insert_cell not in handlers:
            handlers.append(self._insert_cell)
            self._handlers = handlers
        commands = getattr(self._dispatcher.runtime, "command_handlers", None)
        if commands is not None and self._command not in commands:
            commands.append(self._command)
            self._command_handlers = commands

    def _insert_cell(self, code: str, **options: Any) -> bool:
        args = {"code": str(code), **options}
        check("#/commands/insert_cell", args, "insert_cell")
        return self._send({"v": PROTOCOL_VERSION, "command": "insert_cell", "args": args})

    def _command(self, command: str, args: dict[str, Any]) -> bool:
        """Any other notebook command (``sync_cells``, ``undo_cells``), checked against the schema."""
        check(f"#/commands/{command}", args, command)
        return self._send({"v": PROTOCOL_VERSION, "command": command, "args": args})

    def _forward(self, event: Any) -> None:
        if event.type not in load_protocol()["events"]:
            return
        self._send(event_message(event))

    def _send(self, payload: dict[str, Any]) -> bool:
        with self._send_lock:
            if self._closed:
                return False
            try:
                self._comm.send(payload)
            except Exception:
                log.exception("could not send to the side panel")
                return False
            return True

    def _on_close(self, msg: Any) -> None:
        with self._send_lock:
            if self._closed:
                return
            self._closed = True
        if self._handlers is not None:
            try:
                self._handlers.remove(self._insert_cell)
            except ValueError:
                pass
            self._handlers = None
        if self._command_handlers is not None:
            try:
                self._command_handlers.remove(self._command)
            except ValueError:
                pass
            self._command_handlers = None
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
            self._dispatcher.panel_left()


_dispatcher: Dispatcher | None = None
_registered_with: Any = None
_register_lock = threading.Lock()


def _default_runtime() -> Any:
    from .runtime import get_runtime

    return get_runtime()


def register_comm_target(manager: Any = None, *, runtime: Callable[[], Any] | None = None) -> None:
    """Register the ``shell_agent_lab`` comm target (idempotent; ``%load_ext`` calls it)."""
    global _dispatcher, _registered_with
    if manager is None:
        import comm as comm_pkg

        manager = comm_pkg.get_comm_manager()
    with _register_lock:
        if _dispatcher is None or runtime is not None:
            _dispatcher = Dispatcher(runtime or _default_runtime)
        dispatcher = _dispatcher

        def on_open(comm: Any, open_msg: Any) -> None:
            _Endpoint(comm, dispatcher)

        manager.register_target(COMM_TARGET, on_open)
        _registered_with = manager
