"""`visindigo ask` against the real llama.cpp server, on both of its wires, with the question sent early
(`ask_early`): the request written before asyncio and httpx were loaded is the one the run takes, and llama-server
answers it — what a loopback test server accepts, a real one accepts too (its HTTP parser, its JSON reader)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.interop.llama_server import LlamaServer
from tests.interop.test_llama_engine import WIRES
from tests.test_ask_early import ADOPTED, ask, debug_log, early_and_nothing_loaded, stored
from visindigo.engine import Role

pytestmark = pytest.mark.llama


@WIRES
def test_llama_server_answers_the_question_sent_early(llama_server: LlamaServer, wire: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text(
        f'default_provider = "llama"\n\n[providers.llama]\nkind = "{wire}"\nbase_url = "{llama_server.base_url}"\n'
        f'models = [{{ id = "{llama_server.model_id}" }}]\n'
        'settings = { server = "llama.cpp", max_tokens = 8 }\n',
        encoding="utf-8",
    )
    result, records = ask(home, "--system", "Answer in one word.", "Say hello.")
    assert result.returncode == 0, result.stderr + llama_server.log_tail()
    assert result.stdout.strip(), "the server's answer reached stdout"
    assert early_and_nothing_loaded(records)
    log = debug_log(home)
    assert ADOPTED in log and "differs" not in log
    assert log.count("-> POST") == 1  # the run sent nothing of its own
    messages = stored(home)
    assert messages[0] == (Role.USER, "Say hello.") and messages[-1][0] is Role.ASSISTANT
