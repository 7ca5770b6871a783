"""What the start-up integrity check costs (issue 11 §3), and what salvaging a damaged store costs.

Run it on the 10,000-dialog store that bench/store_scale.py builds:

    .venv/bin/python bench/store_scale.py --dir /tmp/scale
    .venv/bin/python bench/store_integrity.py /tmp/scale

Prints the time of `PRAGMA quick_check` and of `integrity_check` on that file (the operating system's file
cache warm, as for an app that was just started), `Center.open` with and without the check, and then damages a
copy of the file (a few pages in the middle overwritten) and times opening it and `Store.verify` (the check the
app runs in the background for a store too big to check at open): detection, moving aside, salvage, with the
time of each stage of the salvage (as its progress reports them) and the peak memory.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from visindigo.engine import Center
from visindigo.engine.storage import database


def timed(action: object, repeat: int = 5) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()  # type: ignore[operator]
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("home", type=Path, help="the --dir given to bench/store_scale.py")
    args = parser.parse_args()
    db_file = args.home / "data" / "dialogs.sqlite3"
    size = db_file.stat().st_size
    print(f"store: {db_file}  ({size / 1e6:.0f} MB)")
    conn = sqlite3.connect(db_file)
    for pragma in ("quick_check(1)", "integrity_check(1)"):
        median, low = timed(lambda p=pragma: conn.execute(f"PRAGMA {p}").fetchall(), repeat=3)
        print(f"PRAGMA {pragma:<22} {median:9.1f} ms  (min {low:.1f})")
    conn.close()

    def open_close() -> None:
        Center.open(args.home).close()

    median, low = timed(open_close, repeat=3)
    print(f"Center.open with the check       {median:9.1f} ms  (min {low:.1f})")
    original = database.integrity_problem
    database.integrity_problem = lambda conn: None  # type: ignore[assignment]
    try:
        median, low = timed(open_close, repeat=3)
    finally:
        database.integrity_problem = original
    print(f"Center.open without the check    {median:9.1f} ms  (min {low:.1f})")

    with tempfile.TemporaryDirectory() as temporary:
        home = Path(temporary)
        (home / "data").mkdir()
        copy = home / "data" / "dialogs.sqlite3"
        shutil.copy(db_file, copy)
        page = 4096
        with open(copy, "r+b") as handle:
            for where in (size // 3, size // 2, 2 * size // 3):
                handle.seek(where - where % page)
                handle.write(b"\xa5" * page * 4)
        stages: dict[str, float] = {}

        def progress(stage: str, done: int, total: int) -> None:
            stages.setdefault(stage, time.perf_counter())

        started = time.perf_counter()
        center = Center.open(home, on_salvage=progress)
        opened = (time.perf_counter() - started) * 1000
        assert center.store is not None
        started = time.perf_counter()
        problem = center.store.verify()  # what the app runs in the background for a store this big
        ended = time.perf_counter()
        print(f"open a damaged copy                 {opened:9.1f} ms (no check at open: {size / 1e6:.0f} MB)")
        print(f"background check + salvage          {(ended - started) * 1000:9.1f} ms (found: {problem!r:.60})")
        marks = [started, *stages.values(), ended]
        names = ["check (quick_check)", *stages]
        for name, begin, end in zip(names, marks, marks[1:], strict=False):
            print(f"  {name:<32} {(end - begin) * 1000:9.1f} ms")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak memory of this process         {peak:9.0f} MB")
        for notice in center.notices:
            print("  notice:", notice)
        center.close()


if __name__ == "__main__":
    main()
