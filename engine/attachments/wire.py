"""A user message with attachments in each wire format: what the adapters put in the request.

Text files go as a fenced block headed by the file's name, in the message's text, before what the user typed;
the fence's language comes from the name's extension. Images go as OpenAI `image_url` parts (data URLs) and
Anthropic base64 `image` blocks, scaled to the provider's limits (`images.prepare_image`), each after a short
text part naming the file so that "compare a.png with b.png" can be answered. A PDF goes as an Anthropic
`document` block when the adapter takes documents and the PDF is within their limits, else as its text with
page markers.

To a model without images (an earlier question of the dialog, asked of another model), an image is named in a
note instead; the run loop refuses to send a new question with images to such a model (`routing`).
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from ..fence import fenced
from ..sanitize import clean_line
from .limits import ANTHROPIC_PDF_MAX_BYTES, ANTHROPIC_PDF_MAX_PAGES, ImageLimits
from .model import Attachment, AttachmentKind, human_size

if TYPE_CHECKING:
    from ..message import Message

__all__ = [
    "anthropic_user_blocks",
    "attachment_heading",
    "fence_language",
    "file_block",
    "openai_user_content",
    "text_for_model",
]

#: Fence languages of common extensions whose name is not the language's (other extensions are used as they are).
_LANGUAGES = {
    "py": "python", "pyi": "python", "js": "javascript", "mjs": "javascript", "cjs": "javascript", "jsx": "jsx",
    "ts": "typescript", "tsx": "tsx", "rs": "rust", "rb": "ruby", "sh": "bash", "bash": "bash", "zsh": "zsh",
    "md": "markdown", "markdown": "markdown", "yml": "yaml", "yaml": "yaml", "h": "c", "hpp": "cpp", "cc": "cpp",
    "cxx": "cpp", "kt": "kotlin", "kts": "kotlin", "cs": "csharp", "fs": "fsharp", "ps1": "powershell",
    "txt": "text", "log": "text", "csv": "csv", "tf": "hcl", "hs": "haskell", "ex": "elixir", "exs": "elixir",
    "erl": "erlang", "pl": "perl", "m": "objectivec", "htm": "html", "xhtml": "html", "jl": "julia",
}  # fmt: skip
_NAMED = {"dockerfile": "dockerfile", "makefile": "makefile", "cmakelists.txt": "cmake", "gemfile": "ruby"}


def fence_language(name: str) -> str:
    """The code block language for a file name: `_LANGUAGES`, else the extension itself when it is a plain word."""
    base = PurePosixPath(name).name.lower()
    if base in _NAMED:
        return _NAMED[base]
    suffix = PurePosixPath(base).suffix[1:]
    if suffix in _LANGUAGES:
        return _LANGUAGES[suffix]
    return suffix if suffix.isascii() and suffix.isalnum() and len(suffix) <= 12 else ""


def attachment_heading(attachment: Attachment, what: str = "") -> str:
    """ "File: src/app.py" — with what the model reads of it when that is not simply the file."""
    name = clean_line(attachment.name, 200) or "(unnamed)"
    notes = [what] if what else []
    if attachment.is_part:
        notes.append(
            f"only its first {human_size(attachment.size)} of {human_size(attachment.whole_size)}; the rest was not "
            "attached"
        )
    return f"File: {name}" + (f" ({'; '.join(notes)})" if notes else "")


def file_block(attachment: Attachment) -> str:
    """A text file (or a PDF's text) as the model reads it: the heading, then the content in a code block."""
    if attachment.kind is AttachmentKind.PDF:
        from .pdf import pdf_text

        pages = f"{attachment.pages} page{'s' if attachment.pages != 1 else ''}, " if attachment.pages else ""
        heading = attachment_heading(attachment, f"PDF, {pages}its text as extracted")
        return "\n".join([heading, *fenced(pdf_text(attachment), "text")])
    return "\n".join([attachment_heading(attachment), *fenced(attachment.text, fence_language(attachment.name))])


def text_for_model(message: Message, *, documents: bool = False) -> str:
    """The message's text as sent: each text file's block (and each PDF's, unless it goes as a `document`), then
    what the user typed."""
    blocks = [
        file_block(a)
        for a in message.attachments
        if a.kind is AttachmentKind.TEXT or (a.kind is AttachmentKind.PDF and not (documents and _fits_document(a)))
    ]
    if message.content:
        blocks.append(message.content)
    return "\n\n".join(blocks)


def openai_user_content(message: Message, *, sees_images: bool, limits: ImageLimits) -> str | list[dict[str, Any]]:
    """Chat-completions `content`: a plain string unless images go with it (servers that take only strings keep
    working for text files and PDFs)."""
    pictures = [a for a in message.attachments if a.kind is AttachmentKind.IMAGE]
    text = text_for_model(message)
    if not sees_images:
        return _with_note(text, message, pictures)
    if not pictures and not message.images:
        return text
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    for picture in pictures:
        mime, data = _image_data(picture, limits)
        parts.append({"type": "text", "text": attachment_heading(picture)})
        parts.append({"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}})
    parts.extend({"type": "image_url", "image_url": {"url": image.data_url()}} for image in message.images)
    return parts


def anthropic_user_blocks(
    message: Message, *, sees_images: bool, limits: ImageLimits, documents: bool = True
) -> list[dict[str, Any]]:
    """Messages API blocks: each image and PDF document after its heading, then the text (images before text is
    what Anthropic's guide recommends). Documents need a model that reads images: PDFs are read as pages."""
    documents = documents and sees_images
    blocks: list[dict[str, Any]] = []
    pictures = [a for a in message.attachments if a.kind is AttachmentKind.IMAGE]
    for attachment in message.attachments:
        if attachment.kind is AttachmentKind.IMAGE and sees_images:
            mime, data = _image_data(attachment, limits)
            source = {"type": "base64", "media_type": mime, "data": data}
            blocks += [{"type": "text", "text": attachment_heading(attachment)}, {"type": "image", "source": source}]
        elif attachment.kind is AttachmentKind.PDF and documents and _fits_document(attachment):
            source = {"type": "base64", "media_type": "application/pdf", "data": _base64(attachment.data)}
            blocks += [
                {"type": "text", "text": attachment_heading(attachment)},
                {"type": "document", "source": source},
            ]
    if sees_images:
        blocks.extend(
            {"type": "image", "source": {"type": "base64", "media_type": image.mime_type, "data": image.data}}
            for image in message.images
        )
        text = text_for_model(message, documents=documents)
    else:
        text = str(_with_note(text_for_model(message), message, pictures))
    if text:
        blocks.append({"type": "text", "text": text})
    return blocks


def _with_note(text: str, message: Message, pictures: Sequence[Attachment]) -> str:
    """The text with a note naming what was left out for a model that takes no images."""
    count = len(message.images) + len(pictures)
    if not count:
        return text
    named = ", ".join(clean_line(p.name, 60) for p in pictures)
    what = f"{count} image{'s' if count > 1 else ''}" + (f" ({named})" if named else "")
    note = f"[{what} left out: this model does not accept images]"
    return f"{text}\n\n{note}" if text else note


def _image_data(attachment: Attachment, limits: ImageLimits) -> tuple[str, str]:
    from .images import prepare_image

    prepared = prepare_image(attachment, limits)
    return prepared.mime_type, _base64(prepared.data)


def _fits_document(attachment: Attachment) -> bool:
    return attachment.size <= ANTHROPIC_PDF_MAX_BYTES and attachment.pages <= ANTHROPIC_PDF_MAX_PAGES


def _base64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
