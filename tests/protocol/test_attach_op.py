"""objects_attach: the panel's "Attach file…" sends the bytes; the next chat message carries them."""
from __future__ import annotations

import base64
from types import SimpleNamespace

import pytest

from shell_agent_lab.agent import build_agent
from shell_agent_lab.config import ShellAgent
from shell_agent_lab.llm.scripted import ScriptedBackend, reply
from shell_agent_lab.llm.types import Capabilities
from shell_agent_lab.notebook import comm
from shell_agent_lab.notebook.runtime import Runtime

from .test_real_agent import _Comm

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(24))


@pytest.fixture
def wired(store):
    backend = ScriptedBackend()
    shell = SimpleNamespace(user_ns={}, config=None)

    def build(*, shell, base, approver):
        return build_agent(ShellAgent(auto_extract=False, auto_title=False), store=store, backend=backend,
                           namespace=lambda: {}, approver=approver, base_dir=base)

    runtime = Runtime(shell, build=build, environ={"JPY_SESSION_NAME": "/work/nb/attach.ipynb"})
    c = _Comm()
    comm._Endpoint(c, comm.Dispatcher(lambda: runtime))
    c.request("hello", {"protocol": 1, "session_key": "attach-key"})
    yield SimpleNamespace(runtime=runtime, backend=backend, comm=c, store=store)
    runtime.close()


def _attach(wired, name: str, data: bytes) -> dict:
    return wired.comm.request("objects_attach", {"filename": name, "data_base64": base64.b64encode(data).decode()})


def test_an_attached_image_and_document_go_with_the_next_message(wired):
    image = _attach(wired, "C:\\Users\\me\\chart.png", PNG)["result"]
    assert image["object"]["type"] == "image" and image["object"]["name"] == "chart.png"
    doc = _attach(wired, "notes.md", b"# Notes\nstock ran out\n")["result"]["object"]
    assert (doc["type"], doc["mime_type"]) == ("markdown", "text/markdown")
    wired.backend.enqueue(reply("A chart and notes."))
    wired.comm.request("send", {"message": "what are these?"})
    wired.comm.wait_event("turn_finished")
    user = wired.backend.last_request.messages[-1]
    assert user.images == [("image/png", PNG)]
    assert f"Image (object ID: {image['object']['id']}):" in user.content
    assert f"Document (object ID: {doc['id']}, name: notes.md," in user.content


def test_a_command_does_not_consume_the_attachment(wired):
    _attach(wired, "notes.md", b"hello\n")
    r = wired.comm.request("send", {"message": "/help"})
    assert r["result"]["phase"] == "command"
    wired.backend.enqueue(reply("ok"))
    wired.comm.request("send", {"message": "read it"})
    wired.comm.wait_event("turn_finished")
    assert "Document (object ID:" in wired.backend.last_request.messages[-1].content


def test_refusals_are_one_line_bad_requests(wired):
    for name, data, expected in [("fake.png", b"text", "not a PNG, JPEG, GIF or WebP image"),
                                 ("old.txt", "é".encode("latin-1"), "not UTF-8 text")]:
        r = _attach(wired, name, data)
        assert r["ok"] is False and r["error"]["code"] == "bad_request" and expected in r["error"]["message"]
    r = wired.comm.request("objects_attach", {"filename": "x.md", "data_base64": "%%%"})
    assert r["error"]["code"] == "bad_request"
    wired.backend.capabilities = Capabilities(streaming=True, native_tools=True, images=False)
    r = _attach(wired, "chart.png", PNG)
    assert r["error"]["code"] == "bad_request" and "cannot read images (chart.png)" in r["error"]["message"]
    sid = wired.runtime.agent.session.id
    assert wired.store.objects.list(sid) == []
