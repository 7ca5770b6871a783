"""The two threads of the plain mode: the main thread reads lines, the engine runs on an asyncio loop of its own.

Readline needs the main thread (it is where ctrl+c arrives as KeyboardInterrupt and leaves the line cleanly), and
the engine needs a loop that keeps running while a line is being typed (a tool waiting for approval, an MCP
server starting). So each typed line is handed to the loop as a coroutine, and the main thread waits for it;
when that coroutine needs an answer (allow a tool? the next field of a template?) it sends a `Question` back
here, and the main thread reads the answer. ctrl+c while the loop works interrupts what it does (a run is
cancelled, its partial answer kept); ctrl+c while a question is asked answers it with None.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from visindigo.plain.reader import LineReader
from visindigo.plain.signals import main_thread_signals


@dataclass
class Question:
    """A line the engine's side wants read; `answer` gets the text, or None (ctrl+c, ctrl+d)."""

    prompt: str
    prefill: str = ""
    message: bool = False
    answer: concurrent.futures.Future[str | None] = field(default_factory=concurrent.futures.Future)


_DONE = object()

#: How long the main thread waits for the engine before it looks at signals again, seconds.
_SIGNAL_CHECK = 0.2


class EngineLoop:
    """An asyncio loop in a daemon thread, and the queue of questions it asks the main thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.questions: queue.Queue[object] = queue.Queue()
        self._thread = threading.Thread(target=self.loop.run_forever, name="visindigo-engine", daemon=True)
        with main_thread_signals():  # ctrl+c must wake the main thread's read, not this one
            self._thread.start()

    def submit(self, work: Coroutine[Any, Any, Any]) -> concurrent.futures.Future[Any]:
        return asyncio.run_coroutine_threadsafe(work, self.loop)

    def call_soon(self, callback: Callable[[], object]) -> None:
        self.loop.call_soon_threadsafe(callback)

    async def ask(self, prompt: str, *, prefill: str = "", message: bool = False) -> str | None:
        """From the loop: have the main thread read a line (None: the user gave up on the question)."""
        question = Question(prompt, prefill, message)
        self.questions.put(question)
        try:
            return await asyncio.wrap_future(question.answer)
        finally:
            if not question.answer.done():  # abandoned (the run was cancelled): a late answer is ignored
                question.answer.cancel()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)


def wait_for(
    engine: EngineLoop,
    future: concurrent.futures.Future[Any],
    reader: LineReader,
    interrupt: Callable[[], object],
    before_question: Callable[[], object],
) -> Any:
    """Wait for `future`, reading the lines its questions ask for; ctrl+c calls `interrupt` on the loop."""
    future.add_done_callback(lambda _done: engine.questions.put(_DONE))
    while True:
        try:
            # A wait with a timeout, not a block: a ctrl+c whose handler was flagged just before the wait began (or
            # by another thread) is acted on at the next timeout instead of after the next question or the end.
            item = engine.questions.get(timeout=_SIGNAL_CHECK)
        except queue.Empty:
            continue
        except KeyboardInterrupt:
            if future.done():  # finished meanwhile; the ctrl+c may even have cut `get` after it took the _DONE
                return future.result()
            engine.call_soon(interrupt)
            continue
        if item is _DONE:
            if future.done():
                return future.result()
            continue  # left over from an earlier wait
        assert isinstance(item, Question)
        if item.answer.done():
            continue  # abandoned before it was asked
        before_question()
        try:
            read = reader.read_message if item.message else reader.read
            text = read(item.prompt, prefill=item.prefill, history=False)
        except KeyboardInterrupt:
            text = None
            print()
        if not item.answer.done():
            item.answer.set_result(text)
