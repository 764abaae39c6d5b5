"""Path safety of the Markdown mirror: no namespace or key puts a file outside the workspace."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlite_helpers import files_under, put, raw_rows

from conformance.provider import Invalid, NamespaceDocumentInput, PathEscape
from reference_driver.sqlite import SqliteProvider
from reference_driver.sqlite.markdown import file_name

HOSTILE = (
    *("..", ".", "/", "//", "\\", "\0", ":", "C:", "~", "$HOME", "%2e%2e", "*", "?", "|"),
    *("a", "Z", "0", "-", "_", "@", "+", " ", "\n", "é", "１", "\u200b", "👋", "\ud7ff"),
    *("/etc/passwd", "../../outside", "..\\..\\win", "CON", "nul.txt", "123-45-6789"),
    *("conversation:", "document:", "x" * 120),
)
hostile_text = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from(HOSTILE), max_size=10).map("".join),
    st.text(alphabet="./\\:a\0", max_size=30),
    st.text(min_size=200, max_size=1200),
)
# Names the contract accepts, dots and slashes included, so most examples reach the disk.
contract_namespaces = st.text(alphabet="abcXYZ019-_./:@+", min_size=1, max_size=200).filter(
    lambda name: not name.startswith("/") and not name.endswith("/")
)
namespaces = st.one_of(contract_namespaces, hostile_text)


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, SqliteProvider]]:
    parent = tmp_path_factory.mktemp("sandbox")
    provider = SqliteProvider(parent / "workspace")
    yield parent, provider
    provider.shutdown()


def assert_contained(parent: Path, workspace: Path) -> None:
    assert [path.name for path in parent.iterdir()] == ["workspace"]
    root = workspace.resolve()
    for path in workspace.rglob("*"):
        assert not path.is_symlink()
        assert root in path.resolve().parents
        if path.is_file() and not path.name.startswith("memory.db"):
            assert path.is_relative_to(workspace / "namespaces"), path


@settings(
    max_examples=500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(namespace=namespaces, key=hostile_text)
def test_no_namespace_or_key_writes_outside_the_workspace(
    sandbox: tuple[Path, SqliteProvider], namespace: str, key: str
) -> None:
    parent, provider = sandbox
    try:
        put(provider, namespace, key, "content")
    except Invalid:
        event("refused")
        assert_contained(parent, provider.workspace)
        return
    event("stored")
    documents = provider.as_documents()
    assert documents is not None
    stored = documents.get_document(namespace, key)
    assert stored is not None
    mirror = provider.workspace / stored.markdown_rel_path
    assert mirror.is_file()
    assert len(mirror.name.encode()) < 100
    assert_contained(parent, provider.workspace)
    assert provider.forget(namespace, key) is True
    assert not mirror.exists()
    assert_contained(parent, provider.workspace)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(namespace=namespaces, key=hostile_text, title=hostile_text)
def test_no_document_writes_outside_the_workspace(
    sandbox: tuple[Path, SqliteProvider], namespace: str, key: str, title: str
) -> None:
    parent, provider = sandbox
    documents = provider.as_documents()
    assert documents is not None
    document = NamespaceDocumentInput(
        namespace=namespace,
        key=key,
        title=title,
        content="c",
        source_type=title,
        priority="p",
        category="core",
        document_id=None,
    )
    try:
        document_id = documents.put_document(document)
    except Invalid:
        assert_contained(parent, provider.workspace)
        return
    assert_contained(parent, provider.workspace)
    assert documents.delete_document(namespace, document_id) == {
        "deleted": True,
        "namespace": namespace,
        "documentId": document_id,
    }


def test_file_names_are_safe_and_distinct() -> None:
    names = {
        file_name(address, key)
        for address in ("a", "a/b", "a//b")
        for key in ("k", "K", "k ", "../k")
    }
    assert len(names) == 12
    assert all("/" not in name and not name.startswith((".", "-")) for name in names)


def test_addresses_with_empty_segments_share_a_directory_not_a_file(tmp_path: Path) -> None:
    provider = SqliteProvider(tmp_path)
    put(provider, "a//b", "k", "double")
    put(provider, "a/b", "k", "single")
    put(provider, "a", "k", "outer")
    assert sorted(row[0] for row in raw_rows(tmp_path)) == ["a", "a//b", "a/b"]
    mirrors = files_under(tmp_path / "namespaces")
    directories = sorted(
        path.parent.relative_to(tmp_path / "namespaces").as_posix() for path in mirrors
    )
    assert directories == ["a", "a/b", "a/b"]
    documents = provider.as_documents()
    assert documents is not None
    # Clearing the outer namespace leaves the nested ones (and their directory) alone.
    documents.clear_namespace("a")
    assert sorted(row[0] for row in raw_rows(tmp_path)) == ["a//b", "a/b"]
    assert len(files_under(tmp_path / "namespaces")) == 2
    documents.clear_namespace("a//b")
    documents.clear_namespace("a/b")
    assert list((tmp_path / "namespaces").iterdir()) == []  # empty directories are pruned
    provider.shutdown()


def test_a_symlinked_directory_out_of_the_workspace_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    provider = SqliteProvider(tmp_path / "workspace")
    (tmp_path / "workspace" / "namespaces").mkdir(exist_ok=True)
    (tmp_path / "workspace" / "namespaces" / "evil").symlink_to(outside, target_is_directory=True)
    with pytest.raises(PathEscape):
        put(provider, "evil", "k", "must not escape")
    assert list(outside.iterdir()) == []
    assert raw_rows(tmp_path / "workspace") == []  # the row was rolled back with the file
    provider.shutdown()
