"""Widgets and screens never talk to the network or the database themselves: that is the engine's job.

The issue's rule ("widgets never call httpx or sqlite") read from the sources, because the TUI imports much of
what it uses lazily, inside functions, where an import-time check would miss it.
"""

import re
from pathlib import Path

TUI_DIR = Path(__file__).resolve().parents[3] / "tui"
FORBIDDEN = re.compile(
    r"^\s*(from|import)\s+(httpx|httpx_sse|sqlite3|socket|urllib|http\.client|requests|aiohttp)\b", re.MULTILINE
)


#: Not a widget or a screen: the web server of `visindigo serve` (textual-serve's aiohttp server, with the page's
#: file drop added), kept in the seam because it replaces one of textual-serve's private methods.
SERVERS = {"platform/serve_files.py"}


def test_no_tui_source_file_imports_a_network_or_database_library() -> None:
    sources = [path for path in TUI_DIR.rglob("*.py") if str(path.relative_to(TUI_DIR)) not in SERVERS]
    assert all((TUI_DIR / server).is_file() for server in SERVERS)
    assert len(sources) > 20  # the folder is where this test thinks it is
    offenders = [
        f"{path.relative_to(TUI_DIR)}: {match.group(0).strip()}"
        for path in sources
        for match in FORBIDDEN.finditer(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
