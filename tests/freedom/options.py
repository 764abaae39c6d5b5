"""Driver options of the freedom drivers: which count as a credential."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

CREDENTIAL: str = "api_key"
"""The one credential option the freedom drivers take."""


def count_options(options: Mapping[str, str], used: Counter[str]) -> None:
    """Count the credential option and the plain options among `options`."""
    for name in options:
        used["credential-option" if name == CREDENTIAL else "plain-options"] += 1
