"""The distribution lists every package on disk, and ships the contract pages inside."""

from __future__ import annotations

import tomllib
from pathlib import Path

from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[1]
TOP_LEVEL = ["conformance*", "plugins*", "reference_driver*", "null_driver*"]


def setuptools_table() -> dict[str, object]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    table: dict[str, object] = config["tool"]["setuptools"]
    return table


def test_every_package_on_disk_is_listed() -> None:
    listed = setuptools_table()["packages"]
    assert isinstance(listed, list)
    on_disk = find_packages(where=str(ROOT), include=TOP_LEVEL)
    assert sorted(listed) == sorted([*on_disk, "conformance._contract"])


def test_the_contract_pages_ship_as_package_data() -> None:
    table = setuptools_table()
    assert table["package-dir"] == {"conformance._contract": "docs/contract"}
    data = table["package-data"]
    assert isinstance(data, dict) and data["conformance._contract"] == ["*.md"]
    assert sorted(p.name for p in (ROOT / "docs" / "contract").glob("*.md"))
