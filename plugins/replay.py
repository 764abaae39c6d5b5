"""The command that replays one check of a run, printed at the end of its failure."""

from __future__ import annotations

import shlex

from conformance.report import redact_options
from plugins.settings import KitSettings


def replay_command(
    settings: KitSettings, item_id: str, seed: int, *, fuzz: bool = False, beside: bool = False
) -> str:
    """`pytest --driver=acme --conformance-seed 123 -k 'engine.get'`: the item alone,
    with the seed that made its nonces (the options as given, `{worker}` included, and
    credential values shown redacted). `beside`: the whole run instead, with as many
    checks at once as it had (a failure that shows only beside other checks)."""
    words = ["pytest", f"--driver={settings.driver}"]
    for key, value in redact_options(settings.driver_options).items():
        words += ["--driver-option", f"{key}={value}"]
    if settings.timeout is None:
        words.append("--driver-timeout=0")
    if settings.isolation != "none":
        words.append(f"--driver-isolation={settings.isolation}")
    words += ["--conformance-seed", str(seed)]
    if fuzz:
        words.append("--fuzz")
        if settings.fuzz_examples is not None:
            words += ["--fuzz-examples", str(settings.fuzz_examples)]
        if settings.fuzz_seed is not None:
            words += ["--fuzz-seed", str(settings.fuzz_seed)]
    if beside:
        words += ["--conformance-concurrency", str(settings.concurrency)]
    else:
        words += ["-k", item_id]
    return " ".join(shlex.quote(word) for word in words)


def explain_line(check_id: str) -> str:
    """Where the contract behind a check is explained."""
    return f"explain: tinymemory-conformance explain {check_id.partition('[')[0]}"
