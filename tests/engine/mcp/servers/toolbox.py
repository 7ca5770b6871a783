"""A purpose-built MCP server for the tests: well-behaved tools next to misbehaving ones.

Run as `python toolbox.py` (stdio), `python toolbox.py --http PORT` (Streamable HTTP on 127.0.0.1) or
`python toolbox.py --sse PORT` (legacy HTTP+SSE). Environment knobs, read at start:
- TOOLBOX_EXIT_AT_START=1: exit before answering anything (a server that dies during startup);
- TOOLBOX_SILENT=1: read stdin but never answer (a server that hangs in its handshake).
"""

from __future__ import annotations

import base64
import os
import sys
import time

if os.environ.get("TOOLBOX_EXIT_AT_START"):
    print("toolbox: exiting at start as asked", file=sys.stderr, flush=True)
    sys.exit(7)

if os.environ.get("TOOLBOX_SILENT"):
    print("toolbox: silent mode, never answering", file=sys.stderr, flush=True)
    for _line in sys.stdin:
        pass
    sys.exit(0)

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import AssistantMessage, UserMessage
from mcp_types import EmbeddedResource, ImageContent, TextContent, TextResourceContents

PNG_1PX = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
    )
).decode()

server = MCPServer("toolbox", version="1.0")


@server.tool(structured_output=False)
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool()
def add(a: int, b: int) -> dict[str, int]:
    """Add two integers (structured result)."""
    return {"sum": a + b}


@server.tool(structured_output=False)
def env(names: list[str]) -> str:
    """Which of these environment variables the server process sees, and their values."""
    return "\n".join(f"{name}={os.environ[name]}" if name in os.environ else f"{name} unset" for name in names)


@server.tool(structured_output=False)
def picture() -> list[TextContent | ImageContent | EmbeddedResource]:
    """A caption, an image and an embedded text resource."""
    return [
        TextContent(type="text", text="a red pixel"),
        ImageContent(type="image", data=PNG_1PX, mime_type="image/png"),
        EmbeddedResource(
            type="resource",
            resource=TextResourceContents(uri="file:///notes.txt", mime_type="text/plain", text="note body"),
        ),
    ]


@server.tool(structured_output=False)
def fail(reason: str) -> str:
    """Always fails with the given reason."""
    raise ValueError(reason)


@server.tool(structured_output=False)
def crash() -> str:
    """Exit the whole server process in the middle of the call."""
    print("toolbox: crashing on purpose", file=sys.stderr, flush=True)
    os._exit(3)


@server.tool(structured_output=False)
def hang() -> str:
    """Never return."""
    while True:
        time.sleep(3600)


@server.tool(name="dotted.name/tool", structured_output=False)
def dotted() -> str:
    """A tool whose name is not a valid function id."""
    return "dotted ok"


@server.tool(structured_output=False)
def request_header(name: str, ctx: Context) -> str:
    """The value of an HTTP request header as the server received it (HTTP transports only)."""
    request = ctx.request_context.request
    if request is None:
        return "no HTTP request"
    return str(request.headers.get(name, "<missing>"))


@server.tool(structured_output=False)
def pid() -> str:
    """The server's process id."""
    return str(os.getpid())


@server.tool(structured_output=False)
def grow(name: str) -> str:
    """Add a tool called `name` (which answers "grown") while the server runs."""

    def grown() -> str:
        return "grown"

    server.add_tool(grown, name=name, description="Added at run time.", structured_output=False)
    return f"added {name}"


@server.prompt(description="Ask for a review of some code.")
def review(code: str, language: str = "python") -> list[UserMessage | AssistantMessage]:
    return [
        UserMessage(f"Review this {language} code:\n{code}"),
        AssistantMessage("What should I focus on?"),
        UserMessage("Correctness first."),
    ]


if __name__ == "__main__":
    print("toolbox: started", file=sys.stderr, flush=True)
    if len(sys.argv) == 3 and sys.argv[1] in ("--http", "--sse"):
        port = int(sys.argv[2])
        if sys.argv[1] == "--http":
            server.run("streamable-http", host="127.0.0.1", port=port)
        else:
            server.run("sse", host="127.0.0.1", port=port)
    else:
        server.run()
