"""The frame of the kit's HTML pages: escaping, one inline style sheet, the filter script.

Every page is self-contained (no network, no external asset) and XHTML-compatible
markup, so `xml.etree` parses it: every element closed, every attribute quoted, only the
five XML entities. Everything is shown without JavaScript; the script only adds the
filter bar, which hides elements carrying `data-outcome` (and `data-profile`) by what
the reader ticks or by the URL fragment: `#hide=passed`, `#outcome=failed,inconclusive`,
`#profile=engine`, joined with `&`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from typing import Final

# Characters XML 1.0 does not admit (and HTML calls parse errors), lone surrogates among
# them: a driver's text may hold any, and each is shown as its escape instead.
_UNSHOWABLE: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def esc(text: object) -> str:
    """`text` as HTML text or attribute value: markup escaped, unshowable characters
    written as their escapes (`\\x01`)."""
    return html.escape(_UNSHOWABLE.sub(_escape_char, str(text)), quote=True)


def token(name: str) -> str:
    """An outcome or profile as a filter token: `not run` is `not-run`."""
    return name.strip().lower().replace(" ", "-")


def data_attrs(outcomes: Iterable[str], profile: str | None) -> str:
    """` data-outcome="failed" data-profile="engine"`: what the filter reads."""
    shown = " ".join(dict.fromkeys(token(o) for o in outcomes))
    attrs = f' data-outcome="{esc(shown)}"'
    return attrs + (f' data-profile="{esc(token(profile))}"' if profile else "")


STYLE: Final = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5em auto;
  max-width: 78em; padding: 0 1em; color: #1d232a; background: #fff; }
h1 { font-size: 1.5em; margin: 0 0 .4em; }
h2 { font-size: 1.2em; margin: 1.6em 0 .5em; border-bottom: 1px solid #d5dbe1; }
h3 { font-size: 1.02em; margin: 0 0 .4em; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
  font-size: .9em; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f4f6f8;
  border: 1px solid #dde3e9; border-radius: 4px; padding: .5em .7em; margin: .3em 0; }
table { border-collapse: collapse; margin: .4em 0; }
th, td { border: 1px solid #d5dbe1; padding: .25em .5em; text-align: left;
  vertical-align: top; }
th { background: #eef1f4; }
.verdict { font-size: 1.25em; padding: .45em .8em; border-radius: 5px; margin: .4em 0;
  border-left: 7px solid; }
.verdict ul { font-size: .8em; margin: .3em 0 0; }
.v-pass { background: #e6f6ea; border-color: #1f8a3b; }
.v-fail { background: #fde8e8; border-color: #c62828; }
.v-inconclusive { background: #fff6dc; border-color: #b7870b; }
.v-error { background: #f3e5f5; border-color: #7b1fa2; }
.check { border: 1px solid #d5dbe1; border-left: 6px solid; border-radius: 4px;
  padding: .6em .8em; margin: .7em 0; }
.check.o-failed { border-left-color: #c62828; }
.check.o-inconclusive { border-left-color: #b7870b; }
dl.lines { display: grid; grid-template-columns: max-content 1fr; gap: .15em .8em;
  margin: .4em 0 0; }
dl.lines dt { font-weight: 600; }
dl.lines dd { margin: 0; }
td.o-passed, span.o-passed { color: #1f6f33; }
td.o-failed, span.o-failed { color: #b71c1c; font-weight: 600; background: #fdecec; }
td.o-inconclusive, span.o-inconclusive { color: #8a6508; font-weight: 600;
  background: #fff7df; }
td.o-waived, span.o-waived { color: #6a1b9a; }
td.o-skipped, span.o-skipped, td.o-not-offered, td.o-absent, td.o-not-run { color: #66707a; }
td.o-not-run { background: #f3e5f5; }
details summary { cursor: pointer; }
#filters { position: sticky; top: 0; background: #fff; border-bottom: 1px solid #d5dbe1;
  padding: .4em 0; margin: 1em 0 0; z-index: 1; }
#filters:empty { display: none; }
#filters fieldset { display: inline-block; border: 1px solid #d5dbe1; border-radius: 4px;
  margin: 0 .6em .2em 0; padding: .1em .6em .3em; }
#filters label { margin-right: .7em; white-space: nowrap; }
#filters output { color: #47515b; }
.matrix td { white-space: nowrap; }
.matrix th.check-id, .matrix td.check-id { position: sticky; left: 0; background: #fff; }
.matrix thead th { position: sticky; top: 0; }
.matrix td[title], .reason[title] { cursor: help; }
.matrix td.o-skipped[title] { text-decoration: underline dotted; }
.matrix pre { white-space: pre-wrap; max-width: 60em; min-width: 30em; }
td.vd-pass { background: #e6f6ea; }
td.vd-fail { background: #fde8e8; }
td.vd-inconclusive { background: #fff6dc; }
td.vd-error { background: #f3e5f5; }
.muted { color: #66707a; }
footer { margin-top: 2em; color: #66707a; font-size: .85em; }
"""

