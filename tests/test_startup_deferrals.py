"""Start-up stays fast: what the first frame does not need is not loaded before it (issue 6 §7).

`bench/tui_stream.py` measures the time to the first frame; this guards the deferrals that time depends
on, so that an import moved back to the top of a module cannot silently cost a fifth of the start-up
again. The app runs as the `visindigo` command does, in a pseudo-terminal, with a valid config and stored
dialogs; a wrapper records `sys.modules` at the moment the first frame is written.
"""

from __future__ import annotations

import fcntl
import json
import os
import struct
import subprocess
import sys
import termios
import textwrap
import threading
import time
from pathlib import Path

from visindigo.engine import Center, Role

#: Loaded only when needed, and why. Each was measured on the path to the first frame.
DEFERRED = {
    "jsonschema": "config: a valid config passes the quick check; tools validate their arguments later",
    "httpx": "providers: only a request needs the HTTP client",
    "httpcore": "providers: only a request needs the HTTP client",
    "mcp": "MCP SDK: only configured servers need it",
    "visindigo.engine.mcp": "MCP manager: only configured servers need it",
    "visindigo.engine.providers": "provider adapters: only a run needs them",
    "visindigo.engine.run_loop": "only a run needs it",
    "visindigo.engine.tool_runner": "only a tool call needs it",
    "visindigo.engine.templates.library": "the template library: only its screen reads the folder",
    "markdown_it": "the first frame shows an empty dialog; the last one (with its answers) opens just after",
    "visindigo.tui.setup.first_run": "a configured app does not show first-run setup",
    "visindigo.tui.common.help": "opened by f1",
    "visindigo.tui.setup.model_picker": "opened by f2",
    "visindigo.tui.templates.library": "opened by f6",
    # issue 14: start-up ≤ 1.5× a bare Textual app's
    "tomlkit": "config: read with tomllib; tomlkit only when a setting is written",
    "visindigo.engine.templates": "the template language (and zoneinfo): only rendering a prompt needs it",
    "zoneinfo": "the templates' clock: only rendering a prompt needs it",
    "visindigo.engine.events": "a dialog emits its first event after the first frame (the warm-up loads them)",
    "visindigo.tui.workbench.driving": "only a run needs it (the warm-up loads it)",
    "visindigo.engine.compare": "comparisons: opened by a key",
    "visindigo.tui.compare.flow": "comparisons: opened by a key",
    "visindigo.tui.compare.screen": "comparisons: opened by a key",
    "visindigo.tui.start.store_repair": "shown only while a damaged store is repaired",
    # issue 23: the first frame <= 1.5x a bare Textual app's
    "importlib.metadata": "compat reads Textual's version from its dist-info folder's name",
    "visindigo.tui.main.context": "the context's flows and modals: made on first use",
    "visindigo.tui.common.cursor_rows": "lists of the modals and the tree, none of them in the first frame",
    "textual.widgets._data_table": "no table in the first frame (cursor_rows builds on it)",
    "visindigo.tui.common.copying": "the clipboard tools: the first copy or save loads them",
    "visindigo.tui.common.approval": "the approval modal: only a tool call asks",
    "visindigo.engine.approval": "only a tool call asks",
    "visindigo.tui.main.dialog_tree": "the sidebar's tree is made and mounted after the first frame",
    "visindigo.tui.workbench.timeline": "the tree's labels: drawn with the tree, after the first frame",
    "visindigo.engine.branch_titles": "the tree's branch titles: drawn with the tree, after the first frame",
    "visindigo.tui.chat.vim.keys": 'the vim keys: only with `[ui] composer_keys = "vim"`',
    "visindigo.tui.chat.vim.state": 'the vim keys: only with `[ui] composer_keys = "vim"`',
    "visindigo.ask_cli": "the subcommands' modules: only their command imports them",
    "visindigo.usage_cli": "the subcommands' modules: only their command imports them",
    "visindigo.dialogs_cli": "the subcommands' modules: only their command imports them",
    "visindigo.config_cli": "the subcommands' modules: only their command imports them",
    "visindigo.doctor": "the subcommands' modules: only their command imports them",
    "csv": "usage's export: only `visindigo usage` needs it",
    "visindigo.engine.context.compaction": "compaction, pins, the ledger: the meter needs only the fit check",
    "visindigo.engine.context.totals": "a dialog's totals: shown in an answer's details",
    "textual.widgets._footer": "the footer shows no key in the first frame: mounted just after it, in a row kept",
    "visindigo.engine.commands": "commands and their JSON Schema: a plugin or the demo makes them, after the frame",
    "visindigo.engine.context.prices": "an answer's cost: the first frame's dialog has no answer",
    "visindigo.engine.context.usage": "an answer's usage: the first frame's dialog has no answer",
    "hashlib": "OpenSSL's bindings: an attachment's digest is taken when one is made, never for the first frame",
    "secrets": "an image's random id (with hmac): the first frame shows no image",
    "argparse": "a plain `visindigo` gets the run options' defaults (cli.RUN_DEFAULTS); the parsers are cli_parser",
    "gettext": "argparse's translations: only a parser needs them",
    "visindigo.cli_parser": "a plain `visindigo` gets the run options' defaults (cli.RUN_DEFAULTS)",
}

#: What the app's start imports, module by module (the command line, then what `visindigo` alone runs).
START_PATH = ("visindigo.cli", "visindigo.engine", "visindigo.engine.storage.opening", "visindigo.tui.app")

