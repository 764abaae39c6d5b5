"""What the Section API refuses, with which message, and that it refuses before any call."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from conformance.provider import (
    Invalid,
    MemoryCategory,
    MemorySection,
    MemoryTaint,
    OwnedRecallOpts,
)
from conformance.sections import (
    CROSS_SESSION_FAN_OUT_CONFLICT,
    CROSS_SESSION_SECTION_CONFLICT,
    MAX_SECTION_NAMESPACES,
    NAMESPACE_FILTER_CONFLICT,
    Sections,
    SectionView,
)
from reference_driver.provider import ReferenceProvider

from .fakes import Recording

EVERY_SECTION = [*MemorySection.known(), MemorySection.custom("notes")]
NOT_CONVERSATION = [s for s in EVERY_SECTION if s != MemorySection.CONVERSATION]
CONVERSATION_SPELLINGS = [MemorySection.CONVERSATION, MemorySection.custom("conversation")]
SESSION_OPTS = [
    pytest.param(OwnedRecallOpts(cross_session=True), id="cross_session"),
    pytest.param(OwnedRecallOpts(session_id="s1"), id="session_id"),
    pytest.param(OwnedRecallOpts(session_id=""), id="empty-session_id"),
    pytest.param(OwnedRecallOpts(cross_session=True, session_id="s1"), id="both"),
]


@pytest.fixture
def provider() -> Recording:
    """A reference provider holding one entry in every section, recording calls."""
    inner = ReferenceProvider()
    for section in EVERY_SECTION:
        inner.store(
            f"{section.prefix}:a", "k", "needle", MemoryCategory.CORE, "s1", MemoryTaint.INTERNAL
        )
    return Recording(inner)


@contextmanager
def _raises(message: str) -> Iterator[None]:
    """Expect `Invalid` carrying exactly `message`."""
    with pytest.raises(Invalid) as raised:
        yield
    assert raised.value.message == message


def test_the_messages_are_the_pinned_texts() -> None:
    assert MAX_SECTION_NAMESPACES == 64
    assert NAMESPACE_FILTER_CONFLICT == (
        "recall options must not set a namespace: the section surface derives it"
    )
    assert CROSS_SESSION_SECTION_CONFLICT == (
        "cross-session recall is only meaningful for the conversation section"
    )
    # decisions.md §4.7
    assert CROSS_SESSION_FAN_OUT_CONFLICT == (
        "cross-session and session-scoped recall cannot fan out across a section; "
        "use in_scope, which issues exactly one call"
    )


@pytest.mark.parametrize("section", EVERY_SECTION, ids=str)
def test_a_namespace_filter_is_refused_by_both_recalls(
    provider: Recording, section: MemorySection
) -> None:
    recall = Sections(provider).recall()
    opts = OwnedRecallOpts(namespace=f"{section.prefix}:a")
    with _raises(NAMESPACE_FILTER_CONFLICT):
        recall.in_scope(section, "a", "needle", 5, opts)
    with _raises(NAMESPACE_FILTER_CONFLICT):
        recall.across_section(section, "needle", 5, opts)
    assert provider.calls == []


def test_the_namespace_filter_is_checked_first() -> None:
    provider = Recording(ReferenceProvider())
    recall = Sections(provider).recall()
    opts = OwnedRecallOpts(namespace="learning:a", cross_session=True)
    with _raises(NAMESPACE_FILTER_CONFLICT):
        recall.in_scope(MemorySection.LEARNING, "a", "q", 5, opts)
    with _raises(NAMESPACE_FILTER_CONFLICT):
        recall.across_section(MemorySection.CONVERSATION, "q", 5, opts)


@pytest.mark.parametrize("opts", SESSION_OPTS)
@pytest.mark.parametrize("section", NOT_CONVERSATION, ids=str)
def test_in_scope_refuses_session_options_outside_conversation(
    provider: Recording, section: MemorySection, opts: OwnedRecallOpts
) -> None:
    with _raises(CROSS_SESSION_SECTION_CONFLICT):
        Sections(provider).recall().in_scope(section, "a", "needle", 5, opts)
    assert provider.calls == []


@pytest.mark.parametrize("opts", SESSION_OPTS)
@pytest.mark.parametrize("section", CONVERSATION_SPELLINGS, ids=repr)
def test_in_scope_honours_session_options_on_conversation(
    provider: Recording, section: MemorySection, opts: OwnedRecallOpts
) -> None:
    found = Sections(provider).recall().in_scope(section, "a", "needle", 5, opts)
    [call] = provider.calls
    assert call.method == "recall"
    sent: OwnedRecallOpts = call.args[2]
    assert sent == opts.model_copy(update={"namespace": "conversation:a"})
    assert found.namespaces_searched == 1


@pytest.mark.parametrize("opts", SESSION_OPTS)
@pytest.mark.parametrize(
    "section", [*EVERY_SECTION, MemorySection.custom("conversation")], ids=repr
)
def test_across_section_refuses_session_options_on_every_section(
    provider: Recording, section: MemorySection, opts: OwnedRecallOpts
) -> None:
    with _raises(CROSS_SESSION_FAN_OUT_CONFLICT):
        Sections(provider).recall().across_section(section, "needle", 5, opts)
    assert provider.calls == []


UNUSABLE = [
    MemorySection.custom(""),
    MemorySection.custom("Upper"),
    MemorySection.custom("has space"),
    MemorySection.custom("dot.ted"),
    MemorySection.custom("x" * 199),
]


@pytest.mark.parametrize("section", UNUSABLE, ids=lambda s: repr(s)[:40])
def test_an_unusable_section_fails_every_call_before_reaching_the_provider(
    section: MemorySection,
) -> None:
    provider = Recording(ReferenceProvider())
    # A name the convention cannot read sits in the store; it must not make the
    # section look usable-but-empty.
    provider.inner.store(
        f"{section.prefix}:a", "k", "v", MemoryCategory.CORE, None, MemoryTaint.INTERNAL
    )
    view = Sections(provider).section(section)
    recall = Sections(provider).recall()
    opts = OwnedRecallOpts()
    with pytest.raises(Invalid):
        view.scopes()
    with pytest.raises(Invalid):
        view.list_section()
    with pytest.raises(Invalid):
        recall.across_section(section, "v", 5, opts)
    with pytest.raises(Invalid):
        view.put("a", "k", "v", MemoryCategory.CORE, None, MemoryTaint.INTERNAL)
    with pytest.raises(Invalid):
        view.get("a", "k")
    with pytest.raises(Invalid):
        view.forget("a", "k")
    with pytest.raises(Invalid):
        view.list("a")
    with pytest.raises(Invalid):
        recall.in_scope(section, "a", "v", 5, opts)
    assert provider.calls == []


def test_an_unusable_prefix_is_reported_with_the_namespace_message() -> None:
    view = SectionView(ReferenceProvider(), MemorySection.custom("Upper"))
    with pytest.raises(Invalid) as raised:
        view.scopes()
    assert raised.value.message == (
        "namespace section \"Upper\" must be lowercase letters, digits, '-' or '_'"
    )


BAD_SCOPES = ["", "has space", "a/../b", "a/", "tab\t", "é", "x" * 200]


@pytest.mark.parametrize("scope", BAD_SCOPES, ids=lambda s: repr(s)[:20])
@pytest.mark.parametrize("section", EVERY_SECTION, ids=str)
def test_an_invalid_scope_fails_before_any_call(section: MemorySection, scope: str) -> None:
    provider = Recording(ReferenceProvider())
    view = Sections(provider).section(section)
    with pytest.raises(Invalid):
        view.put(scope, "k", "v", MemoryCategory.CORE, None, MemoryTaint.INTERNAL)
    with pytest.raises(Invalid):
        view.namespace(scope)
    with pytest.raises(Invalid):
        view.get(scope, "k")
    with pytest.raises(Invalid):
        view.forget(scope, "k")
    with pytest.raises(Invalid):
        view.list(scope)
    with pytest.raises(Invalid):
        Sections(provider).recall().in_scope(section, scope, "v", 5, OwnedRecallOpts())
    assert provider.calls == []
    assert provider.inner.namespaces() == []


@pytest.mark.parametrize(
    "section",
    [MemorySection.custom(s.prefix) for s in MemorySection.known()],
    ids=lambda s: s.prefix,
)
def test_a_custom_spelling_of_a_known_section_is_that_section(section: MemorySection) -> None:
    provider = ReferenceProvider()
    sections = Sections(provider)
    aliased = sections.section(section)
    assert aliased.section == section.normalised()
    assert not aliased.section.is_custom
    written = aliased.put("t", "k", "v", MemoryCategory.CORE, None, MemoryTaint.INTERNAL)
    assert written.as_str() == f"{section.prefix}:t"
    [scope] = sections.section(section.normalised()).scopes()
    assert scope.namespace == written
    assert [s.namespace for s in aliased.scopes()] == [written]
