"""The question leaves first (`ask_early`, `engine.providers.early`): `visindigo ask` writes the run's first request
to a socket before asyncio and httpx are loaded, and the run reads its answer from there — one request, answered as
before. Real parts: `visindigo ask` in a subprocess under tests/ask_probe.py (which records each request written
before the run began, and what was loaded then), the loopback provider server counting what arrives, the store
read back as the app opens it."""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.llm_server import LLMServer, Reply, anthropic_stream, error_reply, openai_stream
from tests.plugin_package import install_example_tools
from visindigo.engine import Center, Role
from visindigo.engine.paths import DB_FILE_NAME

ROOT = Path(__file__).resolve().parents[1]
PROBE = ROOT / "tests" / "ask_probe.py"
HOLDER = ROOT / "tests" / "engine" / "storage" / "hold_store.py"
KEY = "sk-early-test"
ADOPTED = "the request was sent early"


def configure(home: Path, server: LLMServer, *, kind: str = "openai", extra: str = "", settings: str = "") -> Path:
    (home / "config").mkdir(parents=True, exist_ok=True)
    url = server.openai_url if kind == "openai" else server.anthropic_url
    models = '[{ id = "test-model" }, { id = "other-model" }]'
    (home / "config" / "config.toml").write_text(
        f'default_provider = "loop"\n{extra}\n\n[providers.loop]\nkind = "{kind}"\nbase_url = "{url}"\n'
        f'api_key_env = "EARLY_KEY"\nmodels = {models}\nsettings = {{ max_retries = 0{settings} }}\n',
        encoding="utf-8",
    )
    return home


def ask(home: Path, *argv: str, stdin: bytes = b"", **env: str) -> tuple[subprocess.CompletedProcess[str], list[dict]]:
    """`visindigo ask` under the probe: its result, and one record per request it sent before the run began."""
    probe = home / "probe.jsonl"
    probe.unlink(missing_ok=True)
    environment = {
        **{name: value for name, value in os.environ.items() if not name.lower().endswith("_proxy")},
        "VISINDIGO_HOME": str(home),
        "EARLY_KEY": KEY,
        "ASK_PROBE": str(probe),
        "VISINDIGO_LOG": "debug",
        **env,
    }
    done = subprocess.run(
        [sys.executable, str(PROBE), "ask", *argv], input=stdin, capture_output=True, env=environment, timeout=120
    )
    records = [json.loads(line) for line in probe.read_text().splitlines()] if probe.exists() else []
    result = subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())
    return result, records


def debug_log(home: Path) -> str:
    return "".join(path.read_text(encoding="utf-8") for path in sorted(home.rglob("*.log")))


def early_and_nothing_loaded(records: list[dict]) -> bool:
    """One request left before the run began, and neither asyncio nor the HTTP stack was loaded then."""
    return records == [{"asyncio": False, "httpx": False, "httpcore": False, "anyio": False}]


def stored(home: Path) -> list[tuple[Role, str]]:
    center = Center.open(home)
    try:
        summaries = center.dialog_summaries()
        assert len(summaries) == 1
        dialog = center.get_dialog(summaries[0].id)
        assert dialog is not None
        return [(message.role, message.content) for message in dialog.messages]
    finally:
        center.close()


