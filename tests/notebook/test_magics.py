"""%agent in a real InteractiveShell: the `?` handling, the returned Reply, commands, errors."""
from __future__ import annotations

from nbhelpers import run
from IPython.utils.capture import capture_output

from shell_agent_lab.agent import Reply
from shell_agent_lab.llm.scripted import call, reply
from shell_agent_lab.notebook.transform import rewrite_agent_lines


def _texts(cap):
    return [o.data.get("text/markdown") or o.data.get("text/plain") for o in cap.outputs]


def test_a_trailing_question_mark_reaches_the_model(shell, backend):
    backend.enqueue("Yes, by 12%.")
    res, cap = run(shell, "%agent is revenue up?")
    res.raise_error()
    assert backend.requests[-1].last_user.split(">")[1].startswith("is revenue up?<")
    assert "Yes, by 12%." in _texts(cap)


def test_double_question_mark_and_indented_lines(shell, backend):
    backend.enqueue("a", "b")
    res, _ = run(shell, "for q in range(2):\n    %agent why??\n")
    res.raise_error()
    assert [r.last_user.count("why??") for r in backend.requests] == [1, 1]


def test_bare_magic_prints_the_reply_once(shell, backend):
    backend.enqueue("Only once.")
    res, cap = run(shell, "%agent say it")
    res.raise_error()
    assert "Reply(" not in cap.stdout               # no execute_result on top of the live output
    assert _texts(cap).count("Only once.") == 1
    backend.enqueue("Again.")
    res, cap = run(shell, "r = %agent say it again\nr")
    res.raise_error()
    assert _texts(cap).count("Again.") == 1        # drawn live; `r` in the same cell adds nothing
    res, cap = run(shell, "r")
    assert _texts(cap).count("Again.") == 1        # a later cell shows the value


def test_bare_magic_prints_once_even_without_history(shell, backend):
    """nbval runs cells with store_history=False, so the trailing ';' cannot hide the result."""
    backend.enqueue("Once, really.")
    with capture_output() as cap:
        res = shell.run_cell("%agent say it", store_history=False)
    res.raise_error()
    assert _texts(cap).count("Once, really.") == 1


def test_assignment_returns_a_reply_with_a_useful_repr(shell, backend):
    backend.enqueue("Three regions grew.")
    res, _ = run(shell, "r = %agent which regions grew?")
    res.raise_error()
    r = shell.user_ns["r"]
    assert isinstance(r, Reply)
    assert r.text == "Three regions grew."
    assert repr(r).startswith("Reply('Three regions grew.', 19 chars, tables=0")
    assert r._repr_markdown_() == "Three regions grew."


def test_cell_magic_with_options_runs_one_turn(shell, backend):
    backend.enqueue("Done.")
    res, cap = run(shell, "%%agent --no-stream\nFirst line?\nSecond line?\n")
    res.raise_error()
    assert res.result is None
    assert "First line?\nSecond line?" in backend.requests[-1].last_user
    assert "Done." in _texts(cap)


def test_the_transformer_leaves_other_code_alone():
    lines = ["x = 1\n", "%agentx foo?\n", "print('%agent')\n"]
    assert rewrite_agent_lines(lines) == lines
    assert rewrite_agent_lines(["%%agent\n", "%agent a?\n"]) == ["%%agent\n", "%agent a?\n"]
    text = ['doc = """\n', '%agent inside a string?\n', '"""\n']
    assert rewrite_agent_lines(text) == text


def test_usage_errors_are_one_line_and_ask_nothing(shell, backend):
    res, _ = run(shell, "%agent --bogus hi")
    assert type(res.error_in_exec).__name__ == "UsageError"
    assert "unknown option --bogus" in str(res.error_in_exec)
    assert backend.requests == []


def test_help_lists_core_and_notebook_commands(shell):
    res, cap = run(shell, "%agent /help")
    res.raise_error()
    text = "\n".join(_texts(cap))
    for name in ("/findings", "/memory", "/session", "/private", "/pin", "/forget", "/export", "/import", "/sql"):
        assert name in text


def test_session_private_and_reset_switch_sessions(shell):
    from shell_agent_lab.notebook.runtime import get_runtime

    rt = get_runtime()
    first = rt.agent.session.id
    run(shell, "%agent /session Q3 review")[0].raise_error()
    named = rt.agent.session
    assert named.title == "Q3 review" and named.id != first
    run(shell, "%agent /session Q3 review")[0].raise_error()
    assert rt.agent.session.id == named.id                  # the same name finds the same session
    run(shell, "%agent /private")[0].raise_error()
    assert rt.agent.session.private
    run(shell, "%agent /reset")[0].raise_error()
    assert rt.agent.session.id not in (first, named.id)


