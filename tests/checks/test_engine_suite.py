"""The engine suite against the baseline engines and against one broken engine per fault."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from conformance.checks.catalogue import checks_for
from conformance.checks.context import CheckContext, RunSettings
from conformance.checks.engine_suite import (
    assert_fingerprint_replay,
    assert_namespaces,
    engine_retains_writes,
)
from conformance.checks.outcome import RETAINS_NOTHING, ConformanceFailure
from conformance.checks.runner import run_engine_suite
from conformance.constraints import Constraints
from conformance.engine import (
    Hit,
    LearningKind,
    ListRequest,
    MemoryMeta,
    Namespace,
    Role,
    SourceKind,
    SourceRef,
    StoreItem,
    Turn,
    conversation,
    document,
    learning,
)
from null_driver.engine import NullEngine
from reference_driver.engine import ReferenceEngine
from tests.async_wrappers import AsyncEngineOver
from tests.checks.broken_engines import BROKEN_ENGINES, DESTRUCTIVE, NeverReplay
from tests.checks.typical import assert_table_is_current

FAST = RunSettings(timeout=10.0, retries=0)

# Checks that are not this suite's to prove: the credential check needs a driver given
# a secret, and is exercised with the plugin's options.
NOT_OURS = {"engine.no_credential_in_errors"}


def ours() -> list[Any]:
    return [c for c in checks_for("engine") if c.id not in NOT_OURS]


def test_reference_passes_every_check_and_leaves_nothing_behind() -> None:
    engine = ReferenceEngine()
    results = run_engine_suite(engine, FAST)
    assert set(results) == {c.id for c in checks_for("engine")}
    failing = {k: r.reason for k, r in results.items() if r.outcome not in ("passed", "skipped")}
    assert failing == {}
    skipped = {k: r.reason for k, r in results.items() if r.outcome == "skipped"}
    assert skipped == {"engine.no_credential_in_errors": "no credential option given to the driver"}
    assert len(engine) == 0
    assert_table_is_current(results)


def test_null_passes_and_every_storage_check_skips_with_the_reason() -> None:
    results = run_engine_suite(NullEngine(), FAST)
    for chk in ours():
        result = results[chk.id]
        if chk.storage:
            assert (result.outcome, result.reason) == ("skipped", RETAINS_NOTHING), chk.id
        else:
            assert result.outcome == "passed", (chk.id, result.reason)


def test_the_retention_probe_tells_the_baselines_apart() -> None:
    assert engine_retains_writes(ReferenceEngine()) is True
    assert engine_retains_writes(NullEngine()) is False


@pytest.mark.parametrize("chk", [c for c in ours() if c.storage], ids=lambda c: c.id)
def test_vacuity_guard_every_storage_check_fails_on_the_null_engine(chk: Any) -> None:
    with pytest.raises(ConformanceFailure) as failure:
        chk.run(NullEngine(), CheckContext(chk.id, FAST))
    assert failure.value.check_id == chk.id


def settings_for(broken: type[ReferenceEngine]) -> RunSettings:
    """FAST, with the engine's own secret and declared constraints when it has them."""
    secret = getattr(broken, "secret", None)
    return RunSettings(
        timeout=10.0,
        retries=0,
        secrets=() if secret is None else (secret,),
        constraints=getattr(broken, "constraints", Constraints()),
    )


@pytest.mark.parametrize("broken", list(BROKEN_ENGINES), ids=lambda b: b.__name__)
def test_each_broken_engine_fails_its_check(broken: type[ReferenceEngine]) -> None:
    # The check alone, on a fresh engine holding only foreign data: it fails with no
    # earlier check's writes to lean on, and its cleanup leaves the foreign data whole.
    expected = BROKEN_ENGINES[broken]
    engine = broken()
    preload = broken not in DESTRUCTIVE
    if preload:
        for item in foreign_items():
            ReferenceEngine.store(engine, item)
    before = held(engine)
    results = run_engine_suite(engine, settings_for(broken), only=[expected])
    assert list(results) == [expected]
    assert results[expected].outcome == "failed", results[expected]
    assert f"conformance check `{expected}` failed" in results[expected].reason
    if preload:
        assert_foreign_kept(engine, before)


