"""The panel's "Attach file…": the picked file's bytes reach the kernel and go with the next message."""
from __future__ import annotations

from playwright.sync_api import expect

from ._lab import SCRIPTED_SETUP, expect_state, open_notebook, open_panel, run_and_expect, write_notebook

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(24))


def test_attach_a_file_from_the_panel_and_ask_about_it(page, lab_server):
    write_notebook(lab_server["root"], "attach.ipynb", [
        SCRIPTED_SETUP,
        'backend.enqueue(reply("A chart and your notes."))\nprint("QUEUED")',
        'm = backend.last_request.messages[-1]\n'
        'print("IMAGES", [mime for mime, _ in m.images], "ANCHORS", m.content.count("(object ID:"))',
    ])
    open_notebook(page, lab_server, "attach.ipynb")
    run_and_expect(page, 0, "SETUP-DONE")
    run_and_expect(page, 1, "QUEUED")
    open_panel(page)
    expect_state(page, "ready")
    page.set_input_files("#sal-chat-attach-file", files=[
        {"name": "chart.png", "mimeType": "image/png", "buffer": PNG},
        {"name": "notes.md", "mimeType": "text/markdown", "buffer": b"# Notes\nstock ran out\n"},
    ])
    chips = page.locator("#sal-chat-attachments .sal-chip")
    expect(chips).to_have_count(2)
    expect(chips.first).to_have_attribute("data-type", "image")
    # a file that is neither text nor a known image is refused with one line, nothing listed
    page.set_input_files("#sal-chat-attach-file", files=[
        {"name": "fake.png", "mimeType": "image/png", "buffer": b"not an image"}])
    expect(page.locator("#sal-notice")).to_contain_text("not a PNG, JPEG, GIF or WebP image")
    expect(chips).to_have_count(2)
    page.fill("#sal-chat-input", "what are these")
    page.press("#sal-chat-input", "Enter")
    expect(page.locator("#sal-chat-log .sal-msg-assistant").last).to_have_text("A chart and your notes.")
    expect(page.locator("#sal-chat-attachments")).to_be_hidden()
    run_and_expect(page, 2, "IMAGES ['image/png'] ANCHORS 2")
