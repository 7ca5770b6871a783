"""What the program tells a user to read names a page of the docs that exists (the README no longer holds
the reference: it links into docs/)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.tui.helpers import main_screen, make_app, settle
from visindigo.engine.config import load_config
from visindigo.engine.config.write import update_config
from visindigo.engine.paths import resolve_paths
from visindigo.engine.plugins import DiscoveredTools
from visindigo.tui.setup.package_tools import PackageToolsScreen

DOCS = Path(__file__).resolve().parents[1] / "docs"


def pages_named(text: str) -> list[str]:
    """The docs pages a text names (docs/name.md), each checked to exist."""
    named = re.findall(r"docs/([\w-]+\.md)", text)
    assert named, text
    for page in named:
        assert (DOCS / page).is_file(), page
    assert "README" not in text, text
    return named


def test_the_config_files_header_names_the_configuration_page(tmp_path: Path) -> None:
    paths = resolve_paths(tmp_path / "home")
    update_config(paths, lambda document: document.update(default_provider="local"))
    header = [line for line in paths.config_file.read_text(encoding="utf-8").splitlines() if line.startswith("#")]
    assert pages_named("\n".join(header)) == ["configuration.md"]


def test_an_unknown_mcp_server_key_names_the_page_listing_the_keys(tmp_path: Path) -> None:
    paths = resolve_paths(tmp_path / "home")
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    paths.config_file.write_text('[mcp_servers.time]\ncommand = "uvx"\nautoApprove = ["x"]\n', encoding="utf-8")
    _, problems = load_config(paths)
    (message,) = [str(p) for p in problems]
    assert "autoApprove" in message
    assert pages_named(message) == ["mcp.md"]
    assert "## Configuring servers" in (DOCS / "mcp.md").read_text(encoding="utf-8")


async def test_the_tools_screen_without_package_tools_names_the_page_that_shows_how() -> None:
    app = make_app([])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.push_screen(PackageToolsScreen(app.center, main_screen(app).dialog, found=DiscoveredTools()))
        await pilot.pause()
        status = str(app.screen.query_one("#status").render())
        assert pages_named(status) == ["package-tools.md"]
