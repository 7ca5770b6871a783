"""`visindigo ask`, end to end: a real `python -m visindigo ask` against the loopback provider server, the store read
back as the app opens it (`Center.open` on the same home)."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hostile_text import HOSTILE, MARKERS, leaks, run_in_pty
from tests.llm_server import LLMServer, error_reply, openai_stream, openai_tool_call
from tests.plugin_package import install_example_tools
from visindigo.engine import Center, Role

ROOT = Path(__file__).resolve().parents[1]
HOLDER = ROOT / "tests" / "engine" / "storage" / "hold_store.py"
KEY = "sk-ask-test"
#: A model that takes tools (a configured model takes text alone unless the config says more).
TOOL_MODEL = '[{ id = "test-model", capabilities = ["text", "tools"] }]'


def configure(home: Path, server: LLMServer, extra: str = "", models: str = '[{ id = "test-model" }]') -> Path:
    """A config naming the loopback server as the default provider (no retries: a failure is final at once)."""
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.toml").write_text(
        f'default_provider = "loop"\n{extra}\n\n[providers.loop]\nkind = "openai"\nbase_url = "{server.openai_url}"\n'
        f'api_key_env = "ASK_TEST_KEY"\nmodels = {models}\nsettings = {{ max_retries = 0 }}\n',
        encoding="utf-8",
    )
    return home


def environment(home: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "VISINDIGO_HOME": str(home), "ASK_TEST_KEY": KEY, **extra}


def ask(home: Path, *argv: str, stdin: bytes = b"", **env: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "visindigo", "ask", *argv],
        input=stdin,
        capture_output=True,
        env=environment(home, **env),
        timeout=120,
        cwd=ROOT,
    )
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def stored(home: Path) -> list[list[tuple[Role, str]]]:
    """Every dialog of the store as the app opens it, newest first: (role, content) of each message."""
    center = Center.open(home)
    try:
        summaries = sorted(center.dialog_summaries(), key=lambda s: (s.updated_at, s.created_at), reverse=True)
        dialogs = [center.get_dialog(summary.id) for summary in summaries]
        return [[(m.role, m.content) for m in dialog.messages] for dialog in dialogs if dialog is not None]
    finally:
        center.close()


def start_ask(home: Path, *argv: str) -> subprocess.Popen[bytes]:
    """`visindigo ask` running, its stdout and stderr pipes to read as it writes."""
    return subprocess.Popen(
        [sys.executable, "-m", "visindigo", "ask", *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment(home),
        cwd=ROOT,
    )


@contextlib.contextmanager
def app_holding(home: Path) -> Iterator[None]:
    """Another process holds the store of `home` open, as a running app does."""
    holder = subprocess.Popen([sys.executable, str(HOLDER), str(home)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        yield
    finally:
        holder.kill()
        holder.wait(timeout=10)


def only_dialog(home: Path) -> Center:
    center = Center.open(home)
    assert len(center.dialog_summaries()) == 1
    return center


# --- the pipe ---------------------------------------------------------------------------------------------------


def test_a_piped_log_goes_in_as_an_attached_text_and_the_answer_comes_out_plain(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream(["The build ", "fails because", " of **boom**."], usage=(10, 5)))
    log = b"step 1 ok\nerror: boom\n"
    result = ask(home, "why does this fail?", stdin=log)
    assert (result.returncode, result.stdout, result.stderr) == (0, "The build fails because of **boom**.\n", "")
    sent = llm_server.requests[-1].json
    assert sent["model"] == "test-model" and sent["stream"] is True
    content = sent["messages"][-1]["content"]
    assert sent["messages"][-1]["role"] == "user" and "stdin" in content and "error: boom" in content
    assert content.index("error: boom") < content.index("why does this fail?")  # the file first, then the question
    center = only_dialog(home)
    try:
        summary = center.dialog_summaries()[0]
        assert summary.title == "why does this fail?" and summary.message_count == 2
        dialog = center.get_dialog(summary.id)
        assert dialog is not None
        question, answer = dialog.messages
        assert question.content == "why does this fail?"
        [piped] = question.attachments  # the log is kept with the question, as the app keeps an attached file
        assert (piped.name, piped.data) == ("stdin", log)
        assert answer.role is Role.ASSISTANT and answer.content == "The build fails because of **boom**."
    finally:
        center.close()


def test_files_are_attached_by_the_composers_rules(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path / "home", llm_server)
    notes = tmp_path / "notes.py"
    notes.write_text("print('hi')\n", encoding="utf-8")
    big = tmp_path / "big.log"
    big.write_bytes(b"x" * 60 + b"\n" + b"y" * 150_000)
    llm_server.queue(openai_stream(["ok"]), openai_stream(["part"]))
    result = ask(home, "-f", str(notes), "explain")
    assert result.returncode == 0, result.stderr
    assert "print('hi')" in llm_server.requests[-1].json["messages"][-1]["content"]

    refused = ask(home, "-f", str(big), "summarise")  # over the 100 kB text limit: refused, with the way on
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and "--first-part" in refused.stderr and "Traceback" not in refused.stderr
    assert len(llm_server.requests) == 1  # nothing was sent
    taken = ask(home, "--first-part", "-f", str(big), "summarise")
    assert taken.returncode == 0, taken.stderr
    content = llm_server.requests[-1].json["messages"][-1]["content"]
    assert "x" * 60 in content and "y" * 1000 not in content  # cut at the line end within the limit

    for bad, why in [(tmp_path / "nowhere.txt", "there is no file"), (tmp_path, "is a folder")]:
        result = ask(home, "-f", str(bad), "what is this?")
        assert result.returncode == 1 and why in result.stderr and result.stderr.count("\n") == 1, result.stderr
    binary = ask(home, "what is this?", stdin=b"\x00\x01\x02binary")
    assert binary.returncode == 1 and "binary file" in binary.stderr
    assert len(stored(home)) == 2  # the refused questions left nothing in the store


def test_the_providers_text_limit_applies_as_in_the_app(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path / "home", llm_server)
    config = home / "config" / "config.toml"
    text = config.read_text(encoding="utf-8").replace("max_retries = 0", "max_retries = 0, attachment_text_limit = 200")
    config.write_text(text, encoding="utf-8")
    notes = tmp_path / "notes.txt"
    notes.write_text("a line of notes\n" * 40, encoding="utf-8")  # 640 B: under the default, over this provider's
    refused = ask(home, "-f", str(notes), "summarise")
    assert refused.returncode == 1 and "(200 B)" in refused.stderr and "--first-part" in refused.stderr, refused.stderr
    assert llm_server.requests == []


def test_an_image_for_a_model_without_images_is_refused_before_anything_is_sent(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    import io

    from PIL import Image

    picture = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(picture, format="PNG")
    home = configure(tmp_path, llm_server)
    result = ask(home, "what is in this picture?", stdin=picture.getvalue())
    assert result.returncode == 1 and "takes no images" in result.stderr and result.stderr.count("\n") == 1
    assert llm_server.requests == [] and stored(home) == []


# --- --json -----------------------------------------------------------------------------------------------------


def test_json_writes_one_event_per_line_and_reasoning_goes_to_stderr_only_when_asked(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    home = configure(tmp_path, llm_server)
    llm_server.queue(
        openai_stream(["Hel", "lo"], reasoning=["Thinking", " hard"], usage=(7, 2)),
        openai_stream(["Hi"], reasoning=["Pondering"]),
        openai_stream(["Hey"], reasoning=["Musing"]),
    )
    result = ask(home, "--json", "greet me")
    assert result.returncode == 0 and result.stderr == ""
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["type"] for r in records] == [
        "stream_began",
        "stream_reasoning",
        "stream_reasoning",
        "stream_delta",
        "stream_delta",
        "usage_reported",
        "stream_ended",
        "run_finished",
        "end",
    ]
    assert "".join(r["text"] for r in records if r["type"] == "stream_delta") == "Hello"
    assert records[5]["input_tokens"] == 7 and records[5]["output_tokens"] == 2
    end = records[-1]
    assert (end["status"], end["exit_code"], end["saved"]) == ("answered", 0, True)
    assert uuid.UUID(end["dialog_id"]).version == 4  # made without the uuid module (start-up), still a UUID
    center = only_dialog(home)
    try:
        assert center.get_dialog(end["dialog_id"]) is not None
    finally:
        center.close()

    plain = ask(home, "-c", "again")
    assert (plain.stdout, plain.stderr) == ("Hi\n", "")  # no reasoning without --reasoning
    shown = ask(home, "-c", "--reasoning", "once more")
    assert (shown.stdout, shown.stderr) == ("Hey\n", "Musing\n")


# --- the store: --continue, --dialog, --no-save, a running app ----------------------------------------------------


def test_continue_and_dialog_append_to_dialogs_the_app_lists(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path, llm_server)
    for answer in ("A1", "A2", "B1", "A3"):
        llm_server.queue(openai_stream([answer]))
    assert ask(home, "first question").returncode == 0
    assert ask(home, "-c", "second question").returncode == 0
    history = llm_server.requests[-1].json["messages"]
    assert [(m["role"], m["content"]) for m in history] == [
        ("user", "first question"),
        ("assistant", "A1"),
        ("user", "second question"),
    ]
    assert ask(home, "another dialog").returncode == 0
    center = Center.open(home)
    try:
        first = next(s for s in center.dialog_summaries() if s.title == "first question")
    finally:
        center.close()
    result = ask(home, "--dialog", first.id[:6], "third question")
    assert result.returncode == 0 and result.stdout == "A3\n"
    dialogs = stored(home)
    assert dialogs[0] == [
        (Role.USER, "first question"),
        (Role.ASSISTANT, "A1"),
        (Role.USER, "second question"),
        (Role.ASSISTANT, "A2"),
        (Role.USER, "third question"),
        (Role.ASSISTANT, "A3"),
    ]
    assert dialogs[1] == [(Role.USER, "another dialog"), (Role.ASSISTANT, "B1")]


def test_no_save_keeps_the_store_as_it_was(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream(["One"]), openai_stream(["Two"]), openai_stream(["Three"]))
    result = ask(home, "--no-save", "--json", "a question")
    assert result.returncode == 0 and result.stderr == ""
    assert json.loads(result.stdout.splitlines()[-1])["saved"] is False
    assert not (home / "data").exists()  # nothing was created either
    assert ask(home, "kept").returncode == 0
    result = ask(home, "--no-save", "-c", "follow-up")  # reads the dialog to continue, writes nothing
    assert result.returncode == 0
    assert [m["content"] for m in llm_server.requests[-1].json["messages"]] == ["kept", "Two", "follow-up"]
    assert stored(home) == [[(Role.USER, "kept"), (Role.ASSISTANT, "Two")]]


@pytest.fixture
def held(tmp_path: Path, llm_server: LLMServer) -> Iterator[Path]:
    """A configured home with one dialog, whose store another process holds open, as a running app does."""
    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream(["Earlier answer"]))
    assert ask(home, "earlier question").returncode == 0
    with app_holding(home):
        yield home


def inbox_files(home: Path) -> list[Path]:
    return sorted((home / "data" / "inbox").glob("*.json"))


def test_beside_a_running_app_the_dialog_goes_to_the_inbox_and_continues_from_there(
    held: Path, llm_server: LLMServer
) -> None:
    llm_server.queue(openai_stream(["Answered anyway"]), openai_stream(["Continued"]), openai_stream(["Again"]))
    result = ask(held, "a new question")
    assert result.returncode == 0 and result.stdout == "Answered anyway\n"
    assert "inbox" in result.stderr and "process " in result.stderr and result.stderr.count("\n") == 1
    assert len(inbox_files(held)) == 1
    result = ask(held, "-c", "and a follow-up")  # the dialog changed last is the one waiting in the inbox
    assert result.returncode == 0 and result.stdout == "Continued\n"
    assert [m["content"] for m in llm_server.requests[-1].json["messages"]] == [
        "a new question",
        "Answered anyway",
        "and a follow-up",
    ]
    earlier = next(s for s in Center.open(held, read_only=True).dialog_summaries() if s.title == "earlier question")
    result = ask(held, "--dialog", earlier.id[:8], "back to the first")  # the app's own dialog, read beside it
    assert result.returncode == 0 and result.stdout == "Again\n"
    assert [m["content"] for m in llm_server.requests[-1].json["messages"]] == [
        "earlier question",
        "Earlier answer",
        "back to the first",
    ]
    assert len(inbox_files(held)) == 3


def test_the_app_takes_the_inbox_in_at_its_next_start(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream(["Earlier answer"]), openai_stream(["Kept for the app"]))
    assert ask(home, "earlier question").returncode == 0
    with app_holding(home):
        result = ask(home, "-c", "asked while the app runs", "--json")
        assert result.returncode == 0
        end = json.loads(result.stdout.splitlines()[-1])
        assert end["type"] == "end" and end["saved"] is True
    assert stored(home) == [
        [
            (Role.USER, "earlier question"),
            (Role.ASSISTANT, "Earlier answer"),
            (Role.USER, "asked while the app runs"),
            (Role.ASSISTANT, "Kept for the app"),
        ]
    ]
    assert inbox_files(home) == []


def test_two_asks_at_once_beside_the_app_both_reach_its_store(held: Path, llm_server: LLMServer) -> None:
    llm_server.queue(*(openai_stream([f"Answer {n}", " (slow)"], delay_between=0.5) for n in range(2)))
    processes = [start_ask(held, "-c", f"question {n}") for n in range(2)]  # both continue the same dialog
    outputs = [process.communicate(timeout=120) for process in processes]
    assert [process.returncode for process in processes] == [0, 0], outputs
    assert len(inbox_files(held)) == 2
    center = Center.open(held, read_only=True)
    try:
        assert len(center.dialog_summaries()) == 1  # beside the app, the newest file of the dialog is what is seen
    finally:
        center.close()


def test_two_asks_at_once_lose_nothing_when_the_app_takes_them_in(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream(["Earlier answer"]))
    assert ask(home, "earlier question").returncode == 0
    llm_server.queue(*(openai_stream([f"Answer {n}", " (slow)"], delay_between=0.5) for n in range(3)))
    with app_holding(home):
        processes = [start_ask(home, "-c", "continued"), start_ask(home, "-c", "continued"), start_ask(home, "new")]
        for process in processes:
            process.communicate(timeout=120)
        assert [process.returncode for process in processes] == [0, 0, 0]
        assert len(inbox_files(home)) == 3
    dialogs = stored(home)  # the app's start takes the three in: one in place, one as its branch, one new
    assert inbox_files(home) == []
    assert sorted(len(d) for d in dialogs) == [2, 4, 4]
    answers = sorted(d[-1][1] for d in dialogs)
    assert answers == ["Answer 0 (slow)", "Answer 1 (slow)", "Answer 2 (slow)"]
    continued = [d for d in dialogs if len(d) == 4]
    assert all(
        d[:3] == [(Role.USER, "earlier question"), (Role.ASSISTANT, "Earlier answer"), (Role.USER, "continued")]
        for d in continued
    )
    center = Center.open(home)
    try:
        parents = {s.branch_from_id for s in center.dialog_summaries()} - {""}
        assert len(parents) == 1  # the second continuation is a branch of the first's dialog
    finally:
        center.close()


def test_ctrl_c_beside_the_app_keeps_the_partial_answer_in_the_inbox(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream(["First words", *[f" more {n}" for n in range(40)]], delay_between=0.25))
    with app_holding(home):
        process = start_ask(home, "tell me a long story")
        assert process.stdout is not None
        assert _read_some(process.stdout.fileno()).startswith(b"First words")
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=60)
        assert process.returncode == 130 and len(inbox_files(home)) == 1
    center = only_dialog(home)
    try:
        dialog = center.get_dialog(center.dialog_summaries()[0].id)
        assert dialog is not None
        assert dialog.last_message.meta.get("status") == "interrupted"
        assert dialog.last_message.content.startswith("First words")
    finally:
        center.close()


def test_no_save_beside_the_app_writes_no_inbox(held: Path, llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["Not kept"]))
    result = ask(held, "--no-save", "a passing question")
    assert (result.returncode, result.stdout, result.stderr) == (0, "Not kept\n", "")
    assert not (held / "data" / "inbox").exists()


async def test_ask_beside_the_app_in_pilot_appears_in_its_tree_and_continues_there(
    tmp_path: Path, llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from tests.tui.helpers import main_screen, make_app, settle, type_text, wait_until

    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream(["Shell answer"]), openai_stream(["In the app"]), openai_stream(["Shell again"]))
    monkeypatch.setenv("ASK_TEST_KEY", KEY)
    center = Center.open(home)  # the app holds the store (and its lock) while `ask` runs as a subprocess
    try:
        app = make_app(center=center)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = main_screen(app)
            tree = screen.sidebar.dialog_tree
            result = await asyncio.to_thread(ask, home, "asked from the shell")
            assert result.returncode == 0 and result.stdout == "Shell answer\n" and "inbox" in result.stderr
            (waiting,) = inbox_files(home)
            assert await wait_until(pilot, lambda: not waiting.exists())  # taken in without a key pressed
            (summary,) = center.dialog_summaries()
            assert await wait_until(pilot, lambda: tree.node_for(summary.id) is not None)
            node = tree.node_for(summary.id)
            assert node is not None and "asked from the shell" in str(node.label)
            await screen.open_dialog_id(summary.id)
            await settle(pilot)
            texts = [view.copy_text() if (view := screen.pane.view_for(i)) is not None else "" for i in range(2)]
            assert texts == ["asked from the shell", "Shell answer"]
            await type_text(pilot, "continued in the app")
            await pilot.press("enter")
            await settle(pilot)
            assert await wait_until(pilot, lambda: screen.dialog.last_message.content == "In the app")
            assert [m["content"] for m in llm_server.requests[-1].json["messages"]] == [
                "asked from the shell",
                "Shell answer",
                "continued in the app",
            ]
            # and `ask -c` continues it from the shell again: the app has it open, so it comes back as its branch
            result = await asyncio.to_thread(ask, home, "-c", "and from the shell again")
            assert result.returncode == 0 and result.stdout == "Shell again\n"
            assert [m["content"] for m in llm_server.requests[-1].json["messages"]][-3:] == [
                "continued in the app",
                "In the app",
                "and from the shell again",
            ]
            assert await wait_until(pilot, lambda: len(center.dialog_summaries()) == 2)
            branch = next(s for s in center.dialog_summaries() if s.branch_from_id == summary.id)
            assert await wait_until(pilot, lambda: tree.node_for(branch.id) is not None)
            assert [m.content for m in screen.dialog.messages][-1] == "In the app"  # the open dialog is undisturbed
    finally:
        center.close()
    assert sorted(len(d) for d in stored(home)) == [4, 6]


# --- exit codes ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--no-such-option", "q"], "unrecognized arguments"),
        ([], "no question"),
        (["-v", "a=b", "q"], "--template NAME"),
        (["--template", "x", "-v", "novalue", "q"], "-v takes NAME=VALUE"),
        (["-c", "q"], "no dialog to continue"),
        (["--dialog", "zz-none", "q"], "no dialog has an id beginning with 'zz-none'"),
        (["-c", "--dialog", "x", "q"], "not allowed with argument"),
        (["--provider", "nope", "q"], "--provider 'nope' is not configured (known: loop)"),
        (["--template", "Nope", "q"], "there is no template named 'Nope'"),
    ],
)
def test_wrong_usage_is_status_2_with_one_clear_line(
    tmp_path: Path, llm_server: LLMServer, argv: list[str], says: str
) -> None:
    home = configure(tmp_path, llm_server)
    result = ask(home, *argv)
    assert result.returncode == 2 and result.stdout == ""
    assert says in result.stderr and "Traceback" not in result.stderr
    if not says.startswith(("unrecognized", "not allowed")):  # argparse adds its usage line
        assert result.stderr.count("\n") == 1, result.stderr
    assert llm_server.requests == []
    assert not (home / "data" / "visindigo.db").exists() or stored(home) == []


def test_a_failed_answer_is_status_1_with_one_line_and_the_question_kept(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path, llm_server)
    llm_server.queue(error_reply(400, "the model is not loaded"))
    result = ask(home, "will this work?")
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "the model is not loaded" in result.stderr
    assert stored(home) == [[(Role.USER, "will this work?")]]  # the question waits in the app for another try

    unconfigured = ask(tmp_path / "empty-home", "hello")
    assert unconfigured.returncode == 1 and "no provider is configured" in unconfigured.stderr


def test_ctrl_c_after_the_first_delta_exits_130_and_keeps_the_partial_answer_marked_interrupted(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    home = configure(tmp_path, llm_server)
    pieces = ["First words", *[f" more {n}" for n in range(40)]]
    llm_server.queue(openai_stream(pieces, delay_between=0.25))
    process = start_ask(home, "tell me a long story")
    assert process.stdout is not None and process.stderr is not None
    first = _read_some(process.stdout.fileno())
    assert first.startswith(b"First words")
    process.send_signal(signal.SIGINT)
    rest, errors = process.communicate(timeout=60)
    assert process.returncode == 130
    assert b"Traceback" not in errors and errors == b""
    shown = (first + rest).decode()
    center = only_dialog(home)
    try:
        dialog = center.get_dialog(center.dialog_summaries()[0].id)
        assert dialog is not None
        answer = dialog.last_message
        assert answer.role is Role.ASSISTANT and answer.meta.get("status") == "interrupted"
        assert answer.content.startswith("First words") and len(answer.content) < len("".join(pieces))
        assert shown.rstrip("\n") == answer.content  # what was shown is what was kept
    finally:
        center.close()


def test_ctrl_c_in_json_mode_ends_with_an_interrupted_end_record(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream([f"piece {n} " for n in range(40)], delay_between=0.25))
    process = start_ask(home, "--json", "go on")
    assert process.stdout is not None
    seen = b""
    while b'"stream_delta"' not in seen:
        seen += _read_some(process.stdout.fileno())
    process.send_signal(signal.SIGINT)
    rest, errors = process.communicate(timeout=60)
    assert process.returncode == 130 and errors == b""
    records = [json.loads(line) for line in (seen + rest).decode().splitlines()]
    assert records[-1]["type"] == "end" and records[-1]["status"] == "interrupted" and records[-1]["exit_code"] == 130


def _read_some(fd: int, timeout: float = 60.0) -> bytes:
    """The next bytes on a pipe, waiting for them (no fixed sleep: the first delta's arrival is the event)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            data = os.read(fd, 65536)
            assert data, "the process closed its output before writing anything"
            return data
    raise AssertionError("nothing arrived on the pipe")


# --- templates ----------------------------------------------------------------------------------------------------

REVIEW = """+++
name = "Review"
description = "Review code"
+++

Review this {{language | select:options=["python","go"]:required}} code for {{focus | text:required}}, \
{{tone | text:default="briefly"}}."""


def test_a_template_is_filled_without_the_form_and_missing_values_are_named(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    home = configure(tmp_path, llm_server)
    (home / "config" / "prompts").mkdir()
    (home / "config" / "prompts" / "review.md").write_text(REVIEW, encoding="utf-8")
    missing = ask(home, "--template", "Review")
    assert missing.returncode == 2
    assert "needs a value for language, focus (give it with -v language=VALUE)" in missing.stderr
    wrong = ask(home, "--template", "Review", "-v", "language=cobol", "-v", "focus=speed")
    assert wrong.returncode == 2 and "choose one of python, go" in wrong.stderr
    unknown = ask(home, "--template", "Review", "-v", "language=go", "-v", "focus=x", "-v", "colour=red")
    assert unknown.returncode == 2 and "has no field 'colour' (its fields: language, focus, tone)" in unknown.stderr
    assert llm_server.requests == []

    llm_server.queue(openai_stream(["Looks fine."]))
    code = b"def f():\n    return 1\n"
    result = ask(home, "--template", "Review", "-v", "language=python", "-v", "focus=speed", stdin=code)
    assert result.returncode == 0 and result.stdout == "Looks fine.\n"
    content = llm_server.requests[-1].json["messages"][-1]["content"]
    assert content.endswith("Review this python code for speed, briefly.") and "return 1" in content
    center = only_dialog(home)
    try:
        summary = center.dialog_summaries()[0]
        dialog = center.get_dialog(summary.id)
        assert dialog is not None and summary.title.startswith("Review this python code")
        template = dialog.messages[0]
        assert template.role is Role.PROMPT and template.name == "Review"
    finally:
        center.close()


# --- tools ----------------------------------------------------------------------------------------------------------


@pytest.fixture
def tool_site(tmp_path: Path) -> Path:
    """The example tool package (tests/plugin_package.py) in a folder the child process gets on its path."""
    return install_example_tools(tmp_path / "site")


def queue_weather_call(server: LLMServer) -> None:
    call = openai_tool_call("call_1", "get_weather", ['{"city": ', '"Kyoto"}'])
    server.queue(openai_stream(tool_calls=call, finish="tool_calls"), openai_stream(["It is mild."]))


def test_a_tool_that_needs_approval_fails_the_run_naming_the_flag(
    tmp_path: Path, llm_server: LLMServer, tool_site: Path
) -> None:
    home = configure(tmp_path / "home", llm_server, extra='[tools]\nenabled = ["weather"]', models=TOOL_MODEL)
    queue_weather_call(llm_server)
    result = ask(home, "weather in Kyoto?", PYTHONPATH=str(tool_site))
    assert result.returncode == 1
    assert "--allow-tool get_weather" in result.stderr and "--allow-tools" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(llm_server.requests) == 1  # the run stopped: the model never read a result
    roles = [role for role, _ in stored(home)[0]]
    assert roles == [Role.USER, Role.ASSISTANT, Role.TOOL]
    assert "denied" in stored(home)[0][2][1]  # the tool did not run


@pytest.mark.parametrize(
    ("flags", "extra"),
    [
        (["--allow-tool", "weather"], ""),  # the package tool's name
        (["--allow-tool", "get_weather"], ""),  # the name the model calls it by
        (["--allow-tools"], ""),
        ([], 'allow = ["weather"]'),  # the config's approval
    ],
)
def test_allowed_tools_run_as_in_the_app(
    tmp_path: Path, llm_server: LLMServer, tool_site: Path, flags: list[str], extra: str
) -> None:
    home = configure(tmp_path / "home", llm_server, extra=f'[tools]\nenabled = ["weather"]\n{extra}', models=TOOL_MODEL)
    queue_weather_call(llm_server)
    result = ask(home, "--json", *flags, "weather in Kyoto?", PYTHONPATH=str(tool_site))
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    started = next(r for r in records if r["type"] == "tool_call_started")
    finished = next(r for r in records if r["type"] == "tool_call_finished")
    assert started["function_id"] == "get_weather" and started["arguments"] == {"city": "Kyoto"}
    assert "mild, 18" in finished["result"] and finished["is_error"] is False
    tool_message = llm_server.requests[-1].json["messages"][-1]
    assert tool_message["role"] == "tool" and "mild, 18" in tool_message["content"]
    assert records[-1]["status"] == "answered"


def test_plain_output_names_the_tool_on_stderr_and_keeps_stdout_for_the_answer(
    tmp_path: Path, llm_server: LLMServer, tool_site: Path
) -> None:
    home = configure(tmp_path / "home", llm_server, extra='[tools]\nenabled = ["weather"]', models=TOOL_MODEL)
    queue_weather_call(llm_server)
    result = ask(home, "--allow-tools", "weather in Kyoto?", PYTHONPATH=str(tool_site))
    assert result.returncode == 0
    assert result.stdout == "It is mild.\n"
    assert result.stderr == 'visindigo: tool get_weather {"city": "Kyoto"}\n'


# --- choices --------------------------------------------------------------------------------------------------------


def test_system_model_and_provider_apply_to_the_dialog(tmp_path: Path, llm_server: LLMServer) -> None:
    second = f'[providers.other]\nkind = "openai"\nbase_url = "{llm_server.openai_url}"\napi_key_env = "OTHER_KEY"\n'
    models = '[{ id = "test-model" }, { id = "big-model" }]'
    home = configure(tmp_path, llm_server, models=models)
    config = home / "config" / "config.toml"
    config.write_text(config.read_text(encoding="utf-8") + second + 'models = [{ id = "o-model" }]\n', "utf-8")
    llm_server.queue(openai_stream(["a"]), openai_stream(["b"]), openai_stream(["c"]))
    assert ask(home, "--system", "Answer in one word.", "--model", "big-model", "hi").returncode == 0
    body = llm_server.requests[-1].json
    assert body["model"] == "big-model"
    assert body["messages"][0] == {"role": "system", "content": "Answer in one word."}
    assert ask(home, "-c", "again").returncode == 0  # the dialog keeps its system prompt and model
    body = llm_server.requests[-1].json
    assert body["model"] == "big-model" and body["messages"][0]["content"] == "Answer in one word."
    assert ask(home, "--provider", "other", "hello", OTHER_KEY="sk-other").returncode == 0
    assert llm_server.requests[-1].headers["authorization"] == "Bearer sk-other"
    assert llm_server.requests[-1].json["model"] == "o-model"


# --- hostile model output -------------------------------------------------------------------------------------------


def hostile_pieces() -> list[str]:
    """The hostile text in 7-character deltas: sequences cut in half between two of them."""
    return [HOSTILE[i : i + 7] for i in range(0, len(HOSTILE), 7)]


def test_hostile_model_output_never_reaches_a_terminal_as_escape_sequences(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream([f"# Title {HOSTILE}\n\n", *hostile_pieces(), "\n\n- item ", *hostile_pieces()]))
    output = run_in_pty(
        [sys.executable, "-m", "visindigo", "ask", "--reasoning", "say it"],
        {**environment(home), "TERM": "xterm-256color"},
        cwd=ROOT,
    )
    assert not leaks(output), (leaks(output), output[-800:])
    assert b"Traceback" not in output and b"clipboard" in output  # rendered, minus the sequences

    llm_server.queue(openai_stream(hostile_pieces(), reasoning=hostile_pieces()))
    piped = ask(home, "--reasoning", "say it")
    assert piped.returncode == 0
    for text in (piped.stdout, piped.stderr):
        assert not leaks(text.encode()) and "\x1b" not in text

    llm_server.queue(error_reply(400, f"bad request {HOSTILE}"))
    failed = ask(home, "say it")
    assert failed.returncode == 1 and not leaks(failed.stderr.encode()) and failed.stderr.count("\n") == 1


def test_json_keeps_hostile_text_whole_but_inert(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream(hostile_pieces()))
    result = ask(home, "--json", "say it")
    assert result.returncode == 0
    raw = result.stdout.encode()
    assert b"\x1b" not in raw and not [leak for leak in leaks(raw) if leak not in MARKERS]
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert "".join(r["text"] for r in records if r["type"] == "stream_delta") == HOSTILE  # lossless


# --- rendering ------------------------------------------------------------------------------------------------------


def test_markdown_streamed_block_by_block_reads_as_the_whole_document_rendered_at_once() -> None:
    import io

    import pyte
    from rich.console import Console

    from visindigo.ask_output import MarkdownSink, rendered

    document = (
        "Intro with **bold**.\n\n## A heading\n\nThe list:\n\n- one\n- two\n\n1. first\n2. second\n\n"
        "```python\nx = 1\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nThe end."
    )

    def screen_of(write: object) -> list[str]:
        stream = io.StringIO()
        console = Console(file=stream, force_terminal=True, width=60, height=40, highlight=False, emoji=False)
        write(console, stream)  # type: ignore[operator]
        screen = pyte.Screen(60, 60)
        pyte.Stream(screen).feed(stream.getvalue().replace("\n", "\r\n"))
        return [line.rstrip() for line in screen.display]

    def streamed(console: Console, stream: io.StringIO) -> None:
        sink = MarkdownSink(stream, console=console)
        for start in range(0, len(document), 5):
            sink.write(document[start : start + 5])
            sink._painted_at = 0.0  # paint every piece: the live tail is erased each time, so it must leave nothing
        sink.finish()

    whole = screen_of(lambda console, stream: console.print(rendered(document)))
    assert screen_of(streamed) == whole
    assert "The end." in whole and any("one" in line for line in whole)


def test_mcp_tools_run_as_in_the_app_allowed_by_their_server_name(tmp_path: Path, llm_server: LLMServer) -> None:
    server = f"[mcp_servers.time]\ncommand = {json.dumps(sys.executable)}\n"
    server += 'args = ["-m", "mcp_server_time", "--local-timezone", "UTC"]'
    home = configure(tmp_path, llm_server, extra=server, models=TOOL_MODEL)
    call = openai_tool_call("call_t", "time__get_current_time", ['{"timezone": "UTC"}'])
    llm_server.queue(openai_stream(tool_calls=call, finish="tool_calls"))
    refused = ask(home, "what time is it?")
    assert refused.returncode == 1 and "--allow-tool time__get_current_time" in refused.stderr
    offered = [tool["function"]["name"] for tool in llm_server.requests[0].json["tools"]]
    assert "time__get_current_time" in offered
    llm_server.queue(openai_stream(tool_calls=call, finish="tool_calls"), openai_stream(["It is now."]))
    allowed = ask(home, "--allow-tool", "time", "what time is it?")
    assert allowed.returncode == 0 and allowed.stdout == "It is now.\n", allowed.stderr
    result = llm_server.requests[-1].json["messages"][-1]
    assert result["role"] == "tool" and "UTC" in result["content"] and "datetime" in result["content"]
    approved = configure(tmp_path / "approved", llm_server, extra=server + '\napproval = "allow"', models=TOOL_MODEL)
    llm_server.queue(openai_stream(tool_calls=call, finish="tool_calls"), openai_stream(["Allowed by the config."]))
    by_config = ask(approved, "what time is it?")  # the server's approval in the config: no flag needed
    assert by_config.returncode == 0 and by_config.stdout == "Allowed by the config.\n", by_config.stderr
    assert llm_server.requests[-1].json["messages"][-1]["role"] == "tool"


def test_a_reader_that_goes_away_ends_the_run_quietly(tmp_path: Path, llm_server: LLMServer) -> None:
    """`visindigo ask … | head -c 20`: once the pipe's reader has gone, the run stops, the partial answer is kept."""
    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream(["Start", *[f" and {n}" for n in range(40)]], delay_between=0.2))
    process = start_ask(home, "go")
    assert process.stdout is not None and process.stderr is not None
    assert _read_some(process.stdout.fileno()).startswith(b"Start")
    process.stdout.close()
    errors = process.stderr.read()
    assert process.wait(timeout=60) == 141
    assert errors == b""
    answer = stored(home)[0][-1]
    assert answer[0] is Role.ASSISTANT and answer[1].startswith("Start")


# --- the app, on the same store -------------------------------------------------------------------------------------


async def test_continue_then_the_app_lists_the_dialog_opens_it_first_and_continues_it(
    tmp_path: Path, llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.tui.helpers import main_screen, make_app, settle, type_text, wait_until

    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream(["First answer"]), openai_stream(["Second answer"]), openai_stream(["In the app"]))
    assert ask(home, "first question").returncode == 0
    assert ask(home, "-c", "second question").returncode == 0
    monkeypatch.setenv("ASK_TEST_KEY", KEY)  # the app on the same home, with the same config and key
    center = Center.open(home)
    try:
        (summary,) = center.dialog_summaries()
        app = make_app(center=center)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = main_screen(app)
            assert await wait_until(pilot, lambda: screen.dialog.id == summary.id)  # the dialog changed last
            tree = screen.sidebar.dialog_tree
            node = tree.node_for(summary.id)
            assert node is not None and "first question" in str(node.label)
            shown = [screen.pane.view_for(index) for index in range(4)]
            texts = [view.copy_text() if view is not None else "" for view in shown]
            assert texts == ["first question", "First answer", "second question", "Second answer"]
            await type_text(pilot, "third question")
            await pilot.press("enter")
            await settle(pilot)
            assert screen.dialog.last_message.content == "In the app"
        history = [(m["role"], m["content"]) for m in llm_server.requests[-1].json["messages"]]
        assert history[:4] == [
            ("user", "first question"),
            ("assistant", "First answer"),
            ("user", "second question"),
            ("assistant", "Second answer"),
        ] and history[-1] == ("user", "third question")
    finally:
        center.close()
    assert stored(home)[0][-2:] == [(Role.USER, "third question"), (Role.ASSISTANT, "In the app")]


# --- a terminal: Markdown rendered ----------------------------------------------------------------------------------


def test_on_a_terminal_markdown_is_rendered_and_in_a_pipe_it_stays_as_written(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    import pyte

    home = configure(tmp_path, llm_server)
    document = ["## Shopping", "\n\nBuy **three** apples", ".\n\n- one\n", "- two\n\n```\ncode()\n```\n"]
    llm_server.queue(openai_stream(document), openai_stream(document))
    output = run_in_pty(
        [sys.executable, "-m", "visindigo", "ask", "a list"],
        {**environment(home), "TERM": "xterm-256color", "COLUMNS": "60", "LINES": "24"},
        cwd=ROOT,
    )
    assert b"\x1b[1m" in output  # bold was drawn as bold (SGR 1), not as asterisks
    screen = pyte.Screen(60, 24)
    pyte.Stream(screen).feed(output.decode("utf-8", "replace"))
    lines = [line.rstrip() for line in screen.display if line.strip()]
    text = "\n".join(lines)
    assert "Shopping" in text and "##" not in text and "**" not in text and "```" not in text
    assert "Buy three apples." in text and any(line.lstrip().startswith("•") and "one" in line for line in lines)
    assert any("code()" in line for line in lines)

    piped = ask(home, "a list")
    assert piped.stdout == "".join(document).rstrip("\n") + "\n"  # a pipe gets the Markdown as the model wrote it


# --- start-up -------------------------------------------------------------------------------------------------------

#: What a piped question without tools never needs; each was once loaded by every `ask` (bench/ask_start.py).
NOT_LOADED = ["textual", "rich", "jsonschema", "uuid", "platform", "logging.handlers", "shlex", "PIL", "pypdf"]


def test_a_piped_question_loads_nothing_it_does_not_need(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path, llm_server)
    llm_server.queue(openai_stream(["ok"]))
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "visindigo", "ask", "say ok"],
        capture_output=True,
        env=environment(home),
        timeout=120,
        cwd=ROOT,
        text=True,
    )
    assert done.returncode == 0 and done.stdout == "ok\n"
    loaded = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "httpx" in loaded and "visindigo.engine.run_loop" in loaded  # the list is read right
    assert [name for name in NOT_LOADED if name in loaded] == []


