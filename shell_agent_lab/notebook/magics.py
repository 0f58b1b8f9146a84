"""``%agent`` / ``%%agent``: parse → typed arguments → dispatch table.

A message runs one turn of the notebook's session on a worker thread while this (the cell's)
thread draws its events and answers approval prompts; the cell returns when the turn ends.
``r = %agent …`` gives the :class:`~shell_agent_lab.agent.Reply`; a bare ``%agent …`` shows it
once (see :mod:`.transform`). Slash commands go through the shared command table.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

from IPython.core.error import UsageError as IPythonUsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.display import display

from . import args as A
from .render import TurnView, as_notebook_reply

__all__ = ["AgentMagics"]

_ABORT_GRACE = 15.0


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
        try:
            parsed = A.parse_cell(line, cell) if cell is not None else A.parse_line(line)
        except A.UsageError as exc:
            raise IPythonUsageError(str(exc)) from None
        if isinstance(parsed, A.Ask):
            reply = self._ask(parsed)
            return None if cell is not None else as_notebook_reply(reply)
        self._command(parsed, line.strip() if cell is None else " ".join((line + " " + cell).split()))
        return None

    @line_cell_magic
    def agent_sql(self, line: str, cell: str | None = None) -> Any:
        """Run read-only SQL over this session's tables and DataFrames; returns a DataFrame.

        ``%agent_sql SELECT …`` or ``%%agent_sql`` with the query below (what "Insert SQL as
        cell" and ``%agent /sql`` write).
        """
        sql = (cell if cell is not None else line).strip()
        if not sql:
            raise IPythonUsageError("%agent_sql needs a query, e.g. %agent_sql SELECT count(*) FROM sales")
        engine = self.runtime.agent.engine()
        if engine is None:
            raise IPythonUsageError("no analysis engine in this session")
        try:
            engine.refresh_dataframes()
        except Exception:
            pass
        from ..analysis import AnalysisError

        try:
            return engine.query(sql).to_pandas()
        except AnalysisError as exc:  # the SQL gate's and DuckDB's one-line reasons
            raise IPythonUsageError(str(exc)) from None

    # -- a turn ------------------------------------------------------------------------------
    def _ask(self, ask: A.Ask) -> Any:
        rt = self.runtime
        agent = rt.agent
        if ask.profile:
            try:
                agent.set_profile(ask.profile)
            except KeyError as exc:
                raise IPythonUsageError(str(exc.args[0] if exc.args else exc)) from None
        frontend = rt.frontend()
        live = frontend.live and ask.stream is not False
        view = TurnView(live=live)
        done = threading.Event()
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                box["reply"] = agent.run(ask.message, timeout=ask.timeout)
            except BaseException as exc:  # surfaced on the cell's thread below
                box["error"] = exc
            finally:
                done.set()
                view.wake()

        unsubscribe = agent.events.subscribe(view.post, TurnView.events)
        rt.approver.attach(view, frontend)
        worker = threading.Thread(target=work, name="shell-agent-lab-turn", daemon=True)
        try:
            worker.start()
            try:
                view.pump(done)
            except KeyboardInterrupt:
                agent.abort()
                done.wait(_ABORT_GRACE)
                view.pump(done)
        finally:
            rt.approver.detach()
            unsubscribe()
        if "error" in box:
            raise box["error"]
        reply = box.get("reply")
        if reply is None:
            raise IPythonUsageError("the turn did not finish after /stop; the kernel may need a restart")
        rt.last_reply = reply
        sql_widget = None
        if frontend.live:
            from .widgets import SqlButton

            sql_widget = lambda sqls: SqlButton(sqls, rt.insert_cell)  # noqa: E731
        view.finish(reply, sql_widget=sql_widget)
        return reply

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

        result = run_command(rt.agent, text)
        if result.error:
            raise IPythonUsageError(result.error)
        handler = _RENDERERS.get(result.kind or name, _render_text)
        handler(self, result)

    def _source(self) -> Any:
        from ._widget_base import Source

        rt = self.runtime
        agent = rt.agent

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
