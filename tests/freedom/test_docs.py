"""`docs/freedoms.md` is what the matrix proves, and names every check of the catalogue."""

from __future__ import annotations

from pathlib import Path

from conformance.checks.catalogue import all_checks
from tests.freedom.check_freedoms import CHECK_FREEDOMS, EVERY_CHECK, NOT_IN_THE_MATRIX
from tests.freedom.docs import render
from tests.freedom.freedoms import FREEDOMS
from tests.freedom.matrix import CONFIGURATIONS, FUZZ_ONLY, SUITE_ONLY

ROOT = Path(__file__).resolve().parents[2]


def test_the_page_is_generated_from_the_matrix() -> None:
    written = (ROOT / "docs" / "freedoms.md").read_text()
    assert written == render(), "run: python -m tests.freedom.docs > docs/freedoms.md"


def test_every_check_of_the_catalogue_says_what_it_leaves_open() -> None:
    catalogue = {c.id for c in all_checks()}
    assert set(CHECK_FREEDOMS) == catalogue
    assert set(NOT_IN_THE_MATRIX) <= catalogue
    page = render()
    for check_id in catalogue:
        assert f"| `{check_id}` |" in page


def test_each_check_leaves_open_only_freedoms_of_its_profile() -> None:
    profile_of = {c.id: c.profile for c in all_checks()}
    for check_id, freedoms in CHECK_FREEDOMS.items():
        for freedom in (*EVERY_CHECK, *freedoms):
            assert profile_of[check_id] in FREEDOMS[freedom].profiles, (check_id, freedom)


def test_every_freedom_is_used_by_a_configuration_of_each_of_its_profiles() -> None:
    for freedom in FREEDOMS.values():
        for profile in freedom.profiles:
            users = [
                c.name
                for c in CONFIGURATIONS.values()
                if c.profile == profile and freedom.id in c.freedoms
            ]
            assert users, (freedom.id, profile)


def test_every_configuration_stands_for_known_freedoms_of_its_profile() -> None:
    for config in CONFIGURATIONS.values():
        assert config.freedoms, config.name
        for freedom in config.freedoms:
            assert config.profile in FREEDOMS[freedom].profiles, (config.name, freedom)
    assert set(FREEDOMS) >= SUITE_ONLY | FUZZ_ONLY


def test_the_readme_points_to_the_page() -> None:
    assert "docs/freedoms.md" in (ROOT / "README.md").read_text()
