"""Every way out of the app removes the demo's temporary template folder: ctrl+q, SIGTERM, SIGHUP."""

from __future__ import annotations

import contextlib
import os
import pty
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest


def _drain(fd: int) -> None:
    """Read the app's terminal output until it closes, so the app never blocks on a full pty."""
    while True:
        try:
            if not os.read(fd, 65536):
                return
        except OSError:
            return


def _start_demo(tmp_path: Path) -> tuple[subprocess.Popen[bytes], int]:
    main, child = pty.openpty()
    env = {**os.environ, "TMPDIR": str(tmp_path), "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30"}
    app = subprocess.Popen(
        [sys.executable, "-m", "visindigo", "--demo"],
        stdin=child,
        stdout=child,
        stderr=child,
        env=env,
        start_new_session=True,
    )
    os.close(child)
    threading.Thread(target=_drain, args=(main,), daemon=True).start()
    return app, main


def _wait_for(condition, seconds: float = 30.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def _template_folders(tmp_path: Path) -> list[Path]:
    return list(tmp_path.glob("visindigo-templates-*"))


def _has_sample(tmp_path: Path) -> bool:
    return any((folder / "weather-report.md").exists() for folder in _template_folders(tmp_path))


@pytest.mark.parametrize("how", ["SIGHUP", "SIGTERM", "ctrl+q"])
def test_the_demo_template_folder_is_removed_on_every_way_out(tmp_path: Path, how: str) -> None:
    app, terminal = _start_demo(tmp_path)
    try:
        time.sleep(2.0)  # the first screen
        for _ in range(20):  # f6: the template library, which makes the temporary folder
            os.write(terminal, b"\x1b[17~")
            if _wait_for(lambda: _has_sample(tmp_path), 2.0):  # the folder is made first, then the file
                break
        assert _has_sample(tmp_path), _template_folders(tmp_path)
        if how == "ctrl+q":
            for _ in range(15):  # ctrl+q (priority) quits from the library too; again, on a loaded machine
                os.write(terminal, b"\x11")
                if _wait_for(lambda: app.poll() is not None, 4.0):
                    break
        else:
            app.send_signal(getattr(signal, how))
            if how == "SIGHUP":
                os.close(terminal)  # the terminal is gone, as when its window is closed
        app.wait(timeout=60)
        assert not _template_folders(tmp_path)
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
        with contextlib.suppress(OSError):
            os.close(terminal)
