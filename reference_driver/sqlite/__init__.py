"""The `sqlite` driver: an on-disk provider-profile store.

`SqliteProvider(workspace)` keeps a SQLite database and a Markdown mirror in one
directory and serves the mandatory families plus `documents`.
"""

from .documents import SqliteDocuments
from .provider import DRIVER_ID, SqliteProvider
from .schema import SCHEMA_VERSION, create_schema, migrate, schema_version

__all__ = [
    "DRIVER_ID",
    "SCHEMA_VERSION",
    "SqliteDocuments",
    "SqliteProvider",
    "create_schema",
    "migrate",
    "schema_version",
]
