"""Without MCP servers the `mcp` SDK is never imported: not by the package, the manager, nor a dialog run."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_a_run_without_mcp_servers_never_imports_the_sdk() -> None:
    code = textwrap.dedent(
        """
        import asyncio, sys
        from visindigo.engine import Center, Role
        from visindigo.engine.mcp import MCPManager

        async def main():
            center = Center()
            center.tool_source = MCPManager()
            assert await center.tool_source.functions_for([]) == []
            dialog = center.create_dialog()
            dialog.append_message(Role.USER, "hello")
            async for _event in dialog.run():
                pass
            await center.aclose()

        asyncio.run(main())
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("mcp", "mcp_types", "httpx2"))
        print(",".join(loaded))
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


def test_starting_a_server_does_import_it() -> None:
    """The check above can fail: the same probe sees the SDK once a server has started."""
    code = textwrap.dedent(
        """
        import asyncio, sys
        from visindigo.engine import MCPServer
        from visindigo.engine.mcp import MCPManager

        async def main():
            manager = MCPManager()
            server = MCPServer("t", command=sys.executable, args=["-m", "mcp_server_time"])
            await manager.functions_for([server])
            await manager.aclose()

        asyncio.run(main())
        print("mcp" in sys.modules)
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"
