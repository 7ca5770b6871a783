"""Issue 11 §1 (the app): outside text in every place the app shows it, read back as the bytes a terminal gets.

The real app runs as `python -m visindigo` on a pseudo-terminal. Hostile text comes from every outside source
at once: a stored title (the tree, the crash-recovery notice), a server's model list (the status line), a
streamed reply and its reasoning with every sequence cut in two between chunks, and a server's error body
(the failure notice). Nothing of it may reach the terminal as a sequence.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tests.hostile_text import HOSTILE, SEQUENCES, leaks
from tests.llm_server import LLMServer, error_reply, json_reply, openai_stream
from visindigo.engine import Center, Role

ROOT = Path(__file__).resolve().parents[2]
END = "ZEBRAEND"


def split_in_two(text: str) -> list[str]:
    """Each sequence cut in the middle, so that no chunk holds a whole one."""
    pieces = []
    for name, sequence in SEQUENCES:
        middle = len(sequence) // 2
        pieces += [f" {name} ", sequence[:middle], sequence[middle:]]
    return pieces


def make_home(tmp_path: Path, server: LLMServer) -> Path:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text(textwrap.dedent(f"""
        default_provider = "local"
        [providers.local]
        kind = "openai"
        base_url = "{server.openai_url}"
        """))  # fmt: skip
    center = Center.open(home)
    try:
        dialog = center.create_dialog()
        dialog.append_message(Role.USER, "stored question")
        assert center.store is not None
        center.store.set_title(dialog.id, f"Stored {HOSTILE}")
        center.store.write_draft(dialog.id, 1, f"cut off {HOSTILE}", "", time.time())  # a crash left a reply
        center.store.untrack(dialog.id)  # no clean close, as after a crash: the draft stays
        center.store._conn.close()
        center.store._lock.release()  # type: ignore[union-attr]
    except BaseException:
        center.close()
        raise
    return home


def test_no_outside_text_reaches_the_terminal_as_a_sequence(tmp_path: Path, llm_server: LLMServer) -> None:
    llm_server.models_reply = json_reply({"data": [{"id": f"model-{HOSTILE}"}]})
    llm_server.queue(openai_stream([*split_in_two(HOSTILE), f" {END}1"], reasoning=split_in_two(HOSTILE)))
    llm_server.queue(error_reply(400, f"{END}2 upstream said {HOSTILE}"))
    home = make_home(tmp_path, llm_server)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEXTUAL", "VISINDIGO"))}
    # Textual's own output: the output stage (tests/tui/test_output_stage.py proves it cell by cell against this
    # output in pyte) skips cells already on screen, so the plain-text checks below would not find whole words.
    env.update(TERM="xterm-256color", VISINDIGO_HOME=str(home), COLUMNS="100", LINES="30", VISINDIGO_OUTPUT_STAGE="0")
    master, slave = os.openpty()
    import fcntl
    import struct
    import termios

    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    process = subprocess.Popen([sys.executable, "-m", "visindigo"], stdin=slave, stdout=slave, stderr=slave,
                               env=env, cwd=ROOT, start_new_session=True)  # fmt: skip
    os.close(slave)
    output = bytearray()

    def read_until(needle: bytes, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while needle not in output:
            if time.monotonic() > deadline:
                raise AssertionError(f"{needle!r} never appeared; the app wrote {len(output)} bytes")
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    output.extend(os.read(master, 65536))
                except OSError:
                    raise AssertionError(f"the app ended early: {bytes(output)[-800:]!r}") from None

    try:
        read_until(b"enter sends", 60)
        for text in ("first", "second"):
            os.write(master, text.encode())
            time.sleep(0.3)
            os.write(master, b"\r")
            read_until(f"{END}{1 if text == 'first' else 2}".encode(), 60)
        time.sleep(1.0)  # the notices and the final render
        read_until(b"", 0)
        os.write(master, b"\x11")  # ctrl+q
        deadline = time.monotonic() + 15
        while process.poll() is None and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    output.extend(os.read(master, 65536))
                except OSError:
                    break
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)
        os.close(master)
    shown = bytes(output)
    assert b"Stored OSC 52" in shown and b"cut off" in shown  # the tree and the recovery notice were drawn
    assert b"model-OSC 52" in shown  # the status line, from the model list
    assert b"upstream said" in shown  # the failure notice
    assert not leaks(shown), leaks(shown)
