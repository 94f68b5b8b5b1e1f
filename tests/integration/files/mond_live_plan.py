# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run inside the lab's network namespace: read the cluster over RAPI, ask every
node's MonD the way ganeti_balance does (mond: true), plan, and print JSON.

argv: COLLECTIONS_DIR RAPI_URL USER PASSWORD CA_PATH [MOND_PORT [MOND_TIMEOUT]]
Prints {"plan": {...}, "reports": [...] (as a --mond-data file), "failures": {...},
"seconds": how long the MonD round took}.
"""

from __future__ import annotations

import json
import sys
import time


def main(argv):
    sys.path.insert(0, argv[1])
    # pylint: disable=import-outside-toplevel
    from ansible_collections.ganeti.htools.plugins.module_utils.live import mond, source
    from ansible_collections.ganeti.htools.plugins.module_utils.planner.balance.planner import (
        RECORDED_OPTIONS, plan)

    params = dict(rapi_url=argv[2], rapi_user=argv[3], rapi_password=argv[4], ca_path=argv[5],
                  validate_certs=True, timeout=60.0, mond=True,
                  mond_port=int(argv[6]) if len(argv) > 6 else mond.MOND_PORT,
                  mond_timeout=float(argv[7]) if len(argv) > 7 else 10.0)
    started = time.monotonic()
    data, _snapshot, _client = source.read_cluster(params)
    seconds = time.monotonic() - started
    reports, failures = data.mond_reports
    opts = {name: params.get(name) for name in RECORDED_OPTIONS}
    result = plan(data, opts)
    keep = ("initial_score", "step_lines", "stop_reason", "commands", "warnings")
    json.dump({"plan": {k: result[k] for k in keep},
               "reports": [{"node": n, "reports": r} for n, r in reports.items()],
               "failures": failures, "seconds": seconds}, sys.stdout)


if __name__ == "__main__":
    main(sys.argv)
