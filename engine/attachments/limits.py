"""How big an attachment may be: the providers' limits for images and PDFs, and the text limit.

The provider limits are what each API documents; an image over them is scaled down before it is sent (the
original is kept), a PDF over them goes as its text.

- OpenAI, "Images and vision" (https://platform.openai.com/docs/guides/images-vision): an image may be up to
  20 MB; in `high` detail it is first scaled to fit a 2048 × 2048 square, so more pixels only cost upload time.
- Anthropic, "Vision" (https://docs.anthropic.com/en/docs/build-with-claude/vision): an image may be up to 5 MB
  (measured on the base64 text the API receives: "image exceeds 5 MB maximum: … bytes > 5242880 bytes") and
  8000 × 8000 px; a long edge over 1568 px is scaled down by the API anyway, adding latency and nothing else.
- Anthropic, "PDF support" (https://docs.anthropic.com/en/docs/build-with-claude/pdf-support): a request may be
  up to 32 MB and a document up to 100 pages.

OpenAI-compatible servers that are not OpenAI (llama.cpp, vLLM, Ollama) take OpenAI's shape and limits; a server
with smaller ones is set with the provider settings `image_long_side` and `image_max_bytes`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..record import record

if TYPE_CHECKING:
    from ..message import Message
    from ..model_info import ModelInfo

__all__ = [
    "ANTHROPIC_IMAGE_LIMITS",
    "ANTHROPIC_PDF_MAX_BYTES",
    "ANTHROPIC_PDF_MAX_PAGES",
    "DEFAULT_TEXT_LIMIT",
    "MAX_FILE_BYTES",
    "OPENAI_IMAGE_LIMITS",
    "ImageLimits",
    "image_limits_for",
    "text_limit",
    "window_room",
]


@record(frozen=True, slots=True)
class ImageLimits:
    """The largest image a provider takes: pixels of the long side, and bytes of the encoded file."""

    long_side: int
    max_bytes: int
    #: Who sets these limits, for the message when an image cannot be brought under them.
    provider: str = ""


OPENAI_IMAGE_LIMITS = ImageLimits(long_side=2048, max_bytes=20 * 1024 * 1024, provider="OpenAI")
#: 5 MB of base64 text is 3.75 MB of image.
ANTHROPIC_IMAGE_LIMITS = ImageLimits(long_side=1568, max_bytes=5 * 1024 * 1024 * 3 // 4, provider="Anthropic")
ANTHROPIC_PDF_MAX_BYTES = 32 * 1024 * 1024 * 3 // 4  # the whole request is 32 MB of JSON; base64 takes 4/3
ANTHROPIC_PDF_MAX_PAGES = 100

#: The text limit when the config sets none and the model's window leaves more room: about 25,000 tokens.
DEFAULT_TEXT_LIMIT = 100_000
#: No file larger than this is read at all, whatever its kind (refused by its size before reading).
MAX_FILE_BYTES = 256 * 1024 * 1024
#: Bytes per token for the window estimate: English prose and code run at 3.5–4.5.
_BYTES_PER_TOKEN = 4


def image_limits_for(kind: str, settings: Mapping[str, Any] | None = None) -> ImageLimits:
    """The limits for a provider of adapter `kind` ("openai", "anthropic"), narrowed by its settings."""
    base = ANTHROPIC_IMAGE_LIMITS if kind == "anthropic" else OPENAI_IMAGE_LIMITS
    settings = settings or {}
    long_side = _positive(settings.get("image_long_side"), base.long_side)
    max_bytes = _positive(settings.get("image_max_bytes"), base.max_bytes)
    if (long_side, max_bytes) == (base.long_side, base.max_bytes):
        return base
    return ImageLimits(long_side, max_bytes, base.provider)


def text_limit(settings: Mapping[str, Any] | None = None, room: int | None = None) -> int:
    """The most bytes of text one file may bring: the `attachment_text_limit` setting (else `DEFAULT_TEXT_LIMIT`),
    or less when `room` (bytes the model's window has left, see `window_room`) is smaller."""
    configured = _positive((settings or {}).get("attachment_text_limit"), DEFAULT_TEXT_LIMIT)
    return max(0, min(configured, room)) if room is not None else configured


def window_room(model: ModelInfo | None, messages: Iterable[Message] = (), *, attached: int = 0) -> int | None:
    """Bytes of text the model's window has left after `messages`, the answer's share and `attached` bytes of
    text files already on the composer; None when the window is unknown (the model's `context_window` is 0).
    Images and PDFs are not counted: their tokens do not follow their bytes.

    An estimate at four bytes a token: close enough to tell a 1 MB log from what fits, not a token count.
    """
    if model is None or model.context_window <= 0:
        return None
    used = attached + sum(
        len(m.content) + len(m.reasoning) + sum(a.size for a in m.attachments if a.kind == "text") for m in messages
    )
    answer = model.max_output_tokens or min(4096, model.context_window // 4)
    return max(0, (model.context_window - answer) * _BYTES_PER_TOKEN - used)


def _positive(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default