def test_findings_pin_and_forget_from_the_magic(shell):
    from shell_agent_lab.notebook.runtime import get_runtime

    agent = get_runtime().agent
    sid = agent.session.id
    f = agent.store.findings.add(sid, "EU churn spiked in March", tags=("high", "sales"))
    res, cap = run(shell, "%agent /findings")
    res.raise_error()
    assert f.id in "\n".join(_texts(cap)) and "| high |" in "\n".join(_texts(cap))
    run(shell, f"%agent /pin {f.id} --category preference")[0].raise_error()
    assert [e.fact for e in agent.store.global_memory.list()] == ["EU churn spiked in March"]
    run(shell, f"%agent /forget {f.id}")[0].raise_error()
    assert agent.store.findings.list(sid) == []
    res, _ = run(shell, "%agent /forget nonsense")
    assert "is not an id" in str(res.error_in_exec)


def test_pin_is_refused_in_a_private_session(shell):
    from shell_agent_lab.notebook.runtime import get_runtime

    agent = get_runtime().agent
    run(shell, "%agent /private")[0].raise_error()
    f = agent.store.findings.add(agent.session.id, "private thing")
    res, _ = run(shell, f"%agent /pin {f.id}")
    assert type(res.error_in_exec).__name__ == "UsageError"
    assert agent.store.global_memory.list() == []


def test_sql_inserts_the_last_turns_sql_as_the_next_cell(shell, backend):
    from shell_agent_lab.notebook.runtime import get_runtime

    get_runtime().last_reply = Reply(text="x", sql=["SELECT region, sum(amount) FROM sales GROUP BY 1"])
    res, cap = run(shell, "%agent /sql")
    res.raise_error()
    assert shell.rl_next_input == "%%agent_sql\nSELECT region, sum(amount) FROM sales GROUP BY 1\n"


def test_sql_without_a_previous_query_says_so(shell):
    res, _ = run(shell, "%agent /sql")
    assert "ran no SQL" in str(res.error_in_exec)


def test_a_tool_call_shows_one_final_line_and_the_table(shell, backend):
    import pandas as pd

    shell.user_ns["sales"] = pd.DataFrame({"region": ["EU", "US", "EU"], "amount": [1, 2, 3]})
    shell.run_line_magic("config", 'ShellAgent.approval_overrides = {"query_sql": False}')
    backend.enqueue(call("query_sql", {"sql": "SELECT region, sum(amount) AS total FROM sales GROUP BY 1 ORDER BY 1"}),
                    reply("EU leads with 4."))
    res, cap = run(shell, "r = %agent who leads?")
    res.raise_error()
    texts = _texts(cap)
    assert any(t.startswith("✓ query_sql — done") for t in texts if t)
    r = shell.user_ns["r"]
    assert r.sql and "GROUP BY" in r.sql[0]
    assert r.tables and list(r.tables[0]["total"]) == [4, 2]


def test_awaited_form_runs_the_same_turn(shell, backend):
    from shell_agent_lab.notebook import transform

    transform.install(shell, awaitable=True)
    try:
        assert "await" in shell.transform_cell("%agent is it up?\n")
        assert "await" not in shell.transform_cell("%agent /findings\n")   # a command: a plain call
        res, cap = run(shell, "%agent /help")
        res.raise_error()
        assert "/findings" in "".join(t or "" for t in _texts(cap))
        backend.enqueue("Up 5%.", "Cell answer.")
        res, cap = run(shell, "r = %agent is it up?")
        res.raise_error()
        assert shell.user_ns["r"].text == "Up 5%."
        res, cap = run(shell, "%%agent --no-stream\nand now?\n")
        res.raise_error()
        assert "Cell answer." in _texts(cap) and "and now?" in backend.requests[-1].last_user
    finally:
        transform.install(shell)


def test_no_model_configured_is_one_actionable_line(shell):
    from shell_agent_lab.llm.errors import ConfigurationError
    from shell_agent_lab.notebook import runtime as runtime_mod

    def failing(**_kw):
        raise ConfigurationError("no model is configured and none was found", hint="Set OPENAI_API_KEY")

    runtime_mod.reset_runtime()
    runtime_mod.get_runtime(shell, build=failing)
    res, _ = run(shell, "%agent hello?")
    assert type(res.error_in_exec).__name__ == "UsageError"
    assert str(res.error_in_exec) == ("shell-agent-lab cannot start: no model is configured and none was found"
                                      " — Set OPENAI_API_KEY")


