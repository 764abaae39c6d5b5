"""Numeric bounds the contract fixes."""

from typing import Final

MAX_STORE_MANY: Final = 100
"""Most items one ``store_many`` call takes."""

MAX_GET_IDS: Final = 200
"""Most ids one ``GetRequest`` names."""

MAX_BUCKETS: Final = 500
"""Most buckets one ``ExplorePage`` returns (the explore ``limit`` bound)."""

MAX_SCAN_LIMIT: Final = 50_000
"""Largest ``ExploreRequest.scan_limit``."""

DEFAULT_SCAN_LIMIT: Final = 5_000
"""``ExploreRequest.scan_limit`` when none is given."""

SCAN_PAGE: Final = 200
"""Page size the listing-based ``explore`` and ``get`` defaults read with."""

MAX_DEPTH: Final = 8
"""Deepest a namespace nests."""

MAX_SEGMENT_ID: Final = 128
"""Longest a namespace segment id may be."""

SANITIZED_KEEP: Final = MAX_SEGMENT_ID - 9
"""Characters of a raw id a sanitised segment keeps, leaving room for ``-`` and 8 hex."""

ROOT_LABEL: Final = "root"
"""How the root namespace is written."""
