"""MCP prompts as templates: a fake source for the edge cases, and the real mcp-server-fetch `fetch` prompt."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.local_page import serve_page
from tests.net_guard import fetch_server_env
from visindigo.engine import Center, MCPServer, Message, Role
from visindigo.engine.mcp import MCPManager, MCPPromptInfo, MCPServerError, PromptArgument
from visindigo.engine.templates import TemplateField
from visindigo.engine.templates.library import TemplateLibrary
from visindigo.engine.templates.mcp import MCPPromptSource, MCPPromptTemplate, MissingArguments, join_prompt_messages


class FakeSource:
    """Implements the two calls of `MCPPromptSource` and records what it was asked."""

    def __init__(self, replies: list[Message] | None = None) -> None:
        self.calls: list[tuple[str, str, dict[str, str]]] = []
        self.replies = replies

    async def list_prompts(self, servers: list[MCPServer]) -> list[MCPPromptInfo]:
        infos = []
        for server in servers:
            infos.append(
                MCPPromptInfo(
                    server.name,
                    "review",
                    "Review code",
                    (PromptArgument("code", "The code", True), PromptArgument("focus", "What to look at")),
                    title="Code review",
                )
            )
        infos.append(MCPPromptInfo("not-asked-for", "x"))
        return infos

    async def get_prompt(self, server: MCPServer, prompt_name: str, arguments: dict[str, str]) -> list[Message]:
        self.calls.append((server.name, prompt_name, dict(arguments)))
        if self.replies is not None:
            return self.replies
        label = f"{server.name}/{prompt_name}"
        return [Message(Role.PROMPT, f"Please review: {arguments['code']}", name=label)]


def test_the_manager_satisfies_the_protocol() -> None:
    assert isinstance(MCPManager(), MCPPromptSource)
    assert isinstance(FakeSource(), MCPPromptSource)


async def test_prompts_become_entries_with_string_fields(tmp_path: Path) -> None:
    source = FakeSource()
    library = TemplateLibrary(tmp_path, mcp=source)
    servers = [MCPServer("code", command="x"), MCPServer("off", command="y", enabled=False)]
    [entry] = await library.mcp_entries(servers)
    assert (entry.name, entry.key, entry.source, entry.editable) == ("code/review", "mcp:code/review", "mcp", False)
    assert entry.description == "Code review — Review code"
    assert entry.tags == ("mcp", "code")
    assert entry.fields() == [
        TemplateField("code", "text", description="The code", required=True),
        TemplateField("focus", "text", description="What to look at"),
    ]


async def test_render_checks_required_sends_only_filled_arguments_and_names_the_message(tmp_path: Path) -> None:
    source = FakeSource()
    [entry] = await TemplateLibrary(tmp_path, mcp=source).mcp_entries([MCPServer("code", command="x")])
    template = entry.template
    assert isinstance(template, MCPPromptTemplate)
    with pytest.raises(MissingArguments, match="required: code"):
        await template.render({"code": "  ", "focus": "x"})
    assert source.calls == []
    messages = await template.render({"code": "x = 1", "focus": ""})
    assert source.calls == [("code", "review", {"code": "x = 1"})]
    assert [(m.role, m.name, m.content) for m in messages] == [(Role.PROMPT, "code/review", "Please review: x = 1")]


async def test_the_centers_tool_source_is_used_when_no_source_is_given(tmp_path: Path) -> None:
    center = Center()
    center.tool_source = FakeSource()  # type: ignore[assignment]
    entries = await TemplateLibrary(tmp_path).mcp_entries([MCPServer("code", command="x")], center=center)
    assert [e.name for e in entries] == ["code/review"]
    assert await TemplateLibrary(tmp_path).mcp_entries([MCPServer("code", command="x")]) == []


def test_consecutive_prompt_messages_are_joined_and_assistant_turns_kept() -> None:
    messages = [
        Message(Role.PROMPT, "one", name="s/p"),
        Message(Role.PROMPT, "two", name="s/p"),
        Message(Role.ASSISTANT, "example answer", name="s/p"),
        Message(Role.PROMPT, "three", name="s/p"),
    ]
    joined = join_prompt_messages(messages, "s/p")
    assert [(m.role, m.content) for m in joined] == [
        (Role.PROMPT, "one\n\ntwo"),
        (Role.ASSISTANT, "example answer"),
        (Role.PROMPT, "three"),
    ]
    assert messages[0].content == "one"
    assert [(m.role, m.content, m.name) for m in join_prompt_messages([], "s/p")] == [(Role.PROMPT, "", "s/p")]


PAGE = b"""<!doctype html><html><head><title>Template page</title></head>
<body><article><h1>Template page</h1><p>The password of the day is <b>marmalade</b>.</p></article></body></html>"""


@pytest.fixture
def page_url() -> Iterator[str]:
    with serve_page(PAGE, "/page.html") as url:
        yield url


@pytest.fixture
async def manager(tmp_path: Path) -> AsyncIterator[MCPManager]:
    mcp_manager = MCPManager(tmp_path / "logs", startup_timeout=20.0)
    try:
        yield mcp_manager
    finally:
        await mcp_manager.aclose()


FETCH = MCPServer(
    "fetch",
    command=sys.executable,
    args=("-m", "mcp_server_fetch", "--ignore-robots-txt", "--allow-private-ips"),
    timeout=30.0,
    env=fetch_server_env(),
)


async def test_the_real_fetch_prompt_through_the_library(tmp_path: Path, manager: MCPManager, page_url: str) -> None:
    library = TemplateLibrary(tmp_path, mcp=manager)
    [entry] = await library.mcp_entries([FETCH])
    assert entry.name == "fetch/fetch"
    [url_field] = entry.fields()
    assert (url_field.name, url_field.type, url_field.required) == ("url", "text", True)
    template = entry.template
    assert isinstance(template, MCPPromptTemplate)
    messages = await template.render({"url": page_url})
    assert len(messages) == 1
    assert messages[0].role is Role.PROMPT and messages[0].name == "fetch/fetch"
    assert "marmalade" in messages[0].content


async def test_a_server_that_cannot_start_is_left_out_and_its_error_reaches_the_caller(
    tmp_path: Path, manager: MCPManager
) -> None:
    broken = MCPServer("broken", command=str(tmp_path / "no-such-program"), timeout=5.0)
    assert await TemplateLibrary(tmp_path, mcp=manager).mcp_entries([broken]) == []
    template = MCPPromptTemplate(MCPPromptInfo("broken", "p"), broken, manager)
    with pytest.raises(MCPServerError, match="broken"):
        await template.render({})
