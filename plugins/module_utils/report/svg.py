# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Inline SVG charts of a plan: per-node usage bars, and the score per step.

Plain SVG text, no script and no external resource, so that the report is
one file that opens anywhere offline.  Every bar is a `<g class="bar">` with
`data-metric`, `data-state`, `data-node` and `data-value`, and every point of
the score line a `<circle class="point">` with `data-step` and
`data-score`: the browser test reads the charts back through them.
"""

from __future__ import annotations

import math
from html import escape

# One colour per usage state: before, after (or the waves of a reboot).
STATE_COLOURS = ("#94a3b8", "#2563eb", "#059669", "#d97706", "#7c3aed", "#db2777",
                 "#0891b2", "#65a30d")
SECONDARY_SHADE = 0.45          # opacity of the secondaries' part of an instance bar
N1_COLOUR = "#dc2626"

PLOT_W, VALUE_W = 300, 70
LABEL_MIN_W, LABEL_PAD = 80, 14
BAR_H, BAR_GAP, ROW_GAP, TOP = 10, 2, 8, 22

# Advance widths at the labels' 11px font, generous (DejaVu Sans, the widest of
# the usual sans-serif fonts): the label column is as wide as its longest label,
# so that no name is cut, whatever the names.
_NARROW, _SEMI, _WIDE = set(".,:;'|!ilj I"), set("frt-()[]/"), set("mwMW\u2026@%")
CHAR_W = {"narrow": 3.9, "semi": 5.0, "wide": 11.0, "upper": 8.6, "other": 7.2}
MARK_W = 14.0           # the warning sign after a failing node's name


def text_width(text):
    """An upper estimate of `text`'s width in pixels in a label."""
    width = 0.0
    for char in text:
        if char in _NARROW:
            width += CHAR_W["narrow"]
        elif char in _SEMI:
            width += CHAR_W["semi"]
        elif char in _WIDE:
            width += CHAR_W["wide"]
        elif char.isupper():
            width += CHAR_W["upper"]
        else:
            width += CHAR_W["other"]
    return width


def chart_width(labels):
    """(label column, whole chart) widths for these node labels."""
    label_w = max([LABEL_MIN_W] + [int(math.ceil(text_width(t) + MARK_W)) + LABEL_PAD
                                   for t in labels])
    return label_w, label_w + PLOT_W + VALUE_W