# --- automatic compaction, as the app's main pane does it --------------------------------------------------------

AUTO = "[context]\nauto_compact = true\nauto_compact_at = 0.5\nkeep_turns = 1"
SMALL_WINDOW = '[{ id = "test-model", context_window = 400 }]'


def two_long_turns(home: Path, server: LLMServer) -> None:
    for turn in (1, 2):
        server.queue(openai_stream([f"answer {turn}, at length: " + "words that fill the window " * 14]))
    assert ask(home, "first question").returncode == 0
    assert ask(home, "-c", "second question").returncode == 0


def test_continue_on_a_dialog_over_the_threshold_compacts_into_a_branch_and_asks_there(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    home = configure(tmp_path, llm_server, AUTO, models=SMALL_WINDOW)
    two_long_turns(home, llm_server)
    llm_server.queue(openai_stream(["- the user asked a first question"]))
    llm_server.queue(openai_stream(["A3"]))
    result = ask(home, "-c", "third question")
    assert result.returncode == 0 and result.stdout == "A3\n", result.stderr
    assert "compacted automatically into the branch" in result.stderr
    sent = [(m["role"], m["content"]) for m in llm_server.requests[-1].json["messages"]]
    assert "the user asked a first question" in sent[0][1] and "first question" not in sent[1][1]
    assert sent[1][0] == "user" and sent[1][1] == "second question" and sent[-1] == ("user", "third question")
    dialogs = stored(home)
    assert dialogs[0][-2:] == [(Role.USER, "third question"), (Role.ASSISTANT, "A3")]  # the branch
    assert [role for role, _ in dialogs[1]] == [Role.USER, Role.ASSISTANT] * 2  # the parent: no third question


def test_continue_where_compaction_saves_nothing_says_why_and_asks_in_the_dialog(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    home = configure(tmp_path, llm_server, AUTO, models=SMALL_WINDOW)
    two_long_turns(home, llm_server)
    llm_server.queue(openai_stream(["a summary longer than all it replaces " * 30]))
    llm_server.queue(openai_stream(["A3"]))
    result = ask(home, "-c", "third question")
    assert result.returncode == 0 and result.stdout == "A3\n", result.stderr
    assert "automatic compaction: not compacted: the summary" in result.stderr
    dialogs = stored(home)
    assert len(dialogs) == 1 and dialogs[0][-2:] == [(Role.USER, "third question"), (Role.ASSISTANT, "A3")]
