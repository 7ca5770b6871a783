"""A writer process for the crash tests: streams a reply into the store until it is killed.

Usage: python stream_writer.py HOME MODE, MODE being "steady" (a chunk every 20 ms, forever) or "stall"
(chunks for a while, then silence). Prints one line per event with a monotonic timestamp, flushed at once, so
the test knows exactly what was sent and when.
"""

from __future__ import annotations

import asyncio
import sys
import time

from visindigo.engine import Center, Role


def say(*parts: object) -> None:
    print(*parts, flush=True)


async def main(home: str, mode: str) -> None:
    center = Center.open(home)
    dialog = center.create_dialog()
    say("dialog", dialog.id)
    dialog.append_message(Role.USER, "first question")
    dialog.begin_assistant_message()
    dialog.append_delta("first answer")
    dialog.end_assistant_message()
    dialog.append_message(Role.USER, "second question")
    say("appended", dialog.message_count)
    dialog.begin_assistant_message()
    index = 0
    while True:
        if mode == "stall" and index == 15:
            say("stalled", time.monotonic())
            await asyncio.sleep(3600)
        dialog.append_delta(f"<{index}>")
        say("sent", index, time.monotonic())
        index += 1
        await asyncio.sleep(0.02)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
