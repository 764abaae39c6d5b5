"""The kit's mutation score: what the checks and the fuzzer observe of faults nobody wrote.

    python benchmarks/bench_mutation.py [--work DIR] [--children N] [--no-fuzz]
                                        [--only GLOB ...] [--fuzz-seed N]

mutmut (3.x) mutates a copy of the reference drivers (`reference_driver`: engine,
provider, documents, scoring and sqlite), renamed `subject_driver`; the kit holds each
mutant to its suite (phase 1), then holds the suite's survivors to every fuzz target at
the default budget (phase 2). The oracle the fuzzer compares with is the unmutated
`reference_driver`: only the subject is mutated, or fuzz would kill nothing.

Why mutmut, not cosmic-ray: mutmut forks each mutant from a process that has already
imported the kit, and runs only the tests that reach the mutated function (it records
which once, before mutating), so a mutant costs the checks that call its function, not
an interpreter start and the whole suite. On this 2-core machine that is the difference
between an hour and a day. Its limits: it mutates code inside functions only (module
constants are not mutated) and leaves decorated functions (`@property`, ...) alone.

Prints the mutants made, killed by the suite, killed by suite + fuzz, the scores, and
every survivor with its diff. `docs/mutation.md` holds the survivors judged equivalent,
each with its reason; survivors listed there are counted apart, as equivalent.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
sys.path.insert(0, str(CHECKOUT))

from benchmarks.mutation_equivalence import (  # noqa: E402 - after the checkout is on the path
    REFUSAL_WORDS,
    SQL_CASE,
    automatic_reason,
)

SUBJECT = "subject_driver"
EQUIVALENTS = CHECKOUT / "docs" / "mutation.md"
# mutmut's exit-code classes (mutmut.stats.status_by_exit_code), the ones that matter here.
KILLED_CODES = {1, 3, 36, -24, 24, 152, 255, -11, -9}
SURVIVED_CODES = {0}
NO_TESTS_CODES = {5, 33}


def copy_subject(work: Path) -> None:
    """`reference_driver` copied to `work/subject_driver`, its own imports renamed."""
    target = work / SUBJECT
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(
        CHECKOUT / "reference_driver", target, ignore=shutil.ignore_patterns("__pycache__")
    )
    for path in target.rglob("*.py"):
        text = path.read_text()
        renamed = re.sub(r"\breference_driver\b", SUBJECT, text)
        if renamed != text:
            path.write_text(renamed)


def stage(work: Path, phase: str, only: Sequence[str]) -> None:
    """A folder mutmut runs in: the subject, the tests, and mutmut's configuration."""
    work.mkdir(parents=True, exist_ok=True)
    copy_subject(work)
    tests = work / "tests"
    tests.mkdir(exist_ok=True)
    shutil.copy(HERE / "mutation_subject.py", tests / "test_subject.py")
    only_mutate = ", ".join(json.dumps(f"{SUBJECT}/{glob}") for glob in only)
    (work / "pyproject.toml").write_text(
        "[tool.mutmut]\n"
        f'source_paths = ["{SUBJECT}"]\n'
        'pytest_add_cli_args_test_selection = ["tests/"]\n'
        "# The kit is installed; a stray conftest or rootdir setting must not load it twice.\n"
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-p", "no:tinymemory"]\n'
        + (f"only_mutate = [{only_mutate}]\n" if only else "")
        + f"# phase: {phase}\n"
    )


def write_baseline(work: Path) -> dict[str, dict[str, str]]:
    """Every check's outcome on the unmutated copy, for the tests to compare with."""
    sys.path.insert(0, str(work))
    sys.path.insert(0, str(work / "tests"))
    try:
        import test_subject as subject_tests  # type: ignore[import-not-found]

        baseline: dict[str, dict[str, str]] = {}
        for name, subject in subject_tests.SUBJECTS.items():
            from conformance.checks.catalogue import checks_for

            for chk in checks_for(subject.profile):
                outcome, _ = subject_tests.check_outcome(name, chk.id)
                baseline.setdefault(name, {})[chk.id] = outcome
    finally:
        sys.path.remove(str(work))
        sys.path.remove(str(work / "tests"))
    (work / "tests" / "baseline.json").write_text(json.dumps(baseline, indent=1, sort_keys=True))
    return baseline


