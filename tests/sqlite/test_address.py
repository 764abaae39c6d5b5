"""Canonical identifiers, namespace addresses and workspace paths (contract-reference A11)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.provider import Namespace
from reference_driver.sqlite.address import (
    GLOBAL_NAMESPACE,
    address_directory,
    address_path,
    canonical_identifier,
    logical_namespace,
    sanitize_namespace,
)

ADDRESS_ALPHABET = re.compile(r"[A-Za-z0-9_/-]+")

# Namespace-like text: mostly the characters that matter here, plus anything at all.
NAMESPACE_PIECES = (
    *("a", "Z", "0", "9", "-", "_", "/", ".", "..", ":", "@", " ", "\t", "é", "１", "\u200b"),
    *("123-45-6789", "conversation:", "12025551234", "AB123456C", "\\", "\0"),
)
namespaces = st.one_of(
    st.text(max_size=60),
    st.lists(st.sampled_from(NAMESPACE_PIECES), max_size=12).map("".join),
)


@pytest.mark.parametrize(
    ("namespace", "address"),
    [
        ("team alpha/#1", "team_alpha/_1"),
        ("whatsapp-web:12025551234@c.us", "whatsapp-web_12025551234_c_us"),
        ("conversation:thread-1", "conversation_thread-1"),
        ("../etc", "__/etc"),
        ("/abs/path", "abs/path"),
        ("///abs", "abs"),
        ("  padded  ", "padded"),
        ("a.b@c+d", "a_b_c_d"),
        ("héllo", "h_llo"),
        ("user:123-45-6789", "user__REDACTED_PII_SSN_"),
        ("", GLOBAL_NAMESPACE),
        (" \t\n", GLOBAL_NAMESPACE),
        ("/", GLOBAL_NAMESPACE),
        ("///", GLOBAL_NAMESPACE),
    ],
)
def test_sanitize_namespace_examples(namespace: str, address: str) -> None:
    assert sanitize_namespace(namespace) == address


def test_sanitize_namespace_is_not_injective() -> None:
    assert sanitize_namespace("a:b_c") == sanitize_namespace("a_b:c") == "a_b_c"


def test_sanitize_namespace_keeps_empty_and_trailing_segments() -> None:
    # Only a leading "/" is stripped; address_path refuses these (see below).
    assert sanitize_namespace("a//b") == "a//b"
    assert sanitize_namespace("a/") == "a/"


@settings(max_examples=500)
@given(namespaces)
def test_sanitize_namespace_output_alphabet(namespace: str) -> None:
    address = sanitize_namespace(namespace)
    assert ADDRESS_ALPHABET.fullmatch(address)
    assert not address.startswith("/")
    assert sanitize_namespace(address) == address


def test_canonical_identifier_redacts_only_when_the_strict_gate_fires() -> None:
    assert canonical_identifier("user:123-45-6789") == "user:[REDACTED_PII_SSN]"
    assert canonical_identifier("conversation:thread-1") == "conversation:thread-1"
    # Bare phone digits are not strict-set PII, so the identifier is unchanged.
    assert canonical_identifier("whatsapp-web:12025551234@c.us") == "whatsapp-web:12025551234@c.us"
    assert canonical_identifier("imessage:+12025551234") == "imessage:+12025551234"


def test_canonical_identifier_does_not_trim() -> None:
    assert canonical_identifier(" ssn-123-45-6789 ") == " ssn-[REDACTED_PII_SSN] "


@settings(max_examples=300)
@given(namespaces)
def test_canonical_identifier_is_idempotent(value: str) -> None:
    once = canonical_identifier(value)
    assert canonical_identifier(once) == once


# Valid provider namespaces, some carrying strict-set PII in a scope.
PII_SCOPES = ("123-45-6789", "AB123456C", "12345678Z", "X1234567L", "ABCDE1234F", "900101-1234567")
valid_namespaces = st.builds(
    lambda prefix, pieces: f"{prefix}:{'-'.join(pieces)}",
    st.sampled_from(("conversation", "learning", "user", "tool")),
    st.lists(
        st.sampled_from(("thread", "a.b", "x@y", "p+q", "z_1", "dir/leaf", *PII_SCOPES)),
        min_size=1,
        max_size=4,
    ),
)


@pytest.mark.parametrize(
    ("namespace", "logical"),
    [
        ("conversation:thread-123-45-6789", "conversation:thread-_REDACTED_PII_SSN_"),
        ("user:AB123456C", "user:_REDACTED_PII_NINO_"),
        ("conversation:thread-8f21", "conversation:thread-8f21"),
        (
            "conversation:whatsapp-web:12025551234@c.us",
            "conversation:whatsapp-web:12025551234@c.us",
        ),
        # The spelling an earlier schema reported names the same namespace.
        ("user:[REDACTED_PII_SSN]", "user:_REDACTED_PII_SSN_"),
    ],
)
def test_logical_namespace_examples(namespace: str, logical: str) -> None:
    assert logical_namespace(namespace) == logical


@given(valid_namespaces)
def test_the_logical_name_is_a_namespace_addressing_the_same_rows(namespace: str) -> None:
    logical = logical_namespace(namespace)
    parsed = Namespace.parse(logical)
    assert parsed.section() == Namespace.parse(namespace).section()
    assert sanitize_namespace(logical) == sanitize_namespace(namespace)
    assert logical_namespace(logical) == logical
    assert not any(pii in logical for pii in PII_SCOPES)


def test_trim_follows_unicode_white_space_like_rust() -> None:
    # U+001C..U+001F are whitespace to str.strip() but not to Rust's str::trim.
    assert sanitize_namespace("\x1ckey\x1f") == "_key_"
    assert sanitize_namespace("\u3000key\u00a0") == "key"


# --------------------------------------------------------------------- address_path


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("workspace")


def test_address_path_joins_segments(workspace: Path) -> None:
    assert address_path(workspace, "conversation_thread-1") == workspace / "conversation_thread-1"
    assert address_path(workspace, "team_alpha/_1") == workspace / "team_alpha" / "_1"


@pytest.mark.parametrize(
    "address",
    ["", ".", "..", "../x", "a/../../x", "a/./b", "a//b", "a/", "/abs", "a\\..\\b", "c:x", "a\0b"],
)
def test_address_path_rejects_unsafe_addresses(workspace: Path, address: str) -> None:
    with pytest.raises(ValueError):
        address_path(workspace, address)


def test_address_path_rejects_a_symlink_out_of_the_workspace(
    workspace: Path, tmp_path: Path
) -> None:
    link = workspace / "link-out"
    link.symlink_to(tmp_path, target_is_directory=True)
    try:
        with pytest.raises(ValueError):
            address_path(workspace, "link-out/x")
    finally:
        link.unlink()


def _inside(path: Path, workspace: Path) -> bool:
    root = workspace.resolve()
    return root in path.resolve().parents and path.is_relative_to(workspace)


@settings(max_examples=500)
@given(namespaces)
def test_address_path_never_escapes_for_sanitised_names(workspace: Path, namespace: str) -> None:
    try:
        path = address_path(workspace, sanitize_namespace(namespace))
    except ValueError:
        return  # empty segments ("a//b", "a/") are refused rather than collapsed
    assert _inside(path, workspace)


@settings(max_examples=500)
@given(st.one_of(namespaces, st.text(alphabet="./\\:ab", max_size=20)))
def test_address_path_never_escapes_for_raw_text(workspace: Path, address: str) -> None:
    try:
        path = address_path(workspace, address)
    except ValueError:
        return
    assert _inside(path, workspace)


# ---------------------------------------------------------------- address_directory


@pytest.mark.parametrize(
    ("address", "relative"),
    [("a", "a"), ("a//b", "a/b"), ("a/", "a"), ("a///b//", "a/b"), ("", GLOBAL_NAMESPACE)],
)
def test_address_directory_collapses_empty_segments(
    workspace: Path, address: str, relative: str
) -> None:
    assert address_directory(workspace, address) == workspace / relative


@pytest.mark.parametrize("address", ["..", "a/../..", "a\\b", "c:x"])
def test_address_directory_still_refuses_unsafe_addresses(workspace: Path, address: str) -> None:
    with pytest.raises(ValueError):
        address_directory(workspace, address)


@settings(max_examples=300)
@given(namespaces)
def test_address_directory_accepts_every_sanitised_name(workspace: Path, namespace: str) -> None:
    assert _inside(address_directory(workspace, sanitize_namespace(namespace)), workspace)
