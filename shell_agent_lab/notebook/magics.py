"""``%agent`` / ``%%agent``: parse → typed arguments → dispatch table.

A message runs one turn of the notebook's session on a worker thread while this (the cell's)
thread draws its events and answers approval prompts; the cell returns when the turn ends.
``r = %agent …`` gives the :class:`~shell_agent_lab.agent.Reply`; a bare ``%agent …`` shows it
once (see :mod:`.transform`). Slash commands go through the shared command table.
"""
from __future__ import annotations

import asyncio
import threading
from typing import Any, Callable

from IPython.core.error import UsageError as IPythonUsageError
from IPython.core.magic import Magics, cell_magic, line_cell_magic, magics_class
from IPython.display import display

from . import args as A
from .render import TurnView, as_notebook_reply

__all__ = ["AgentMagics"]

_ABORT_GRACE = 15.0
_BACKGROUND_WAIT = 900.0


def _markdown(text: str) -> dict:
    return {"text/markdown": text, "text/plain": text}


@magics_class
class AgentMagics(Magics):
    """The ``agent`` line and cell magic."""

    def __init__(self, shell: Any, runtime: Callable[[], Any] | None = None) -> None:
        super().__init__(shell)
        self._runtime_provider = runtime

    @property
    def runtime(self) -> Any:
        if self._runtime_provider is not None:
            return self._runtime_provider()
        from .runtime import get_runtime

        return get_runtime(self.shell)

    @line_cell_magic
    def agent(self, line: str, cell: str | None = None) -> Any:
        """Ask the assistant: ``%agent which regions grew?``; ``%agent /help`` lists commands.

        Options before the message: ``--profile NAME`` (bind this session to a profile first),
        ``--no-stream`` (draw the answer once, at the end), ``--timeout SECONDS``.
        """
        parsed = self._parse(line, cell)
        if isinstance(parsed, A.Ask):
            turn = self._start(parsed)
            turn.wait()
            return turn.result(cell is None)
        self._command(parsed, _command_text(line, cell))
        return None

    @line_cell_magic
    def agent_async(self, line: str, cell: str | None = None) -> Any:
        """What top-level ``%agent`` lines become (see :mod:`.transform`): the same, awaited.

        While the cell awaits, the kernel's event loop stays free to deliver widget clicks for
        this cell (an Approval widget answered while the turn waits)."""
        parsed = self._parse(line, cell)

        async def run() -> Any:
            if isinstance(parsed, A.Ask):
                turn = self._start(parsed)
                await turn.wait_async()
                return turn.result(cell is None)
            self._command(parsed, _command_text(line, cell))
            return None
        return run()

    def _parse(self, line: str, cell: str | None) -> Any:
        try:
            return A.parse_cell(line, cell) if cell is not None else A.parse_line(line)
        except A.UsageError as exc:
            raise IPythonUsageError(str(exc)) from None

    def _agent(self) -> Any:
        """The kernel's agent; setup problems become one actionable line, not a traceback."""
        from ..llm.errors import LLMError
        from ..store.errors import StoreError

        try:
            return self.runtime.agent
        except (LLMError, StoreError) as exc:
            raise IPythonUsageError(f"shell-agent-lab cannot start: {exc}") from None

    def _start(self, ask: A.Ask) -> "_Turn":
        rt = self.runtime
        agent = self._agent()
        if ask.profile:
            from ..llm.errors import LLMError

            try:
                agent.set_profile(ask.profile)
            except KeyError as exc:
                raise IPythonUsageError(str(exc.args[0] if exc.args else exc)) from None
            except (RuntimeError, LLMError) as exc:  # busy, or the profile's backend cannot be built
                raise IPythonUsageError(f"--profile {ask.profile}: {exc}") from None
        return _Turn(rt, agent, self._with_attachments(rt, agent, ask))

    def _with_attachments(self, rt: Any, agent: Any, ask: A.Ask) -> A.Ask:
        """Store ``--attach`` / ``--image`` files and put the anchors of everything attached
        since the last question (``/attach``, ``attach()``) in front of the message."""
        import dataclasses

        from ..llm.errors import LLMError
        from . import attach as att

        sid = agent.session.id
        try:
            queued = att.pending(sid)
            try:
                att.check_images(agent, [m.name or m.id for m in queued if m.type == "image"])
            except att.AttachError as exc:
                raise IPythonUsageError(f"{exc}, or remove the attached image with %agent /objects delete ID") from None
            fresh = (att.attach_paths(agent, ask.attach, att.base_for(agent, rt.notebook_path), images_only=ask.images)
                     if ask.attach or ask.images else [])
        except att.AttachError as exc:
            flag = "--image" if ask.images and not ask.attach else "--attach" if ask.attach else "attachment"
            raise IPythonUsageError(f"{flag}: {exc}") from None
        except LLMError as exc:     # the backend cannot be built: say so before anything is stored
            raise IPythonUsageError(f"shell-agent-lab cannot start: {exc}") from None
        metas = att.take_pending(sid, agent.store) + fresh
        return dataclasses.replace(ask, message=att.compose(ask.message, metas)) if metas else ask

    @line_cell_magic
    def agent_sql(self, line: str, cell: str | None = None) -> Any:
        """Run read-only SQL over this session's tables and DataFrames; returns a DataFrame.

        ``%agent_sql SELECT …`` or ``%%agent_sql`` with the query below (what "Insert SQL as
        cell" and ``%agent /sql`` write).
        """
        sql = (cell if cell is not None else line).strip()
        if not sql:
            raise IPythonUsageError("%agent_sql needs a query, e.g. %agent_sql SELECT count(*) FROM sales")
        agent = self._agent()
        engine = agent.engine()
        if engine is None:      # e.g. it could not be opened, or is closed for an export: say why
            reason = getattr(agent, "engine_error", None)
            raise IPythonUsageError("no analysis engine in this session" + (f" ({reason})" if reason else ""))
        from ..analysis import AnalysisError

        try:
            engine.refresh_dataframes()
            return engine.query(sql).to_pandas()
        except AnalysisError as exc:  # the SQL gate's and DuckDB's one-line reasons
            raise IPythonUsageError(str(exc)) from None

    @cell_magic
    def agent_program(self, line: str, cell: str) -> Any:
        """Run a pandas program in the sandbox over the named frames; returns its ``answer``.

        ``%%agent_program sales orders`` with the program below: what an answer computed by a
        program inserts, so Run All computes the same values the same way. Each name is a
        DataFrame of the notebook, else a table of this session. The program runs behind the
        operating system's boundary (``docs/programs.md``), never in the kernel: to run the code
        with the notebook's full powers, copy it into a plain cell.
        """
        from ..answers.program_run import run_program
        from .cells import table_frame

        names = line.split()
        if not cell.strip():
            raise IPythonUsageError("%%agent_program needs a program below its first line")
        frames: dict[str, Any] = {}
        for name in names:
            value = self.shell.user_ns.get(name)
            if _is_frame(value):
                frames[name] = value
                continue
            try:
                frames[name] = table_frame(name)
            except Exception as exc:
                raise IPythonUsageError(f"%%agent_program: {name!r} is neither a DataFrame of this notebook nor a "
                                        f"table of its session ({exc})") from None
        timeout = float(getattr(self._agent().settings, "program_timeout", 30.0) or 30.0)
        run = run_program(cell, frames, timeout=timeout, checked=False)
        if run.unavailable:
            raise IPythonUsageError(f"%%agent_program: {run.error}. This cell runs its program in the sandbox only: "
                                    "install bubblewrap, or copy the code into a plain cell to run it in the kernel.")
        if run.stdout:
            print(run.stdout, end="" if run.stdout.endswith("\n") else "\n")
        if not run.ok:
            raise IPythonUsageError(f"the program failed: {run.error}")
        return run.values.get("answer")

    # -- slash commands ----------------------------------------------------------------------
    def _command(self, parsed: Any, text: str) -> None:
        rt = self.runtime
        name = parsed.name
        if name == "stop":  # never waits for the agent
            if rt.started:
                rt.agent.abort()
            display(_markdown("Stopped." if rt.started else "Nothing is running."), raw=True)
            return
        from ..agent.commands import run_command

        agent = self._agent()
        if not rt.frontend().live:
            # headless: no widget updates later, and runs must be reproducible: let background
            # extraction finish before a command reads or changes memory
            agent.wait_idle(timeout=_BACKGROUND_WAIT)
        result = run_command(agent, text)
        if result.error:
            raise IPythonUsageError(result.error)
        handler = _RENDERERS.get(result.kind or name, _render_text)
        handler(self, result)

    def _source(self) -> Any:
        from ._widget_base import Source

        agent = self._agent()

        def tables() -> list:
            engine = agent.engine()
            if engine is None:
                return []
            try:
                engine.refresh_dataframes()
            except Exception:
                pass
            return engine.tables()

        return Source(store=agent.store, session_id=lambda: agent.session.id, events=agent.events,
                      tables=tables, private=lambda: bool(agent.session.private))

    def _widget_or_text(self, make: Callable[[Any], Any], text: Callable[[Any], str]) -> None:
        source = self._source()
        if self.runtime.frontend().live:
            display(make(source))
        else:
            display(_markdown(text(source)), raw=True)


