"""Starting up: first run with nothing configured, the demo, --provider/--model, templates, and the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from tests.tui.helpers import answer, main_screen, make_app, make_center, settle, type_text
from tests.tui.platform.textual_snapshot import run_snapshot
from visindigo.cli import build_parser, main, serve_command
from visindigo.engine import Center, Message, Role
from visindigo.tui.app import AppOptions, VisindigoApp, configured_fps
from visindigo.tui.chat.message_view import AlternativeSwitch
from visindigo.tui.main.screen import MainScreen
from visindigo.tui.setup.first_run import FirstRunScreen


async def _first_run_shown(pilot: Any) -> None:
    """First-run setup opens once the main screen is up; on a busy machine that can take a moment."""
    for _ in range(100):
        if isinstance(pilot.app.screen, FirstRunScreen):
            return
        await pilot.pause(0.05)


async def test_first_run_with_nothing_configured_offers_setup_and_the_demo() -> None:
    app = VisindigoApp(Center(), AppOptions(demo_delay=0.0))
    async with app.run_test(size=(100, 30)) as pilot:
        await _first_run_shown(pilot)
        assert isinstance(app.screen, FirstRunScreen)
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        screen = main_screen(app)
        assert screen.center.default_provider_id == "demo"
        assert screen.dialog.message_count == 4  # the seeded demo dialog, opened


async def test_skipping_first_run_leaves_a_working_screen_that_explains_what_to_do() -> None:
    app = VisindigoApp(Center(), AppOptions())
    async with app.run_test(size=(80, 24)) as pilot:
        await _first_run_shown(pilot)
        await pilot.press("escape")
        await pilot.pause()
        screen = main_screen(app)
        assert app.screen is screen
        await pilot.press(*"hello")
        await pilot.press("enter")
        await settle(pilot)
        notices = [str(n.content) for n in screen.pane.query(".-info, Notice")]
        assert any("no provider is configured" in n for n in notices)
        assert screen.dialog.message_at(0).content == "hello"  # nothing the user typed is lost


async def test_the_demo_shows_reasoning_a_tool_call_and_a_branch_then_streams_live() -> None:
    app = VisindigoApp(Center(), AppOptions(demo=True, demo_delay=0.0, stream_fps=30))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        for _ in range(200):  # the live question is asked once the screen is up
            await pilot.pause(0.05)
            if screen.dialog.message_count >= 8 and not screen.runs.running_ids():
                break
        await settle(pilot)
        dialog = screen.dialog
        roles = [m.role for m in dialog.messages]
        assert roles[:4] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
        assert dialog.message_at(4).content == "And the weather in Osaka?"  # the live question
        assert dialog.message_at(dialog.message_count - 1).role is Role.ASSISTANT
        assert dialog.branch_from_id  # a branch of the seeded dialog
        assert len(screen.sidebar.dialog_tree.root.children) == 1
        assert list(screen.pane.view_for(3).query(AlternativeSwitch))  # type: ignore[union-attr]
        assert screen.drawer.text  # reasoning of the last answer


async def test_the_demo_names_its_model_in_the_status_line_before_its_dialogs_are_seeded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--demo` is ready when its model is named (issue 23's start-up row): its provider comes with the first
    dialog, so the first frame names it; the two seeded replies are run and rendered after it."""
    from visindigo.tui.start.sequence import StartUp

    seeding: list[int] = []

    async def seed_later(self: StartUp, screen: Any) -> None:  # held back: what shows before the seeding
        seeding.append(screen.dialog.message_count)

    monkeypatch.setattr(StartUp, "seed_demo", seed_later)
    app = VisindigoApp(Center(), AppOptions(demo=True, demo_delay=0.0, stream_fps=30))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        for _ in range(100):
            await pilot.pause(0.02)
            if seeding:
                break
        await pilot.pause()
        assert seeding == [0]  # the seeding was asked for, with nothing seeded yet
        assert "Visindigo demo" in str(screen.status_line.render())


