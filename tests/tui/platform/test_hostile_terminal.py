"""Issue 11 §1 (the app): outside text in every place the app shows it, read back as the bytes a terminal gets.

The real app runs as `python -m visindigo` on a pseudo-terminal. Hostile text comes from every outside source
at once: a stored title (the tree, the crash-recovery notice), a server's model list (the status line), a
streamed reply and its reasoning with every sequence cut in two between chunks, and a server's error body
(the failure notice). Nothing of it may reach the terminal as a sequence.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tests.hostile_text import HOSTILE, SEQUENCES, leaks
from tests.llm_server import LLMServer, error_reply, json_reply, openai_stream
from visindigo.engine import Center, Role

ROOT = Path(__file__).resolve().parents[3]
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


class EmulatedTerminal:
    """The app on a pseudo-terminal whose output is both kept raw (every byte, for the forbidden sequences) and
    fed to a terminal emulator (pyte), whose screen is what a user sees: the output stage sends only the cells
    that changed, so whole words are found on the screen, not in the bytes."""

    def __init__(
        self,
        argv: list[str],
        env: dict[str, str],
        *,
        columns: int = 100,
        lines: int = 30,
        cell: tuple[int, int] = (0, 0),
    ) -> None:
        """`cell`: the pixels of a cell the terminal reports with its size (0 × 0: none, as many do)."""
        import fcntl
        import struct
        import termios

        import pyte

        self.cell = cell
        self.raw = bytearray()
        self.screen = pyte.Screen(columns, lines)
        self._stream = pyte.ByteStream(self.screen)
        #: Everything looked for, with whether it has been on the screen at some moment (notices go away).
        self.seen: dict[str, bool] = {}
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, columns * cell[0], lines * cell[1]))
        self.process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT,
                                        start_new_session=True)  # fmt: skip
        os.close(slave)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def watch(self, *needles: str) -> None:
        for needle in needles:
            self.seen.setdefault(needle, False)

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:
            return False
        self.raw += data
        self._stream.feed(data)
        shown = self.text()
        for needle, was in self.seen.items():
            self.seen[needle] = was or needle in shown
        return bool(data)

    def wait_for(self, needle: str, timeout: float) -> None:
        self.watch(needle)
        deadline = time.monotonic() + timeout
        while not self.seen[needle]:
            if time.monotonic() > deadline:
                raise AssertionError(f"{needle!r} never appeared on the screen:\n{self.text()}")
            if not self._read(0.1):
                raise AssertionError(f"the app ended early:\n{self.text()}")

    def wait_gone(self, needle: str, timeout: float) -> None:
        """Until `needle` is no longer on the screen (a modal closed)."""
        deadline = time.monotonic() + timeout
        while needle in self.text():
            if time.monotonic() > deadline:
                raise AssertionError(f"{needle!r} stayed on the screen:\n{self.text()}")
            if not self._read(0.1):
                raise AssertionError(f"the app ended early:\n{self.text()}")

    def pump(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and self._read(0.1):
            pass

    def type(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def resize(self, columns: int, lines: int) -> None:
        """The window takes a new size, as a terminal tells its program (the kernel sends SIGWINCH)."""
        import fcntl
        import struct
        import termios

        cell = self.cell
        fcntl.ioctl(
            self.master, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, columns * cell[0], lines * cell[1])
        )
        self.screen.resize(lines, columns)
        # the app's session has no controlling terminal here (start_new_session), so the kernel sends it nothing
        os.kill(self.process.pid, signal.SIGWINCH)

    def close(self) -> None:
        self.type(b"\x11")  # ctrl+q
        deadline = time.monotonic() + 15
        while self.process.poll() is None and time.monotonic() < deadline and self._read(0.1):
            pass
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)
        os.close(self.master)


def test_no_outside_text_reaches_the_terminal_as_a_sequence(tmp_path: Path, llm_server: LLMServer) -> None:
    llm_server.models_reply = json_reply({"data": [{"id": f"model-{HOSTILE}"}]})
    llm_server.queue(openai_stream([*split_in_two(HOSTILE), f" {END}1"], reasoning=split_in_two(HOSTILE)))
    llm_server.queue(error_reply(400, f"{END}2 upstream said {HOSTILE}"))
    home = make_home(tmp_path, llm_server)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEXTUAL", "VISINDIGO"))}
    # The output stage stays on, as users have it (it writes only the cells that changed).
    env.update(TERM="xterm-256color", VISINDIGO_HOME=str(home), COLUMNS="100", LINES="30")
    terminal = EmulatedTerminal([sys.executable, "-m", "visindigo"], env)
    # The tree (the stored title), the crash-recovery notice, the status line and the model picker (the model
    # list), the streamed reply with its reasoning, the failure notice (the error body), the delete question and
    # the notice after it (the stored title): each must be seen on the screen.
    terminal.watch("Stored OSC 52", "cut off", "model-OSC 52", "upstream said", "CSI SGR", "bidi override RLOISO")
    try:
        terminal.wait_for("enter sends", 60)
        for number, text in enumerate((b"first", b"second"), start=1):
            terminal.type(text)
            terminal.pump(0.3)
            terminal.type(b"\r")
            terminal.wait_for(f"{END}{number}", 60)
        terminal.pump(1.0)  # the notices and the final render
        terminal.type(b"\x1bOQ")  # f2: the model picker, listing the server's model ids
        terminal.wait_for("Choose a model", 30)
        terminal.wait_for("model-OSC 52", 30)
        terminal.type(b"\x1b")  # esc
        # The picker gone before the next key. The 1 s that used to be waited here was not always enough under
        # load: when the app takes esc and alt+t in one read (sent as b"\x1b\x1bt" it does every time), alt+t
        # is lost while the picker closes, the keys after it miss the tree and the delete question never comes.
        terminal.wait_gone("Choose a model", 30)
        # The stored dialog in the tree, then delete: the question quotes the stored title, then the notice.
        terminal.type(b"\x1bt")  # alt+t: the tree
        terminal.pump(0.5)
        terminal.type(b"\x1b[B")  # down: from the new dialog to the stored one
        terminal.pump(0.5)
        terminal.type(b"\x1b[3~")  # delete
        terminal.wait_for("Delete “Stored OSC 52", 30)
        terminal.type(b"y")
        terminal.wait_for("Deleted “Stored OSC 52", 30)
        screen = terminal.text()
    finally:
        terminal.close()
    missing = [needle for needle, seen in terminal.seen.items() if not seen]
    assert not missing, (missing, screen)
    shown = bytes(terminal.raw)
    assert not leaks(shown), leaks(shown)  # no sequence of the hostile text in any byte the terminal was sent
    assert not leaks(screen.encode())  # and none of its markers drawn as text either
