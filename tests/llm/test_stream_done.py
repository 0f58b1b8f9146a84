"""A streamed reply the caller knows to be complete (``ChatOptions.done``) ends there: the stream
is closed at once, the server stops writing, and the reply keeps only what was complete. The
program path uses it to stop reading a program once it has bound its answer."""
from __future__ import annotations

import time

from shell_agent_lab.agent._program_attempt import draft
from shell_agent_lab.answers.program_prompt import answer_bound_at
from shell_agent_lab.llm.openai_backend import OpenAIBackend
from shell_agent_lab.llm.retry import RetryPolicy
from shell_agent_lab.llm.scripted import ScriptedBackend
from shell_agent_lab.llm.types import ChatOptions, Message
from tests.support.fake_model_servers import FakeOpenAIServer, Reply

PROGRAM = "```python\nimport pandas as pd\nn = len(df)\nanswer = {'n': n}"


def _wait_for(condition, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def test_a_reply_done_early_closes_the_stream_and_keeps_what_was_complete():
    with FakeOpenAIServer() as server:
        # after the answer the model would go on writing forever
        server.enqueue(Reply(text=PROGRAM, loop="  # n: a whole number\nprint(answer)\n"))
        backend = OpenAIBackend(base_url=server.url, api_key="k", model="m", timeout=20, cut_repetition=False)
        shown: list[str] = []
        started = time.monotonic()
        response = backend.stream([Message("user", "how many rows?")], on_text=shown.append,
                                  options=ChatOptions(done=answer_bound_at))
        assert time.monotonic() - started < 5
        assert response.text == PROGRAM and response.finish_reason == "stop" and response.extra["done"]
        assert "".join(shown) == PROGRAM                            # nothing past the end was shown
        assert _wait_for(lambda: server.loop_ended is not None)     # the server saw the connection close
        assert server.loops_sent < 50


def test_without_done_the_same_reply_is_read_to_its_end():
    with FakeOpenAIServer() as server:
        server.enqueue(Reply(text=PROGRAM + "  # n: a whole number\n```"))
        backend = OpenAIBackend(base_url=server.url, api_key="k", model="m", timeout=20)
        response = backend.stream([Message("user", "how many rows?")], on_text=lambda piece: None)
        assert response.text.endswith("# n: a whole number\n```")


def test_the_program_drafted_is_the_same_streamed_or_whole():
    """A backend that cannot stop early (a recording, a scripted model) hands back the whole
    reply; the draft is cut at the same place, so the program is the same either way."""
    whole = PROGRAM + "  # n: a whole number\nprint(answer)\n```"
    for streaming in (True, False):
        backend = ScriptedBackend([whole])
        backend.capabilities = type(backend.capabilities)(streaming=streaming)
        program = draft(backend, [Message("user", "how many rows?")], until_answer=True)
        assert program.code == "import pandas as pd\nn = len(df)\nanswer = {'n': n}"
        assert backend.requests[0].streamed is streaming
        assert backend.requests[0].options.done is answer_bound_at


def test_a_program_whose_prints_are_its_answer_is_read_whole():
    """A prose answer is the sentence the program prints: its reply is not cut."""
    whole = PROGRAM + "\nprint(f'There are {n} rows.')\n```"
    backend = ScriptedBackend([whole])
    program = draft(backend, [Message("user", "how many rows?")])
    assert program.code.endswith("print(f'There are {n} rows.')")
    assert backend.requests[0].options.done is None and not backend.requests[0].streamed


def test_a_reply_nobody_was_shown_may_be_asked_again_after_it_broke_off():
    """A stream cut off after some text is not sent again when that text was shown (it would be
    repeated), but a program's reply is never shown as it streams: it is asked again."""
    from shell_agent_lab.llm.types import unseen

    for on_text, retried in ((unseen, True), (lambda piece: None, False)):
        with FakeOpenAIServer() as server:
            server.enqueue(Reply(text="```python\nn = len(df)\n" * 20, cut_after=3))
            server.enqueue(Reply(text=PROGRAM + "\n```"))
            backend = OpenAIBackend(base_url=server.url, api_key="k", model="m", timeout=20,
                                    retry=RetryPolicy(base_delay=0.01, jitter=0))
            try:
                response = backend.stream([Message("user", "how many rows?")], on_text=on_text)
            except Exception as exc:      # noqa: BLE001 - the error is the outcome under test
                assert not retried and not exc.retryable
            else:
                assert retried and response.text == PROGRAM + "\n```"


class _Enough(Exception):
    pass


def test_a_reader_that_stops_early_returns_once_the_worker_has_closed_the_response():
    """The request after a reply read only in part must not reach the server before the
    close does (llama.cpp queued it behind the whole abandoned reply)."""
    import threading

    import pytest

    from shell_agent_lab.llm._pump import pump

    closed_by_worker = threading.Event()

    def produce(emit, closer) -> None:
        closer.set(lambda: None)          # a response is open
        for item in range(1000):
            if closer.closed:
                closed_by_worker.set()
                return
            emit(item)
            time.sleep(0.02)

    def take(item) -> None:
        if item == 3:
            raise _Enough()

    with pytest.raises(_Enough):
        pump(produce, on_item=take, cancel=threading.Event(), timeout=10)
    assert closed_by_worker.is_set()


def test_a_stop_before_any_response_is_open_does_not_wait_for_the_worker():
    import threading

    import pytest

    from shell_agent_lab.llm._pump import pump
    from shell_agent_lab.llm.errors import CancelledError

    stop, release = threading.Event(), threading.Event()

    def produce(emit, closer) -> None:
        release.wait(10)                 # a server still reading the prompt: no headers yet

    threading.Timer(0.1, stop.set).start()
    started = time.monotonic()
    with pytest.raises(CancelledError):
        pump(produce, on_item=lambda item: None, cancel=stop, timeout=10)
    assert time.monotonic() - started < 0.6
    release.set()
