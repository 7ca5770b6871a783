"""MCP server prompts as templates: their arguments become form fields, the server does the rendering.

An MCP prompt argument is always a string with a required flag, so each becomes a text `TemplateField`; the
same form then serves local templates and server prompts. Unlike a local template, the text only exists
once the server has been asked (`prompts/get`), so `render` is async and may fail with the server's reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ..mcp_server import MCPServer
from ..message import Message, Role
from .fields import TemplateField

if TYPE_CHECKING:  # the MCP package loads asyncio: a template filled by `visindigo ask` needs neither
    from ..mcp.status import MCPPromptInfo


@runtime_checkable
class MCPPromptSource(Protocol):
    """The two calls of `engine.mcp.MCPManager` the templates need (a test may supply its own)."""

    async def list_prompts(self, servers: list[MCPServer]) -> list[MCPPromptInfo]: ...

    async def get_prompt(self, server: MCPServer, prompt_name: str, arguments: dict[str, str]) -> list[Message]: ...


class MissingArguments(ValueError):
    """Required arguments were left empty; raised before the server is asked."""


@dataclass(frozen=True)
class MCPPromptTemplate:
    """One server prompt, ready for the form."""

    info: MCPPromptInfo
    server: MCPServer
    source: MCPPromptSource = field(compare=False, repr=False)

    @property
    def name(self) -> str:
        """`server/prompt`: how the library lists it and how its messages are named."""
        return self.info.label

    @property
    def key(self) -> str:
        return "mcp:" + self.info.label

    @property
    def description(self) -> str:
        parts = [part for part in (self.info.title, self.info.description) if part]
        return " — ".join(parts)

    def fields(self) -> list[TemplateField]:
        return [
            TemplateField(name=arg.name, type="text", description=arg.description, required=arg.required)
            for arg in self.info.arguments
        ]

    def missing(self, values: Mapping[str, str]) -> list[str]:
        return self.info.missing_arguments(dict(values))

    async def render(self, values: Mapping[str, str]) -> list[Message]:
        """Ask the server for the prompt; empty optional arguments are not sent.

        Consecutive template-text messages are joined into one (a blank line between them), so the usual
        one-message prompt stays one message; a few-shot prompt keeps its assistant turns. Raises
        `MissingArguments` before asking when a required argument is empty, and whatever the source raises
        (`MCPServerError` from the manager) when the server cannot answer.
        """
        missing = self.missing(values)
        if missing:
            raise MissingArguments("required: " + ", ".join(missing))
        arguments = {name: value for name, value in values.items() if value.strip()}
        messages = await self.source.get_prompt(self.server, self.info.name, arguments)
        return join_prompt_messages(messages, self.name)


def join_prompt_messages(messages: Sequence[Message], name: str) -> list[Message]:
    """Merge runs of `Role.PROMPT` messages into one each; an empty answer becomes one empty prompt message."""
    joined: list[Message] = []
    for message in messages:
        if joined and message.role is Role.PROMPT and joined[-1].role is Role.PROMPT:
            last = joined[-1]
            last.content = "\n\n".join(part for part in (last.content, message.content) if part)
            last.images.extend(message.images)
            continue
        joined.append(message.copy())
    if not joined:
        joined.append(Message(Role.PROMPT, "", name=name))
    return joined


async def list_mcp_templates(source: MCPPromptSource, servers: Sequence[MCPServer]) -> list[MCPPromptTemplate]:
    """Every prompt the enabled servers offer; a server that cannot start is simply absent (the manager's rule)."""
    by_name = {server.name: server for server in servers}
    infos = await source.list_prompts([server for server in servers if server.enabled])
    return [
        MCPPromptTemplate(info, by_name[info.server], source) for info in infos if info.server in by_name
    ]
