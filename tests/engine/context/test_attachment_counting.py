"""A question's attached files count in the window: the text files as the wire sends them, the images as images."""

from __future__ import annotations

from visindigo.engine import Message, Role
from visindigo.engine.attachments import Attachment, AttachmentKind
from visindigo.engine.context.counting import Counter


def test_an_attached_log_counts_its_tokens_and_an_image_as_one() -> None:
    log = Attachment("build.log", AttachmentKind.TEXT, "text/plain", b"error: the build failed here\n" * 1400)
    plain = Counter().count("d", "", [], [Message(Role.USER, "why?")]).tokens
    with_log = Counter().count("d", "", [], [Message(Role.USER, "why?", attachments=[log])]).tokens
    assert with_log - plain > 40_000 // 4 * 0.9  # 40.6 kB of log at about four bytes a token
    picture = Attachment("a.png", AttachmentKind.IMAGE, "image/png", b"\x89PNG\r\n\x1a\n")
    with_image = Counter().count("d", "", [], [Message(Role.USER, "why?", attachments=[picture])]).tokens
    assert with_image - plain >= 250  # an image is about a thousand tokens' worth of bytes
