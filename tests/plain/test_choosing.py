"""When the plain mode is chosen without `--plain`, and what it loads: the engine and the workbench, never
Textual or Rich."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from visindigo import cli
from visindigo.plain import wanted


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("environ", "stdout", "stdin", "plain"),
    [
        ({"TERM": "xterm-256color"}, Tty(), Tty(), False),
        ({"TERM": "dumb"}, Tty(), Tty(), True),
        ({}, Tty(), Tty(), True),  # no TERM at all: nothing says the terminal can address the cursor
        ({"TERM": "xterm-256color"}, io.StringIO(), Tty(), True),  # a pipe or a file
        ({"TERM": "xterm-256color"}, Tty(), io.StringIO(), True),  # lines piped in: the app could read no key
        ({"TERM": "dumb", "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver"}, io.StringIO(), None, False),
    ],
    ids=["terminal", "dumb", "no TERM", "pipe", "piped in", "a Textual driver (visindigo serve)"],
)
def test_the_plain_mode_is_wanted_where_the_app_cannot_run(environ: dict[str, str], stdout: io.StringIO,
                                                           stdin: io.StringIO | None, plain: bool) -> None:  # fmt: skip
    assert wanted(environ, stdout, stdin) is plain


def test_a_browser_tab_of_serve_is_never_plain(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "dumb")
    assert cli.plain_chosen(cli.parse_arguments(["--served"])) is False
    assert cli.plain_chosen(cli.parse_arguments(["--plain"])) is True
    assert cli.plain_chosen(cli.parse_arguments([])) is True


def test_the_plain_mode_loads_neither_textual_nor_rich() -> None:
    code = (
        "import sys\n"
        "from visindigo.plain import start, commands\n"
        "from visindigo.tui.workbench import driving\n"
        "print(sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in ('textual', 'rich')}))\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert shown.stdout.strip() == "[]"
