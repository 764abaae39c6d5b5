"""The HTML page of one run, beside the JSON report and its Markdown summary.

What the Markdown says, in the same order: the verdict and why there is none, the
levels, each failure and each inconclusive check in full (its message, a fuzz target's
minimal failing program, the replay and explain lines, where the driver raised), then
the other checks. Every check is shown without JavaScript; the script adds filtering by
outcome and profile (see `conformance.html_page`).
"""

from __future__ import annotations

from typing import Final

from conformance.html_page import FILTERS, data_attrs, esc, page, token
from conformance.report import (
    CheckEntry,
    ProfileInfo,
    Report,
    explain_command,
    features_cell,
    hang_lines,
    is_not_offered,
    not_offered,
    not_offered_line,
)

PROGRAM_HEADING: Final = "Minimal failing program"
"""How a fuzz failure's reason introduces the shrunk program (`conformance.fuzz.runner`)."""


def reason_parts(reason: str) -> tuple[str, tuple[str, str] | None, str]:
    """A reason split around a fuzz target's minimal failing program: the message, the
    program as (its heading, its code) or None, and what follows it (the regression
    file's line)."""
    paragraphs = reason.split("\n\n")
    for at, paragraph in enumerate(paragraphs):
        heading, _, code = paragraph.partition("\n")
        if heading.startswith(PROGRAM_HEADING) and heading.endswith(":") and code:
            lines = code.split("\n")
            # The program is indented by four spaces under its heading; shown as code.
            body = "\n".join(line[4:] if line.startswith("    ") else line for line in lines)
            before = "\n\n".join(paragraphs[:at])
            after = "\n\n".join(paragraphs[at + 1 :])
            return before, (heading.rstrip(":"), body), after
    return reason, None, ""


def _pre(text: str, css: str) -> list[str]:
    return [f'<pre class="{css}">{esc(text)}</pre>'] if text else []


def _trace(c: CheckEntry) -> str:
    if not c.trace:
        return ""
    trace = "".join(_pre(c.trace.rstrip("\n"), "trace"))
    return f"<details><summary>Where the driver raised</summary>{trace}</details>"


def check_article(c: CheckEntry) -> list[str]:
    """One failing or inconclusive check in full."""
    outcome = token(c.outcome)
    anchor = esc(f"check-{c.id}")
    lines = [
        f'<article class="check o-{outcome}" id="{anchor}"{data_attrs([c.outcome], c.profile)}>',
        f"<h3><code>{esc(c.id)}</code>: "
        f'<span class="o-{outcome}">{esc(c.shown_outcome())}</span> '
        f'<span class="muted">({esc(c.profile)})</span></h3>',
    ]
    if c.clause:
        lines.append(f"<p>Rule: {esc(c.clause)}</p>")
    message, program, after = reason_parts(c.reason or "(no reason given)")
    lines += _pre(message, "reason")
    if program is not None:
        heading, code = program
        lines += [f'<p class="program-title">{esc(heading)}:</p>', *_pre(code, "program")]
    lines += _pre(after, "reason")
    lines.append('<dl class="lines">')
    if c.replay:
        lines.append(f"<dt>replay</dt><dd><code>{esc(c.replay)}</code></dd>")
    lines.append(f"<dt>explain</dt><dd><code>{esc(explain_command(c.id))}</code></dd>")
    lines.append("</dl>")
    lines += [_trace(c), "</article>"]
    return lines


def _verdict(report: Report) -> list[str]:
    verdict = report.summary.verdict
    why = [e.describe() for e in report.errors] + hang_lines(report)
    lines = [f'<div class="verdict v-{esc(verdict)}" id="verdict">']
    lines.append(f"<strong>Verdict: {esc(verdict)}</strong>" + (", because:" if why else ""))
    if why:
        lines += ["<ul>", *(f"<li>{esc(line)}</li>" for line in why), "</ul>"]
    lines.append("</div>")
    return lines


def _counts(report: Report) -> str:
    s = report.summary
    counts = (
        f"{s.passed} passed, {s.failed} failed, {s.skipped} skipped, {s.waived} waived, "
        f"{s.inconclusive} inconclusive, {s.not_run} not run"
    )
    if s.flaky:
        counts += f" ({s.flaky} flaky)"
    seed = f", seed {report.seed}" if report.seed is not None else ""
    repeat = f", each check run {report.repeat} times" if report.repeat > 1 else ""
    return f'<p id="counts">{esc(counts)} (kit {esc(report.kit_version)}{esc(seed)}{repeat})</p>'


