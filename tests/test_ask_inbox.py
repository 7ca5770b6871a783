"""`visindigo ask` beside a running app: the dialog goes to the store's inbox and the app takes it in.

Real parts throughout: the app in Pilot on a real SQLite store (holding its lock), `ask` as a subprocess against
the loopback provider server, and the inbox files on disk (`engine/storage/inbox.py`).
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from tests.llm_server import LLMServer, openai_stream
from tests.test_ask_cli import KEY, ask, configure, inbox_files, start_ask, stored
from visindigo.engine import Center, Dialog, Role
from visindigo.engine.storage.inbox import Inbox, read_entry


def texts(dialog: Dialog | None) -> list[tuple[Role, str]]:
    assert dialog is not None
    return [(m.role, m.content) for m in dialog.messages]


async def test_ask_beside_the_app_in_pilot_the_app_lists_shows_and_continues_the_dialog(
    tmp_path: Path, llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.tui.helpers import main_screen, make_app, settle, type_text, wait_until

    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream(["Earlier answer"]))
    assert ask(home, "earlier question").returncode == 0
    llm_server.queue(openai_stream(["From the shell"]), openai_stream(["More from the shell"]))
    llm_server.queue(openai_stream(["In the app"]))
    monkeypatch.setenv("ASK_TEST_KEY", KEY)
    center = Center.open(home)  # the app's Center: it holds the store's lock until closed
    try:
        (earlier,) = center.dialog_summaries()
        app = make_app(center=center)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = main_screen(app)
            assert await wait_until(pilot, lambda: screen.dialog.id == earlier.id)
            # a new question from the shell while the app runs, and -c continuing the one the app shows
            shell = await asyncio.to_thread(ask, home, "a question from the shell")
            assert shell.returncode == 0 and shell.stdout == "From the shell\n" and "inbox" in shell.stderr
            follow = await asyncio.to_thread(ask, home, "--dialog", earlier.id[:8], "more about it")
            assert follow.returncode == 0 and follow.stdout == "More from the shell\n"
            assert inbox_files(home)  # (the app may have listed, taking the first in, meanwhile)
            assert texts(screen.dialog) == [(Role.USER, "earlier question"), (Role.ASSISTANT, "Earlier answer")]
            screen.refresh_tree()  # the app lists its dialogs: it takes the inbox in
            await settle(pilot)
            assert inbox_files(home) == []
            summaries = {s.id: s for s in center.dialog_summaries()}
            assert len(summaries) == 3
            new = next(s for s in summaries.values() if s.title == "a question from the shell")
            branch = next(s for s in summaries.values() if s.id not in (earlier.id, new.id))
            # the dialog the app has open is not written under: the shell's continuation is a branch of it
            assert branch.branch_from_id == earlier.id and branch.message_count == 4
            assert texts(screen.dialog) == [(Role.USER, "earlier question"), (Role.ASSISTANT, "Earlier answer")]
            tree = screen.sidebar.dialog_tree
            assert tree.node_for(new.id) is not None
            await screen.open_dialog(center.get_dialog(new.id))  # type: ignore[arg-type]
            await settle(pilot)
            shown = [screen.pane.view_for(index) for index in range(2)]
            assert [view.copy_text() if view is not None else "" for view in shown] == [
                "a question from the shell",
                "From the shell",
            ]
            await type_text(pilot, "and in the app")
            await pilot.press("enter")
            await settle(pilot)
            assert screen.dialog.last_message.content == "In the app"
        history = [(m["role"], m["content"]) for m in llm_server.requests[-1].json["messages"]]
        assert history == [
            ("user", "a question from the shell"),
            ("assistant", "From the shell"),
            ("user", "and in the app"),
        ]
    finally:
        center.close()
    center = Center.open(home)
    try:
        assert texts(center.get_dialog(new.id))[-1] == (Role.ASSISTANT, "In the app")
        assert texts(center.get_dialog(branch.id))[2:] == [
            (Role.USER, "more about it"),
            (Role.ASSISTANT, "More from the shell"),
        ]
        assert texts(center.get_dialog(earlier.id)) == [
            (Role.USER, "earlier question"),
            (Role.ASSISTANT, "Earlier answer"),
        ]
    finally:
        center.close()


def test_attachments_and_usage_travel_through_the_inbox(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream(["Seen"], usage=(11, 3)))
    (tmp_path / "notes.txt").write_text("line one\nline two\n", encoding="utf-8")
    center = Center.open(home)  # holds the lock, as the app does
    try:
        result = ask(home, "-f", str(tmp_path / "notes.txt"), "read this", stdin=b"piped text\n")
        assert result.returncode == 0, result.stderr
        center.dialog_summaries()
        (summary,) = center.dialog_summaries()
        dialog = center.get_dialog(summary.id)
        assert dialog is not None
        question, answer = dialog.messages
        assert sorted(a.display_name for a in question.attachments) == ["notes.txt", "stdin"]
        assert {a.data for a in question.attachments} == {b"line one\nline two\n", b"piped text\n"}
        assert answer.meta["usage"]["input_tokens"] == 11 and answer.meta["usage"]["output_tokens"] == 3
    finally:
        center.close()


def test_a_crash_between_write_and_rename_leaves_a_temporary_file_that_is_never_read(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream(["Kept"]))
    center = Center.open(home)
    try:
        assert ask(home, "a whole question").returncode == 0
        folder = home / "data" / "inbox"
        (whole,) = inbox_files(home)
        # what a writer killed before its rename leaves: the first half of a file under the temporary name
        half = whole.read_bytes()[: whole.stat().st_size // 2]
        temporary = folder / f".{whole.name}.abc123.tmp"
        temporary.write_bytes(half)
        assert [entry.dialog.title for entry in Inbox(home / "data").latest().values()] == ["a whole question"]
        written = center.take_inbox()
        assert len(written) == 1 and temporary.exists() and inbox_files(home) == []
        assert not list(folder.glob("*.bad"))
        os.utime(temporary, (0, 0))  # an hour later it is known to be left by a crash, and removed
        center.take_inbox()
        assert not temporary.exists()
    finally:
        center.close()
    assert stored(home) == [[(Role.USER, "a whole question"), (Role.ASSISTANT, "Kept")]]


def test_a_corrupt_file_is_one_line_kept_aside_as_bad_and_nothing_else_is_lost(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream(["First"]), openai_stream(["Second"]))
    center = Center.open(home)
    problems: list[str] = []
    assert center.store is not None
    center.store.on_error = problems.append
    try:
        assert ask(home, "first").returncode == 0
        assert ask(home, "second").returncode == 0
        first, _second = inbox_files(home)
        broken = first.with_name("0" + first.name)  # sorts first: read before the good ones
        broken.write_bytes(first.read_bytes()[:-40])  # a truncated document
        foreign = first.with_name("1" + first.name)
        foreign.write_text(json.dumps({"something": "else"}), encoding="utf-8")
        titles = sorted(s.title for s in center.dialog_summaries())  # listing takes the inbox in
        assert titles == ["first", "second"]
        assert sorted(p.name for p in (home / "data" / "inbox").iterdir()) == [
            broken.name + ".bad",
            foreign.name + ".bad",
        ]
        assert len(problems) == 2 and all("\n" not in p and "kept as" in p for p in problems)
        assert broken.name in problems[0] and "not JSON" in problems[0]
        center.dialog_summaries()  # a .bad file is not read again
        assert len(problems) == 2
    finally:
        center.close()


def test_two_asks_at_once_beside_the_app_both_arrive(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream(["Answer A"]), openai_stream(["Answer B"]))
    center = Center.open(home)
    try:
        one = start_ask(home, "question one")
        two = start_ask(home, "question two")
        outputs = [one.communicate(timeout=120), two.communicate(timeout=120)]
        assert one.returncode == 0 and two.returncode == 0, outputs
        assert {out.decode() for out, _ in outputs} == {"Answer A\n", "Answer B\n"}
        assert len(inbox_files(home)) == 2
        dialogs = [center.get_dialog(s.id) for s in center.dialog_summaries()]
        got = sorted(texts(d)[0][1] + " -> " + texts(d)[1][1] for d in dialogs)
        assert len(got) == 2 and {g.split(" -> ")[0] for g in got} == {"question one", "question two"}
        assert inbox_files(home) == []
    finally:
        center.close()


def test_an_inbox_file_taken_in_twice_after_a_crash_before_its_deletion_makes_one_dialog(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    home = configure(tmp_path, llm_server)
    llm_server.queue(*(openai_stream([text]) for text in ("Earlier", "Once", "Continued", "Branch once")))
    assert ask(home, "earlier").returncode == 0
    center = Center.open(home)
    try:
        (earlier,) = center.dialog_summaries()
        assert center.get_dialog(earlier.id) is not None  # the app has it open: a continuation becomes a branch
        assert ask(home, "new one").returncode == 0
        assert ask(home, "-c", "continued").returncode == 0  # -c takes the newest: "new one", in the inbox
        assert ask(home, "--dialog", earlier.id, "in a branch").returncode == 0
        saved = {path: path.read_bytes() for path in inbox_files(home)}
        center.take_inbox()
        count = len(center.dialog_summaries())
        for path, data in saved.items():  # as if the process died after each commit, before each unlink
            path.write_bytes(data)
        center.take_inbox()
        assert len(center.dialog_summaries()) == count and inbox_files(home) == []
    finally:
        center.close()


def test_a_continuation_of_a_dialog_the_app_changed_meanwhile_becomes_a_branch(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream(["Earlier"]), openai_stream(["From the shell"]))
    assert ask(home, "earlier").returncode == 0
    center = Center.open(home)
    try:
        (earlier,) = center.dialog_summaries()
        assert ask(home, "-c", "shell follow-up").returncode == 0
        (path,) = inbox_files(home)
        assert read_entry(path).base == {"message_count": 2, "updated_at": earlier.updated_at}
        center.rename_dialog(earlier.id, "renamed in the app")  # the app changes it (without opening it)
        center.take_inbox()
        summaries = {s.id: s for s in center.dialog_summaries()}
        assert summaries[earlier.id].title == "renamed in the app" and summaries[earlier.id].message_count == 2
        (branch,) = [s for s in summaries.values() if s.id != earlier.id]
        assert branch.branch_from_id == earlier.id
        assert texts(center.get_dialog(branch.id))[2:] == [
            (Role.USER, "shell follow-up"),
            (Role.ASSISTANT, "From the shell"),
        ]
    finally:
        center.close()


def test_an_unchanged_dialog_the_app_has_not_opened_continues_in_place(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream(["Earlier"]), openai_stream(["Continued"]))
    assert ask(home, "earlier").returncode == 0
    center = Center.open(home)
    try:
        assert ask(home, "-c", "follow-up").returncode == 0
        (summary,) = center.dialog_summaries()
        assert texts(center.get_dialog(summary.id)) == [
            (Role.USER, "earlier"),
            (Role.ASSISTANT, "Earlier"),
            (Role.USER, "follow-up"),
            (Role.ASSISTANT, "Continued"),
        ]
    finally:
        center.close()


def test_no_save_beside_the_app_writes_no_inbox_file(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream(["Earlier"]), openai_stream(["Not kept"]))
    assert ask(home, "earlier").returncode == 0
    center = Center.open(home)
    try:
        result = ask(home, "--no-save", "-c", "not kept")
        assert result.returncode == 0 and result.stdout == "Not kept\n"
        assert not (home / "data" / "inbox").exists() or inbox_files(home) == []
    finally:
        center.close()
