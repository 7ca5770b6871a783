"""Attached files sent to a real llama.cpp server (llama-server on Gemma 3 270M) on both of its wires.

A text file is read by the server: the prompt it counts grows by the file's tokens, and the request carries the
file fenced under its name. An image is what this server cannot take — it runs without a vision projector
(`--mmproj`) — and says so; the run fails with that one line, not a traceback, and the dialog keeps the question
with its image for a model that can.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engine.attachments.files import make_pdf, png
from tests.interop.llama_server import LlamaServer
from tests.interop.test_llama_engine import WIRES, failures, llama_provider, observe_requests, run
from visindigo.engine import Capability, Center, Message, ModelInfo, Role
from visindigo.engine.attachments import read_attachment

pytestmark = pytest.mark.llama

SHORT = {"max_tokens": 4, "temperature": 0.0, "seed": 7}


def prompt_tokens(message: Message) -> int:
    usage = message.meta["usage"]
    return int(usage["input_tokens"]) + int(usage.get("cached_tokens") or 0)


@WIRES
async def test_a_text_file_reaches_the_server_and_is_counted(
    llama_server: LlamaServer, wire: str, tmp_path: Path
) -> None:
    (tmp_path / "build.log").write_text("".join(f"step {n}: compiling module_{n}.c ... ok\n" for n in range(15)))
    attachment = read_attachment("build.log", start_folder=tmp_path)
    center = Center()
    provider = llama_provider(llama_server, wire)
    center.add_provider(provider)
    sent = observe_requests(provider)

    plain = center.create_dialog()
    plain.parameters = dict(SHORT)
    plain.append_message(Role.USER, "Why does it fail?")
    assert failures(await run(plain)) == []
    with_file = center.create_dialog()
    with_file.parameters = dict(SHORT)
    with_file.append_message(Message(Role.USER, "Why does it fail?", attachments=[attachment]))
    assert failures(await run(with_file)) == []

    body = str(sent[-1])
    assert "build.log" in body and "step 14: compiling module_14.c ... ok" in body
    # 15 lines of ~14 tokens (the slot holds 512): the server read the file, it was not dropped on the way
    assert prompt_tokens(with_file.last_message) - prompt_tokens(plain.last_message) > 150
    await center.aclose()


@WIRES
async def test_an_image_to_a_server_without_vision_fails_in_one_line(
    llama_server: LlamaServer, wire: str, tmp_path: Path
) -> None:
    (tmp_path / "shot.png").write_bytes(png(64, 64))
    center = Center()
    provider = llama_provider(llama_server, wire)
    provider.models = [ModelInfo(llama_server.model_id, capabilities=Capability.TEXT | Capability.IMAGE)]
    center.add_provider(provider)
    sent = observe_requests(provider)
    dialog = center.create_dialog()
    dialog.parameters = dict(SHORT)
    image = read_attachment("shot.png", start_folder=tmp_path)
    dialog.append_message(Message(Role.USER, "What is this?", attachments=[image]))
    [line] = failures(await run(dialog))
    assert "image" in line.lower() and "\n" not in line and "Traceback" not in line
    assert "data:image/png;base64," in str(sent[-1]) or "'type': 'image'" in str(sent[-1])
    assert dialog.message_at(0).attachments == [image]  # the question keeps its picture
    await center.aclose()


@WIRES
async def test_a_pdf_reaches_the_server_as_its_text_on_both_wires(
    llama_server: LlamaServer, wire: str, tmp_path: Path
) -> None:
    """llama-server takes a Messages `document` block without a word and drops it (19 prompt tokens for the
    question with a PDF, 62 with the same PDF as text): to it a PDF goes as its text with page markers on both
    wires, also for a model marked `image` (to which Anthropic itself gets the document)."""
    (tmp_path / "report.pdf").write_bytes(make_pdf(["Revenue grew nine percent", "Costs fell by a third"]))
    attachment = read_attachment("report.pdf", start_folder=tmp_path)
    center = Center()
    provider = llama_provider(llama_server, wire)
    provider.models = [ModelInfo(llama_server.model_id, capabilities=Capability.TEXT | Capability.IMAGE)]
    center.add_provider(provider)
    sent = observe_requests(provider)

    plain = center.create_dialog()
    plain.parameters = dict(SHORT)
    plain.append_message(Role.USER, "What does it say?")
    assert failures(await run(plain)) == []
    with_pdf = center.create_dialog()
    with_pdf.parameters = dict(SHORT)
    with_pdf.append_message(Message(Role.USER, "What does it say?", attachments=[attachment]))
    assert failures(await run(with_pdf)) == []

    body = str(sent[-1])
    assert "--- page 2 of 2 ---" in body and "Costs fell by a third" in body and "'document'" not in body
    # the pages' text was read by the server: the prompt grew by it (a dropped document adds ~5 tokens)
    assert prompt_tokens(with_pdf.last_message) - prompt_tokens(plain.last_message) > 25
    await center.aclose()
