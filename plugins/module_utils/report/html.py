# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A plan as one self-contained HTML page: for a person to review before approving it.

Built with the standard library only (html.escape on every value from the
plan): module_utils run on the managed host, where Jinja2 need not be
installed, and the page is small enough to write out directly.  Inline CSS
and inline SVG (report/svg.py), no script, no external URL: the file opens
offline, attached to a ticket or a mail.
"""

from __future__ import annotations

from html import escape

from .plan_view import plan_view, state_phrase
from ..plan.lines import domain_suffix
from .svg import (METRICS, chart_width, gain_chart, node_labels, score_chart, state_colour,
                  usage_chart)

GENERATOR = "ganeti.htools"

CSS = """
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       margin: 0; color: #1e293b; background: #f8fafc; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 32px 0 10px; border-bottom: 1px solid #cbd5e1; padding-bottom: 4px; }
h3 { font-size: 14px; margin: 0 0 6px; }
.meta { color: #475569; margin: 0; }
.meta span { margin-right: 18px; }
.facts { display: flex; flex-wrap: wrap; gap: 10px; margin-top: 16px; padding: 0; }
.fact { list-style: none; background: #fff; border: 1px solid #e2e8f0; border-radius: 6px;
        padding: 8px 14px; min-width: 110px; }
.fact b { display: block; font-size: 18px; }
.fact.alert { border-color: #fca5a5; background: #fef2f2; }
.fact.alert b { color: #b91c1c; }
.warnings { background: #fffbeb; border: 1px solid #f59e0b; border-radius: 6px;
            padding: 10px 16px 10px 32px; }
.warnings li.failed { color: #b91c1c; }
.legend { margin: 0 0 10px; padding: 0; }
.legend li { display: inline-block; list-style: none; margin-right: 18px; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px;
          vertical-align: -1px; margin-right: 5px; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(540px, 1fr));
          gap: 14px; }
.panel { background: #fff; border: 1px solid #e2e8f0; border-radius: 6px; padding: 12px;
         overflow-x: auto; }
svg text { font: 11px system-ui, sans-serif; fill: #334155; }
svg text.node { text-anchor: end; }
svg text.node.n1 { fill: #b91c1c; font-weight: 600; }
svg text.node.offline { fill: #94a3b8; font-style: italic; }
svg text.node.evacuated { font-weight: 700; text-decoration: underline; }
svg text.tick { text-anchor: middle; fill: #64748b; font-size: 10px; }
svg text.tick.y { text-anchor: end; }
svg text.axis { text-anchor: middle; fill: #64748b; }
svg text.value { font-size: 9px; fill: #475569; }
svg .grid { stroke: #e2e8f0; stroke-width: 1; }
svg .line { fill: none; stroke: #2563eb; stroke-width: 2; }
svg .point { fill: #fff; stroke: #2563eb; stroke-width: 2; }
svg .line.reference { stroke: #9ca3af; stroke-dasharray: 6 4; }
svg .point.reference { stroke: #9ca3af; }
table.moves { border-collapse: collapse; width: 100%; background: #fff; font-size: 13px; }
table.moves th, table.moves td { border: 1px solid #e2e8f0; padding: 3px 8px; text-align: left; }
table.moves td.name { overflow-wrap: anywhere; min-width: 7em; }
table.moves td[data-col="description"] { min-width: 14em; }
table.scores { border-collapse: collapse; background: #fff; font-size: 13px; }
table.scores th, table.scores td { border: 1px solid #e2e8f0; padding: 3px 10px; text-align: left; }
table.scores td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.moves thead th { background: #f1f5f9; position: sticky; top: 0; }
table.moves th.group { background: #e0e7ff; font-weight: 600; }
table.moves td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.moves td.changed { background: #eff6ff; font-weight: 600; }
pre.summary { background: #fff; border: 1px solid #e2e8f0; border-radius: 6px; padding: 10px;
              white-space: pre-wrap; font-size: 12px; }
.scroll { overflow-x: auto; }
footer { color: #94a3b8; margin-top: 32px; font-size: 12px; }
"""

_NUMERIC = ("index", "jobset", "score_text", "data_copied")
# Cells holding names (and the move in words, full of them): long FQDNs break after a
# dot first, and anywhere rather than widen the table past the window.
_NAMES = ("instance", "description", "old_primary", "old_secondary", "new_primary",
          "new_secondary")


def _breakable(text):
    return escape(text).replace(".", ".<wbr>")


def _section(ident, title, body):
    return '<section id="%s"><h2>%s</h2>%s</section>' % (ident, escape(title), body)


def _header(view):
    meta = "".join('<span><b>%s:</b> %s</span>' % (escape(k), escape(str(v)))
                   for k, v in view["meta"])
    facts = "".join(
        '<li class="fact%s" data-fact="%s"><b>%s</b>%s</li>'
        % (" alert" if (k.startswith("N+1") or k in view["alerts"]) and v else "", escape(k),
           escape(str(v)), escape(k))
        for k, v in view["facts"])
    return ('<header><h1>%s</h1><p class="meta">%s</p><ul class="facts">%s</ul></header>'
            % (escape(view["title"]), meta, facts))


def _warnings(view):
    items = ['<li class="failed" data-instance="%s">%s cannot be moved: %s</li>'
             % (escape(f["instance"]), escape(f["instance"]), escape(f["reason"]))
             for f in view["failed_instances"]]
    items += ["<li>%s</li>" % escape(w) for w in view["warnings"]]
    items += ['<li class="failed wave">%s</li>' % escape(p) for p in view["wave_problems"]]
    over = [(s["state"], [n["name"] for n in s["nodes"] if n.get("over_capacity")])
            for s in view["states"]]
    items += ['<li class="failed">Over capacity %s: %s</li>'
              % (escape(state_phrase(state)), escape(", ".join(names)))
              for state, names in over if names]
    failing = [(s["state"], [n["name"] for n in s["nodes"] if n.get("n1_fail")])
               for s in view["states"]]
    items += ['<li class="failed">N+1 fails %s on: %s</li>'
              % (escape(state_phrase(state)), escape(", ".join(names)))
              for state, names in failing if names]
    if not items:
        return ""
    return _section("warnings", "Warnings", '<ul class="warnings">%s</ul>' % "".join(items))


def _usage(view):
    states = view["states"]
    if not states:
        return _section("usage", "Node usage", "<p>No node usage in this result.</p>")
    suffix = domain_suffix([n["name"] for n in states[0]["nodes"]])
    marked = set(view.get("evacuated") or ())
    legend = "".join('<li><span class="swatch" style="background:%s"></span>%s</li>'
                     % (state_colour(pos), escape(s["state"])) for pos, s in enumerate(states))
    legend += ('<li>instance bars: primaries solid, secondaries light; '
               '<span style="color:#b91c1c">\u26a0 red</span>: fails N+1 or over capacity%s%s</li>'
               % ("; a wave's bars: the cluster while its nodes are down (dashed: "
                  "rebooting, their instances on their secondaries or targets)"
                  if any(s.get("rebooting") for s in states) else "",
                  "; <u><b>(evacuated)</b></u>: the nodes being emptied" if marked else ""))
    if suffix:
        legend += '<li class="suffix">node names without %s</li>' % escape(suffix)
    # a chart column as wide as the longest label needs (never narrower than 540px)
    _label_w, width = chart_width(node_labels(states, suffix, marked))
    charts = "".join('<div class="panel"><h3>%s</h3>%s</div>'
                     % (escape(m[1]), usage_chart(m, states, suffix, marked)) for m in METRICS)
    return _section("usage", "Node usage (%d nodes)" % len(states[0]["nodes"]),
                    '<ul class="legend">%s</ul><div class="charts" style="grid-template-columns:'
                    ' repeat(auto-fill, minmax(%dpx, 1fr))">%s</div>'
                    % (legend, max(540, width + 26), charts))


def _group_scores(view):
    rows = view.get("group_scores") or ()
    if not rows:
        return ""
    body = "".join('<tr data-group="%s"><td>%s</td><td>%s</td><td class="num">%.8f</td>'
                   '<td class="num">%.8f</td></tr>'
                   % (escape(r["group"]), escape(r["group"]), escape(r["role"]), r["before"],
                      r["after"]) for r in rows)
    return _section("group-scores", "Score of each node group (its own score, as hbal "
                    "scores that group; lower is better)",
                    '<table class="scores"><thead><tr><th>Group</th><th>Role</th>'
                    '<th>Before</th><th>After</th></tr></thead><tbody>%s</tbody></table>' % body)


def _scores(view):
    if len(view["scores"]) < 2:
        return ""
    return _section("scores", "Cluster score per step (lower is better)",
                    '<div class="panel">%s</div>' % score_chart(view["scores"]))


def _gain(view):
    if len(view["gain_curve"]) < 2:
        return ""
    reference = view["hbal_curve"]
    title = "Share of the score gain against the disk data copied (each point a move, in plan " \
        "order)" + ("; dashed: hbal's own plan, whose gain is 100 %" if reference else "")
    return _section("gain", title,
                    '<div class="panel">%s</div>' % gain_chart(view["gain_curve"], reference))


def _cell(move, key):
    value = move.get(key)
    text = "" if value is None else str(value)
    classes = []
    if key in _NUMERIC:
        classes.append("num")
    if key in _NAMES:
        classes.append("name")
    if key.startswith("new_") and value != move.get("old_" + key[4:]):
        classes.append("changed")
    return '<td data-col="%s"%s>%s</td>' % (
        key, ' class="%s"' % " ".join(classes) if classes else "",
        _breakable(text) if key in _NAMES else escape(text))


def _moves(view):
    columns = view["columns"]
    head = "".join('<th data-col="%s">%s</th>' % (k, escape(h)) for k, h in columns)
    bodies = []
    for number, group in enumerate(view["groups"], start=1):
        rows = ['<tr><th class="group" colspan="%d">%s</th></tr>'
                % (len(columns), escape(group["label"]))]
        rows += ['<tr class="move" data-index="%s">%s</tr>'
                 % (escape(str(m.get("index"))), "".join(_cell(m, k) for k, _h in columns))
                 for m in group["moves"]]
        bodies.append('<tbody data-group="%d">%s</tbody>' % (number, "".join(rows)))
    if not bodies:
        return _section("moves", "Moves", "<p>The plan has no moves.</p>")
    return _section("moves", "Moves", '<div class="scroll"><table class="moves"><thead><tr>%s'
                    '</tr></thead>%s</table></div>' % (head, "".join(bodies)))


def _summary(view):
    if not view["summary"]:
        return ""
    return _section("summary", "Summary", '<pre class="summary">%s</pre>'
                    % escape(view["summary"]))


def render_plan_html(value, planner=None):
    """The HTML page of a planning result or plan document (see report/plan_view.py),
    drawn by `planner` (by default the registered one that made it).

    Raises plan_view.NotAPlan when `value` is neither.
    """
    view = plan_view(value, planner)
    body = "".join((_header(view), _warnings(view), _group_scores(view), _usage(view),
                    _scores(view), _gain(view), _moves(view), _summary(view)))
    return ('<!DOCTYPE html>\n<html lang="en" data-kind="%s"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<meta name="generator" content="%s"><title>%s</title><style>%s</style></head>'
            '<body><main>%s<footer>Generated by %s from the plan; nothing here was executed.'
            '</footer></main></body></html>\n'
            % (escape(view["kind"]), GENERATOR, escape(view["title"]), CSS, body, GENERATOR))
