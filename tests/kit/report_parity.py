# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Our initial cluster report (``cluster_info()``) against hbal's, parsed by
``oracle.hbal``: the differences, as readable lines.

Used by every suite that compares a loader with hbal: the generated text
clusters (tests/differential/test_score_parity.py), the RAPI and ``-U``
backends (tests/unit/backend/).
"""

from __future__ import annotations


def diff_lines(ours, theirs, limit=6):
    """Readable line-by-line difference of two line lists."""
    out = []
    if len(ours) != len(theirs):
        out.append(f"    line count: ours {len(ours)}, hbal {len(theirs)}")
    for k in range(max(len(ours), len(theirs))):
        a = ours[k] if k < len(ours) else "<missing>"
        b = theirs[k] if k < len(theirs) else "<missing>"
        if a != b:
            out.append(f"    line {k}:\n      ours: {a!r}\n      hbal: {b!r}")
            if len(out) >= limit:
                out.append("    ...")
                break
    return out


def compare(case, hb, res, hs_fixed):
    """Return the list of differences between ``res`` and hbal's ``hb``."""
    problems = []

    if res.get("group") != hb.group_name:
        problems.append(f"group: ours {res.get('group')!r}, "
                        f"hbal {hb.group_name!r}")

    score = hs_fixed(res["score"], 8)
    if score != hb.initial_score_text:
        problems.append(f"score: ours {score} (raw {res['score']!r}), "
                        f"hbal {hb.initial_score_text}")

    ours_m = [(name, hs_fixed(value, 8))
              for name, value in res["metrics"].items()]
    hbal_m = [(row[0], row[1]) for row in hb.metrics_text]
    if ours_m != hbal_m:
        if not hbal_m:
            problems.append(
                "metrics: hbal prints no metric rows (the selected group has "
                "no online node, so every statistic is left out and the score is 0); "
                f"ours has {len(ours_m)}")
        elif [r[0] for r in ours_m] != [r[0] for r in hbal_m]:
            problems.append(f"metric names: ours {[r[0] for r in ours_m]}, "
                            f"hbal {[r[0] for r in hbal_m]}")
        else:
            for (name, a), (_name, b) in zip(ours_m, hbal_m):
                if a != b:
                    problems.append(f"metric {name}: ours {a} "
                                    f"(raw {res['metrics'][name]!r}), hbal {b}")

    table = res["node_table"]
    ours_t = table.split("\n") if isinstance(table, str) else list(table)
    if isinstance(table, str) and table.endswith("\n"):
        problems.append("node_table: must not end with a newline")
    if ours_t != hb.node_table_lines:
        problems.append("node table differs:")
        problems.extend(diff_lines(ours_t, hb.node_table_lines))

    warnings = list(res.get("warnings", []))
    if warnings != hb.warnings:
        problems.append("warnings differ:")
        problems.extend(diff_lines(warnings, hb.warnings))
    return problems
