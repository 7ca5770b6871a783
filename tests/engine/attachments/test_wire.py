"""Request bodies of each attachment kind, as the loopback server receives them, in both wire formats.

Real files read with `read_attachment` (images made with Pillow, a PDF with two pages of text), a real run of the
dialog, and the JSON body the server got: text files fenced in the text, images as OpenAI data URLs and Anthropic
base64 blocks scaled to each provider's limits, PDFs as Anthropic documents or as their text.
"""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.engine.attachments.files import make_pdf, photo, png
from tests.engine.providers.test_both_wire_formats import ALL, KEY, Wire, failed, run, setup
from tests.llm_server import LLMServer
from visindigo.engine import Capability, Center, Message, ModelInfo, Provider, Role, RunFinished
from visindigo.engine.attachments import (
    ANTHROPIC_IMAGE_LIMITS,
    OPENAI_IMAGE_LIMITS,
    Attachment,
    read_attachment,
    send_problem,
)
from visindigo.engine.compare.comparison import Comparison, ModelChoice


@pytest.fixture(params=["openai", "anthropic"])
def wire(request: pytest.FixtureRequest) -> Wire:
    return Wire(request.param)


def user_content(server: LLMServer, wire: Wire, number: int = 0) -> Any:
    """The content of the last user turn of request `number`."""
    turns = [m for m in wire.sent_messages(server, number) if m["role"] == "user"]
    return turns[-1]["content"]


def texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [part["text"] for part in content if part["type"] == "text"]


def sent_images(content: Any, wire: Wire) -> list[tuple[str, bytes]]:
    """(MIME type, bytes) of every image in a user turn."""
    found = []
    for part in content if isinstance(content, list) else []:
        if wire.kind == "openai" and part["type"] == "image_url":
            head, data = part["image_url"]["url"].split(",", 1)
            assert head.startswith("data:") and head.endswith(";base64")
            found.append((head[5:-7], base64.b64decode(data)))
        elif wire.kind == "anthropic" and part["type"] == "image":
            assert part["source"]["type"] == "base64"
            found.append((part["source"]["media_type"], base64.b64decode(part["source"]["data"])))
    return found


def ask(dialog_center: tuple[Center, Any], text: str, *attachments: Attachment) -> None:
    _, dialog = dialog_center
    dialog.append_message(Message(Role.USER, text, attachments=list(attachments)))


# --- text files ---------------------------------------------------------------------------------------------


