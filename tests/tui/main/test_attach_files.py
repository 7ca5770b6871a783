"""Attaching files in the app: the `@` list, the folder tree, a pasted path, the chips, and every refusal — each a
clear line with nothing sent and the typed message kept."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual import events

from visindigo.engine import Capability, Center, ModelInfo, Role
from visindigo.engine.providers import scripted_provider
from visindigo.tui.common.confirm import ConfirmScreen
from visindigo.tui.common.file_picker import FilePickerScreen
from visindigo.tui.mcp.resource_picker import ResourcePickerScreen

from ...engine.attachments.files import png
from ..helpers import answer, main_screen, make_app, settle, type_text, wait_until


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    """The start folder the app is run from, holding a few files."""
    work = tmp_path / "project"
    (work / "docs").mkdir(parents=True)
    (work / "docs" / "notes.md").write_text("# Notes\nthe build breaks on Fridays\n")
    (work / "shot.png").write_bytes(png(40, 20))
    (work / "My Shots").mkdir()
    (work / "My Shots" / "screen 1.png").write_bytes(png(30, 30))
    before = os.getcwd()
    os.chdir(work)
    try:
        yield work
    finally:
        os.chdir(before)


def pending(app: Any) -> list[str]:
    screen = main_screen(app)
    return [a.name for a in screen.workbench.pending_files.of(screen.dialog.id)]


def notices(app: Any) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_at_lists_the_files_fuzzy_and_the_chosen_one_goes_with_the_message(folder: Path) -> None:
    app = make_app([answer("a note about Fridays")])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        screen.composer.input.focus()
        await type_text(pilot, "see ")
        await pilot.press("@")
        picker = await _screen(pilot, ResourcePickerScreen)
        await wait_until(pilot, lambda: picker.files)
        assert sorted(picker.files) == ["My Shots/screen 1.png", "docs/notes.md", "shot.png"]
        await type_text(pilot, "dnts")  # fuzzy: d…n…t…s
        await wait_until(pilot, lambda: picker.rows == ["docs/notes.md"])
        await pilot.press("enter")
        await wait_until(pilot, lambda: pending(app) == ["docs/notes.md"])
        assert screen.composer.text == "see "  # the @ that opened the list is gone, the rest is kept
        chips = screen.composer.chips
        assert chips.display and "docs/notes.md (text · 36 B)" in chips.labels[0]
        await type_text(pilot, "why?")
        await pilot.press("enter")
        await settle(pilot)
        user = next(m for m in screen.dialog.messages if m.role is Role.USER)
        assert user.content == "see why?"
        assert [(a.name, a.text) for a in user.attachments] == [
            ("docs/notes.md", (folder / "docs/notes.md").read_text())
        ]
        assert pending(app) == [] and not chips.display


async def test_one_list_holds_the_dialogs_mcp_resources_and_the_files_and_both_go_with_the_message(
    folder: Path,
) -> None:
    from tests.engine.mcp.helpers import until
    from tests.tui.helpers import make_center
    from tests.tui.mcp.test_mcp_features_app import features_server

    center = make_center([answer("read both")])
    center.add_mcp(features_server())
    app = make_app(center=center)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        screen.composer.input.focus()
        await pilot.press("@")
        picker = await _screen(pilot, ResourcePickerScreen)
        await until(lambda: picker.resources and picker.files)
        await pilot.pause()
        # resources first, then the files, in the one list
        assert picker.rows[:4] == [0, 1, 2, 3]
        assert picker.rows[4:] == ["shot.png", "My Shots/screen 1.png", "docs/notes.md"]
        await type_text(pilot, "hello")  # the filter runs over both: the resource matches
        await wait_until(pilot, lambda: picker.rows[:1] == [0])
        await pilot.press("enter")
        await until(lambda: screen.pending_resources.get(screen.dialog.id))
        await pilot.press("@")
        picker = await _screen(pilot, ResourcePickerScreen)
        await until(lambda: picker.files)
        await type_text(pilot, "notes")
        await wait_until(pilot, lambda: picker.rows[:1] == ["docs/notes.md"])
        await pilot.press("enter")
        await wait_until(pilot, lambda: pending(app) == ["docs/notes.md"])
        await screen.send("what do they say?")
        await settle(pilot)
        [user] = [m for m in screen.dialog.messages if m.role is Role.USER]
        assert [r["uri"] for r in user.meta["resources"]] == ["note://hello"]
        assert [a.name for a in user.attachments] == ["docs/notes.md"]


async def test_a_pasted_path_with_escaped_spaces_and_a_quoted_one_become_chips_removable_by_keyboard(
    folder: Path,
) -> None:
    app = make_app([answer("two pictures")])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        screen.composer.input.focus()
        await type_text(pilot, "compare")
        dropped = f"{folder}/My\\ Shots/screen\\ 1.png '{folder}/shot.png'"
        screen.composer.input.post_message(events.Paste(dropped))
        await wait_until(pilot, lambda: len(pending(app)) == 2)
        assert pending(app) == ["My Shots/screen 1.png", "shot.png"]
        assert screen.composer.text == "compare"  # the paths were not inserted
        # text that is not only paths of files is pasted as text
        screen.composer.input.post_message(events.Paste(" see /no/such/file.png"))
        await wait_until(pilot, lambda: screen.composer.text.endswith("file.png"))
        assert len(pending(app)) == 2
        screen.composer.input.load_text("compare")
        # shift+tab goes to the chips, → picks the second, delete removes it, esc goes back to typing
        await pilot.press("shift+tab")
        assert screen.focused is screen.composer.chips
        await pilot.press("right", "delete")
        assert pending(app) == ["My Shots/screen 1.png"]
        await pilot.press("escape")
        assert screen.focused is screen.composer.input
        await pilot.press("enter")
        await settle(pilot)
        user = next(m for m in screen.dialog.messages if m.role is Role.USER)
        assert [a.name for a in user.attachments] == ["My Shots/screen 1.png"]
        assert (user.attachments[0].width, user.attachments[0].height) == (30, 30)


async def test_a_file_dropped_while_the_dialog_list_or_the_messages_have_the_focus_is_attached_too(
    folder: Path,
) -> None:
    """A terminal pastes a dropped file into whatever has the focus (and `serve`'s page pastes the file it
    received the same way): the dialog list and the messages take no text, so the file is attached all the
    same; the search box takes the paste as text."""
    app = make_app([answer("ok")])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        screen.sidebar.dialog_tree.focus()
        await pilot.pause()
        screen.sidebar.dialog_tree.post_message(events.Paste(f"'{folder}/shot.png'"))
        await wait_until(pilot, lambda: pending(app) == ["shot.png"])
        screen.pane.focus()
        await pilot.pause()
        assert screen.focused is not None and screen.focused is not screen.composer.input
        screen.focused.post_message(events.Paste(f"{folder}/docs/notes.md"))
        await wait_until(pilot, lambda: pending(app) == ["shot.png", "docs/notes.md"])
        search = screen.sidebar.search_input
        search.focus()
        await pilot.pause()
        search.post_message(events.Paste(f"{folder}/My\\ Shots/screen\\ 1.png"))
        await wait_until(pilot, lambda: search.value.endswith("screen\\ 1.png"))
        await pilot.pause()
        assert pending(app) == ["shot.png", "docs/notes.md"]  # the search box kept it as text


async def test_files_alone_can_be_sent_and_name_the_dialog(folder: Path) -> None:
    app = make_app([answer("a picture")])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        screen.files.attach(["shot.png"])
        await wait_until(pilot, lambda: pending(app) == ["shot.png"])
        screen.composer.input.focus()
        await pilot.press("enter")  # nothing typed: the file is the question
        await settle(pilot)
        user = next(m for m in screen.dialog.messages if m.role is Role.USER)
        assert user.content == "" and [a.name for a in user.attachments] == ["shot.png"]
        assert screen.dialog.title == "shot.png"


async def test_the_folder_tree_attaches_a_file(folder: Path) -> None:
    app = make_app([answer("ok")])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("alt+u")
        tree_screen = await _screen(pilot, FilePickerScreen)
        tree = tree_screen.query_one("#tree")
        await wait_until(pilot, lambda: len(tree.root.children) >= 3)
        labels = [str(node.label) for node in tree.root.children]
        assert labels == ["docs", "My Shots", "shot.png"] or "shot.png" in labels
        target = next(n for n in tree.root.children if str(n.label) == "shot.png")
        tree.move_cursor(target)
        await pilot.press("enter")
        await wait_until(pilot, lambda: pending(app) == ["shot.png"])


async def test_a_long_text_file_is_offered_in_part_never_cut_silently(folder: Path) -> None:
    (folder / "big.log").write_text("line of a log\n" * 20_000)  # 280 kB, over the 100 kB default
    app = make_app([answer("ok")])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        screen.files.attach(["big.log"])
        confirm = await _screen(pilot, ConfirmScreen)
        assert "big.log" in confirm._body and "280.0 kB of text" in confirm._body
        await pilot.press("y")
        await wait_until(pilot, lambda: pending(app) == ["big.log"])
        [part] = screen.workbench.pending_files.of(screen.dialog.id)
        assert part.is_part and part.size <= 100_000 and part.text.endswith("\n")
        assert "first 100.0 kB of 280.0 kB" in screen.composer.chips.labels[0]
        screen.files.attach(["big.log"])
        await _screen(pilot, ConfirmScreen)
        await pilot.press("n")  # leave it: nothing more attached
        await pilot.pause()
        assert len(pending(app)) == 1


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda f: "nothing-here.txt", "there is no file 'nothing-here.txt'"),
        (lambda f: "docs", "'docs' is a folder"),
        (lambda f: (os.mkfifo(f / "pipe"), "pipe")[1], "'pipe' is a named pipe (fifo)"),
        (lambda f: "/dev/null", "'/dev/null' is a device"),
        (lambda f: (_sparse(f / "huge.bin", 2 * 1024**3), "huge.bin")[1], "'huge.bin' is 2.1 GB"),
        (lambda f: ((f / "cut.png").write_bytes(png(60, 60)[:120]), "cut.png")[1], "'cut.png' is a broken"),
        (lambda f: ((f / "blob.bin").write_bytes(b"\x00\x01\x02" * 100), "blob.bin")[1], "'blob.bin' is a binary file"),
        (lambda f: ((f / "out").symlink_to("/etc/hostname"), "out")[1], "'out' is a symbolic link leading out"),
    ],
    ids=["missing", "folder", "fifo", "device", "2GB", "truncated-image", "binary", "symlink-out"],
)
async def test_every_bad_file_is_one_line_and_nothing_changes(folder: Path, make: Any, expected: str) -> None:
    path = make(folder)
    app = make_app([answer("never")])
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        screen = main_screen(app)
        screen.composer.input.focus()
        await type_text(pilot, "keep me")
        screen.files.attach([path])
        await wait_until(pilot, lambda: any("Not attached" in n for n in notices(app)))
        [line] = [n for n in notices(app) if "Not attached" in n]
        assert expected in line and "\n" not in line and "Traceback" not in line
        assert pending(app) == [] and screen.composer.text == "keep me"
        assert screen.dialog.message_count == 0


async def test_a_file_that_changes_while_it_is_read_is_refused(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The unreadable file, the image over every limit and the rest are the engine's (tests/engine/attachments);
    here the line reaches the user the same way."""
    from visindigo.engine.attachments import reading

    real_chunks = reading.read_chunks
    (folder / "growing.log").write_bytes(b"a" * 4096)

    def growing(fd: int) -> Iterator[bytes]:
        for chunk in real_chunks(fd):
            with open(folder / "growing.log", "ab") as out:
                out.write(b"more\n")
            yield chunk

    monkeypatch.setattr(reading, "read_chunks", growing)
    app = make_app([answer("never")])
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        screen = main_screen(app)
        screen.files.attach(["growing.log"])
        await wait_until(pilot, lambda: any("Not attached" in n for n in notices(app)))
        assert "'growing.log' changed while it was read" in notices(app)[-1]
        assert pending(app) == []


