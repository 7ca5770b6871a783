"""Instructions to the first frame under callgrind: the app against a bare Textual app (issue 23's start-up row).

The wall-clock ratio of `bench/tui_stream.py --only startup` moves by ±0.1 between sets on a loaded machine;
instruction counts move by a fraction of a percent, so they are the measure of a change to start-up. Each
process runs exactly as that bench runs it — `python -m visindigo` (or the floor app, one Static) in its
pty of 120×40, with its environment (TERM, the bytecode cache in the home) and its home of 500 stored dialogs
and one of 2,000 messages — but under `valgrind --tool=callgrind`. When the write holding the marker of the
first frame ("enter sends", the composer's line; "FLOOR-READY" for the floor) is handed to Textual's driver, the
process sends itself SIGTERM with Python's default action restored (the app would leave gracefully), which
ends it at once with callgrind's totals written. (A small prelude, `python -c`,
wraps the driver's `write` and then runs the module or script as `python -m` / `python script` would. Stopping
it from outside when the marker reaches the terminal counts too much: under valgrind the threads take turns,
and the main thread runs on into the work after the first frame before Textual's writer thread writes it.)
Run from the repository root (about half a minute a run):

    .venv/bin/python bench/startup_instructions.py [--runs 1] [--demo] [--keep DIR]

`--keep DIR` leaves the callgrind files in DIR for `callgrind_annotate --inclusive=yes`.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

# bench/ is on the path (the script's folder), and tui_stream puts the root there for `tests`
from tui_stream import FLOOR_APP, Terminal, app_argv, app_env, make_home

from tests.llm_server import LLMServer

#: Run before the measured program (`python -c PRELUDE MARKER -m MODULE | SCRIPT`): it ends the process with
#: SIGTERM right after the first write holding MARKER, then runs the module or script as Python would.
PRELUDE = textwrap.dedent(
    """
    import os, runpy, signal, sys
    from importlib.machinery import PathFinder

    marker = sys.argv.pop(1)

    class WhenTheDriverLoads:  # patches Textual's driver as it is imported (importing it here costs ~20 M)
        def find_spec(self, name, path=None, target=None):
            if name != "textual.drivers.linux_driver":
                return None
            sys.meta_path.remove(self)
            spec = PathFinder.find_spec(name, path)
            load = spec.loader.exec_module

            def exec_module(module):
                load(module)
                write = module.LinuxDriver.write

                def write_then_stop(self, data):
                    write(self, data)
                    if marker in data:  # the app leaves gracefully on SIGTERM: Python's default ends it at once
                        signal.signal(signal.SIGTERM, signal.SIG_DFL)
                        os.kill(os.getpid(), signal.SIGTERM)

                module.LinuxDriver.write = write_then_stop

            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, WhenTheDriverLoads())
    if sys.argv[1] == "-m":
        del sys.argv[1]
        sys.argv[0] = sys.argv[1]
        runpy.run_module(sys.argv.pop(1), run_name="__main__", alter_sys=True)
    else:
        del sys.argv[0]
        runpy.run_path(sys.argv[0], run_name="__main__")
    """
)


def stopped(argv: list[str], marker: str) -> list[str]:
    """`argv` (`python -m MODULE …` or `python SCRIPT …`) run to its write of `marker` and no further."""
    python, *rest = argv
    return [python, "-c", PRELUDE, marker, *rest]


def instructions(argv: list[str], env: dict[str, str], marker: str, out: Path | None) -> int:
    """The instructions `argv` executes until it hands Textual's driver the write holding `marker`, counted by
    callgrind (`out` None: run without callgrind, to warm the bytecode cache; returns 0)."""
    valgrind: list[str] = []
    if out is not None:
        log = out.with_suffix(".log")
        valgrind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", f"--log-file={log}"]
    terminal = Terminal.spawn([*valgrind, *stopped(argv, marker)], env)
    try:
        terminal.process.wait(timeout=600)
    finally:
        if terminal.process.poll() is None:
            terminal.process.kill()
            terminal.process.wait()
        os.close(terminal.master)
    if out is None:
        return 0
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # callgrind writes its file as the process ends
        text = out.read_text() if out.exists() else ""
        found = re.search(r"^(?:summary|totals): (\d+)", text, re.MULTILINE)
        if found:
            return int(found.group(1))
        time.sleep(0.1)
    raise RuntimeError(f"no callgrind totals in {out}; its log:\n{log.read_text() if log.exists() else ''}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1, help="runs of each (the median is reported)")
    parser.add_argument("--demo", action="store_true", help="also count `visindigo --demo`")
    parser.add_argument("--keep", type=Path, default=None, help="leave the callgrind files in this folder")
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        raise SystemExit("valgrind is not installed")
    keep = args.keep or Path(tempfile.mkdtemp(prefix="visindigo-callgrind-"))
    keep.mkdir(parents=True, exist_ok=True)
    with LLMServer() as server:
        print("preparing a home with 500 stored dialogs and one of 2,000 messages…", flush=True)
        home = make_home(server, dialogs=500, big=2000)
        try:
            env = app_env(home)
            floor_script = home / "floor_app.py"
            floor_script.write_text(FLOOR_APP)
            subjects = [
                ("floor", [sys.executable, str(floor_script)], "FLOOR-READY"),
                ("visindigo", app_argv(None), "enter sends"),
            ]
            if args.demo:
                subjects.append(("visindigo --demo", [*app_argv(None), "--demo"], "enter sends"))
            for _name, argv, marker in subjects:  # the bytecode cache, as the timed bench warms it (and runpy's)
                instructions(argv, env, marker, None)
            counts: dict[str, list[int]] = {name: [] for name, _argv, _marker in subjects}
            for run in range(args.runs):
                for name, argv, marker in subjects:
                    out = keep / f"callgrind.{name.replace(' ', '').replace('-', '')}.{run}.out"
                    counts[name].append(instructions(argv, env, marker, out))
                    print(f"  run {run + 1}: {name:<17} {counts[name][-1] / 1e6:9,.1f} M", flush=True)
        finally:
            shutil.rmtree(home, ignore_errors=True)
    floor = statistics.median(counts["floor"])
    print(f"instructions to the first frame (callgrind, median of {args.runs}; files in {keep})")
    for name, values in counts.items():
        median = statistics.median(values)
        ratio = "" if name == "floor" else f"   ratio {median / floor:.3f}  (target <= 1.5)"
        print(f"  {name:<17} : {median / 1e6:9,.1f} M{ratio}")


if __name__ == "__main__":
    main()
