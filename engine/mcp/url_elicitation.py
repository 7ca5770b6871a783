"""A page the user must open before a request can go on: the URL mode of elicitation, from either direction.

A server asks for it with `elicitation/create` (mode "url"), or refuses a tool call with the error -32042
("URL elicitation required") whose `data.elicitations` lists the pages — a sign-in, a payment, a consent.
Either way the host shows the page (the app: the link, copied with OSC 52 since the browser may be on another
machine) and the user says when they are done; after the -32042 error the call is then made again, once per
round, up to `MAX_ROUNDS` rounds (a server that keeps asking is not followed forever).

Everything here comes from the server, so it is checked where it enters: only a plain http(s) address is
shown (no `javascript:`, no `file:`, no escape sequence or bidi control hidden in it), and the message is
cleaned. A host that cannot show a page — it sets `url_elicitation = False`, or its `elicit` raises
`NotImplementedError` — is never asked: the model is told the address instead, to pass on to the user.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..sanitize import clean, clean_line
from .host import ElicitationRequest

if TYPE_CHECKING:
    from .host import MCPHost

log = logging.getLogger(__name__)

#: The JSON-RPC error code of "URL elicitation required" (MCP 2025-11-25).
URL_ELICITATION_REQUIRED = -32042
#: How many times a call refused with -32042 is made again after the user visited the pages.
MAX_ROUNDS = 3
#: Longer addresses are not shown (a URL that fills the screen hides where it really goes).
MAX_URL = 2048
MAX_MESSAGE = 2000


def safe_url(url: object) -> str | None:
    """`url` when it is a plain http(s) address a person may be shown; None for anything else."""
    if not isinstance(url, str) or not url or len(url) > MAX_URL:
        return None
    if clean(url) != url or any(character.isspace() for character in url):
        return None  # an escape sequence, a control or bidi character, or a space: not a link to show
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return url


def shows_urls(host: MCPHost | None) -> bool:
    """Whether `host` can show a page to open (a host says it cannot with `url_elicitation = False`)."""
    return host is not None and getattr(host, "url_elicitation", True) is not False


def url_request(
    server: str, message: object, url: str, elicitation_id: object, required_by: str = ""
) -> ElicitationRequest:
    """The host's request for one page, with the server's message cleaned."""
    return ElicitationRequest(
        server,
        clean(str(message or ""))[:MAX_MESSAGE],
        "url",
        url=url,
        elicitation_id=clean_line(str(elicitation_id or ""), 200),
        required_by=required_by,
    )


def required_pages(server: str, tool: str, data: object) -> tuple[list[ElicitationRequest], int]:
    """The pages of a -32042 error's `data`, and how many entries were left out as unusable."""
    entries = data.get("elicitations") if isinstance(data, dict) else None
    pages: list[ElicitationRequest] = []
    unusable = 0
    for entry in entries if isinstance(entries, list) else []:
        url = safe_url(entry.get("url")) if isinstance(entry, dict) else None
        if url is None or not isinstance(entry, dict):
            unusable += 1
            continue
        pages.append(url_request(server, entry.get("message"), url, entry.get("elicitationId"), tool))
    return pages, unusable


def pages_words(pages: list[ElicitationRequest]) -> str:
    """The pages for a sentence to the model: each address, with the server's message in brackets."""
    return "; ".join(f"{page.url} ({clean_line(page.message, 200)})" if page.message else page.url for page in pages)


def required_text(server: str, what: str, data: object) -> str:
    """A -32042 error as words for the model when no page is shown: the addresses, so it can tell the user."""
    pages, unusable = required_pages(server, what, data)
    if not pages:
        return (
            f"MCP server {server!r} needs the user to open a page in a browser before {what} can run, but gave "
            f"no address that can be shown ({unusable} not a plain http(s) link)"
        )
    return (
        f"MCP server {server!r} needs the user to open {pages_words(pages)} in a browser before {what} can run; "
        "ask the user to open it and finish there, then try again"
    )


async def visit(host: MCPHost | None, server: str, tool: str, data: Any, waiting: Callable[[int], None]) -> str | None:
    """Show each page of a -32042 error to the user; None when they finished them all (make the call again),
    else the error the model reads. `waiting(±1)` keeps the server's other calls from timing out meanwhile."""
    what = f"tool {tool!r}"
    pages, _unusable = required_pages(server, tool, data)
    if not pages or host is None or not shows_urls(host):
        return required_text(server, what, data)
    for page in pages:
        waiting(+1)
        try:
            answer = await host.elicit(page)
        except NotImplementedError:
            return required_text(server, what, data)
        except Exception as error:  # the host failing must not look like the server failing
            log.info("showing a page of MCP server %r failed in the client: %s", server, error)
            return required_text(server, what, data)
        finally:
            waiting(-1)
        if answer.action != "accept":
            verb = "declined" if answer.action == "decline" else "cancelled"
            return (
                f"MCP server {server!r} needs the user to open {pages_words([page])} before {what} can run; the "
                f"user {verb}, so the tool was not run"
            )
    return None