async def test_a_text_file_goes_fenced_under_its_name(llm_server: LLMServer, wire: Wire, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    source = "def quote():\n    return '```'\n"
    (tmp_path / "src" / "tool.py").write_text(source)
    llm_server.queue(wire.answer(["it returns a fence"]))
    center, dialog = setup(llm_server, wire)
    attachment = read_attachment("src/tool.py", start_folder=tmp_path)
    dialog.append_message(Message(Role.USER, "what does it return?", attachments=[attachment]))
    assert isinstance((await run(dialog))[-1], RunFinished)
    content = user_content(llm_server, wire)
    expected = f"File: src/tool.py\n````python\n{source.rstrip()}\n````\n\nwhat does it return?"
    assert texts(content) == [expected]  # the fence is longer than the ``` inside the file
    if wire.kind == "openai":
        assert content == expected  # a plain string: servers that take only strings still work
    await center.aclose()


async def test_the_first_part_of_a_long_file_says_so(llm_server: LLMServer, wire: Wire, tmp_path: Path) -> None:
    (tmp_path / "build.log").write_text("".join(f"step {n}\n" for n in range(5000)))
    from visindigo.engine.attachments import AttachmentTooLarge

    with pytest.raises(AttachmentTooLarge) as caught:
        read_attachment("build.log", start_folder=tmp_path, text_limit=100)
    llm_server.queue(wire.answer(["ok"]))
    center, dialog = setup(llm_server, wire)
    dialog.append_message(Message(Role.USER, "why?", attachments=[caught.value.first_part()]))
    await run(dialog)
    (text,) = texts(user_content(llm_server, wire))
    assert text.startswith("File: build.log (only its first 94 B of 48.9 kB; the rest was not attached)\n```text\n")
    assert "step 12\n```" in text and "step 13" not in text
    await center.aclose()


# --- images -------------------------------------------------------------------------------------------------


async def test_a_photo_is_scaled_to_each_providers_limits(llm_server: LLMServer, wire: Wire, tmp_path: Path) -> None:
    original = photo(4000, 3000)
    (tmp_path / "holiday.jpg").write_bytes(original)
    attachment = read_attachment("holiday.jpg", start_folder=tmp_path)
    llm_server.queue(wire.answer(["a beach"]))
    center, dialog = setup(llm_server, wire)
    dialog.append_message(Message(Role.USER, "where is this?", attachments=[attachment]))
    await run(dialog)
    content = user_content(llm_server, wire)
    [(mime, data)] = sent_images(content, wire)
    limits = OPENAI_IMAGE_LIMITS if wire.kind == "openai" else ANTHROPIC_IMAGE_LIMITS
    with Image.open(io.BytesIO(data)) as sent:
        assert (sent.format, max(sent.size)) == ("JPEG", limits.long_side)
        assert sent.size[0] * 3 == sent.size[1] * 4  # the aspect kept
    assert mime == "image/jpeg" and len(data) <= limits.max_bytes and len(data) < len(original) // 10
    assert "File: holiday.jpg" in texts(content) and "where is this?" in texts(content)
    # the original is what the dialog keeps
    assert dialog.messages[0].attachments[0].data == original
    await center.aclose()


async def test_a_small_image_goes_as_it_is(llm_server: LLMServer, wire: Wire, tmp_path: Path) -> None:
    small = png(320, 200)
    (tmp_path / "icon.png").write_bytes(small)
    llm_server.queue(wire.answer(["blue"]))
    center, dialog = setup(llm_server, wire)
    dialog.append_message(
        Message(Role.USER, "colour?", attachments=[read_attachment("icon.png", start_folder=tmp_path)])
    )
    await run(dialog)
    assert sent_images(user_content(llm_server, wire), wire) == [("image/png", small)]
    await center.aclose()


async def test_images_are_refused_for_a_model_without_images_naming_one_that_takes_them(
    llm_server: LLMServer, wire: Wire, tmp_path: Path
) -> None:
    (tmp_path / "shot.png").write_bytes(png(100, 100))
    shot = read_attachment("shot.png", start_folder=tmp_path)
    center = Center()
    center.add_provider(
        Provider("local", kind=wire.kind, name="Local", base_url=llm_server.openai_url, api_key=KEY,
                 models=[ModelInfo("text-only", capabilities=Capability.TEXT)])
    )  # fmt: skip
    center.add_provider(
        Provider("cloud", kind=wire.kind, name="Cloud", base_url=llm_server.openai_url, api_key=KEY,
                 models=[ModelInfo("vision-1", name="Vision One", capabilities=ALL)])
    )  # fmt: skip
    dialog = center.create_dialog()
    expected = (
        "'text-only' takes no images: pick another model that does, such as 'Vision One' of Cloud, or remove the "
        "images from the question"
    )
    assert send_problem(center, dialog, [shot]) == expected  # the composer asks before sending
    dialog.append_message(Message(Role.USER, "what is this?", attachments=[shot]))
    assert failed(await run(dialog)) == expected
    assert llm_server.requests == []
    await center.aclose()


async def test_an_earlier_image_is_named_to_a_text_model(llm_server: LLMServer, wire: Wire, tmp_path: Path) -> None:
    (tmp_path / "chart.png").write_bytes(png(50, 50))
    llm_server.queue(wire.answer(["fine"]))
    models = [ModelInfo("text-only", capabilities=Capability.TEXT)]
    center, dialog = setup(llm_server, wire, models=models)
    dialog.append_message(Message(Role.USER, "look", attachments=[read_attachment("chart.png", start_folder=tmp_path)]))
    dialog.append_message(Role.ASSISTANT, "a chart (answered by a model that sees)")
    dialog.append_message(Role.USER, "and in words?")
    assert isinstance((await run(dialog))[-1], RunFinished)
    first = next(m for m in wire.sent_messages(llm_server, 0) if m["role"] == "user")["content"]
    assert texts(first) == ["look\n\n[1 image (chart.png) left out: this model does not accept images]"]
    assert "iVBOR" not in json.dumps(llm_server.requests[0].json)
    await center.aclose()


async def test_an_image_no_scaling_fits_is_refused_before_sending(
    llm_server: LLMServer, wire: Wire, tmp_path: Path
) -> None:
    (tmp_path / "noise.png").write_bytes(png(300, 300, noise=True))
    attachment = read_attachment("noise.png", start_folder=tmp_path)
    center = Center()
    center.add_provider(
        Provider("p", kind=wire.kind, name="Tiny", base_url=llm_server.openai_url, api_key=KEY,
                 models=[ModelInfo("m", capabilities=ALL)], settings={"image_long_side": 64, "image_max_bytes": 200})
    )  # fmt: skip
    dialog = center.create_dialog()
    problem = send_problem(center, dialog, [attachment])
    assert problem is not None and problem.startswith("'noise.png' is too large to send even scaled down to 64×64")
    dialog.append_message(Message(Role.USER, "?", attachments=[attachment]))
    assert failed(await run(dialog)) == problem and llm_server.requests == []
    await center.aclose()


# --- PDFs ---------------------------------------------------------------------------------------------------


async def test_a_pdf_goes_as_a_document_to_anthropic_and_as_text_to_openai(
    llm_server: LLMServer, wire: Wire, tmp_path: Path
) -> None:
    document = make_pdf(["Revenue grew nine percent", "Costs fell"])
    (tmp_path / "report.pdf").write_bytes(document)
    llm_server.queue(wire.answer(["growth"]))
    center, dialog = setup(llm_server, wire)
    dialog.append_message(
        Message(Role.USER, "summary?", attachments=[read_attachment("report.pdf", start_folder=tmp_path)])
    )
    await run(dialog)
    content = user_content(llm_server, wire)
    if wire.kind == "anthropic":
        blocks = [b for b in content if b["type"] == "document"]
        assert [b["source"] for b in blocks] == [
            {"type": "base64", "media_type": "application/pdf", "data": base64.b64encode(document).decode()}
        ]
        assert texts(content) == ["File: report.pdf", "summary?"]
    else:
        assert content == (
            "File: report.pdf (PDF, 2 pages, its text as extracted)\n```text\n"
            "--- page 1 of 2 ---\nRevenue grew nine percent\n\n--- page 2 of 2 ---\nCosts fell\n```\n\nsummary?"
        )
    await center.aclose()


@pytest.mark.parametrize(
    ("settings", "as_text"),
    [
        ({"pdf_as_text": True}, True),
        ({"server": "llama.cpp"}, True),  # llama-server drops documents (tests/interop/test_llama_attachments.py)
        ({"server": "llama.cpp", "pdf_as_text": False}, False),  # the setting, when set, decides
        ({}, False),
    ],
    ids=["setting", "llama.cpp", "llama.cpp-told-otherwise", "default"],
)
async def test_a_pdf_goes_as_text_where_documents_are_off(
    llm_server: LLMServer, tmp_path: Path, settings: dict[str, Any], as_text: bool
) -> None:
    (tmp_path / "a.pdf").write_bytes(make_pdf(["only page"]))
    llm_server.queue(Wire("anthropic").answer(["ok"]))
    center = Center()
    center.add_provider(
        Provider("p", kind="anthropic", base_url=llm_server.openai_url, api_key=KEY,
                 models=[ModelInfo("m", capabilities=ALL)], settings=settings)
    )  # fmt: skip
    dialog = center.create_dialog()
    dialog.append_message(Message(Role.USER, "?", attachments=[read_attachment("a.pdf", start_folder=tmp_path)]))
    await run(dialog)
    content = user_content(llm_server, Wire("anthropic"))
    if as_text:
        assert [b["type"] for b in content] == ["text"]
        assert "--- page 1 of 1 ---\nonly page" in content[0]["text"]
    else:
        assert [b["type"] for b in content] == ["text", "document", "text"]
    await center.aclose()


# --- the question's attachments are reused --------------------------------------------------------------------


async def test_regenerate_edit_and_compare_reuse_the_questions_attachments(
    llm_server: LLMServer, wire: Wire, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("alpha beta\n")
    (tmp_path / "dot.png").write_bytes(png(10, 10))
    files = [read_attachment(name, start_folder=tmp_path) for name in ("notes.txt", "dot.png")]
    llm_server.queue(*(wire.answer([f"answer {n}"]) for n in range(5)))
    center, dialog = setup(
        llm_server, wire, models=[ModelInfo("m1", capabilities=ALL), ModelInfo("m2", capabilities=ALL)]
    )
    dialog.append_message(Message(Role.USER, "read these", attachments=files))
    await run(dialog)

    again = center.regenerate(dialog)
    await run(again)
    edited = center.branch_at(dialog, 0)
    edited.append_message(dialog.message_at(0).edited("read these, slowly"))
    await run(edited)
    comparison = Comparison.ask(center, center.create_dialog(), [ModelChoice("p", "m1"), ModelChoice("p", "m2")],
                                Message(Role.USER, "compare", attachments=files))  # fmt: skip
    [_ async for _ in comparison.run()]

    assert len(llm_server.requests) == 5
    for number in range(5):
        content = user_content(llm_server, wire, number)
        assert any(t.startswith("File: notes.txt\n```text\nalpha beta\n```") for t in texts(content)), number
        assert sent_images(content, wire) == [("image/png", files[1].data)], number
    assert any(t.endswith("\n\nread these, slowly") for t in texts(user_content(llm_server, wire, 2)))
    await center.aclose()
