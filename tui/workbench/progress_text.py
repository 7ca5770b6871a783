"""How a running tool's progress reads on its block: a bar when the total is known, the server's message."""

from __future__ import annotations

from visindigo.tui.common.sanitize import clean

BAR_CELLS = 10


def progress_line(progress: float, total: float | None, message: str) -> str:
    """`▕████░░░░░░▏ 4/10 copying` — or `4 · copying` when the server gives no total."""
    text = clean(message).replace("\n", " ")[:60]
    if total:
        share = max(0.0, min(1.0, progress / total))
        filled = round(share * BAR_CELLS)
        bar = "▕" + "█" * filled + "░" * (BAR_CELLS - filled) + "▏"
        return f"{bar} {progress:g}/{total:g} {text}".rstrip()
    return f"{progress:g} · {text}".rstrip(" ·") + " …"
