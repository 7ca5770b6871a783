"""Run llama.cpp's own server (`llama-server`, embedded in the `xllamacpp` wheel) until this process is ended.

A process of its own, so that the test fixture stops exactly the server it started, by its pid, whatever state
the server's threads are in. It binds a free port of 127.0.0.1 (port 0), writes the address it listens on to
`--address-file` (written whole, then renamed, so the fixture never reads half a line) and waits; llama.cpp's log
goes to this process's stderr, which the fixture keeps in a file.

    python tests/interop/llama_launcher.py --model M.gguf --address-file A --ctx 1024 --parallel 2 \\
        --threads 2 --chat-template-file T.jinja --alias gemma-a --alias gemma-b
"""

from __future__ import annotations

import argparse
import os
import threading
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, type=Path)
    parser.add_argument("--address-file", required=True, type=Path)
    parser.add_argument("--ctx", type=int, default=1024, help="context size of all slots together")
    parser.add_argument("--parallel", type=int, default=2, help="slots: requests served at once")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--chat-template-file", type=Path, help="a jinja chat template (the GGUF has none)")
    parser.add_argument("--alias", action="append", default=[], help="a model name the server answers to")
    options = parser.parse_args(argv)

    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(options.model)
    params.n_ctx = options.ctx
    params.n_parallel = options.parallel
    params.cpuparams.n_threads = options.threads
    params.cpuparams_batch.n_threads = options.threads
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # a free port, chosen by the server itself: no race with another test run
    params.endpoint_props = True
    params.use_jinja = True
    if options.chat_template_file is not None:
        params.chat_template = options.chat_template_file.read_text()
    if options.alias:
        params.model_alias = set(options.alias)
    server = xllamacpp.Server(params)

    partial = options.address_file.with_suffix(".partial")
    partial.write_text(str(server.listening_address))
    os.replace(partial, options.address_file)
    threading.Event().wait()  # until SIGTERM (the default action ends the process)


if __name__ == "__main__":
    main()
