"""``%agent /sessions`` lists, renames and deletes sessions from the notebook, the same store
operations as the side panel's Sessions tab and ``shell-agent-lab sessions``."""
from __future__ import annotations

import pytest
from nbhelpers import run

from shell_agent_lab.agent.commands import commands, run_command
from shell_agent_lab.notebook import args as A


def _texts(cap):
    return "\n".join(o.data.get("text/markdown") or o.data.get("text/plain") for o in cap.outputs)


@pytest.fixture
def agent(shell):
    from shell_agent_lab.notebook.runtime import get_runtime

    return get_runtime().agent


@pytest.fixture
def other(agent):
    """A second session with something in it, not the one this notebook has open."""
    store = agent.store
    s = store.create_session(title="Q3 review", notebook_path="/nb/q3.ipynb")
    store.append_record(s.id, "user", "hello")
    store.findings.add(s.id, "Revenue grew 12% in Q3")
    store.session_memory.add(s.id, "Dataset is sales.csv", "fact", source="user_turn")
    (store.session_dir(s.id) / "work").mkdir(parents=True, exist_ok=True)
    return s


# --- parsing --------------------------------------------------------------------------------------

@pytest.mark.parametrize("line, expected", [
    ("/sessions", A.Sessions()),
    ("/sessions rename sess-1 Q3 final", A.Sessions("rename", "sess-1", "Q3 final")),
    ('/sessions rename "Q3 review" "Q3 final"', A.Sessions("rename", "Q3 review", "Q3 final")),
    ("/sessions delete sess-1", A.Sessions("delete", "sess-1")),
    ("/sessions delete sess-1 --yes", A.Sessions("delete", "sess-1", yes=True)),
])
def test_parse(line, expected):
    assert A.parse_line(line) == expected


@pytest.mark.parametrize("line, says", [
    ("/sessions rename sess-1", "needs the session"),
    ("/sessions delete", "needs one session id"),
    ("/sessions delete a b", "needs one session id"),
    ("/sessions purge", "takes nothing, 'rename"),
    ("/sessions rename sess-1 \"\"", "1 to 200 characters"),
])
def test_parse_errors_are_one_line(line, says):
    with pytest.raises(A.UsageError) as exc:
        A.parse_line(line)
    assert says in str(exc.value) and "\n" not in str(exc.value)


# --- through the magic ----------------------------------------------------------------------------

def test_list_still_lists(shell, agent, other):
    res, cap = run(shell, "%agent /sessions")
    res.raise_error()
    text = _texts(cap)
    assert other.id in text and "Q3 review" in text and agent.session.id in text


def test_rename_by_title_id_or_prefix_locks_the_title_and_tells_the_agent(shell, agent, other):
    seen = []
    agent.events.subscribe(lambda e: seen.append(e.data), ["session_renamed"])
    res, cap = run(shell, '%agent /sessions rename "Q3 review" Q3 final')
    res.raise_error()
    renamed = agent.store.get_session(other.id)
    assert renamed.title == "Q3 final" and renamed.title_locked
    assert "Renamed **Q3 review** to **Q3 final**" in _texts(cap)
    assert seen == [{"session_id": other.id, "title": "Q3 final"}]
    run(shell, f"%agent /sessions rename {other.id[:-2]} Quarter three")[0].raise_error()   # unique prefix
    assert agent.store.get_session(other.id).title == "Quarter three"
    own = agent.session.id
    run(shell, f"%agent /sessions rename {own} This notebook")[0].raise_error()            # the open one
    assert agent.session.title == "This notebook"


def test_rename_errors_are_one_line(shell, agent, other):
    res, _ = run(shell, "%agent /sessions rename no-such-session New")
    assert "no session 'no-such-session'" in str(res.error_in_exec)
    agent.store.create_session(title="Twin")
    agent.store.create_session(title="Twin")
    res, _ = run(shell, "%agent /sessions rename Twin Other")
    assert "matches 2 sessions" in str(res.error_in_exec)
    assert "\n" not in str(res.error_in_exec)


def test_delete_asks_first_then_deletes_with_yes(shell, agent, other):
    store = agent.store
    directory = store.session_dir(other.id)
    res, cap = run(shell, f"%agent /sessions delete {other.id}")
    res.raise_error()
    text = _texts(cap)
    assert "would delete **Q3 review**" in text and "1 messages, 1 Findings, 1 Session Memory entries" in text
    assert f"/sessions delete {other.id} --yes" in text
    assert store.get_session(other.id) is not None and directory.is_dir()       # nothing gone yet

    res, cap = run(shell, f"%agent /sessions delete {other.id} --yes")
    res.raise_error()
    assert "Deleted **Q3 review**" in _texts(cap)
    assert store.get_session(other.id) is None and not directory.exists()
    assert store.findings.list(other.id) == [] and store.session_memory.list(other.id) == []


def test_delete_never_takes_the_open_session(shell, agent):
    own = agent.session
    for line in (f"%agent /sessions delete {own.id}", f"%agent /sessions delete {own.id} --yes"):
        res, _ = run(shell, line)
        message = str(res.error_in_exec)
        assert "this notebook has open, so it is kept" in message and "/reset" in message
        assert "\n" not in message
    assert agent.store.get_session(own.id) is not None and agent.session.id == own.id


def test_delete_needs_the_full_id(shell, agent, other):
    res, _ = run(shell, f"%agent /sessions delete {other.id[:-2]} --yes")
    assert "no session" in str(res.error_in_exec) and "full id" in str(res.error_in_exec)
    res, _ = run(shell, "%agent /sessions delete 'Q3 review' --yes")
    assert "no session" in str(res.error_in_exec)
    assert agent.store.get_session(other.id) is not None


def test_the_shared_table_gives_the_panel_the_same_commands(shell, agent, other):
    result = run_command(agent, f"/sessions delete {other.id} --yes")
    assert result.error is None and result.data == {"session": other.id, "deleted": True}
    usage = {c.name: c.usage for c in commands()}["sessions"]
    assert "rename" in usage and "delete" in usage


def test_unloading_gives_the_plain_list_back(shell, agent, other):
    shell.run_line_magic("unload_ext", "shell_agent_lab")
    try:
        assert {c.name: c.usage for c in commands()}["sessions"] == "/sessions"
        listed = run_command(agent, "/sessions")
        assert listed.error is None and other.id in listed.text
    finally:
        shell.run_line_magic("load_ext", "shell_agent_lab")
    assert "rename" in {c.name: c.usage for c in commands()}["sessions"]
