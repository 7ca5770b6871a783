"""What a tool result and a prompt become: readable objects for the model, messages for the dialog."""

from __future__ import annotations

import base64

from mcp_types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    GetPromptResult,
    ImageContent,
    PromptMessage,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from visindigo.engine import Role
from visindigo.engine.mcp.content import blob_text, call_result_to_dict, prompt_messages


def text(value: str) -> TextContent:
    return TextContent(type="text", text=value)


def test_text_blocks_are_joined() -> None:
    result = CallToolResult(content=[text("line one"), text("line two")])
    assert call_result_to_dict(result) == {"content": "line one\nline two"}


def test_structured_content_wins_over_its_text_rendering() -> None:
    result = CallToolResult(content=[text('{"sum": 3}')], structured_content={"sum": 3})
    assert call_result_to_dict(result) == {"sum": 3}


def test_non_object_structured_content_is_wrapped() -> None:
    result = CallToolResult(content=[text("[1, 2]")], structured_content=[1, 2])
    assert call_result_to_dict(result) == {"result": [1, 2]}


def test_is_error_result_is_marked_and_keeps_the_message() -> None:
    result = CallToolResult(content=[text("Invalid timezone: Mars")], is_error=True)
    assert call_result_to_dict(result) == {"isError": True, "error": "Invalid timezone: Mars"}
    assert call_result_to_dict(CallToolResult(content=[], is_error=True))["error"]


def test_images_audio_and_resources_are_summarised_not_dropped() -> None:
    result = CallToolResult(
        content=[
            text("caption"),
            ImageContent(type="image", data="A" * 400, mime_type="image/png"),
            AudioContent(type="audio", data="B" * 40, mime_type="audio/wav"),
            ResourceLink(type="resource_link", uri="file:///r.txt", name="r.txt", mime_type="text/plain"),
            EmbeddedResource(type="resource", resource=TextResourceContents(uri="file:///a.md", text="# body")),
            EmbeddedResource(
                type="resource", resource=BlobResourceContents(uri="file:///b.bin", blob="C" * 8, mime_type="x/y")
            ),
        ]
    )
    lines = call_result_to_dict(result)["content"].split("\n")
    assert lines[0] == "caption"
    assert lines[1] == "[image: image/png, about 300 bytes, not shown]"
    assert lines[2] == "[audio: audio/wav, about 30 bytes, not shown]"
    assert lines[3] == "[resource link: r.txt <file:///r.txt> (text/plain)]"
    assert lines[4:6] == ["[resource file:///a.md]", "# body"]
    assert lines[6] == "[resource file:///b.bin (x/y), about 6 bytes, not shown]"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_a_text_blob_is_decoded_with_bad_bytes_replaced_and_escapes_removed() -> None:
    """Issue 25 §9: a blob of a text type is text for the model, not "[binary, not shown]"."""
    hostile = b"line one\n\x1b]0;owned\x07line \xff two\x1b[2J" + "\u202e".encode()
    result = CallToolResult(content=[
        EmbeddedResource(type="resource", resource=BlobResourceContents(
            uri="file:///notes.txt", blob=b64(hostile), mime_type="text/plain")),
    ])  # fmt: skip
    shown = call_result_to_dict(result)["content"]
    assert shown == "[resource file:///notes.txt (text/plain)]\nline one\nline \ufffd two"
    assert blob_text("application/json", b64(b'{"a": 1}')) == '{"a": 1}'
    assert blob_text("application/vnd.api+json", b64(b"[]")) == "[]"
    assert blob_text("text/plain; charset=latin-1", b64("café".encode("latin-1"))) == "café"
    assert blob_text("text/plain; charset=no-such-codec", b64("café".encode())) == "café"
    assert blob_text("application/octet-stream", b64(b"text")) is None
    assert blob_text("text/plain", "not base64!") is None


def test_structured_result_with_an_image_also_carries_the_summary() -> None:
    result = CallToolResult(
        content=[ImageContent(type="image", data="AAAA", mime_type="image/png")], structured_content={"ok": True}
    )
    assert call_result_to_dict(result) == {"ok": True, "content": "[image: image/png, about 3 bytes, not shown]"}


def test_prompt_messages_are_named_and_keep_assistant_turns() -> None:
    result = GetPromptResult(
        messages=[
            PromptMessage(role="user", content=text("Review x=1")),
            PromptMessage(role="user", content=ImageContent(type="image", data="AAAA", mime_type="image/png")),
            PromptMessage(role="assistant", content=text("Focus?")),
            PromptMessage(role="user", content=text("Correctness.")),
        ]
    )
    messages = prompt_messages(result, "code/review")
    assert [(m.role, m.content, m.name) for m in messages] == [
        (Role.PROMPT, "Review x=1", "code/review"),
        (Role.ASSISTANT, "Focus?", "code/review"),
        (Role.PROMPT, "Correctness.", "code/review"),
    ]
    assert [(i.mime_type, i.data) for i in messages[0].images] == [("image/png", "AAAA")]


def test_a_prompt_that_starts_with_an_image_gets_its_own_message() -> None:
    result = GetPromptResult(
        messages=[PromptMessage(role="user", content=ImageContent(type="image", data="QQ==", mime_type="image/gif"))]
    )
    [message] = prompt_messages(result, "s/p")
    assert message.role is Role.PROMPT and message.images[0].mime_type == "image/gif"
