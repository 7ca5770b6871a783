"""The SDK is a normal dependency; if it cannot be imported anyway, a run says so at once, naming the package.
And only public SDK modules are imported (a private one can change in any release)."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

PROBE = textwrap.dedent(
    """
    import asyncio, sys
    sys.modules["mcp"] = None          # as if the package were missing or broken
    from visindigo.engine import Center, MCPServer, Role, RunFailed
    from visindigo.engine.providers import FinishPart, TextPart, scripted_provider

    async def main():
        center = Center()
        center.add_provider(scripted_provider([[TextPart("hi"), FinishPart("stop")]]))
        center.add_mcp(MCPServer("time", command=sys.executable, args=["-m", "mcp_server_time"]))
        dialog = center.create_dialog()
        dialog.append_message(Role.USER, "hello")
        events = [event async for event in dialog.run()]
        print(events[-1].message if isinstance(events[-1], RunFailed) else "no failure")
        await center.aclose()

    asyncio.run(main())
    """
)


def test_a_missing_sdk_fails_the_run_at_once_naming_the_package() -> None:
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    message = result.stdout.strip()
    assert "MCP server 'time' could not start: the MCP SDK could not be loaded" in message
    assert "the Python package 'mcp'" in message and "pip install" in message
    assert "did not answer" not in message and "log is" not in message
    assert elapsed < 20  # not the 60 s start-up timeout
    assert "Traceback" not in result.stderr


def test_only_public_sdk_modules_are_imported() -> None:
    private = re.compile(r"^\s*(?:from|import)\s+(mcp(?:_types)?(?:\.\w+)*\._\w+)", re.MULTILINE)
    found = []
    for folder in ("engine", "tui", "src"):
        for path in (ROOT / folder).rglob("*.py"):
            found += [f"{path.relative_to(ROOT)}: {m}" for m in private.findall(path.read_text(encoding="utf-8"))]
    assert found == []


def test_the_sdk_is_a_normal_dependency() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    dependencies = text[text.index("dependencies = [") : text.index("]", text.index("dependencies = ["))]
    assert '"mcp>=2.3,<3"' in dependencies
