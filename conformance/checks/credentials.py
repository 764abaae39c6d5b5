"""Checks that a credential handed to a driver never shows in its error messages or health."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.outcome import CheckSkipped, DriverRaised
from conformance.checks.registry import check
from conformance.engine import FetchMode, FetchRequest, ListRequest, MetaFilter, RecallRequest
from conformance.redaction import MIN_SECRET_LENGTH


def _assert_no_secret(ctx: CheckContext, calls: list[tuple[str, Callable[[], Any]]]) -> None:
    """Run each call; neither its answer nor its error may carry a credential's value.

    A leak is named by the option's name, never by its value.
    """
    for label, call in calls:
        try:
            # These requests are malformed on purpose: a refusal is the expected answer.
            with ctx.answer_or_refusal():
                texts = [str(call())]
        except DriverRaised as raised:
            texts = [str(raised.error), repr(raised.error)]
        leaked = sorted({name for text in texts for name in ctx.redactor.found(text)})
        ctx.require(
            not leaked,
            label,
            "no credential in any message",
            "a message carrying the value of "
            + ", ".join(
                f"the credential option `{name}`" if name else "a credential" for name in leaked
            ),
        )


def _secrets(ctx: CheckContext) -> None:
    if ctx.redactor:
        return
    if ctx.settings.credentials or ctx.settings.secrets:
        raise CheckSkipped(
            f"the credential options given are too short to search for (under "
            f"{MIN_SECRET_LENGTH} characters) or plain settings (true, none, ...)"
        )
    raise CheckSkipped("no credential option given to the driver")


@check(
    "engine.no_credential_in_errors",
    title="Error messages and health never carry a credential",
    clause=(
        "errors.md#no-credentials, kit-choices.md#credential-options, engine-operations.md#health"
    ),
)
def assert_engine_no_credential_in_errors(engine: Any, ctx: CheckContext) -> None:
    """Invalid requests, an unknown cursor and health must not echo a credential option."""
    _secrets(ctx)
    scoped = MetaFilter(workspace=ctx.root)
    calls: list[tuple[str, Callable[[], Any]]] = [
        ("health()", lambda: engine.health()),
        ("list(limit=0)", lambda: engine.list(ListRequest(filter=scoped, limit=0))),
        (
            "list(unknown cursor)",
            lambda: engine.list(
                ListRequest(filter=scoped, limit=1, cursor=f"{ctx.marker}-no-such-cursor")
            ),
        ),
        (
            "recall(blank)",
            lambda: engine.recall(RecallRequest(question=" ", filter=scoped, limit=1)),
        ),
    ]
    declared = set(engine.descriptor().fetch_modes)
    for mode in FetchMode:
        if mode not in declared:
            request = FetchRequest(query=ctx.marker, mode=mode, filter=scoped, limit=1)
            calls.append((f"fetch({mode.value})", functools.partial(engine.fetch, request)))
    _assert_no_secret(ctx, calls)


@check(
    "provider.no_credential_in_errors",
    title="Error messages and health never carry a credential",
    clause=(
        "errors.md#no-credentials, kit-choices.md#credential-options, "
        "provider-families.md#provider-health"
    ),
)
def assert_provider_no_credential_in_errors(provider: Any, ctx: CheckContext) -> None:
    """A foreign export cursor, a zero limit and health must not echo a credential option."""
    _secrets(ctx)
    calls: list[tuple[str, Callable[[], Any]]] = [
        ("health()", lambda: provider.health()),
        ("export_page(foreign cursor)", lambda: provider.export_page("!not-a-cursor!", 8)),
        ("export_page(limit 0)", lambda: provider.export_page(None, 0)),
        ("get(bad namespace)", lambda: provider.get("", "k")),
    ]
    _assert_no_secret(ctx, calls)
