"""The interop tests' real server: started once per test session, and only when one of these tests runs.

Run them alone with `python -m pytest -m llama` (or `tests/interop`); the rest of the suite never starts it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.interop.llama_server import LlamaServer, model_path

pytestmark = pytest.mark.llama


@pytest.fixture(scope="session")
def llama_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """llama.cpp's own server (from the xllamacpp wheel) on Gemma 3 270M with two slots, on a free port of
    127.0.0.1 (see llama_server.py)."""
    cache = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    folder = cache.mkdir("gemma3-270m") if cache is not None else tmp_path_factory.mktemp("gemma3-270m")
    server = LlamaServer(model_path(folder), tmp_path_factory.mktemp("llama") / "server.log")
    server.start()
    try:
        yield server
    finally:
        server.stop()
