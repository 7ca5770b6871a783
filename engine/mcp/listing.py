"""Reading what a server offers — tools, prompts, resources — into the plain values of `status`.

Every listing follows pagination up to `MAX_PAGES` (a paginator that never ends must not hang a start).
Tools whose `execution.taskSupport` is "required" can only run as protocol tasks, which this client does not
drive: they are left out of the tools offered to the model (and named on the MCP screen) rather than offered
and failing on every call.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from .status import MCPPromptInfo, PromptArgument, ResourceInfo, ToolHints, ToolInfo

if TYPE_CHECKING:
    from mcp.client import Client

log = logging.getLogger(__name__)

MAX_PAGES = 100


def tool_hints(tool: Any) -> ToolHints:
    annotations = getattr(tool, "annotations", None)
    if annotations is None:
        return ToolHints()
    read_only = bool(annotations.read_only_hint)
    destructive = annotations.destructive_hint
    return ToolHints(
        read_only=read_only,
        # The spec: destructiveHint is meaningful only when not read-only; absent means true.
        destructive=False if read_only else (True if destructive is None else bool(destructive)),
        idempotent=bool(annotations.idempotent_hint),
        open_world=True if annotations.open_world_hint is None else bool(annotations.open_world_hint),
        title=annotations.title or "",
    )


async def list_tools(client: Client) -> tuple[list[ToolInfo], list[str]]:
    """The tools the client can run, and the names of those that need protocol tasks."""
    tools: list[ToolInfo] = []
    task_only: list[str] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        for tool in page.tools:
            execution = getattr(tool, "execution", None)
            if execution is not None and getattr(execution, "task_support", None) == "required":
                task_only.append(tool.name)
                continue
            hints = tool_hints(tool)
            title = tool.title or hints.title or ""
            schema = tool.input_schema if isinstance(tool.input_schema, dict) else {"type": "object"}
            output = tool.output_schema if isinstance(tool.output_schema, dict) else None
            tools.append(ToolInfo(tool.name, tool.description or "", dict(schema), title, hints, output))
        cursor = page.next_cursor
        if not cursor:
            break
    return tools, task_only


async def list_prompts(client: Client, server: str) -> list[MCPPromptInfo]:
    if client.server_capabilities.prompts is None:
        return []
    from mcp.shared.exceptions import MCPError

    prompts: list[MCPPromptInfo] = []
    cursor: str | None = None
    try:
        for _ in range(MAX_PAGES):
            page = await client.list_prompts(cursor=cursor)
            for prompt in page.prompts:
                arguments = tuple(
                    PromptArgument(a.name, a.description or "", bool(a.required)) for a in prompt.arguments or []
                )
                info = MCPPromptInfo(server, prompt.name, prompt.description or "", arguments, prompt.title or "")
                prompts.append(info)
            cursor = page.next_cursor
            if not cursor:
                break
    except MCPError as error:  # a server that announces prompts but cannot list them still has tools
        log.info("MCP server %r could not list its prompts: %s", server, error)
    return prompts


async def list_resources(client: Client, server: str) -> list[ResourceInfo]:
    """Resources, then resource templates; a server that cannot list them simply offers none."""
    if client.server_capabilities.resources is None:
        return []
    from mcp.shared.exceptions import MCPError

    found: list[ResourceInfo] = []
    try:
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await client.list_resources(cursor=cursor, cache_mode="bypass")
            for resource in page.resources:
                found.append(
                    ResourceInfo(
                        server, str(resource.uri), resource.name, resource.title or "",
                        resource.description or "", resource.mime_type or "",
                    )
                )
            cursor = page.next_cursor
            if not cursor:
                break
        cursor = None
        for _ in range(MAX_PAGES):
            templates = await client.list_resource_templates(cursor=cursor, cache_mode="bypass")
            for template in templates.resource_templates:
                found.append(
                    ResourceInfo(
                        server, template.uri_template, template.name, template.title or "",
                        template.description or "", template.mime_type or "", template=True,
                    )
                )
            cursor = templates.next_cursor
            if not cursor:
                break
    except MCPError as error:
        log.info("MCP server %r could not list its resources: %s", server, error)
    return found
