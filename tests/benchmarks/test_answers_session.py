"""How a benchmark session's kernel is set up (without starting one)."""
from __future__ import annotations

from benchmarks.answers import select_questions
from benchmarks.answers_session import RunSettings, _kernel_data_dir, _kernel_env, plan_sessions


def _settings(tmp_path, **kw) -> RunSettings:
    return RunSettings(files_dir=tmp_path / "files", data_dir=tmp_path / "data", cassettes=tmp_path / "tapes",
                       run_id="r1", **kw)


def test_the_kernel_env_names_the_data_dir_cassette_replay_mode_and_a_notebook_of_its_own(tmp_path, monkeypatch):
    monkeypatch.setenv("SHELL_AGENT_LAB_SCRIPT", "/somewhere/script.json")
    monkeypatch.setenv("JPY_SESSION_NAME", "/elsewhere/other.ipynb")
    (plan,) = plan_sessions(select_questions(None, ["sales-01"]))
    settings = _settings(tmp_path, mode="replay", source='{"backend": "local"}')
    env = _kernel_env(settings, plan, settings.data_dir)
    assert env["SHELL_AGENT_LAB_DATA_DIR"] == str(tmp_path / "data")
    assert env["SHELL_AGENT_LAB_CASSETTE"] == str(tmp_path / "tapes" / "sales_orders-1.json")
    assert env["SHELL_AGENT_LAB_REPLAY"] == "replay"
    assert env["SHELL_AGENT_LAB_REPLAY_MATCH"] == "conversation"
    assert env["SHELL_AGENT_LAB_CASSETTE_SOURCE"] == '{"backend": "local"}'
    assert env["JPY_SESSION_NAME"] == str(tmp_path / "files" / "answers-r1-sales_orders-1.ipynb")
    assert "SHELL_AGENT_LAB_SCRIPT" not in env
    assert "SHELL_AGENT_LAB_CASSETTE_SOURCE" not in _kernel_env(_settings(tmp_path), plan, settings.data_dir)


def test_kernels_share_the_data_dir_unless_each_gets_its_own_with_the_models_linked(tmp_path):
    (plan,) = plan_sessions(select_questions(None, ["sales-01"]))
    assert _kernel_data_dir(_settings(tmp_path), plan) == tmp_path / "data"
    own = _kernel_data_dir(_settings(tmp_path, per_kernel_data=True), plan)
    assert own == tmp_path / "data" / "kernels" / "r1" / "sales_orders-1"
    assert (own / "models").is_symlink() and (own / "models").resolve() == (tmp_path / "data" / "models").resolve()
    assert _kernel_data_dir(_settings(tmp_path, per_kernel_data=True), plan) == own     # a second call is fine


def test_earlier_runs_are_forgotten_but_the_model_folder_stays(tmp_path):
    from shell_agent_lab.store import Store

    from benchmarks.answers_session import prune_earlier_runs

    data, files = tmp_path / "data", tmp_path / "files"
    (data / "models").mkdir(parents=True)
    (data / "models" / "model.gguf").write_bytes(b"GGUF")
    (data / "kernels" / "old-run" / "sales_orders-1").mkdir(parents=True)
    with Store.open(data) as store:
        store.create_session(notebook_path=str(files / "answers-old-run-sales_orders-1.ipynb"))
        mine = store.create_session(notebook_path=str(tmp_path / "analysis.ipynb"))
    assert prune_earlier_runs(data, files) == 1
    with Store.open(data) as store:
        assert [s.id for s in store.list_sessions()] == [mine.id]
    assert not (data / "kernels").exists() and (data / "models" / "model.gguf").exists()
    assert prune_earlier_runs(tmp_path / "nothing", files) == 0
