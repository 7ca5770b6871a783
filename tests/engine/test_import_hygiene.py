"""The engine must stay usable without the UI stack: importing it never loads textual or rich."""

import re
import subprocess
import sys
from pathlib import Path

ENGINE_DIR = Path(__file__).resolve().parents[2] / "engine"


def test_importing_the_engine_loads_neither_textual_nor_rich() -> None:
    code = (
        "import sys, visindigo.engine, visindigo.engine.run_loop\n"
        "import pkgutil, importlib\n"
        "for info in pkgutil.walk_packages(visindigo.engine.__path__, 'visindigo.engine.'):\n"
        "    importlib.import_module(info.name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'visindigo.tui'))\n"
        "bad += sorted(m for m in sys.modules if m.startswith('visindigo.tui'))\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


def test_no_engine_source_file_imports_the_ui() -> None:
    """A lazily imported UI module would slip past the subprocess check; read the sources too."""
    pattern = re.compile(r"^\s*(from|import)\s+(textual|rich|visindigo\.tui)\b", re.MULTILINE)
    offenders = [
        f"{path.relative_to(ENGINE_DIR)}: {match.group(0).strip()}"
        for path in ENGINE_DIR.rglob("*.py")
        for match in pattern.finditer(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
