"""Files and images in a message: reading a path into an `Attachment`, and sending it in each wire format.

The API the composer and `visindigo ask` call:

- `read_attachment(path, start_folder=..., text_limit=..., room=...)` -> `Attachment`, or `AttachmentError`
  (one line for the user; nothing is sent) / `AttachmentTooLarge` (a text file over the limit: `.first_part()`);
- `text_limit(settings, room)` and `window_room(model, messages)`: the limit a text file is held to;
- `Message(Role.USER, text, attachments=[...])`: the message that carries them (`Message.edited` keeps them);
- `send_problem(center, dialog, attachments)`: why the dialog's model cannot take them (images to a model
  without `image`), naming a configured model that can — None when it can;
- `pasted_paths(text, start_folder)` and `files_under(start_folder)`: a pasted or dropped path, the `@` list.

Nothing here imports Pillow or pypdf until an image or a PDF is read or sent.
"""

from typing import TYPE_CHECKING

from ..lazy_names import names_on_first_use
from .errors import AttachmentError
from .limits import (
    ANTHROPIC_IMAGE_LIMITS,
    DEFAULT_TEXT_LIMIT,
    MAX_FILE_BYTES,
    OPENAI_IMAGE_LIMITS,
    ImageLimits,
    image_limits_for,
    text_limit,
    window_room,
)
from .listing import files_under, pasted_paths
from .model import Attachment, AttachmentKind, AttachmentTooLarge, human_size
from .reading import ALL_IMAGE_LIMITS, read_attachment

if TYPE_CHECKING:
    from .routing import image_refusal, question_has_images, send_problem

#: Names that load their module on first use (PEP 562): `routing` needs `engine.message`, which needs this package.
_LAZY = {"image_refusal": "routing", "question_has_images": "routing", "send_problem": "routing"}

__all__ = [
    "ALL_IMAGE_LIMITS",
    "ANTHROPIC_IMAGE_LIMITS",
    "DEFAULT_TEXT_LIMIT",
    "MAX_FILE_BYTES",
    "OPENAI_IMAGE_LIMITS",
    "Attachment",
    "AttachmentError",
    "AttachmentKind",
    "AttachmentTooLarge",
    "ImageLimits",
    "files_under",
    "human_size",
    "image_limits_for",
    "image_refusal",
    "pasted_paths",
    "question_has_images",
    "read_attachment",
    "send_problem",
    "text_limit",
    "window_room",
]


__getattr__ = names_on_first_use(__name__, _LAZY)