REVIEW = """+++
name = "Review"
description = "Review code"
+++

Review this {{language | text:required}} code."""


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_the_question_leaves_before_asyncio_and_is_the_one_request_answered(
    tmp_path: Path, llm_server: LLMServer, kind: str
) -> None:
    home = configure(tmp_path / "home", llm_server, kind=kind)
    (home / "config" / "prompts").mkdir()
    (home / "config" / "prompts" / "review.md").write_text(REVIEW, encoding="utf-8")
    stream = openai_stream if kind == "openai" else anthropic_stream
    llm_server.queue(stream(["Looks ", "fine."]))
    result, records = ask(
        home,
        "--system",
        "Be terse.",
        "--model",
        "other-model",
        "--template",
        "Review",
        "-v",
        "language=python",
        "and the tests?",
        stdin=b"def f():\n    return 1\n",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Looks fine.\n" and result.stderr == ""
    assert early_and_nothing_loaded(records)
    assert len(llm_server.requests) == 1  # the run sent nothing of its own: it read the answer of the early one
    assert ADOPTED in debug_log(home) and "differs" not in debug_log(home)
    request = llm_server.requests[0]
    assert request.headers["authorization" if kind == "openai" else "x-api-key"].endswith(KEY)
    body = request.json
    assert body["model"] == "other-model" and body["stream"] is True
    text = json.dumps(body)
    assert "Be terse." in text and "Review this python code." in text and "return 1" in text
    assert "and the tests?" in text
    messages = stored(home)
    assert messages[-1] == (Role.ASSISTANT, "Looks fine.")
    assert (Role.PROMPT, "Review this python code.") in messages


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_json_and_no_save_go_early_too(tmp_path: Path, llm_server: LLMServer, kind: str) -> None:
    home = configure(tmp_path / "home", llm_server, kind=kind)
    stream = openai_stream if kind == "openai" else anthropic_stream
    llm_server.queue(stream(["Red."]))
    result, records = ask(home, "--json", "--no-save", "a colour?")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert "".join(e["text"] for e in events if e["type"] == "stream_delta") == "Red."
    assert events[-1]["status"] == "answered" and events[-1]["saved"] is False
    assert early_and_nothing_loaded(records) and len(llm_server.requests) == 1
    assert not (home / "data" / DB_FILE_NAME).exists()  # --no-save: no store


def test_a_429_on_the_early_request_is_retried_by_the_run(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path / "home", llm_server, settings="")
    config = home / "config" / "config.toml"
    config.write_text(
        config.read_text().replace("max_retries = 0", "max_retries = 2, retry_base_delay = 0.01"), encoding="utf-8"
    )
    llm_server.queue(error_reply(429, "slow down", retry_after="0"), openai_stream(["At last."]))
    result, records = ask(home, "hello")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "At last.\n"
    assert early_and_nothing_loaded(records)
    assert len(llm_server.requests) == 2  # the early one (429), then the retry through the client
    assert llm_server.requests[0].json == llm_server.requests[1].json


def test_a_429_without_retries_fails_as_any_request_does(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path / "home", llm_server)
    llm_server.queue(error_reply(429, "slow down"))
    result, records = ask(home, "hello")
    assert result.returncode == 1 and early_and_nothing_loaded(records)
    assert "rate limited or out of quota" in result.stderr and "slow down" in result.stderr
    assert KEY not in result.stderr and "Traceback" not in result.stderr
    assert len(llm_server.requests) == 1


def test_a_server_that_closes_the_early_connection_gets_the_request_once_more(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    """As for a kept-alive connection the server had closed: no byte of an answer, so one more try at once."""
    home = configure(tmp_path / "home", llm_server)
    llm_server.queue(Reply(drop=True), openai_stream(["Second time."]))
    result, records = ask(home, "hello")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Second time.\n" and early_and_nothing_loaded(records)
    assert len(llm_server.requests) == 2


def test_a_stream_cut_on_the_early_connection_keeps_the_partial_answer(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path / "home", llm_server)
    llm_server.queue(openai_stream(["Half an ", "answer"], finish=None, done=False, cut=True))
    result, records = ask(home, "hello")
    assert result.returncode == 1 and early_and_nothing_loaded(records)
    assert "the answer so far was kept" in result.stderr or "incomplete" in result.stderr
    assert result.stdout.startswith("Half an answer")
    assert stored(home)[-1][1] == "Half an answer"


def test_a_difference_drops_the_early_request_and_the_run_sends_its_own(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path / "home", llm_server)
    llm_server.responder = lambda request: openai_stream(["Fine."])
    result, records = ask(home, "hello", ASK_PROBE_ALTER="1")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Fine.\n" and result.stderr == ""
    assert len(records) == 1  # the (altered) request left early ...
    log = debug_log(home)
    assert "differs from the run's in the body (altered)" in log and ADOPTED not in log
    # ... and the run sent its own, which is the one answered
    assert [request.json.get("altered") for request in llm_server.requests] == [True, None]


def test_with_a_proxy_in_the_environment_nothing_leaves_early(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path / "home", llm_server)
    llm_server.queue(openai_stream(["Direct."]))
    # a proxy for everything but the loopback server: httpx goes direct, and the early path does not guess
    result, records = ask(home, "hello", HTTP_PROXY="http://127.0.0.1:9", NO_PROXY="127.0.0.1")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Direct.\n"
    assert records == [] and len(llm_server.requests) == 1 and ADOPTED not in debug_log(home)


def test_with_tools_offered_nothing_leaves_early(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path / "home", llm_server, extra='[tools]\nenabled = ["weather"]')
    site = install_example_tools(tmp_path / "site")
    llm_server.queue(openai_stream(["No tools needed."]))
    result, records = ask(home, "hello", PYTHONPATH=str(site))
    assert result.returncode == 0, result.stderr
    assert records == [] and len(llm_server.requests) == 1


def test_a_model_to_list_first_keeps_the_question_for_the_run(tmp_path: Path, llm_server: LLMServer) -> None:
    """A model the config does not name is looked up in the server's list first: the run decides."""
    home = configure(tmp_path / "home", llm_server)
    llm_server.models = ["listed-model"]
    llm_server.queue(openai_stream(["Listed."]))
    result, records = ask(home, "--model", "listed-model", "hello")
    assert result.returncode == 0, result.stderr
    assert records == []
    assert [request.method for request in llm_server.requests] == ["GET", "POST"]


def test_a_store_that_cannot_be_opened_after_the_question_left_closes_it_and_fails_in_one_line(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    """A new question leaves before the store is opened; a store that then cannot be opened ends the run at once:
    the early connection is closed (the server's answer goes nowhere), one line, status 1, and no second request."""
    home = configure(tmp_path / "home", llm_server)
    (home / "data").write_text("not a folder", encoding="utf-8")
    llm_server.queue(openai_stream(["unread"], delay_first_byte=0.5))
    result, records = ask(home, "hello", VISINDIGO_LOG="")  # (the debug log would be in that folder)
    assert result.returncode == 1, result.stderr
    assert (
        result.stderr.splitlines() == [result.stderr.strip()] and "Cannot create Visindigo's folders" in result.stderr
    )
    assert result.stdout == "" and "Traceback" not in result.stderr
    assert len(records) == 1 and len(llm_server.requests) <= 1


def test_with_a_running_app_the_question_still_leaves_first_and_goes_to_the_inbox(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    home = configure(tmp_path / "home", llm_server)
    llm_server.responder = lambda request: openai_stream(["Yes."])
    first, _ = ask(home, "first?")  # the store exists
    assert first.returncode == 0
    holder = subprocess.Popen(
        [sys.executable, str(HOLDER), str(home)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        result, records = ask(home, "second?")
    finally:
        holder.terminate()
        holder.wait(timeout=30)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Yes.\n" and "goes to its inbox" in result.stderr
    assert early_and_nothing_loaded(records) and len(llm_server.requests) == 2
    assert list((home / "data" / "inbox").glob("*.json"))


def test_a_continued_dialog_goes_early_unless_automatic_compaction_is_on(tmp_path: Path, llm_server: LLMServer) -> None:
    home = configure(tmp_path / "home", llm_server)
    llm_server.responder = lambda request: openai_stream(["Yes."])
    first, _ = ask(home, "first?")
    again, records = ask(home, "-c", "and again?")
    assert first.returncode == 0 and again.returncode == 0, again.stderr
    assert early_and_nothing_loaded(records)
    assert [m["content"] for m in llm_server.requests[-1].json["messages"]] == ["first?", "Yes.", "and again?"]
    config = home / "config" / "config.toml"
    config.write_text(config.read_text() + "\n[context]\nauto_compact = true\n", encoding="utf-8")
    later, records = ask(home, "-c", "once more?")
    assert later.returncode == 0, later.stderr
    assert records == [] and len(llm_server.requests) == 3


def test_a_providers_own_headers_go_early_unless_they_name_one_httpx_sets(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    home = configure(tmp_path / "home", llm_server)
    config = home / "config" / "config.toml"
    base = config.read_text()
    llm_server.responder = lambda request: openai_stream(["Fine."])
    config.write_text(base + 'headers = { X-Team = "blue" }\n', encoding="utf-8")
    result, records = ask(home, "hello")
    assert result.returncode == 0, result.stderr
    assert early_and_nothing_loaded(records) and llm_server.requests[-1].headers["x-team"] == "blue"
    # httpx merges a User-Agent of the provider's with its own: the early send does not guess how
    config.write_text(base + 'headers = { User-Agent = "team-blue/1" }\n', encoding="utf-8")
    result, records = ask(home, "hello")
    assert result.returncode == 0, result.stderr
    assert records == [] and llm_server.requests[-1].headers["user-agent"] == "team-blue/1"
    assert len(llm_server.requests) == 2


# --- https ----------------------------------------------------------------------------------------------------------


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[LLMServer, Path]]:
    """The loopback server speaking https with a certificate made here for 127.0.0.1, and that certificate (a
    client trusts it through SSL_CERT_FILE, as httpx does)."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    with LLMServer(tls=context) as server:
        yield server, cert


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_an_https_provider_gets_the_question_early_verified_as_httpx_verifies(
    tmp_path: Path, tls_server: tuple[LLMServer, Path], kind: str
) -> None:
    server, cert = tls_server
    home = configure(tmp_path / "home", server, kind=kind)
    stream = openai_stream if kind == "openai" else anthropic_stream
    server.queue(stream(["Over ", "TLS."]))
    result, records = ask(home, "--system", "Be terse.", "hello", SSL_CERT_FILE=str(cert))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Over TLS.\n" and result.stderr == ""
    assert early_and_nothing_loaded(records)
    assert len(server.requests) == 1 and ADOPTED in debug_log(home) and "differs" not in debug_log(home)


def test_an_https_retry_after_a_429_goes_through_the_client(tmp_path: Path, tls_server: tuple[LLMServer, Path]) -> None:
    server, cert = tls_server
    home = configure(tmp_path / "home", server, settings=", retry_base_delay = 0.01")
    config = home / "config" / "config.toml"
    config.write_text(config.read_text().replace("max_retries = 0", "max_retries = 1"), encoding="utf-8")
    server.queue(error_reply(429, "slow down", retry_after="0"), openai_stream(["Then."]))
    result, records = ask(home, "hello", SSL_CERT_FILE=str(cert))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Then.\n" and early_and_nothing_loaded(records) and len(server.requests) == 2


def test_a_certificate_not_trusted_sends_nothing_early_and_fails_as_the_client_does(
    tmp_path: Path, tls_server: tuple[LLMServer, Path]
) -> None:
    server, _cert = tls_server
    home = configure(tmp_path / "home", server)
    server.queue(openai_stream(["never"]))
    result, records = ask(home, "hello")  # certifi's bundle: the certificate made here is not in it
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1 and "cannot connect" in result.stderr
    assert records == [] and server.requests == []
