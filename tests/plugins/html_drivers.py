"""A driver whose failure message is markup, for the HTML report's tests."""

from __future__ import annotations

from conformance.provider import MemoryHealth
from reference_driver.provider import ReferenceProvider

MARKUP = "<script>document.title='pwned'</script> & <b id=\"bold\">not bold</b>"
"""What the driver's error says: the page must show it as text, never run or render it."""


class HealthSaysMarkup(ReferenceProvider):
    """`health()` raises with `MARKUP` in its message: `provider.health` fails."""

    def health(self) -> MemoryHealth:
        raise RuntimeError(MARKUP)