def _command_text(line: str, cell: str | None) -> str:
    return line.strip() if cell is None else " ".join((line + " " + cell).split())


class _Turn:
    """One turn: runs on a worker thread while the cell's thread draws and answers prompts."""

    def __init__(self, rt: Any, agent: Any, ask: A.Ask) -> None:
        self.rt, self.agent = rt, agent
        self.frontend = rt.frontend()
        self.message = ask.message
        from .cells import asking_cell_id

        self.cell_id = asking_cell_id(rt.shell)
        self.view = TurnView(live=self.frontend.live and ask.stream is not False)
        self.done = threading.Event()
        self._box: dict[str, Any] = {}
        self._unsubscribe = agent.events.subscribe(self.view.post, TurnView.events)
        rt.approver.attach(self.view, self.frontend)
        self._worker = threading.Thread(target=self._work, args=(ask,), name="shell-agent-lab-turn", daemon=True)
        self._worker.start()

    def _work(self, ask: A.Ask) -> None:
        try:
            self._box["reply"] = self.agent.run(ask.message, timeout=ask.timeout)
        except BaseException as exc:  # surfaced on the cell's thread
            self._box["error"] = exc
        finally:
            self.done.set()
            self.view.wake()

    def wait(self) -> None:
        try:
            try:
                self.view.pump(self.done)
            except KeyboardInterrupt:
                self.agent.abort()
                self.done.wait(_ABORT_GRACE)
                self.view.pump(self.done)
        finally:
            self._detach()

    async def wait_async(self) -> None:
        try:
            try:
                await self.view.pump_async(self.done)
            except (KeyboardInterrupt, asyncio.CancelledError):
                self.agent.abort()
                self.done.wait(_ABORT_GRACE)
                self.view.pump(self.done)
        finally:
            self._detach()

    def _detach(self) -> None:
        self.rt.approver.detach()
        self._unsubscribe()

    def result(self, as_value: bool) -> Any:
        if "error" in self._box:
            raise self._box["error"]
        reply = self._box.get("reply")
        if reply is None:
            raise IPythonUsageError("the turn did not finish after /stop; the kernel may need a restart")
        rt = self.rt
        rt.last_reply = reply
        from .cells import deliver

        cells = deliver(rt, reply, self.message, live=self.frontend.live, after_cell_id=self.cell_id)
        sql_widget = None
        if self.frontend.live and cells != "inserted":   # the SQL did not come in as cells: offer it
            from .widgets import SqlButton

            sql_widget = lambda sqls: SqlButton(sqls, rt.insert_cell)  # noqa: E731
        if cells == "inserted":   # the tables, charts and SQL are in the cells below: the answer alone here
            import dataclasses

            from ._undo_widget import UndoCellsButton
            from .cell_changes import undo

            n = len(reply.cells)
            self.view.finish(dataclasses.replace(reply, tables=[], charts=[], sql=[]))
            display(_markdown(f"↓ _{n} cell{'s' if n != 1 else ''} below reproduce{'' if n != 1 else 's'} this answer._"),
                    raw=True)
            turn = rt.last_cell_set.turn
            display(UndoCellsButton(turn, lambda t: undo(rt, t)))
        else:
            self.view.finish(reply, sql_widget=sql_widget)
        if cells == "off":
            for code in reply.cells:
                if not rt.insert_cell(code):
                    rt.shell.set_next_input(code, replace=False)
        return as_notebook_reply(reply, shown=True) if as_value else None


