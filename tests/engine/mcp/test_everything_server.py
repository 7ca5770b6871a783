"""Against the MCP reference server `@modelcontextprotocol/server-everything` (npm, see everything.py).

Issue 25 §7, §9, §10 and §11, each as a user meets it: through `Dialog.run()` with the loopback LLM server
asking for the tool, or through the `@` attachment, with the test host answering as a person would.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.llm_server import LLMServer
from visindigo.engine import Message, Role
from visindigo.engine.mcp import MCPManager
from visindigo.engine.mcp.resources import attach

from .dialog_host import Host, center_with, run_tool
from .everything import everything_server


@pytest.fixture
async def host_manager(tmp_path: Path) -> AsyncIterator[MCPManager]:
    manager = MCPManager(tmp_path / "logs", startup_timeout=60.0, host=Host())
    try:
        yield manager
    finally:
        await manager.aclose()


def host_of(manager: MCPManager) -> Host:
    assert isinstance(manager.host, Host)
    return manager.host


# --- §9: text blobs -----------------------------------------------------------------------------------------


async def test_a_text_blob_resource_is_read_as_text_when_attached(
    host_manager: MCPManager, everything_js: Path
) -> None:
    server = everything_server(everything_js)
    content = await host_manager.read_resource(server, "demo://resource/dynamic/blob/1")
    message = Message(Role.USER, "What does it say?")
    attach(message, content)
    # The reference server sends this resource as a base64 blob of type text/plain.
    assert re.match(
        r'<resource server="ev" uri="demo://resource/dynamic/blob/1">\n'
        r"Resource 1: This is a base64 blob created at [^\n]+\n</resource>\n\nWhat does it say\?$",
        message.content,
    ), message.content
    assert message.meta["resources"] == [{"server": "ev", "uri": "demo://resource/dynamic/blob/1"}]


async def test_a_text_blob_embedded_in_a_tool_result_reaches_the_model(
    llm_server: LLMServer, host_manager: MCPManager, everything_js: Path
) -> None:
    center = center_with(llm_server, host_manager, everything_server(everything_js, approval="allow"))
    _events, result = await run_tool(
        llm_server, center, "ev__get-resource-reference", '{"resourceType": "Blob", "resourceId": 2}'
    )
    text = json.loads(result)["content"]
    assert "[resource demo://resource/dynamic/blob/2 (text/plain)]\nResource 2: This is a base64 blob" in text
    assert "not shown" not in text
