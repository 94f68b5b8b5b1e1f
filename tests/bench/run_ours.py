# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Plan a balance of FILE with ganeti.htools and print hbal-style step lines.

Used by bench.py as a separate process, so that its wall time and peak memory
cover the whole run (start-up, loading, planning), as they do for hbal.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, ".cache", "collections"))
sys.path.insert(0, os.path.join(ROOT, "tests"))      # the kit

from kit.plans import plan_balance  # noqa: E402


def main():
    limit = {}
    if len(sys.argv) > 4 and sys.argv[3] == "-l":
        limit["max_length"] = int(sys.argv[4])
    plan = plan_balance(sys.argv[1], search=sys.argv[2] if len(sys.argv) > 2 else "bulk",
                        **limit)
    for line in plan["step_lines"]:
        print(line)
    print(plan["stop_reason"])
    sys.stderr.write("step_seconds %s\n" % plan["step_seconds"])


if __name__ == "__main__":
    main()
