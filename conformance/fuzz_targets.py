"""The fuzz targets, by id: what `--fuzz` collects and the report names, importable
without the fuzzer (and hypothesis) itself, so a run without `--fuzz` never loads them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from conformance.driver import Profile

__all__ = ["ENGINE_TARGET", "FUZZ_TARGETS", "PROVIDER_TARGET", "FuzzTarget"]

ENGINE_TARGET: Final = "fuzz.engine.differential"
"""The engine's fuzz target."""
PROVIDER_TARGET: Final = "fuzz.provider.differential"
"""The provider's fuzz target (the documents family included)."""


@dataclass(frozen=True)
class FuzzTarget:
    """One fuzz target: its stable id, the profile it drives, and what it enforces."""

    id: str
    profile: Profile
    title: str
    clause: str


FUZZ_TARGETS: Final[Mapping[str, FuzzTarget]] = {
    ENGINE_TARGET: FuzzTarget(
        ENGINE_TARGET,
        "engine",
        "Random operation sequences agree with the reference engine",
        (
            "items-and-fingerprints.md#fingerprint, "
            "engine-operations.md#store-replay, engine-operations.md#store-many, "
            "engine-operations.md#descriptor, engine-operations.md#health, "
            "engine-operations.md#list, engine-operations.md#fetch, "
            "engine-operations.md#fetch-best-first, "
            "engine-operations.md#recall, engine-operations.md#get, "
            "engine-operations.md#explore, engine-operations.md#forget-ids, "
            "engine-operations.md#forget-filter, cursors.md#cursor-progress, "
            "cursors.md#writes-between-pages, "
            "errors.md#refusals-change-nothing, kit-choices.md#opaque-ids, "
            "kit-choices.md#retention-probe, kit-choices.md#isolation"
        ),
    ),
    PROVIDER_TARGET: FuzzTarget(
        PROVIDER_TARGET,
        "provider",
        "Random operation sequences agree with the reference provider",
        (
            "provider-families.md#core-store, provider-families.md#core-round-trip, "
            "provider-families.md#core-forget, provider-families.md#core-list, "
            "provider-families.md#core-namespaces, provider-families.md#recall, "
            "provider-families.md#recall-best-first, provider-families.md#recall-filters, "
            "provider-families.md#recall-min-score, provider-families.md#capabilities, "
            "provider-families.md#provider-health, "
            "provider-families.md#taint, provider-families.md#portability-import, "
            "provider-families.md#sections-preserved, provider-families.md#documents-family, "
            "kit-choices.md#document-ids, "
            "errors.md#refusals-change-nothing, kit-choices.md#namespace-none, "
            "kit-choices.md#retention-probe, kit-choices.md#isolation"
        ),
    ),
}
