"""First-run setup: nothing is configured yet, so offer what was found, a form, and the demo.

What was found comes from `engine.providers.discovery` (API keys in the environment, named by variable only,
and OpenAI-compatible servers answering on 127.0.0.1 or at `OLLAMA_HOST`). The list can be given ready or as an
async callable, in which case the screen appears at once and fills in when the probing is done; the screen says
which addresses were asked. A server elsewhere is found by typing its address into the field under the list
(enter tests it there and then). A chosen provider is saved through the config writer and made the default;
the dismiss result says what the user chose.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from visindigo.engine import config as config_writer
from visindigo.engine.center import Center
from visindigo.engine.config import ConfigError
from visindigo.engine.paths import Paths
from visindigo.engine.provider import ModelInfo, Provider
from visindigo.tui.common.cursor_rows import CursorOptionList
from visindigo.tui.common.modal import ModalFrame, safe, sanitize
from visindigo.tui.setup.provider_form import ProviderDraft, ProviderFormScreen

Discoverer = Callable[[], Awaitable[Sequence[Any]]]
_FROM_CENTER: Any = object()


async def _discover_default() -> Sequence[Any]:
    from visindigo.engine.providers.discovery import discover_providers

    found = await discover_providers()
    return [await item.learn_capabilities() if item.source == "local" else item for item in found]


async def _probe_default(address: str) -> Any:
    """The server at a typed address, with what it says its models can do, or the reason it is not one."""
    from visindigo.engine.providers.discovery import probe_url

    found = await probe_url(address)
    return found if isinstance(found, str) else await found.learn_capabilities()


def _probed_default() -> list[str]:
    from visindigo.engine.providers.discovery import probed_addresses

    return probed_addresses()


@dataclass(frozen=True, eq=False)
class FirstRunChoice:
    """What the user chose: a provider (already saved and made the default), the demo, or to skip setup.

    It compares equal to another choice with the same action and provider, and to its action's name, so a
    caller may write `choice == "demo"`.
    """

    action: Literal["provider", "demo", "skip"]
    provider: Provider | None = None

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return self.action == other
        if isinstance(other, FirstRunChoice):
            return (self.action, self.provider) == (other.action, other.provider)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.action)


@dataclass(frozen=True)
class Offer:
    """One provider found on this machine, as the list shows it."""

    provider: Provider
    source: str


def as_offer(found: Any) -> Offer:
    """Read one discovery result: a `DiscoveredProvider` (`to_provider()`), a `Provider`, an object holding one
    (`provider`) or describing one (`id`, `kind`, `base_url`, `api_key_env`, `models`)."""
    provider = found if isinstance(found, Provider) else getattr(found, "provider", None)
    if not isinstance(provider, Provider) and callable(getattr(found, "to_provider", None)):
        provider = found.to_provider()
    if not isinstance(provider, Provider):
        models = [m if isinstance(m, ModelInfo) else ModelInfo(str(m)) for m in getattr(found, "models", ()) or ()]
        provider = Provider(
            str(getattr(found, "id", "") or getattr(found, "name", "provider")),
            kind=str(getattr(found, "kind", "openai")),
            name=str(getattr(found, "name", "") or ""),
            base_url=str(getattr(found, "base_url", "") or ""),
            api_key_env=str(getattr(found, "api_key_env", "") or ""),
            models=models,
        )
    source = ""
    for attribute in ("description", "detail"):
        value = getattr(found, attribute, "")
        if isinstance(value, str) and value:
            source = value
            break
    if not source:
        if provider.api_key_env:
            source = f"key in ${provider.api_key_env}"
        else:
            count = len(provider.models)
            source = f"server at {provider.base_url}" + (f", {count} model{'s' if count != 1 else ''}" if count else "")
    return Offer(provider, source)


class FirstRunScreen(ModalFrame[FirstRunChoice]):
    """Enter uses the highlighted choice; ctrl+o edits a found provider before adding it; ctrl+d starts the demo;
    Esc skips setup. Letters are not keys here: every character typed goes to the address field."""

    BINDINGS = [
        Binding("escape", "skip", "Skip setup"),
        # (not e and d: a typed address may begin with either, "devbox:8080" started the demo and was lost)
        Binding("ctrl+o", "edit", "Edit before adding"),
        Binding("ctrl+d", "demo", "Try the demo"),
    ]

    DEFAULT_CSS = """
    FirstRunScreen > .frame {
        width: 84;
        max-height: 100%;
    }
    FirstRunScreen #intro {
        margin-top: 1;
    }
    FirstRunScreen OptionList {
        height: auto;
        max-height: 14;
        margin-top: 1;
    }
    FirstRunScreen #status {
        height: auto;
        margin-top: 1;
    }
    FirstRunScreen #address {
        margin-top: 1;
    }
    FirstRunScreen #probed {
        height: auto;
    }
    """

    def __init__(
        self,
        discovered: Sequence[Any] | Discoverer | Center | None = None,
        *,
        paths: Paths | None = _FROM_CENTER,
        center: Center | None = None,
        probe: Callable[[str], Awaitable[Any]] | None = None,
        probed: Sequence[str] | None = None,
    ) -> None:
        """`discovered`: the offers, or an async callable that finds them (default: the engine's
        `discover_providers`). A Center given first is taken as `center`. `paths` defaults to the Center's.
        `probe` tests a typed address (default `probe_url`); `probed` lists the addresses discovery asks
        (default: those of `discover_providers`)."""
        super().__init__()
        if isinstance(discovered, Center):
            center, discovered = discovered, None
        if discovered is None:
            discovered = _discover_default
            probed = _probed_default() if probed is None else probed
        self._probe = probe or _probe_default
        self._probed = list(probed or [])
        self._paths: Paths | None = getattr(center, "paths", None) if paths is _FROM_CENTER else paths
        self._center = center
        self._discoverer = discovered if callable(discovered) else None
        self.offers: list[Offer] = [] if callable(discovered) else [as_offer(found) for found in discovered]
        self._searching = self._discoverer is not None
        self._discovery_failed = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = "Welcome to Visindigo"
            frame.border_subtitle = "enter choose · ctrl+o edit first · ctrl+d demo · esc skip"
            yield Static(Content("No model provider is set up yet. Choose one to start chatting:"), id="intro")
            yield CursorOptionList(id="choices")
            yield Input(
                id="address",
                compact=True,
                select_on_focus=False,  # typing on the list moves here mid-word: a selection would eat the next key
                placeholder="or type a server's address and press enter, e.g. 127.0.0.1:8765",
            )
            yield Static("", id="status", classes="hint")
            if self._probed:
                shown = ", ".join(address.removeprefix("http://").removesuffix("/v1") for address in self._probed)
                yield Static(safe(f"Asked: {shown}"), id="probed", classes="hint")
            yield Static(
                Content("Keys found in the environment are shown by variable name only; they stay there."),
                classes="hint",
            )

    def on_mount(self) -> None:
        self._fill()
        self.query_one(OptionList).focus()
        if self._discoverer is not None:
            self._discover()

    def _fill(self) -> None:
        choices = self.query_one(OptionList)
        highlighted = choices.highlighted
        choices.clear_options()
        for index, offer in enumerate(self.offers):
            provider = offer.provider
            choices.add_option(
                Option(
                    Content.assemble(("● ", "bold"), safe(provider.name), ("  ", ""), (sanitize(offer.source), "dim")),
                    id=f"offer-{index}",
                )
            )
        if self._searching:
            choices.add_option(Option(Content("  Looking for local servers…"), id="searching", disabled=True))
        choices.add_option(Option(Content("+ Add a provider by hand (kind, base URL, key)"), id="form"))
        choices.add_option(Option(Content("▶ Try the demo: scripted replies, no key, no network"), id="demo"))
        choices.highlighted = highlighted if highlighted is not None else 0
        if not self.offers and not self._searching and not self._discovery_failed:
            self._status("Nothing found: no API key variable is set and no local server answered.")

    @work(exit_on_error=False, group="discovery")
    async def _discover(self) -> None:
        assert self._discoverer is not None
        try:
            found = await self._discoverer()
            self.offers = [as_offer(item) for item in found]
        except Exception as error:  # probing must never stop setup; the form and the demo still work
            self._discovery_failed = True
            self._status(f"Could not look for providers ({type(error).__name__}); add one by hand.")
        finally:
            self._searching = False
            self._fill()

    def _status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#status", Static)
        status.set_class(error, "error")
        status.update(safe(text))

    def on_key(self, event: events.Key) -> None:
        """A character typed on the list starts the address: the hint under the list says "type a server's
        address", and typing must not be lost to a list that ignores it — any character an address may begin
        with, so no letter is a key of this screen."""
        character = event.character
        if not isinstance(self.focused, OptionList) or character is None or not event.is_printable:
            return
        if character.isspace():
            return
        event.stop()
        event.prevent_default()
        address = self.query_one("#address", Input)
        address.focus()
        address.insert_text_at_cursor(character)

    @on(Input.Submitted, "#address")
    def _address_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():
            self._status(f"Asking {event.value.strip()}…")
            self._test_address(event.value.strip())

    @work(exit_on_error=False, group="address")
    async def _test_address(self, address: str) -> None:
        try:
            found = await self._probe(address)
        except Exception as error:  # a typed address must never break setup
            found = f"{type(error).__name__}: {error}"
        if isinstance(found, str):
            self._status(f"No server at {address}: {found}", error=True)
            return
        offer = as_offer(found)
        self.offers.append(offer)
        self._fill()
        choices = self.query_one(OptionList)
        choices.highlighted = len(self.offers) - 1
        choices.focus()
        self._status(f"Found {offer.provider.name}: enter adds it.")

    # --- choosing -----------------------------------------------------------------------------------------

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option.id or ""
        if option_id == "demo":
            self.action_demo()
        elif option_id == "form":
            self.app.push_screen(ProviderFormScreen(taken_ids=self._taken_ids()), self._use_draft)
        elif option_id.startswith("offer-"):
            offer = self.offers[int(option_id.removeprefix("offer-"))]
            self._use(offer.provider, api_key=None)

    def action_edit(self) -> None:
        option = self.query_one(OptionList).highlighted_option
        if option is None or not (option.id or "").startswith("offer-"):
            return
        offer = self.offers[int((option.id or "").removeprefix("offer-"))]
        self.app.push_screen(
            ProviderFormScreen(suggestion=offer.provider, taken_ids=self._taken_ids(), title="Check and add"),
            self._use_draft,
        )

    def _taken_ids(self) -> list[str]:
        return [p.id for p in self._center.providers] if self._center is not None else []

    def _use_draft(self, draft: ProviderDraft | None) -> None:
        if draft is not None:
            self._use(draft.provider, api_key=draft.api_key)

    def _use(self, provider: Provider, *, api_key: str | None) -> None:
        try:
            if self._paths is not None:
                config_writer.save_provider(self._paths, provider, api_key=api_key or None)
                config_writer.set_default_provider(self._paths, provider.id)
        except (ConfigError, OSError, ValueError) as error:
            self._status(f"Not saved: {error}", error=True)
            return
        if self._center is not None:
            self._center.add_provider(provider)
            self._center.default_provider_id = provider.id
        self.dismiss(FirstRunChoice("provider", provider))

    def action_demo(self) -> None:
        self.dismiss(FirstRunChoice("demo"))

    def action_skip(self) -> None:
        self.dismiss(FirstRunChoice("skip"))
