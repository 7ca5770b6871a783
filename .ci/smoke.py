"""The smoke test CI runs against the built wheel in a fresh venv (not the checkout): a file left out of the
package (a stylesheet, a sub-package) fails here, where it would fail for a user after `pip install`."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import visindigo


def run(*argv: str) -> str:
    result = subprocess.run([str(Path(sys.executable).parent / "visindigo"), *argv], capture_output=True,
                            text=True, timeout=120)
    if result.returncode not in (0, 1) or "Traceback" in result.stderr:
        raise SystemExit(f"visindigo {' '.join(argv)} failed ({result.returncode}):\n{result.stderr}")
    return result.stdout


async def app_starts() -> None:
    from visindigo.engine import Center
    from visindigo.tui.app import AppOptions, VisindigoApp

    app = VisindigoApp(Center(), AppOptions(demo=True, demo_delay=0, demo_live_question=False))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert type(app.screen).__name__ == "MainScreen", app.screen
        await pilot.press("f1")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen", app.screen


def main() -> None:
    installed = Path(visindigo.__file__).resolve()
    assert "site-packages" in installed.parts, f"imported from the checkout, not the wheel: {installed}"
    os.environ["VISINDIGO_HOME"] = tempfile.mkdtemp(prefix="visindigo-smoke-")
    assert run("-V").strip() == f"visindigo {visindigo.__version__}"
    assert "VISINDIGO_HOME" in run("--help")
    assert "#[providers.local]" in run("config", "example")
    assert "No problems found." in run("doctor", "--offline")
    assert "_ARGCOMPLETE" in run("completion", "bash")
    asyncio.run(app_starts())
    print(f"smoke test passed: visindigo {visindigo.__version__} from {installed.parent}")


if __name__ == "__main__":
    main()
