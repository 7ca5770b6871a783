"""Checking an image with Pillow, and scaling it down to a provider's limits before it is sent.

Pillow is imported here only, and this module only when an image is attached or sent: the app and `visindigo
ask` start without it. The scaled copy is made again when needed (a restart, another provider) and kept in a
small cache meanwhile, so the rounds of a tool loop and the next questions of a dialog do not scale it again.
"""

from __future__ import annotations

import io
import threading
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .errors import AttachmentError, reason
from .limits import ImageLimits
from .model import human_size

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage

    from .model import Attachment

__all__ = ["PreparedImage", "check_image", "prepare_image"]

#: More pixels than this is refused (Pillow's own bomb limit is 89 million, a warning below twice that).
MAX_PIXELS = 100_000_000
_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif"}
#: JPEG qualities tried, in order, when the image is still over the byte limit at its scaled size.
_JPEG_QUALITIES = (85, 70, 50)
_CACHE_SIZE = 16


@dataclass(frozen=True, slots=True)
class PreparedImage:
    """An image as it goes on the wire: the original when it fits, else a scaled (and maybe re-encoded) copy."""

    mime_type: str
    data: bytes
    width: int
    height: int
    scaled: bool


_cache: OrderedDict[tuple[str, int, int], PreparedImage] = OrderedDict()
_cache_lock = threading.Lock()


def check_image(data: bytes, shown: str) -> tuple[int, int, str]:
    """Width, height and MIME type of an image that decodes completely; `AttachmentError` for a broken or
    truncated one, one of a format no provider takes, or one of absurd size (a decompression bomb)."""
    image = _open(data, shown)
    try:
        image.load()  # verify() checks the structure; decoding every pixel finds a truncated file too
    except (OSError, ValueError, SyntaxError) as error:
        raise AttachmentError(f"{shown} is a broken or truncated image ({reason(error)})") from None
    return image.width, image.height, _FORMATS[str(image.format)]


def prepare_image(attachment: Attachment, limits: ImageLimits) -> PreparedImage:
    """The image within `limits`: long side scaled down (aspect kept), then re-encoded as JPEG at falling quality
    if the bytes are still over; `AttachmentError` when even that does not fit."""
    key = (attachment.sha256, limits.long_side, limits.max_bytes)
    with _cache_lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
            return found
    prepared = _prepare(attachment, limits)
    with _cache_lock:
        _cache[key] = prepared
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return prepared


def _prepare(attachment: Attachment, limits: ImageLimits) -> PreparedImage:
    shown = repr(attachment.display_name)
    image = _open(attachment.data, shown)
    animated = bool(getattr(image, "is_animated", False))
    width, height = image.size
    if max(width, height) <= limits.long_side and attachment.size <= limits.max_bytes and not animated:
        return PreparedImage(attachment.mime_type, attachment.data, width, height, scaled=False)
    from PIL import Image, ImageOps

    try:
        image.seek(0)  # an animation goes as its first frame, which is what both APIs read of a GIF
        image.load()
        frame = ImageOps.exif_transpose(image) or image  # a phone photo stands the right way up once scaled
    except (OSError, ValueError, SyntaxError) as error:
        raise AttachmentError(f"{shown} is a broken or truncated image ({reason(error)})") from None
    if max(frame.size) > limits.long_side:
        frame = frame.copy()
        frame.thumbnail((limits.long_side, limits.long_side), Image.Resampling.LANCZOS)
    encoded = _encode(frame, "JPEG" if image.format == "JPEG" else "PNG" if image.format == "GIF" else image.format)
    for quality in _JPEG_QUALITIES:
        if len(encoded[1]) <= limits.max_bytes:
            break
        encoded = _encode(frame, "JPEG", quality)
    mime, data = encoded
    if len(data) > limits.max_bytes:
        raise AttachmentError(
            f"{shown} is too large to send even scaled down to {frame.width}×{frame.height} and compressed: "
            f"{human_size(len(data))}, over {limits.provider or 'the provider'}'s {human_size(limits.max_bytes)}"
        )
    return PreparedImage(mime, data, frame.width, frame.height, scaled=True)


def _encode(frame: PILImage, fmt: str | None, quality: int = _JPEG_QUALITIES[0]) -> tuple[str, bytes]:
    out = io.BytesIO()
    fmt = fmt if fmt in _FORMATS else "PNG"
    if fmt == "JPEG":
        if frame.mode in ("RGBA", "LA", "P", "PA"):  # transparency over white, as a viewer shows it
            from PIL import Image

            rgba = frame.convert("RGBA")
            flat = Image.new("RGB", rgba.size, (255, 255, 255))
            flat.paste(rgba, mask=rgba.getchannel("A"))
            frame = flat
        elif frame.mode != "RGB":
            frame = frame.convert("RGB")
        frame.save(out, "JPEG", quality=quality, optimize=True)
    elif fmt == "WEBP":
        frame.save(out, "WEBP", quality=quality)
    else:
        frame.save(out, "PNG", optimize=True)
    return _FORMATS[fmt], out.getvalue()


def _open(data: bytes, shown: str) -> PILImage:
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            probe = Image.open(io.BytesIO(data))
            _check_pixels(probe, shown)
            probe.verify()
            image = Image.open(io.BytesIO(data))  # verify() leaves the image unusable: open it again
    except AttachmentError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise AttachmentError(f"{shown} has too many pixels to be an image anyone can send") from None
    except UnidentifiedImageError:
        raise AttachmentError(f"{shown} is a broken image (its header is not readable)") from None
    except (OSError, ValueError, SyntaxError, EOFError) as error:
        raise AttachmentError(f"{shown} is a broken or truncated image ({reason(error)})") from None
    if image.format not in _FORMATS:
        raise AttachmentError(f"{shown} is a {image.format} image; PNG, JPEG, WebP and GIF can be sent")
    return image


def _check_pixels(image: PILImage, shown: str) -> None:
    width, height = image.size
    if width * height > MAX_PIXELS:
        raise AttachmentError(
            f"{shown} is {width}×{height} pixels; images up to {MAX_PIXELS // 1_000_000} million pixels can be sent"
        )