SCRIPT: Final = """
(function () {
  "use strict";
  var items = Array.prototype.slice.call(document.querySelectorAll("[data-outcome]"));
  var nav = document.getElementById("filters");
  if (!nav || !items.length) { return; }
  function words(el, name) {
    return (el.getAttribute(name) || "").split(" ").filter(Boolean);
  }
  function collect(name) {
    var seen = [];
    items.forEach(function (el) {
      words(el, name).forEach(function (w) { if (seen.indexOf(w) === -1) { seen.push(w); } });
    });
    return seen;
  }
  var order = ["failed", "inconclusive", "not-run", "waived", "skipped", "passed",
    "not-offered", "absent"];
  function rank(o) { var at = order.indexOf(o); return at < 0 ? order.length : at; }
  var outcomes = collect("data-outcome").sort(function (a, b) { return rank(a) - rank(b); });
  var profiles = collect("data-profile");
  function norm(value) { return value.trim().toLowerCase().replace(/ +/g, "-"); }
  function fromHash() {
    var state = { outcome: outcomes.slice(), profile: profiles.slice() };
    var hide = [];
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var at = part.indexOf("=");
      if (at < 0) { return; }
      var key = part.slice(0, at);
      var raw = part.slice(at + 1);
      try { raw = decodeURIComponent(raw); } catch (e) { /* a stray %: taken as written */ }
      var values = raw.split(",").map(norm).filter(Boolean);
      if (key === "hide") { hide = hide.concat(values); }
      if (key === "outcome") { state.outcome = values; }
      if (key === "profile") { state.profile = values; }
    });
    state.outcome = state.outcome.filter(function (o) { return hide.indexOf(o) === -1; });
    return state;
  }
  function toHash(state) {
    var parts = [];
    var hidden = outcomes.filter(function (o) { return state.outcome.indexOf(o) === -1; });
    if (hidden.length) { parts.push("hide=" + hidden.join(",")); }
    if (state.profile.length !== profiles.length) {
      parts.push("profile=" + state.profile.join(","));
    }
    return parts.join("&");
  }
  var boxes = { outcome: [], profile: [] };
  var status = document.createElement("output");
  function group(title, key, values) {
    if (!values.length) { return; }
    var set = document.createElement("fieldset");
    var legend = document.createElement("legend");
    legend.textContent = title;
    set.appendChild(legend);
    values.forEach(function (value) {
      var label = document.createElement("label");
      var box = document.createElement("input");
      box.type = "checkbox";
      box.value = value;
      box.addEventListener("change", changed);
      boxes[key].push(box);
      label.appendChild(box);
      label.appendChild(document.createTextNode(" " + value.replace(/-/g, " ")));
      set.appendChild(label);
    });
    nav.appendChild(set);
  }
  function ticked(key) {
    return boxes[key].filter(function (b) { return b.checked; })
      .map(function (b) { return b.value; });
  }
  function apply(state) {
    var shown = 0;
    // The attribute too (`defaultChecked`), so the filter shows in a saved or dumped DOM.
    function tick(box, on) { box.checked = on; box.defaultChecked = on; }
    boxes.outcome.forEach(function (b) { tick(b, state.outcome.indexOf(b.value) !== -1); });
    boxes.profile.forEach(function (b) { tick(b, state.profile.indexOf(b.value) !== -1); });
    items.forEach(function (el) {
      var byOutcome = words(el, "data-outcome").some(function (o) {
        return state.outcome.indexOf(o) !== -1;
      });
      var own = words(el, "data-profile");
      var byProfile = !own.length || own.some(function (p) {
        return state.profile.indexOf(p) !== -1;
      });
      el.hidden = !(byOutcome && byProfile);
      if (!el.hidden) { shown += 1; }
    });
    Array.prototype.forEach.call(document.querySelectorAll("[data-group]"), function (g) {
      var inside = g.querySelectorAll("[data-outcome]");
      g.hidden = inside.length > 0 && Array.prototype.every.call(inside, function (el) {
        return el.hidden;
      });
    });
    status.textContent = "showing " + shown + " of " + items.length;
    status.setAttribute("data-shown", String(shown));
  }
  function changed() {
    var state = { outcome: ticked("outcome"), profile: ticked("profile") };
    var hash = toHash(state);
    try {
      history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search);
    } catch (e) {
      location.hash = hash;  // a browser that refuses it for a file: URL
    }
    apply(state);
  }
  group("outcome", "outcome", outcomes);
  group("profile", "profile", profiles);
  nav.appendChild(status);
  window.addEventListener("hashchange", function () { apply(fromHash()); });
  apply(fromHash());
})();
"""


def page(title: str, body: Iterable[str], generator: str) -> str:
    """A whole page: `body` (markup) under `title`, with the style sheet and the filter
    script inline; `generator` names what wrote it."""
    # The script sits in a commented CDATA section: an HTML parser runs it as it is,
    # and an XML parser reads it as text, whatever it holds.
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en" xmlns="http://www.w3.org/1999/xhtml">',
            "<head>",
            '<meta charset="utf-8"/>',
            '<meta name="viewport" content="width=device-width, initial-scale=1"/>',
            f'<meta name="generator" content="{esc(generator)}"/>',
            f"<title>{esc(title)}</title>",
            f"<style>{STYLE}</style>",
            "</head>",
            "<body>",
            *body,
            f"<script>/*<![CDATA[*/{SCRIPT}/*]]>*/</script>",
            "</body>",
            "</html>",
            "",
        ]
    )


FILTERS: Final = '<nav id="filters" aria-label="filter"></nav>'
"""Where the script puts the filter bar (empty, so invisible, without JavaScript)."""