def run_mutmut(work: Path, phase: str, children: int, names: Iterable[str] = ()) -> float:
    """`mutmut run` in `work` for one phase; the seconds it took."""
    # The kit of this checkout, whatever else is installed: a run reads one version of it.
    path = os.pathsep.join(filter(None, [str(CHECKOUT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "MUTATION_PHASE": phase, "PYTHONPATH": path}
    started = time.perf_counter()
    command = ["mutmut", "run", "--max-children", str(children), *names]
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
    (work / f"mutmut-{phase}.log").write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-20:]
        raise SystemExit(f"mutmut run ({phase}) failed:\n" + "\n".join(tail))
    return time.perf_counter() - started


def results(work: Path) -> dict[str, int | None]:
    """Every mutant's exit code, from mutmut's meta files."""
    codes: dict[str, int | None] = {}
    for meta in (work / "mutants").rglob("*.py.meta"):
        codes.update(json.loads(meta.read_text())["exit_code_by_key"])
    return codes


def mutant_diff(work: Path, name: str) -> str:
    """The mutant's diff, as `mutmut show` prints it."""
    shown = subprocess.run(
        ["mutmut", "show", name], cwd=work, capture_output=True, text=True, check=False
    )
    lines = [
        line
        for line in shown.stdout.splitlines()
        if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))
    ]
    return " / ".join(line.strip() for line in lines)


def equivalents() -> dict[str, str]:
    """The survivors judged equivalent (`docs/mutation.md`): mutant names, or globs naming
    every mutant of a function (`engine.x_render__mutmut_*`), to the reason. The first
    cell of a row holds one or more names in backticks, each under the subject
    (`engine...`, read as `subject_driver.engine...`); a name written `_19` is the one
    before it with its number replaced."""
    if not EQUIVALENTS.exists():
        return {}
    table: dict[str, str] = {}
    for line in EQUIVALENTS.read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        previous = ""
        for token in re.findall(r"`([^`]+)`", cells[0]):
            if token.startswith("_") and previous:
                token = previous.rsplit("_", 1)[0] + token
            elif not token.startswith(SUBJECT + "."):
                token = f"{SUBJECT}.{token}"
            if "__mutmut_" not in token:
                continue
            table[token] = cells[-1]
            previous = token
    return table


