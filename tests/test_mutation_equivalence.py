"""`benchmarks/mutation_equivalence.py` judges only the two kinds of mutant it names."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from benchmarks.mutation_equivalence import REFUSAL_WORDS, SQL_CASE, automatic_reason

ORIGINAL = """
    if limit < 1:
        raise Invalid("limit must be positive")
    where = "WHERE category = 'conversation' AND key = ?"
    label = _utf8(value, "title")
    return conn.execute(where, (limit,)), message(f"{limit} rows")
"""

MUTANTS = {
    1: ('"limit must be positive"', '"XXlimit must be positiveXX"'),
    2: ('"limit must be positive"', "None"),
    3: ('"WHERE category', '"where category'),
    4: ("'conversation'", "'CONVERSATION'"),
    5: ("limit < 1", "limit <= 1"),
    6: ('"title"', '"TITLE"'),
    7: ('f"{limit} rows"', '"XX rows"'),
    8: ('"limit must be positive"', '"XXlimit must be positiveXX"', "limit < 1", "limit < 2"),
}


def _tree(tmp_path: Path, module: str) -> Path:
    """A mutmut tree holding `module` with the original and each mutant of `x_f`."""
    functions = [f"def x_f__mutmut_orig(value, limit, conn):{ORIGINAL}"]
    for number, edits in MUTANTS.items():
        body = ORIGINAL
        for old, new in zip(edits[::2], edits[1::2], strict=True):
            body = body.replace(old, new, 1)
        functions.append(f"def x_f__mutmut_{number}(value, limit, conn):{body}")
    path = tmp_path.joinpath(*module.split(".")).with_suffix(".py")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(textwrap.dedent(f) for f in functions))
    return tmp_path


@pytest.mark.parametrize(
    ("module", "number", "reason"),
    [
        ("sqlite.store", 1, REFUSAL_WORDS),
        ("sqlite.store", 2, None),  # no message at all is not other words
        ("sqlite.store", 3, SQL_CASE),
        ("sqlite.store", 4, None),  # a literal compared by value: not the same SQL
        ("sqlite.store", 5, None),  # behaviour, not words
        ("sqlite.store", 6, REFUSAL_WORDS),  # the label of a UTF-8 refusal
        ("sqlite.store", 7, None),  # the text of a value that is not a refusal
        ("sqlite.store", 8, None),  # words and behaviour together
        ("provider", 1, REFUSAL_WORDS),
        ("provider", 3, None),  # SQL case is judged for the sqlite subject only
        ("engine", 1, None),  # engine messages are pinned in places
    ],
)
def test_each_mutant_is_judged_by_what_it_changes(
    tmp_path: Path, module: str, number: int, reason: str | None
) -> None:
    root = _tree(tmp_path, module)
    assert automatic_reason(root, f"subject_driver.{module}.x_f__mutmut_{number}") == reason


def test_a_mutant_without_code_is_not_judged(tmp_path: Path) -> None:
    assert automatic_reason(tmp_path, "subject_driver.sqlite.store.x_g__mutmut_1") is None