async def test_provider_and_model_from_the_command_line_apply_to_the_first_dialog() -> None:
    center = make_center([answer("hi")])
    app = make_app(center=center, provider="scripted", model="scripted-model")
    async with app.run_test() as pilot:
        await pilot.pause()
        screen = main_screen(app)
        assert screen.dialog.provider_id == "scripted"
        assert screen.dialog.model_id == "scripted-model"
    center = make_center([answer("hi")])
    app = make_app(center=center, provider="nope")
    async with app.run_test(notifications=True) as pilot:
        await pilot.pause()
        assert any("'nope' is not configured" in n.message for n in app._notifications)
        assert main_screen(app).dialog.provider_id == ""


def test_stream_fps_comes_from_the_option_the_environment_or_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    center = Center()
    monkeypatch.delenv("VISINDIGO_STREAM_FPS", raising=False)
    assert configured_fps(center, AppOptions()) == 4.0
    monkeypatch.setenv("VISINDIGO_STREAM_FPS", "3")
    assert configured_fps(center, AppOptions()) == 3.0
    assert configured_fps(center, AppOptions(stream_fps=2)) == 2.0
    monkeypatch.setenv("VISINDIGO_STREAM_FPS", "fast")
    assert configured_fps(center, AppOptions()) == 4.0


async def test_a_filled_template_is_sent_or_put_in_the_composer() -> None:
    center = make_center([answer("templated answer")])
    app = make_app(center=center)
    async with app.run_test() as pilot:
        screen = main_screen(app)
        prompt = Message(Role.PROMPT, "Review this: x = 1", name="review")
        await screen.insert_template([prompt], send=False)
        assert screen.composer.text == "Review this: x = 1"
        assert screen.dialog.message_count == 0
        await pilot.press("escape")  # esc drops the template
        assert screen.composer.text == "" and screen.composer.template is None
        await screen.insert_template([prompt], send=True)
        await settle(pilot)
        assert [m.role for m in screen.dialog.messages] == [Role.PROMPT, Role.ASSISTANT]
        assert screen.dialog.message_at(0).name == "review"
        assert screen.dialog.title == "Review this: x = 1"


async def test_an_edited_template_is_still_sent_as_the_templates_message() -> None:
    """ "Edit first" puts the text in the composer; what is sent from there is the template's PROMPT message
    (named after the template) with the edited text, and the draft that was in the box comes back after."""
    center = make_center([answer("one"), answer("two")])
    app = make_app(center=center)
    async with app.run_test() as pilot:
        screen = main_screen(app)
        await type_text(pilot, "my draft")
        prompt = Message(Role.PROMPT, "Review this: x = 1", name="review")
        await screen.insert_template([prompt], send=False)
        assert screen.composer.text == "Review this: x = 1"
        assert "review" in str(screen.composer.query_one(".mode", Static).content)
        await type_text(pilot, " and y")
        await pilot.press("enter")
        await settle(pilot)
        sent = screen.dialog.message_at(0)
        assert (sent.role, sent.name, sent.content) == (Role.PROMPT, "review", "Review this: x = 1 and y")
        assert screen.composer.text == "my draft" and screen.composer.template is None
        # a template whose text is deleted entirely is given up: the next message is an ordinary one
        screen.composer.clear()
        await screen.insert_template([prompt], send=False)
        await pilot.press("ctrl+a", "shift+end", "backspace")
        assert screen.composer.template is None
        await type_text(pilot, "plain question")
        await pilot.press("enter")
        await settle(pilot)
        sent = screen.dialog.message_at(2)
        assert (sent.role, sent.name, sent.content) == (Role.USER, "", "plain question")