def _num(value):
    """A finite float, 0 for anything else (missing, NaN, infinite)."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return 0.0
    return value if math.isfinite(value) else 0.0


def _pct(part, whole):
    whole = _num(whole)
    return 100.0 * _num(part) / whole if whole > 0 else 0.0


# metric -> (title, unit, value(record) -> (length, stacked extra, tooltip))
def _mem(n):
    used = _num(n["mem_total"]) - _num(n["mem_free"])
    return _pct(used, n["mem_total"]), 0.0, "%d of %d MiB" % (used, _num(n["mem_total"]))


def _disk(n):
    used = _num(n["disk_total"]) - _num(n["disk_free"])
    return (_pct(used, n["disk_total"]), 0.0,
            "%.0f of %.0f GiB" % (used / 1024, _num(n["disk_total"]) / 1024))


def _cpu(n):
    return (_pct(n["vcpus"], n["cpus"]), 0.0,
            "%d vCPUs on %d CPUs" % (_num(n["vcpus"]), _num(n["cpus"])))


def _instances(n):
    prim, sec = _num(n["primaries"]), _num(n["secondaries"])
    return prim, sec, "%d primary, %d secondary" % (prim, sec)


METRICS = (("mem", "Memory used", "%", _mem), ("disk", "Disk used", "%", _disk),
           ("cpu", "vCPUs per physical CPU", "%", _cpu),
           ("instances", "Instances (primary + secondary)", "", _instances))


def state_colour(position):
    return STATE_COLOURS[position % len(STATE_COLOURS)]


MAX_TICKS = 6


def axis(values, unit):
    """(top, tick step) of a usage axis: the smallest step that needs at most
    MAX_TICKS intervals - 25, 50 or 100 times a power of ten for percentages (100%
    at least), 1, 2, 2.5 or 5 times one for counts (whole numbers)."""
    percent = unit == "%"
    top = max(values, default=100.0 if percent else 1.0)
    top = max(top, 100.0 if percent else 1.0)
    factors = (2.5, 5.0, 10.0) if percent else (1.0, 2.0, 2.5, 5.0)
    power = 10.0 if percent else 1.0
    while True:
        for step in (f * power for f in factors):
            if not percent and step != int(step):
                continue
            intervals = math.ceil(top / step - 1e-9)
            if intervals <= MAX_TICKS:
                return intervals * step, step
        power *= 10.0


def _fmt(value, unit):
    return ("%.0f%%" % value) if unit == "%" else ("%d" % round(value))


def _short(name, suffix):
    return name[:-len(suffix)] if suffix and name.endswith(suffix) else name


def node_labels(states, suffix="", marked=()):
    """The label of each node row: its name without the common suffix, and why it
    stands out (offline, evacuated)."""
    labels = []
    for row, record in enumerate(states[0]["nodes"]):
        name = record["name"]
        offline = any(state["nodes"][row].get("offline") for state in states)
        labels.append(_short(name, suffix) + (" (offline)" if offline else "")
                      + (" (evacuated)" if name in marked else ""))
    return labels


def usage_chart(metric, states, suffix="", marked=()):
    """A horizontal grouped bar chart of one metric: a row per node, a bar per state;
    the nodes in `marked` (being evacuated) are labelled so."""
    key, title, unit, measure = metric
    names = [n["name"] for n in states[0]["nodes"]]
    labels = node_labels(states, suffix, marked)
    values = [[measure(n) for n in state["nodes"]] for state in states]
    top, step = axis([v[0] + v[1] for row in values for v in row], unit)
    row_h = len(states) * (BAR_H + BAR_GAP) - BAR_GAP + ROW_GAP
    height = TOP + len(names) * row_h + 4
    label_w, width = chart_width(labels)
    scale = PLOT_W / top
    out = ['<svg class="chart usage" data-metric="%s" role="img" aria-label="%s" '
           'viewBox="0 0 %d %d" width="%d" height="%d">'
           % (key, escape(title), width, height, width, height)]
    for count in range(int(round(top / step)) + 1):
        tick = count * step
        x = label_w + tick * scale
        out.append('<line class="grid" x1="%.1f" y1="%d" x2="%.1f" y2="%d"/>'
                   '<text class="tick" x="%.1f" y="%d">%s</text>'
                   % (x, TOP - 6, x, height - 4, x, TOP - 9, _fmt(tick, unit)))
    for row, name in enumerate(names):
        y0 = TOP + row * row_h
        flags = [state["nodes"][row] for state in states]
        failing = any(n.get("n1_fail") or n.get("over_capacity") for n in flags)
        offline = any(n.get("offline") for n in flags)
        classes = (" n1" if failing else (" offline" if offline else "")) + (
            " evacuated" if name in marked else "")
        # the full name as a tooltip; the label itself in a tspan of its own
        out.append('<text class="node%s" x="%d" y="%.1f" data-node="%s"><title>%s</title>'
                   '<tspan class="label">%s</tspan>%s</text>' % (
                       classes, label_w - 8, y0 + (row_h - ROW_GAP) / 2.0 + 4, escape(name),
                       escape(name), escape(labels[row]), " \u26a0" if failing else ""))
        for pos, state in enumerate(states):
            length, extra, tip = values[pos][row]
            record = state["nodes"][row]
            y = y0 + pos * (BAR_H + BAR_GAP)
            colour = state_colour(pos)
            alarm = record.get("n1_fail") or record.get("over_capacity")
            stroke = ' stroke="%s" stroke-width="1.5"' % N1_COLOUR if alarm else ""
            rebooting = name in state.get("rebooting", ())
            if rebooting:       # the node is down for this wave: an outlined bar
                stroke += ' stroke-dasharray="3 2" stroke-width="1.5" stroke="#0f172a" ' \
                          'fill-opacity="0.25"' if not stroke else ' stroke-dasharray="3 2"'
            out.append('<g class="bar" data-metric="%s" data-state="%s" data-node="%s" '
                       'data-value="%s"><title>%s %s: %s%s</title>'
                       % (key, escape(state["state"]), escape(name),
                          "%.6g" % (length + extra),
                          escape(name), escape(state["state"]), escape(tip),
                          (" - fails N+1" if record.get("n1_fail") else "")
                          + (" - over capacity" if record.get("over_capacity") else "")
                          + (" - rebooting" if rebooting else "")))
            out.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"%s/>'
                       % (label_w, y, max(length * scale, 0.5), BAR_H, colour, stroke))
            if extra:
                out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" '
                           'fill-opacity="%.2f"/>' % (label_w + length * scale, y,
                                                      extra * scale, BAR_H, colour,
                                                      SECONDARY_SHADE))
            out.append('<text class="value" x="%.1f" y="%d">%s</text></g>' % (
                label_w + (length + extra) * scale + 4, y + BAR_H - 1,
                _fmt(length + extra, unit) if unit else
                "%d+%d" % (round(length), round(extra))))
    out.append("</svg>")
    return "".join(out)


def score_chart(scores, width=1100, height=260):
    """The score after each step as a line, with one point per score."""
    left, right, top_pad, bottom = 90, 20, 16, 34
    plot_w, plot_h = width - left - right, height - top_pad - bottom
    values = [_num(s) for _label, s in scores]
    low, high = min(values), max(values)
    span = (high - low) or (abs(high) or 1.0)
    steps = max(len(values) - 1, 1)

    def x_of(pos):
        return left + plot_w * pos / steps

    def y_of(value):
        return top_pad + plot_h * (1.0 - (value - low) / span)

    out = ['<svg class="chart score" role="img" aria-label="Score per step" '
           'viewBox="0 0 %d %d" width="%d" height="%d">'
           % (width, height, width, height)]
    for value in (high, (high + low) / 2.0, low):
        y = y_of(value)
        out.append('<line class="grid" x1="%d" y1="%.1f" x2="%d" y2="%.1f"/>'
                   '<text class="tick y" x="%d" y="%.1f">%.4f</text>'
                   % (left, y, width - right, y, left - 6, y + 4, value))
    every = max(1, int(math.ceil(len(values) / 20.0)))     # at most ~20 step labels
    for pos in range(0, len(values), every):
        out.append('<text class="tick" x="%.1f" y="%d">%d</text>'
                   % (x_of(pos), height - bottom + 16, pos))
    out.append('<text class="axis" x="%.1f" y="%d">step</text>'
               % (left + plot_w / 2.0, height - 4))
    points = " ".join("%.1f,%.1f" % (x_of(p), y_of(v)) for p, v in enumerate(values))
    out.append('<polyline class="line" points="%s"/>' % points)
    for pos, ((label, _s), value) in enumerate(zip(scores, values)):
        out.append('<circle class="point" cx="%.1f" cy="%.1f" r="3.5" data-step="%d" '
                   'data-score="%r"><title>%s: %.8f</title></circle>'
                   % (x_of(pos), y_of(value), pos, value, escape(label), value))
    out.append("</svg>")
    return "".join(out)


def gain_chart(points, reference=(), width=1100, height=260):
    """The share of the score gain (%) against the disk data copied so far
    (GiB), one point per move: where a data budget would stop; `reference`,
    dashed, is hbal's own plan beside a cost-aware one."""
    left, right, top_pad, bottom = 90, 20, 16, 34
    plot_w, plot_h = width - left - right, height - top_pad - bottom
    most = max(p[0] for p in list(points) + list(reference)) or 1.0

    def x_of(gib):
        return left + plot_w * gib / most

    def y_of(pct):
        return top_pad + plot_h * (1.0 - pct / 100.0)

    out = ['<svg class="chart gain" role="img" aria-label="Score gain against disk data copied" '
           'viewBox="0 0 %d %d" width="%d" height="%d">' % (width, height, width, height)]
    for pct in (100, 50, 0):
        out.append('<line class="grid" x1="%d" y1="%.1f" x2="%d" y2="%.1f"/>'
                   '<text class="tick y" x="%d" y="%.1f">%d %%</text>'
                   % (left, y_of(pct), width - right, y_of(pct), left - 6, y_of(pct) + 4, pct))
    for tenth in range(0, 11, 2):
        gib = most * tenth / 10.0
        out.append('<text class="tick" x="%.1f" y="%d">%s</text>'
                   % (x_of(gib), height - bottom + 16, _gib_text(gib)))
    out.append('<text class="axis" x="%.1f" y="%d">disk data copied</text>'
               % (left + plot_w / 2.0, height - 4))
    for series, kind in ((reference, "line reference"), (points, "line")):
        if not series:
            continue
        out.append('<polyline class="%s" points="%s"/>' % (kind, " ".join(
            "%.1f,%.1f" % (x_of(g), y_of(p)) for g, p, _label in series)))
        for gib, pct, label in series:
            out.append('<circle class="%s" cx="%.1f" cy="%.1f" r="3" data-gib="%r" data-gain="%r">'
                       '<title>%s: %s copied, %.1f %% of the gain</title></circle>'
                       % (kind.replace("line", "point"), x_of(gib), y_of(pct), gib, pct,
                          escape(label), _gib_text(gib), pct))
    out.append("</svg>")
    return "".join(out)


def _gib_text(gib):
    if gib < 10:
        return "%.1f GiB" % gib
    return "%.0f GiB" % gib if gib < 1024 else "%.1f TiB" % (gib / 1024.0)