WRAPPER = textwrap.dedent(
    """
    import gc, json, sys
    import textual.drivers.linux_driver as linux_driver

    report = open(sys.argv[1], "w")
    write = linux_driver.LinuxDriver.write
    state = {"first": False, "resumed": False}

    def watching_write(self, data):
        if not state["first"] and "enter sends" in data:
            state["first"] = True
            report.write(json.dumps({"modules": sorted(sys.modules), "gc_enabled": gc.isenabled()}) + "\\n")
            report.flush()
        elif state["first"] and not state["resumed"] and gc.isenabled():
            state["resumed"] = True
            report.write(json.dumps({"frozen": gc.get_freeze_count()}) + "\\n")
            report.flush()
        return write(self, data)

    linux_driver.LinuxDriver.write = watching_write

    def watch_warm_up():  # what the first reply needs is loaded after the first frame, with no key pressed
        import threading, time
        from visindigo.tui.start.warm_up import modules_for

        def run():
            wanted = modules_for(["openai"])

            def ssl_built():
                module = sys.modules.get("visindigo.engine.providers._httpx")
                return bool(module and module.shared_ssl_context.cache_info().currsize)

            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not (all(n in sys.modules for n in wanted) and ssl_built()):
                time.sleep(0.05)
            while not state["resumed"]:
                time.sleep(0.05)
            built = ssl_built()
            report.write(json.dumps({"warmed": sorted(n for n in wanted if n in sys.modules), "ssl": built}) + "\\n")
            report.flush()

        threading.Thread(target=run, daemon=True).start()

    watch_warm_up()
    from visindigo.cli import main

    sys.argv = ["visindigo"]
    raise SystemExit(main())
    """
)


def _make_home(home: Path) -> None:
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text(
        textwrap.dedent(
            """
            default_provider = "local"

            [providers.local]
            kind = "openai"
            base_url = "http://127.0.0.1:9/v1"
            api_key_env = "VISINDIGO_TEST_KEY"

            [[providers.local.models]]
            id = "local-model"
            capabilities = ["text", "tools"]
            """
        ),
        encoding="utf-8",
    )
    center = Center.open(home)
    try:
        for number in range(20):
            dialog = center.create_dialog()
            dialog.title = f"Stored dialog {number}"
            dialog.append_message(Role.USER, "a question")
            dialog.append_message(Role.ASSISTANT, "## An answer\n\n```python\nprint(1)\n```")
    finally:
        center.close()


def _run_until_resumed(home: Path, report: Path) -> list[dict[str, object]]:
    wrapper = home / "wrapper.py"
    wrapper.write_text(WRAPPER, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEXTUAL", "VISINDIGO"))}
    env.update(TERM="xterm-256color", VISINDIGO_HOME=str(home), VISINDIGO_TEST_KEY="sk-test")
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    process = subprocess.Popen(
        [sys.executable, str(wrapper), str(report)], stdin=slave, stdout=slave, stderr=slave, env=env,
        start_new_session=True,
    )  # fmt: skip
    os.close(slave)
    output = bytearray()

    def drain() -> None:
        try:
            while data := os.read(master, 65536):
                output.extend(data)
        except OSError:
            return

    threading.Thread(target=drain, daemon=True).start()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            lines = report.read_text(encoding="utf-8").splitlines() if report.exists() else []
            if len(lines) >= 3 or process.poll() is not None:
                break
            time.sleep(0.05)
        os.write(master, b"\x11")  # ctrl+q
        process.wait(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    assert lines, f"the app drew no first frame; it wrote:\n{output[-2000:].decode(errors='replace')}"
    return [json.loads(line) for line in lines]


def test_the_first_frame_loads_nothing_it_does_not_need(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _make_home(home)
    first, *after = _run_until_resumed(home, tmp_path / "report.jsonl")
    modules = set(first["modules"])  # type: ignore[arg-type]
    assert "visindigo.tui.main.screen" in modules  # the report is of the real app's first frame
    loaded = {
        name: why for name, why in DEFERRED.items() if any(m == name or m.startswith(name + ".") for m in modules)
    }
    assert loaded == {}, "loaded before the first frame although not needed there"
    # Start-up runs without the garbage collector (it would only scan objects that live as long as the
    # app); after the first frame it is back on, with those objects frozen out of later collections.
    assert first["gc_enabled"] is False
    assert after and int(after[0]["frozen"]) > 10_000  # type: ignore[call-overload]


def test_what_the_first_reply_needs_is_loaded_after_the_first_frame(tmp_path: Path) -> None:
    """The deferred reply machinery is warmed in the background once the first frame is up (issue 14 §3): the
    first reply no longer waits ~0.5 s for imports between Enter and its first token. No key is pressed here."""
    from visindigo.tui.start.warm_up import modules_for

    home = tmp_path / "home"
    _make_home(home)
    first, *after = _run_until_resumed(home, tmp_path / "report.jsonl")
    assert "visindigo.engine.run_loop" not in first["modules"]  # type: ignore[operator]
    warmed = [line for line in after if "warmed" in line]
    assert warmed, "no report of the warm-up"
    assert warmed[0]["warmed"] == sorted(modules_for(["openai"]))
    assert warmed[0]["ssl"] is True


def test_importing_the_start_path_loads_nothing_deferred() -> None:
    """The cheap half of the check above, run first: no module on the start path imports a deferred one at
    its top (a few hundred milliseconds, no terminal)."""
    script = (
        "import importlib, json, sys\n"
        f"for name in {START_PATH!r}: importlib.import_module(name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    modules = set(json.loads(result.stdout))
    assert "visindigo.tui.main.screen" in modules
    loaded = {
        name: why for name, why in DEFERRED.items() if any(m == name or m.startswith(name + ".") for m in modules)
    }
    assert loaded == {}, "imported with the start path although the first frame does not need it"