def _render_text(magics: AgentMagics, result: Any) -> None:
    display(_markdown(result.text or f"/{result.name}: done."), raw=True)


def _render_findings(magics: AgentMagics, result: Any) -> None:
    from .widgets import FindingsWidget, findings_markdown

    magics._widget_or_text(FindingsWidget, lambda s: findings_markdown(s.store.findings.list(s.session_id())))


def _render_memory(magics: AgentMagics, result: Any) -> None:
    from .widgets import MemoryWidget, memory_markdown

    magics._widget_or_text(MemoryWidget, lambda s: memory_markdown(
        [e for e in s.store.global_memory.list() if e.state not in ("dormant", "archived")],
        [e for e in s.store.session_memory.list(s.session_id()) if e.state not in ("dormant", "archived")]))


def _render_data(magics: AgentMagics, result: Any) -> None:
    from .widgets import DataWidget, data_markdown

    magics._widget_or_text(DataWidget, lambda s: data_markdown(s.tables()))


def _render_sql(magics: AgentMagics, result: Any) -> None:
    from .widgets import cell_code

    sqls = list(result.data or [])
    magics.shell.set_next_input(cell_code(sqls), replace=False)
    display(_markdown(f"Inserted the SQL as the next cell:\n\n{result.text}"), raw=True)


#: CommandResult.kind -> how the notebook shows it (anything else: its Markdown text)
_RENDERERS: dict[str, Callable[[AgentMagics, Any], None]] = {
    "findings": _render_findings,
    "memory": _render_memory,
    "data": _render_data,
    "sql": _render_sql,
}


def _workspace_renderers() -> None:
    from .workspace import RENDERERS

    _RENDERERS.update(RENDERERS)


_workspace_renderers()


def _is_frame(value: Any) -> bool:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        return False
    return isinstance(value, (pd.DataFrame, pd.Series))