def test_every_engine_check_is_triggered_by_some_broken_engine() -> None:
    assert {c.id for c in checks_for("engine")} - set(BROKEN_ENGINES.values()) == set()


def test_a_repeating_cursor_is_named_as_such() -> None:
    from tests.checks.broken_engines import RepeatingCursor

    results = run_engine_suite(RepeatingCursor(), FAST, only=["engine.list_paging"])
    assert "repeated; paging never ends" in results["engine.list_paging"].reason


def test_the_public_functions_run_on_their_own() -> None:
    assert_fingerprint_replay(ReferenceEngine())
    assert_namespaces(ReferenceEngine())
    with pytest.raises(ConformanceFailure) as failure:
        assert_fingerprint_replay(NeverReplay())
    assert failure.value.check_id == "engine.replay"


def foreign_items() -> list[StoreItem]:
    """Data a live engine might hold beside a run: other workspaces, namespaces, runs."""
    writer = Namespace.parse("team:acme/agent:writer")
    return [
        document("the user's own note, at the root"),
        learning(
            "prefers tabs",
            LearningKind.PREFERENCE,
            0.8,
            MemoryMeta(namespace=writer, workspace="/home/user/project", tags=["mine"]),
        ),
        conversation(
            [Turn(role=Role.USER, text="hello", at=datetime(2024, 1, 2, tzinfo=UTC))],
            MemoryMeta(
                workspace="tinymemory-conformance/other-run/engine-replay",
                source=SourceRef(kind=SourceKind.CONVERSATION, id="thread-1"),
            ),
        ),
        # A prefix of every run's workspace: exact matching must leave it alone.
        document(
            "a document in the kit's own prefix",
            MemoryMeta(workspace="tinymemory-conformance", tags=["roundtrip"]),
        ),
        document(
            "another run's probe",
            MemoryMeta(
                workspace="tinymemory-conformance/other-run/engine-fetch_filters/probes",
                namespace=Namespace.parse("agent:scout"),
            ),
        ),
    ]


def held(engine: ReferenceEngine) -> list[Hit]:
    """Everything the engine holds, read through the reference's own (unbroken) list."""
    return ReferenceEngine.list(engine, ListRequest(limit=10_000)).items


def assert_foreign_kept(engine: ReferenceEngine, before: list[Hit]) -> None:
    """A broken engine may hide run items from cleanup; the foreign ones stay untouched."""
    after = held(engine)
    known = {hit.id for hit in before}
    assert [hit for hit in after if hit.id in known] == before
    foreign = {hit.meta.workspace for hit in before}
    assert [hit for hit in after if hit.meta.workspace in foreign] == before


def test_foreign_data_survives_the_whole_suite() -> None:
    engine = ReferenceEngine()
    for item in foreign_items():
        ReferenceEngine.store(engine, item)
    before = held(engine)
    assert len(before) == len(foreign_items())
    run_engine_suite(engine, FAST)
    assert held(engine) == before  # the suite cleans up everything it wrote


def test_an_async_engine_passes_through_the_bridge() -> None:
    inner = ReferenceEngine()
    results = run_engine_suite(AsyncEngineOver(inner), FAST)
    failing = {k: r.reason for k, r in results.items() if r.outcome not in ("passed", "skipped")}
    assert failing == {}
    assert {k for k, r in results.items() if r.outcome == "skipped"} == NOT_OURS
    assert len(inner) == 0


def test_an_async_broken_engine_fails_its_check() -> None:
    results = run_engine_suite(AsyncEngineOver(NeverReplay()), FAST)
    assert results["engine.replay"].outcome == "failed"