def explained(name: str, table: dict[str, str]) -> str | None:
    """Why the survivor `name` is equivalent, or `None`."""
    if name in table:
        return table[name]
    return next((why for pattern, why in table.items() if fnmatch.fnmatchcase(name, pattern)), None)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=CHECKOUT / "build" / "mutation")
    parser.add_argument("--children", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--no-fuzz", action="store_true", help="phase 1 only")
    parser.add_argument(
        "--only", nargs="*", default=[], help="files to mutate, globs under reference_driver/"
    )
    parser.add_argument("--fuzz-seed", type=int, default=20261202)
    parser.add_argument(
        "--fuzz-examples",
        default="",
        help="programs per fuzz run for some subjects, e.g. sqlite=8 (default: the default "
        "budget for every subject)",
    )
    parser.add_argument(
        "--fuzz-all",
        action="store_true",
        help="phase 2 fuzzes every survivor, the ones judged equivalent too (a check of the "
        "judgements; by default only the survivors no rule or table explains)",
    )
    parser.add_argument(
        "--reuse-suite",
        action="store_true",
        help="keep the suite phase of an earlier run in --work (same subject code) and run "
        "phase 2 only",
    )
    args = parser.parse_args(argv)
    os.environ["MUTATION_FUZZ_SEED"] = str(args.fuzz_seed)
    os.environ["MUTATION_FUZZ_EXAMPLES"] = args.fuzz_examples

    suite_dir, fuzz_dir = args.work / "suite", args.work / "fuzz"
    reuse = args.reuse_suite and (suite_dir / "tests" / "baseline.json").exists()
    for folder in (fuzz_dir,) if reuse else (suite_dir, fuzz_dir):
        if folder.exists():
            shutil.rmtree(folder)
    baseline_seconds = suite_seconds = 0.0
    if not reuse:
        stage(suite_dir, "suite", args.only)
        started = time.perf_counter()
        write_baseline(suite_dir)
        baseline_seconds = time.perf_counter() - started
        suite_seconds = run_mutmut(suite_dir, "suite", args.children)
    suite_codes = results(suite_dir)
    known = equivalents()
    code = suite_dir / "mutants" / SUBJECT

    def judged(name: str) -> str | None:
        return explained(name, known) or automatic_reason(code, name)

    made = len(suite_codes)
    by_suite = {n for n, c in suite_codes.items() if c in KILLED_CODES}
    # Not killed: survived, reached by no check ("no tests"), or anything else.
    left = sorted(n for n in suite_codes if n not in by_suite)
    other = Counter(suite_codes[n] for n in left if suite_codes[n] not in SURVIVED_CODES)

    by_fuzz: set[str] = set()
    fuzz_codes: dict[str, int | None] = {}
    fuzz_seconds = 0.0
    fuzzed = left if args.fuzz_all else [n for n in left if judged(n) is None]
    if fuzzed and not args.no_fuzz:
        stage(fuzz_dir, "fuzz", args.only)
        shutil.copy(suite_dir / "tests" / "baseline.json", fuzz_dir / "tests" / "baseline.json")
        fuzz_seconds = run_mutmut(fuzz_dir, "fuzz", args.children, fuzzed)
        fuzz_codes = results(fuzz_dir)
        by_fuzz = {n for n in fuzzed if fuzz_codes.get(n) in KILLED_CODES}

    survivors = [n for n in left if n not in by_fuzz]
    reasons = {n: judged(n) for n in survivors}
    equivalent = [n for n in survivors if reasons[n] is not None]
    unexplained = [n for n in survivors if reasons[n] is None]
    by_rule = Counter(reasons[n] for n in equivalent if reasons[n] in (REFUSAL_WORDS, SQL_CASE))
    no_tests = [n for n in unexplained if fuzz_codes.get(n, suite_codes[n]) in NO_TESTS_CODES]
    scored = made - len(equivalent)

    def share(killed: int) -> str:
        return f"{killed / scored:.1%}" if scored else "n/a"

    print(f"mutants made: {made} (mutmut {mutmut_version()}, files: {args.only or 'all'})")
    print(
        f"  equivalent: {len(equivalent)} (refusal words {by_rule[REFUSAL_WORDS]}, SQL case "
        f"{by_rule[SQL_CASE]}, the table of docs/mutation.md "
        f"{len(equivalent) - sum(by_rule.values())})"
    )
    print(f"  scored (made - equivalent): {scored}")
    print(f"killed by the suite: {len(by_suite)} ({share(len(by_suite))})")
    if not args.no_fuzz:
        both = len(by_suite) + len(by_fuzz)
        budget = f", budgets {args.fuzz_examples}" if args.fuzz_examples else ""
        print(f"killed by suite + fuzz (seed {args.fuzz_seed}{budget}): {both} ({share(both)})")
    for group in ("engine", "provider", "sqlite"):
        mine = [n for n in suite_codes if group_of(n) == group]
        if not mine:
            continue
        eq = sum(1 for n in equivalent if group_of(n) == group)
        suite_kills = sum(1 for n in mine if n in by_suite)
        all_kills = suite_kills + sum(1 for n in mine if n in by_fuzz)
        base = len(mine) - eq
        print(
            f"  {group:<9} made {len(mine):5}, equivalent {eq:4}, killed by the suite "
            f"{suite_kills:5} ({suite_kills / base:.1%}), by suite + fuzz {all_kills:5} "
            f"({all_kills / base:.1%})"
        )
    print(f"survivors not explained: {len(unexplained)} ({len(no_tests)} reached by no check)")
    if other:
        print(f"  (exit codes other than survived and killed after the suite: {dict(other)})")
    print(
        f"time: baseline {baseline_seconds:.0f} s, suite phase {suite_seconds:.0f} s, "
        f"fuzz phase {fuzz_seconds:.0f} s ({len(fuzzed)} survivors fuzzed"
        f"{'' if args.fuzz_all else ', those no rule or table explains'}), "
        f"{args.children} children{' (suite phase reused)' if reuse else ''}"
    )
    for name in unexplained:
        label = "NO TESTS" if name in no_tests else "SURVIVED"
        print(f"{label:<9} {name}: {mutant_diff(suite_dir, name)}")
    return 0


def group_of(name: str) -> str:
    """Which subject a mutant's code serves: `sqlite`, `provider` (provider, documents) or
    `engine` (engine, scoring)."""
    module = name.removeprefix(SUBJECT + ".").split(".")[0]
    if module == "sqlite":
        return "sqlite"
    return "provider" if module in ("provider", "documents") else "engine"


def mutmut_version() -> str:
    from importlib.metadata import version

    return version("mutmut")


if __name__ == "__main__":
    raise SystemExit(main())
