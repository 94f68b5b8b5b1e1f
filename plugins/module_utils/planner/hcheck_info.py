# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_cluster_info with hcheck: the cluster prepared as hcheck prepares
it, hcheck's figures, and the usual report of the selected group."""

from __future__ import annotations

from ..backend.prepare import prepare_model, select_group
from ..errors import LookupFailure
from .balance.options import SEARCH_OPTIONS
from .capacity.hcheck import hcheck
from .cluster_info import report


def hcheck_info(data, params):
    """The info report plus `hcheck` (dict): every HCHECK_* key, the verdicts."""
    prepare_model(data, params)
    search = {o.name: params[o.name] for o in SEARCH_OPTIONS if params.get(o.name) is not None}
    result = hcheck(data, no_simulation=params.get("no_simulation"),
                    no_capacity_checks=params.get("no_capacity_checks"), balance_options=search)
    checked = dict(machine_readable=dict(result["keys"]), healthy=result["healthy"],
                   needs_rebalance=result["needs_rebalance"],
                   healthy_after_rebalance=result["healthy_after_rebalance"],
                   simulated=result["simulated"])
    try:
        info = report(data, select_group(data, params.get("group")))
    except LookupFailure:
        if params.get("group"):
            raise
        # hcheck looks at every group; the group report needs one
        info = dict(summary="several node groups: give group for the group report")
    info["hcheck"] = checked
    verdict = "healthy" if checked["healthy"] else "needs rebalancing"
    info["summary"] = "hcheck: %s\n%s" % (verdict, info.get("summary", ""))
    return info
