"""/model: the models of every provider as a numbered list, and choosing one for the shown dialog.

The list is what the app's model picker shows: each provider's configured models and, once asked, the models
its endpoint lists (`engine.providers.models.list_models`); a provider that cannot be reached says why in one
line and keeps its configured models.
"""

from __future__ import annotations

from visindigo.engine import Center
from visindigo.engine.sanitize import clean_line
from visindigo.plain.dialog_commands import number_in
from visindigo.plain.listing import Row, model_rows, quoted
from visindigo.plain.run_lines import model_name
from visindigo.plain.session import PlainSession
from visindigo.tui.workbench import Refused


async def fetch_lists(session: PlainSession) -> None:
    """Ask each provider that has not been asked yet for its models (as the picker does when it opens)."""
    from visindigo.engine.providers.base import ProviderError
    from visindigo.engine.providers.models import list_models

    for provider in session.center.providers:
        if provider.models_listed:
            continue
        try:
            models = await list_models(provider)
        except ProviderError as error:  # its message is written for the user, with any key redacted
            session.out.line(f"{clean_line(provider.name, 40)} did not list its models: {error}", kind="problem")
            continue
        except Exception as error:  # anything else may quote a URL or a header: name the kind of failure only
            session.out.line(f"{clean_line(provider.name, 40)} did not list its models ({type(error).__name__}).")
            continue
        provider.models = models
        provider.models_listed = True


def resolve(session: PlainSession, argument: str) -> tuple[str, str]:
    """(provider id, model id) for a number from /model, `provider/model`, or a model id one provider has."""
    text = argument.strip()
    rows = session.lists.get("models") or model_rows(session.center, session.dialog)
    if text.isdigit():
        return split_key(number_in(session, "model", text, rows))
    return by_name(session.center, text)


def split_key(row: Row) -> tuple[str, str]:
    provider_id, _, model_id = row.key.partition("/")
    return provider_id, model_id


def by_name(center: Center, text: str) -> tuple[str, str]:
    provider_id, slash, model_id = text.partition("/")
    if slash and center.get_provider(provider_id) is not None:
        return provider_id, model_id
    having = [provider for provider in center.providers if provider.get_model(text) is not None]
    if len(having) == 1:
        return having[0].id, text
    if len(having) > 1:
        names = ", ".join(f"{p.id}/{text}" for p in having)
        raise Refused(f"Several providers have {quoted(text)}: say which, for example {names}.")
    raise Refused(f"No provider lists a model {quoted(text)}: /model lists them.")


async def model(session: PlainSession, argument: str) -> None:
    if not session.center.providers:
        raise Refused("No provider is configured yet: `visindigo config edit` adds one.")
    if argument.strip():
        provider_id, model_id = resolve(session, argument)
        session.workbench.set_model(session.dialog, provider_id, model_id)
        session.out.line(f"Model: {model_name(session.workbench, session.dialog)}, for this dialog.")
        return
    await fetch_lists(session)
    rows = session.lists["models"] = model_rows(session.center, session.dialog)
    if not rows:
        session.out.line("No provider lists any model; name one with /model provider/model.")
        return
    session.out.line(f"{len(rows)} model{'' if len(rows) == 1 else 's'}; /model N chooses one for this dialog:")
    for number, row in enumerate(rows, start=1):
        session.out.line(f"{number}. {row.text}")
