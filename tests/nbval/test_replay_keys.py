"""The example notebooks replay across runs and machines: the request key ignores the clock,
guard nonces, date-based ids and machine paths, and nothing else."""
from shell_agent_lab.llm.replay import normalize_request, request_key
from shell_agent_lab.llm.types import Message


def _key(user: str, tool: str = "", env=None) -> str:
    msgs = [Message("system", "base"), Message("user", user)]
    if tool:
        msgs.append(Message("tool", tool, tool_call_id="c1", name="query_sql"))
    return request_key(normalize_request(msgs, [], env or {}))


def test_same_conversation_in_another_run_has_the_same_key():
    a = _key("[Time: 2026-11-22 Sunday 07:12:33 UTC]\n\n<user_data_a062a232cf5b5a8e001194eea626f69a>Which region?"
             "</user_data_a062a232cf5b5a8e001194eea626f69a>",
             "[2026-11-22 07:22 UTC]\nf-20261122-001 (learned 2026-11-22) sess-1763795553000-ab12cd")
    b = _key("[Time: 2027-01-03 Sunday 18:00:01 UTC]\n\n<user_data_0123456789abcdef0123456789abcdef>Which region?"
             "</user_data_0123456789abcdef0123456789abcdef>",
             "[2027-01-03 18:01 UTC]\nf-20270103-001 (learned 2027-01-03) sess-1799999999999-ffffff")
    assert a == b


def test_machine_paths_are_masked():
    a = _key("loaded /home/a/clone/notebooks/sales.csv", env={"SHELL_AGENT_LAB_DATA_DIR": "/x/data"})
    assert a == _key("loaded /home/a/clone/notebooks/sales.csv", env={"SHELL_AGENT_LAB_DATA_DIR": "/y/data"})
    assert _key("saved /tmp/tmpab12_x/b.shellagent") == _key("saved /tmp/tmpZZ9/b.shellagent")
    assert _key("report saved as object `d5c54762ab00655da9dd403b61ccaef6`") == \
        _key("report saved as object `0123456789abcdef0123456789abcdef`")


def test_different_questions_and_data_dates_keep_different_keys():
    assert _key("Which region?") != _key("Which product?")
    assert _key("revenue on 2024-03-01") != _key("revenue on 2024-04-01")


def test_conversation_matching_ignores_the_system_prompt_and_tools():
    from shell_agent_lab.llm.types import ToolSpec

    def key(system, tools, env):
        msgs = [Message("system", system), Message("user", "Which region?")]
        return request_key(normalize_request(msgs, tools, env))

    t = [ToolSpec("query_sql", "run SQL", {"type": "object"})]
    conv = {"SHELL_AGENT_LAB_REPLAY_MATCH": "conversation"}
    assert key("prompt v1", [], conv) == key("prompt v2", t, conv)
    assert key("prompt v1", [], {}) != key("prompt v2", t, {})         # the default stays strict
