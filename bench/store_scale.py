"""Store at scale (issue 4 §6): 10,000 dialogs of 20 messages with branches, and one of 2,000 messages.

Prints the time to list the dialog tree's metadata, to open the 2,000-message dialog, the median time to append
a message (1,000 appends through a dialog, each written by the store as the app writes it), and searches (the
full-text one and the label search that goes with it in the app).
Targets: list < 150 ms, open < 200 ms, append < 2 ms median.

    .venv/bin/python bench/store_scale.py [--dialogs 10000] [--messages 20] [--big 2000] [--dir PATH]

Without --dir the store is built in a temporary folder and removed afterwards. Each "open" and "list" figure
is measured on a freshly opened Center, so nothing the previous measurement loaded is reused (the operating
system's file cache stays warm, as it is for an app that was just started).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from visindigo.engine import Center, Dialog, Message, Role

_VOCABULARY = (
    "kyoto temple garden train ticket budget hotel museum lunch dinner river bridge mountain hike weather "
    "python function error stack trace database index query migration schema column table join async await "
    "deploy server latency cache memory thread socket request response header token stream model prompt "
    "review refactor test coverage branch merge commit release version config theme keyboard terminal"
)
WORDS = _VOCABULARY.split(" ")
CJK = "我们明天去京都旅行计划三天的行程第一天伏见稻荷大社第二天岚山竹林"


def sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def message_text(rng: random.Random, index: int) -> str:
    text = " ".join(sentence(rng, rng.randint(8, 20)) for _ in range(rng.randint(1, 4)))
    if index % 7 == 3:
        start = rng.randrange(len(CJK) - 8)
        text += " " + CJK[start : start + 8]
    return text


def make_dialog(rng: random.Random, messages: int, branch_from: str = "") -> Dialog:
    dialog = Dialog()
    dialog.branch_from_id = branch_from
    for index in range(messages):
        role = Role.USER if index % 2 == 0 else Role.ASSISTANT
        message = Message(role, message_text(rng, index))
        if role is Role.ASSISTANT:
            message.meta = {"provider_id": "bench", "model_id": "m", "usage": {"input_tokens": 100 + index}}
        if rng.random() < 0.002:  # a few labelled messages (the app's alt+m), for the label search below
            message.meta = {**message.meta, "label": sentence(rng, 2)}
        dialog.append_message(message)
    dialog.title = dialog.message_at(0).content[:50] if messages else "empty"
    return dialog


def build(home: Path, dialogs: int, messages: int, big: int, seed: int = 7) -> str:
    """Fill the store; returns the id of the big dialog. Branches: about a third of the dialogs."""
    rng = random.Random(seed)
    center = Center.open(home)
    assert center.store is not None
    ids: list[str] = []
    started = time.perf_counter()
    batch = 500
    for first in range(0, dialogs, batch):
        with center.store.batch():
            for _ in range(min(batch, dialogs - first)):
                parent = rng.choice(ids) if ids and rng.random() < 0.33 else ""
                dialog = make_dialog(rng, messages, parent)
                center.add_dialog(dialog)
                center.store.untrack(dialog.id)
                center._dialogs.pop(dialog.id)  # keep memory flat while building
                ids.append(dialog.id)
    big_dialog = make_dialog(rng, big)
    big_dialog.title = "The big one"
    center.add_dialog(big_dialog)
    center.close()
    print(f"built {dialogs:,} dialogs x {messages} messages + 1 x {big:,} in {time.perf_counter() - started:.1f} s")
    return big_dialog.id


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000


def report(name: str, values: list[float], target: float | None = None) -> bool:
    median = statistics.median(values)
    extra = f"  (min {min(values):.2f}, max {max(values):.2f}, n={len(values)})" if len(values) > 1 else ""
    verdict = ""
    ok = True
    if target is not None:
        ok = median < target
        verdict = f"  target < {target:g} ms: {'PASS' if ok else 'FAIL'}"
    print(f"{name:<46} {median:9.2f} ms{extra}{verdict}")
    return ok


def tree(center: Center) -> dict[str, list[str]]:
    children: dict[str, list[str]] = {}
    for summary in center.dialog_summaries():
        children.setdefault(summary.branch_from_id, []).append(summary.id)
    return children


def measure(home: Path, big_id: str, rounds: int = 5) -> bool:
    ok = True
    opens, lists, trees, loads = [], [], [], []
    for _ in range(rounds):
        started = time.perf_counter()
        center = Center.open(home)
        opens.append((time.perf_counter() - started) * 1000)
        lists.append(timed(center.dialog_summaries))
        trees.append(timed(lambda c=center: tree(c)))  # type: ignore[misc]
        center.close()
        center = Center.open(home)
        loads.append(timed(lambda c=center: c.get_dialog(big_id)))  # type: ignore[misc]
        center.close()
    center = Center.open(home)
    summaries = center.dialog_summaries()
    print(f"\nstore: {home / 'data' / 'dialogs.sqlite3'}  "
          f"({(home / 'data' / 'dialogs.sqlite3').stat().st_size / 1e6:.0f} MB, {len(summaries):,} dialogs, "
          f"{sum(s.message_count for s in summaries):,} messages)\n")
    report("Center.open (config + store, no dialog read)", opens)
    ok &= report("list: dialog_summaries() (all metadata)", lists, 150)
    report("list + build the branch tree", trees, 150)
    ok &= report(f"open the {summaries[-1].message_count:,}-message dialog (get_dialog)", loads, 200)

    dialog = center.get_dialog(big_id)
    assert dialog is not None
    rng = random.Random(1)
    appends = []
    for index in range(1000):
        message = Message(Role.USER if index % 2 == 0 else Role.ASSISTANT, message_text(rng, index))
        appends.append(timed(lambda m=message: dialog.append_message(m)))  # type: ignore[misc]
    ok &= report("append a message (median of 1,000)", appends, 2)
    print(f"{'append a message, 95th percentile':<46} {statistics.quantiles(appends, n=20)[-1]:9.2f} ms")

    # "zq": shorter than a trigram and found nowhere, so the fallback scan reads every message (the worst case).
    for query in ("migration schema", "kyoto", "伏见稻荷", "京都", "zzzz-not-there", "zq"):
        started = time.perf_counter()
        hits = center.search(query)
        duration = (time.perf_counter() - started) * 1000
        print(f"{'search ' + repr(query):<46} {duration:9.2f} ms  ({len(hits)} dialogs)")
    # labels are not in the full-text index: every search also scans the messages' meta for them
    for query in ("#budget", "#zzzz-not-there"):
        started = time.perf_counter()
        hits = center.label_search(query)
        duration = (time.perf_counter() - started) * 1000
        print(f"{'label search ' + repr(query):<46} {duration:9.2f} ms  ({len(hits)} messages)")
    center.close()
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dialogs", type=int, default=10_000)
    parser.add_argument("--messages", type=int, default=20)
    parser.add_argument("--big", type=int, default=2_000)
    parser.add_argument("--dir", type=Path, help="build the store here (kept); default: a temporary folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="visindigo-bench-") as temporary:
        home = args.dir or Path(temporary)
        big_id = build(home, args.dialogs, args.messages, args.big)
        ok = measure(home, big_id)
    print("\nall targets met" if ok else "\nSOME TARGETS MISSED")


if __name__ == "__main__":
    main()
