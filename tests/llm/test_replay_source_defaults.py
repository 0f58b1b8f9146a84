"""A replay stands in for the model it was recorded from: it takes that profile's defaults."""
from shell_agent_lab.agent._backends import schema_in_prompt_on
from shell_agent_lab.config import ShellAgent
from shell_agent_lab.llm.profiles import Profile
from shell_agent_lab.llm.selection import build_backend


def _replay(tmp_path, source):
    options = {"cassette": str(tmp_path / "c.json"), "mode": "record"}
    if source is not None:
        options["source"] = source
    return build_backend(Profile("demo", "replay", options=options), env={})


def test_a_replay_of_the_local_model_behaves_like_the_local_model(tmp_path):
    backend = _replay(tmp_path, {"backend": "local", "options": {"model_path": "/m.gguf"}})
    local = build_backend(Profile("l", "local", options={"model_path": "/m.gguf"}), env={})
    assert backend.context_tokens == local.context_tokens == 8192
    assert backend.auto_extract_default is local.auto_extract_default is False
    assert schema_in_prompt_on(ShellAgent(), backend) is True


def test_a_replay_of_a_remote_model_keeps_the_remote_defaults(tmp_path):
    backend = _replay(tmp_path, {"backend": "openai", "model": "gpt-4o-mini"})
    assert backend.auto_extract_default is True
    assert schema_in_prompt_on(ShellAgent(), backend) is False


def test_a_replay_without_a_source_keeps_its_own_defaults(tmp_path):
    (tmp_path / "c.json").write_text('{"version": 1, "interactions": []}')
    backend = build_backend(Profile("demo", "replay", options={"cassette": str(tmp_path / "c.json")}), env={})
    assert backend.context_tokens == 0 and schema_in_prompt_on(ShellAgent(), backend) is False
