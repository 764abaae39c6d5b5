"""Credentials among a driver's options, and keeping their values out of every text.

An option is a credential when a credential word is a whole word of its name (the name
split on `_`, `-`, `.`, spaces and camelCase: `api_key`, `apiKey`, `AUTH_TOKEN`,
`db.password`), or when the driver declares it secret (`Driver(secret_options=...)`).
`keyword`, `keyspace`, `sort_key`, `author` and `private_mode` are not credentials.

A credential's value is searched for in text only when it could be a secret at all:
values shorter than `MIN_SECRET_LENGTH` characters, and the plain literals of
`NOT_SECRETS` (`true`, `none`, ...), are never searched, so they cannot turn the kit's
own words into `[REDACTED]`. The option itself is always shown as `[REDACTED]`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Final

__all__ = [
    "CREDENTIAL_WORDS",
    "KEY_QUALIFIERS",
    "MIN_SECRET_LENGTH",
    "NOT_SECRETS",
    "REDACTED",
    "Redactor",
    "is_credential_key",
    "option_words",
    "redact_options",
    "redact_text",
    "secret_values",
]

REDACTED: Final = "[REDACTED]"

CREDENTIAL_WORDS: Final = frozenset(
    {
        "apikey",
        "accesskey",
        "accesstoken",
        "auth",
        "authorization",
        "authtoken",
        "bearer",
        "clientsecret",
        "credential",
        "credentials",
        "dsn",
        "passphrase",
        "passwd",
        "password",
        "privatekey",
        "pwd",
        "refreshtoken",
        "secret",
        "secretkey",
        "secrets",
        "token",
        "tokens",
    }
)
"""Words that make an option name a credential wherever they stand in it."""

KEY_QUALIFIERS: Final = frozenset(
    {"access", "account", "api", "client", "encryption", "master", "private", "signing"}
)
"""Words that make a following `key` a credential (`api_key`, `privateKey`); `key` after
any other word (`sort_key`) is not one. A name that is just `key` is one."""

MIN_SECRET_LENGTH: Final = 4
"""Credential values shorter than this are never searched for in text."""

NOT_SECRETS: Final = frozenset({"true", "false", "none", "null", "yes", "no", "on", "off"})
"""Values (compared case-insensitively) that are settings, not secrets: never searched."""

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_SEPARATORS = re.compile(r"[\s_.\-]+")


def option_words(name: str) -> list[str]:
    """The words of an option name, lower-cased: split on `_`, `-`, `.`, spaces and
    camelCase (`apiKey` → `api`, `key`; `OAuthToken` → `o`, `auth`, `token`)."""
    return [w.lower() for part in _SEPARATORS.split(name) for w in _WORD.findall(part)]


def is_credential_key(name: str, declared: Iterable[str] = ()) -> bool:
    """Whether the option `name` is a credential: a credential word is one of its words,
    `key` follows a qualifier such as `api`, it is just `key`, or it is in `declared`."""
    if name in declared:
        return True
    words = option_words(name)
    if words == ["key"]:
        return True
    for before, word in zip(["", *words], words, strict=False):
        if word in CREDENTIAL_WORDS or (word == "key" and before in KEY_QUALIFIERS):
            return True
    return False


def _searchable(value: str) -> bool:
    return len(value) >= MIN_SECRET_LENGTH and value.strip().lower() not in NOT_SECRETS


def secret_values(options: Mapping[str, str], declared: Iterable[str] = ()) -> tuple[str, ...]:
    """The values of the credential options that are searched for in text."""
    keep = frozenset(declared)
    return tuple(
        v for k, v in options.items() if is_credential_key(k, keep) and _searchable(str(v))
    )


def redact_options(options: Mapping[str, str], declared: Iterable[str] = ()) -> dict[str, str]:
    """`options` with the value of every credential option replaced by `[REDACTED]`."""
    keep = frozenset(declared)
    return {k: (REDACTED if is_credential_key(k, keep) else v) for k, v in options.items()}


def redact_text(text: str, secrets: Iterable[str]) -> str:
    """`text` with every occurrence of a (searchable) secret value replaced by `[REDACTED]`."""
    for secret in sorted({s for s in secrets if _searchable(s)}, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text


class Redactor:
    """The credentials of one run, by option name, and the ways to keep them out of text.

    Built from the driver's options (and the names it declares secret); every method is
    cheap when there is no credential.
    """

    __slots__ = ("_by_value", "named")

    def __init__(self, named: Iterable[tuple[str, str]] = ()) -> None:
        self.named: tuple[tuple[str, str], ...] = tuple(
            (name, value) for name, value in named if _searchable(value)
        )
        """`(option name, value)` of each credential whose value is searched for."""
        # Longest first, so a secret containing another is replaced whole.
        self._by_value = sorted({v for _, v in self.named}, key=len, reverse=True)

    @classmethod
    def from_options(cls, options: Mapping[str, str], declared: Iterable[str] = ()) -> Redactor:
        """The credentials among a driver's `options` (and the names it `declared` secret)."""
        keep = frozenset(declared)
        return cls((k, str(v)) for k, v in options.items() if is_credential_key(k, keep))

    def __bool__(self) -> bool:
        return bool(self._by_value)

    @property
    def values(self) -> tuple[str, ...]:
        """The searched values, longest first."""
        return tuple(self._by_value)

    def found(self, text: str) -> list[str]:
        """The names of the credentials whose value occurs in `text`."""
        return [name for name, value in self.named if value in text]

    def text(self, text: str) -> str:
        """`text` with every credential value replaced by `[REDACTED]`."""
        for value in self._by_value:
            if value in text:
                text = text.replace(value, REDACTED)
        return text

    def value(self, data: object) -> object:
        """`data` (JSON-like: dicts, lists, strings) with every string redacted."""
        if not self._by_value:
            return data
        if isinstance(data, str):
            return self.text(data)
        if isinstance(data, Mapping):
            return {self.value(k): self.value(v) for k, v in data.items()}
        if isinstance(data, list | tuple):
            return type(data)(self.value(v) for v in data)
        return data