def test_agent_sql_runs_read_only_sql_over_dataframes(shell):
    import pandas as pd

    shell.user_ns["sales"] = pd.DataFrame({"region": ["EU", "US", "EU"], "amount": [1, 2, 3]})
    res, _ = run(shell, "%%agent_sql\nSELECT region, sum(amount) AS total FROM sales GROUP BY 1 ORDER BY 1\n")
    res.raise_error()
    assert res.result.to_dict("list") == {"region": ["EU", "US"], "total": [4, 2]}
    res, _ = run(shell, "%agent_sql SELECT * FROM read_csv('/etc/passwd')")
    assert type(res.error_in_exec).__name__ == "UsageError"
    res, _ = run(shell, "%agent_sql")
    assert "needs a query" in str(res.error_in_exec)


def test_unknown_profile_option_is_a_usage_error(shell, backend):
    res, _ = run(shell, "%agent --profile nope hi")
    assert type(res.error_in_exec).__name__ == "UsageError" and "nope" in str(res.error_in_exec)
    assert backend.requests == []


def test_headless_memory_waits_for_background_extraction(shell, backend):
    import threading

    shell.run_line_magic("config", "ShellAgent.auto_extract = True")
    release = threading.Event()

    def slow_extraction(messages, tools):
        release.wait(10)                                   # still extracting when /memory runs
        return "preference|turn-1|User prefers plotly for charts|"

    backend.enqueue("Noted.", slow_extraction)
    run(shell, "%agent I prefer plotly for charts")[0].raise_error()
    threading.Timer(0.3, release.set).start()
    res, cap = run(shell, "%agent /memory")                # right away: extraction may still be running
    res.raise_error()
    assert "User prefers plotly for charts" in "\n".join(_texts(cap))


def test_remember_adds_to_global_memory_but_not_from_a_private_session(shell):
    from shell_agent_lab.notebook.runtime import get_runtime

    agent = get_runtime().agent
    run(shell, "%agent /remember Our fiscal year starts in April --category decision")[0].raise_error()
    assert [(e.fact, e.category, e.source) for e in agent.store.global_memory.list()] == [
        ("Our fiscal year starts in April", "decision", "manual")]
    res, _ = run(shell, "%agent /remember")
    assert "needs the fact" in str(res.error_in_exec)
    run(shell, "%agent /private")[0].raise_error()
    res, _ = run(shell, "%agent /remember Salaries in thousands")
    assert "private session" in str(res.error_in_exec)
    assert len(agent.store.global_memory.list()) == 1


def test_live_frontend_updates_the_tool_line_and_the_text_in_place(shell, backend, monkeypatch):
    import pandas as pd

    monkeypatch.setenv("SHELL_AGENT_LAB_FRONTEND", "widgets")
    shell.user_ns["sales"] = pd.DataFrame({"region": ["EU", "US"], "amount": [3, 2]})
    shell.run_line_magic("config", 'ShellAgent.approval_overrides = {"query_sql": False}')
    backend.enqueue(call("query_sql", {"sql": "SELECT count(*) AS n FROM sales"}), reply("Two rows."))
    res, cap = run(shell, "%agent how many rows?")
    res.raise_error()
    tool = [o for o in cap.outputs if str(o.data.get("text/plain", "")).startswith(("⏳", "✓"))]
    assert tool[0].data["text/plain"].startswith("⏳ query_sql — running") and not tool[0].update
    assert tool[-1].data["text/plain"].startswith("✓ query_sql — done") and tool[-1].update
    assert tool[0].transient["display_id"] == tool[-1].transient["display_id"]      # the same line
    texts = [o for o in cap.outputs if o.data.get("text/markdown", "").startswith("Two rows.")]
    assert len(texts) == 2 and texts[-1].update                                    # streamed, then final
    assert texts[0].transient["display_id"] == texts[-1].transient["display_id"]
    assert any(type(o.data.get("application/vnd.jupyter.widget-view+json")) is dict for o in cap.outputs)  # SQL button


def test_tools_and_mcp_commands_reach_the_agent(shell, backend):
    res, cap = run(shell, "%agent /tools")
    res.raise_error()
    text = "\n".join(_texts(cap))
    assert "`run_python` | execute | builtin | yes" in text and "`query_sql`" in text
    res, cap = run(shell, "%agent /mcp")
    res.raise_error()
    assert "No MCP servers are configured" in "\n".join(_texts(cap))
    res, _ = run(shell, "%agent /mcp stop everything")
    assert type(res.error_in_exec).__name__ == "UsageError"