async def test_images_to_a_text_model_are_refused_naming_one_that_takes_them(folder: Path) -> None:
    center = Center()
    text_only = [ModelInfo("small", name="Small", capabilities=Capability.TEXT)]
    center.add_provider(scripted_provider([answer("never")], id="local", name="Local", models=text_only))
    seeing = [ModelInfo("eyes", name="Eyes", capabilities=Capability.TEXT | Capability.IMAGE)]
    center.add_provider(scripted_provider([], id="other", name="Other", models=seeing))
    app = make_app(center=center)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        screen = main_screen(app)
        screen.dialog.provider_id, screen.dialog.model_id = "local", "small"
        screen.files.attach(["shot.png"])
        await wait_until(pilot, lambda: pending(app) == ["shot.png"])
        screen.composer.input.focus()
        await type_text(pilot, "what is it?")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("takes no images" in n for n in notices(app)))
        line = next(n for n in notices(app) if "takes no images" in n)
        assert "'Small' takes no images" in line and "'Eyes' of Other" in line
        assert screen.dialog.message_count == 0  # nothing sent
        assert screen.composer.text == "what is it?" and pending(app) == ["shot.png"]  # nothing lost


async def test_a_sent_file_is_in_the_store_and_shown_after_a_restart(folder: Path, tmp_path: Path) -> None:
    from textual.widgets import Static

    home = tmp_path / "home"
    center = Center.open(home)
    center.add_provider(scripted_provider([answer("a blue picture")]))
    try:
        app = make_app(center=center)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = main_screen(app)
            screen.files.attach(["shot.png"])
            await wait_until(pilot, lambda: pending(app) == ["shot.png"])
            await screen.send("what is it?")
            await settle(pilot)
            sent_id = screen.dialog.id
    finally:
        center.close()
    again = Center.open(home)
    again.add_provider(scripted_provider([]))
    try:
        app = make_app(center=again)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = main_screen(app)
            await wait_until(pilot, lambda: screen.dialog.id == sent_id and screen.pane.view_for(0) is not None)
            view = screen.pane.view_for(0)
            assert view is not None
            lines = [str(w.render()) for w in view.query(".attachment").results(Static)]
            assert len(lines) == 1 and lines[0].startswith("▣ shot.png (image · 40×20 · ")
            assert view.query(".picture")  # drawn again from the stored bytes
            assert screen.dialog.message_at(0).attachments[0].data == (folder / "shot.png").read_bytes()
    finally:
        again.close()


async def _screen(pilot: Any, kind: type) -> Any:
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, kind))
    assert isinstance(pilot.app.screen, kind), type(pilot.app.screen)
    return pilot.app.screen


def _sparse(path: Path, size: int) -> None:
    with open(path, "wb") as out:
        out.truncate(size)
