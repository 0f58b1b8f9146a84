from __future__ import annotations

import pytest

from shell_agent_lab.llm.errors import ConfigurationError
from shell_agent_lab.llm.gemini_backend import GeminiBackend
from shell_agent_lab.llm.local import LocalBackend
from shell_agent_lab.llm.openai_backend import OpenAIBackend
from shell_agent_lab.llm.profiles import Profile, defaults_for
from shell_agent_lab.llm.replay import ReplayBackend
from shell_agent_lab.llm.scripted import ScriptedBackend
from shell_agent_lab.llm.selection import resolve_profile, select_backend
from shell_agent_lab.llm.types import Message
from tests.support.fake_model_servers import FakeOpenAIServer, Reply

NOTHING = dict(probe=lambda host, port: False, local_available=lambda: False)


def test_nothing_configured_says_how_to_set_up():
    with pytest.raises(ConfigurationError) as info:
        select_backend(None, env={}, **NOTHING)
    text = str(info.value)
    for needle in ("OPENAI_API_KEY", "GEMINI_API_KEY", "LM Studio (127.0.0.1:1234)", "Ollama (127.0.0.1:11434)",
                   "shell-agent-lab[local]", "ShellAgent.profiles"):
        assert needle in text


def test_auto_order_env_keys_first():
    both = {"OPENAI_API_KEY": "sk-x", "GEMINI_API_KEY": "g"}
    backend = select_backend(None, env=both, **NOTHING)
    assert isinstance(backend, OpenAIBackend) and backend.auto_extract_default is True
    backend = select_backend(None, env={"GOOGLE_API_KEY": "g"}, **NOTHING)
    assert isinstance(backend, GeminiBackend) and backend.context_tokens == 524288
    vertex = resolve_profile(None, env={"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "p"}, **NOTHING)
    assert vertex.backend == "vertex" and vertex.options["project"] == "p"
    with pytest.raises(ConfigurationError, match="GOOGLE_CLOUD_PROJECT"):
        select_backend(None, env={"GOOGLE_GENAI_USE_VERTEXAI": "1", "GEMINI_API_KEY": "g"}, **NOTHING)


def test_auto_order_probes_lm_studio_then_ollama_then_embedded():
    probed = []

    def ollama_only(host, port):
        probed.append(port)
        return port == 11434

    profile = resolve_profile(None, env={}, probe=ollama_only, local_available=lambda: True)
    assert probed == [1234, 11434]
    assert profile.endpoint == "http://127.0.0.1:11434/v1" and profile.is_local
    lm = resolve_profile(None, env={}, probe=lambda h, p: p == 1234, local_available=lambda: True)
    assert lm.endpoint == "http://127.0.0.1:1234/v1"
    embedded = resolve_profile(None, env={}, probe=lambda h, p: False, local_available=lambda: True)
    assert embedded.backend == "local"
    backend = select_backend(None, env={}, probe=lambda h, p: False, local_available=lambda: True)
    assert isinstance(backend, LocalBackend)
    assert backend.auto_extract_default is False and backend.auto_title_default is False
    assert backend.context_tokens == 8192 and backend.n_ctx == 8192


def test_lm_studio_backend_is_local_and_reaches_the_server():
    with FakeOpenAIServer(models=("loaded-model",)) as server:
        server.enqueue(Reply(text="hi from the server"))
        port = server.port
        profiles = {"studio": {"backend": "lmstudio", "endpoint": server.url}}
        backend = select_backend(profiles, "studio", env={})
        assert backend.auto_extract_default is False and backend.context_tokens == 8192
        assert backend.chat([Message("user", "x")]).text == "hi from the server"
        assert backend.model == "loaded-model" and port


def test_named_profiles_and_overrides():
    class Settings:
        profiles = {"work": {"backend": "openai", "model": "gpt-4o", "api_key_env": "WORK_KEY",
                             "auto_extract": False, "max_context_tokens": 32000, "timeout": 30},
                    "test": {"backend": "scripted", "options": {"responses": ["canned"]}}}
        profile = "work"
        model = None

    backend = select_backend(Settings(), env={"WORK_KEY": "sk-work"})
    assert isinstance(backend, OpenAIBackend)
    assert backend.model == "gpt-4o" and backend.timeout == 30
    assert backend.auto_extract_default is False and backend.auto_title_default is True
    assert backend.context_tokens == 32000 and backend.profile.name == "work"
    settings = Settings()
    settings.model = "gpt-4.1"
    assert select_backend(settings, env={"WORK_KEY": "k"}).model == "gpt-4.1"
    scripted = select_backend(Settings(), "test", env={})
    assert isinstance(scripted, ScriptedBackend)
    assert scripted.chat([Message("user", "x")]).text == "canned"
    with pytest.raises(ConfigurationError, match=r"unknown profile 'nope' \(known: test, work\)"):
        select_backend(Settings(), "nope", env={})
    with pytest.raises(ConfigurationError, match="Set WORK_KEY"):
        select_backend(Settings(), "work", env={})


def test_bad_profiles_are_refused_clearly():
    with pytest.raises(ConfigurationError, match="unknown backend 'claude'.*openai, gemini"):
        Profile.from_dict("x", {"backend": "claude"})
    with pytest.raises(ConfigurationError, match="auto_extract must be true or false"):
        _ = Profile.from_dict("x", {"backend": "openai", "auto_extract": "yes"}).defaults
    with pytest.raises(ConfigurationError, match="must be a number"):
        _ = Profile.from_dict("x", {"backend": "openai", "timeout": "soon"}).defaults
    with pytest.raises(ConfigurationError, match="needs options.cassette"):
        select_backend({"r": {"backend": "replay"}}, "r", env={})


def test_replay_profile_records_from_a_source_profile(tmp_path):
    cassette = tmp_path / "demo.json"
    profiles = {"src": {"backend": "scripted", "options": {"responses": ["recorded answer"]}},
                "demo": {"backend": "replay", "options": {"cassette": str(cassette), "source": "src",
                                                          "mode": "record"}}}
    recorder = select_backend(profiles, "demo", env={})
    assert isinstance(recorder, ReplayBackend)
    assert recorder.chat([Message("user", "q")]).text == "recorded answer"
    profiles["demo"]["options"]["mode"] = "replay"
    player = select_backend(profiles, "demo", env={})
    assert player.chat([Message("user", "q")]).text == "recorded answer"


def test_defaults_table():
    assert defaults_for("local").max_context_tokens == 8192
    assert defaults_for("openai", "http://localhost:8080/v1").auto_extract is False
    assert defaults_for("openai", "https://example.invalid/v1").auto_extract is True
    assert defaults_for("vertex").max_tool_result_tokens == 32768