async def test_the_demo_keeps_its_templates_in_a_temporary_folder_with_a_sample(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`visindigo --demo` writes nothing into the folder it was started from (it used to create
    ./.visindigo-prompts); its library is a temporary folder (a `TemporaryDirectory`, removed when the process
    ends) with one sample template."""
    from visindigo.tui.templates.form import TemplateFormScreen
    from visindigo.tui.templates.library import TemplateLibraryScreen

    monkeypatch.chdir(tmp_path)
    app = VisindigoApp(Center(), AppOptions(demo=True, demo_delay=0.0, demo_live_question=False, stream_fps=30))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = main_screen(app)
        await pilot.press("ctrl+n", "f6")
        await pilot.pause(0.3)
        assert isinstance(app.screen, TemplateLibraryScreen)
        assert [entry.name for entry in app.screen.shown()] == ["Weather report"]
        folder = app.template_library().folder
        assert not folder.is_relative_to(tmp_path)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TemplateFormScreen)
        await pilot.press(*"Oslo", "ctrl+s")
        await settle(pilot)
        first = screen.dialog.message_at(0)
        assert (first.role, first.name) == (Role.PROMPT, "Weather report")
        assert first.content.startswith("What's the weather in Oslo?")
        assert screen.dialog.message_at(screen.dialog.message_count - 1).role is Role.ASSISTANT
    assert list(tmp_path.iterdir()) == []


# --- the command line ---------------------------------------------------------------------------------------------


def test_version_and_help_answer_without_loading_textual() -> None:
    code = (
        "import sys\nfrom visindigo.cli import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "print('textual' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip().endswith("False")
    assert result.stdout.startswith("visindigo ")
    help_text = subprocess.run(
        [sys.executable, "-m", "visindigo", "--help"], capture_output=True, text=True, check=True
    ).stdout
    for flag in ("--demo", "--provider", "--model", "--config", "--data-dir", "--fps", "serve"):
        assert flag in help_text


def test_serve_runs_the_same_options_in_each_session_and_defaults_to_loopback() -> None:
    args = build_parser().parse_args(["--demo", "serve", "--fps", "3", "--data-dir", "/tmp/d"])
    assert args.host == "127.0.0.1" and args.port == 8000
    command = serve_command(args)
    assert command[:3] == [sys.executable, "-m", "visindigo"]
    assert "--demo" in command and command[command.index("--fps") + 1] == "3.0"
    assert command[command.index("--data-dir") + 1] == "/tmp/d"


def test_bad_input_is_one_clear_line_not_a_traceback(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["--fps", "1000"]) == 1
    assert "--fps must be between" in capsys.readouterr().err
    from visindigo.engine.paths import resolve_paths
    from visindigo.engine.storage.lock import DataDirLock

    paths = resolve_paths(tmp_path)
    paths.data_dir.mkdir(parents=True)
    lock = DataDirLock(paths.lock_file)
    lock.acquire()
    try:
        assert main(["--data-dir", str(paths.data_dir), "--config", str(paths.config_file)]) == 1
    finally:
        lock.release()
    error = capsys.readouterr().err
    assert error.startswith("visindigo: ") and "Traceback" not in error


def test_the_app_installs_its_textual_patches_when_it_is_made_not_when_a_module_is_imported() -> None:
    """Importing every visindigo.tui module changes nothing in Textual (every member of every Textual module and
    class is compared, in a fresh interpreter); making the app replaces exactly what the seam lists."""
    report = run_snapshot()
    assert int(report["modules"]) > 80  # type: ignore[call-overload]
    assert report["changed_by_imports"] == []
    assert report["targets"] and sorted(report["changed_by_app"]) == sorted(report["targets"])  # type: ignore[call-overload]


def test_a_plain_start_reads_the_run_options_defaults_without_argparse() -> None:
    """`visindigo` with no arguments gets what the run options' parser would give it, without loading argparse
    (and gettext) on the way to the first frame."""
    from visindigo.cli import RUN_DEFAULTS, parse_arguments

    assert vars(build_parser(commands=False).parse_args([])) == RUN_DEFAULTS == vars(parse_arguments([]))
    script = "import sys\nfrom visindigo.cli import parse_arguments as p\np([])\nprint('argparse' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60)
    assert result.stdout.strip() == "False"
    assert parse_arguments(["--demo", "--fps", "2"]).demo is True