def _level_text(info: ProfileInfo) -> str:
    if not info.not_applicable or info.partial_note() is not None:
        return info.shown_level()
    return f"{info.shown_level()}: {', '.join(info.not_applicable)}"


def _levels(report: Report) -> list[str]:
    lines = [
        '<section id="levels">',
        "<h2>Levels</h2>",
        "<table>",
        "<thead><tr><th>profile</th><th>level</th><th>offered features</th>"
        "<th>declared constraints, named refusals</th></tr></thead>",
        "<tbody>",
    ]
    for name, info in sorted(report.profiles.items()):
        limits = "; ".join([*info.constraints, *info.named_refusals]) or "none"
        lines.append(
            f'<tr data-level="{esc(name)}"><td>{esc(name)}</td><td>{esc(_level_text(info))}</td>'
            f"<td>{esc(features_cell(info))}</td><td>{esc(limits)}</td></tr>"
        )
    lines += ["</tbody>", "</table>"]
    absent = not_offered(report)
    if absent:
        lines += ["<ul>", *(f"<li>{esc(not_offered_line(p, n))}</li>" for p, n in absent.items())]
        lines.append("</ul>")
    lines.append("</section>")
    return lines


def _others(report: Report) -> list[str]:
    rest = [
        c
        for c in report.checks
        if c.outcome not in ("failed", "inconclusive") and not is_not_offered(report, c)
    ]
    if not rest:
        return []
    lines = [
        '<section id="other-checks" data-group="other">',
        f"<h2>Other checks ({len(rest)})</h2>",
        "<table>",
        "<thead><tr><th>check</th><th>profile</th><th>outcome</th><th>reason</th>"
        "<th>calls</th><th>retries</th></tr></thead>",
        "<tbody>",
    ]
    for c in rest:
        outcome = token(c.outcome)
        lines.append(
            f'<tr id="{esc(f"check-{c.id}")}"{data_attrs([c.outcome], c.profile)}>'
            f"<td><code>{esc(c.id)}</code></td><td>{esc(c.profile)}</td>"
            f'<td class="o-{outcome}">{esc(c.shown_outcome())}</td>'
            f'<td><span class="reason">{esc(c.reason)}</span>{_trace(c)}</td>'
            f"<td>{c.calls}</td><td>{c.retries}</td></tr>"
        )
    lines += ["</tbody>", "</table>", "</section>"]
    return lines


def to_html(report: Report) -> str:
    """The run's page: self-contained, readable without JavaScript. The caller redacts
    the report first (`plugins.report_file.write_report` does)."""
    d = report.driver
    origin = f" ({d.distribution} {d.version})" if d.distribution else ""
    title = f"TinyMemory conformance: {d.name}: {report.summary.verdict}"
    body = [
        "<header>",
        f"<h1>TinyMemory conformance: <code>{esc(d.name)}</code>{esc(origin)}</h1>",
        *_verdict(report),
        _counts(report),
    ]
    if d.command:
        body.append(f"<p>Served over the driver protocol by <code>{esc(d.command)}</code>.</p>")
    body += [f"<p>The driver was {esc(line)}.</p>" for line in d.rebuilt]
    if report.concurrency is not None:
        body.append(f"<p>{esc(report.concurrency.sentence())}.</p>")
    body += ["</header>", *_levels(report), FILTERS]
    for title_text, outcome in (("Failures", "failed"), ("Inconclusive", "inconclusive")):
        shown = [c for c in report.checks if c.outcome == outcome]
        if shown:
            body += [
                f'<section id="{outcome}" data-group="{outcome}">',
                f"<h2>{title_text} ({len(shown)})</h2>",
            ]
            for c in shown:
                body += check_article(c)
            body.append("</section>")
    body += _others(report)
    body.append(
        f"<footer>Written by tinymemory-conformance {esc(report.kit_version)} at "
        f"{esc(report.created_at)}; the JSON report beside this page holds every "
        f"field.</footer>"
    )
    return page(title, body, f"tinymemory-conformance {report.kit_version}")
