# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark: the rolling_reboot role with a wave's nodes down together against
one node at a time, on the namespace lab, in the same run.

The lab's "reboot" (tests/lab/reboot-node.sh through tests/lab/hooks) stops a
node's Ganeti daemons, sleeps a fixed time (--reboot-seconds, default 60) and
starts them again.  The instances are spread first (ganeti_balance), so that
every wave moves instances away and back; the master is left out
(rolling_reboot_skip_master: its failover is not a reboot).  Prints the waves,
both wall times, their ratio, the slowest reboot, the Ganeti jobs of each roll
(by opcode, with their seconds from submission to end), how long Ganeti was
busy with them while no node was down, and the bar:
concurrent >= 2.5x faster, and the concurrent roll within
waves x slowest reboot + 20 %.  The work outside the reboots (drains,
migrations away and back, undrains, gates) does not shrink with the reboot,
so that bound needs reboots long against it: on the 2-core lab it holds for
--reboot-seconds 300 (a physical server's reboot), not for 60.

    sudo GNTLAB_NS=h4-lab GNTLAB_BASE=/tmp/h4-lab GNTLAB_RAPI_PORT=5570 tests/lab/up.sh 8
    sudo GNTLAB_NS=h4-lab GNTLAB_BASE=/tmp/h4-lab GNTLAB_RAPI_PORT=5570 \\
        .venv/bin/python tests/bench/bench_rolling_reboot.py --nodes 8 --reboot-seconds 60

This is a measurement script, not a test: nothing here is timed by pytest.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))      # tests/: the kit

from kit.ansible_cli import tool  # noqa: E402
from kit.lab import Lab, lab_settings, read_env_file  # noqa: E402
from kit.paths import LAB_DIR  # noqa: E402

PLAYBOOK = os.path.join(os.path.dirname(HERE), 'integration', 'files', 'rolling_reboot.yml')


def spread(lab, workdir):
    lab.reset()
    status, _result, output = lab.run_module(workdir, 'ganeti_balance', {})
    if status != 'CHANGED':
        raise SystemExit('ganeti_balance did not spread the instances:\n' + output)
    return lab.placement()


def last_job(lab):
    return max([job['id'] for job in lab.jobs()] or [0])


def jobs_since(lab, first):
    """[(opcode, submitted, ended)] of the finished jobs after `first` (epoch seconds)."""
    def seconds(stamp):
        return stamp[0] + stamp[1] / 1e6
    return [(job['ops'][0].get('OP_ID', '?'), seconds(job['received_ts']), seconds(job['end_ts']))
            for job in lab.jobs() if job['id'] > first and job.get('end_ts')]


def by_opcode(jobs):
    """{opcode: (jobs, their seconds from submission to end)}."""
    found = {}
    for opcode, submitted, ended in jobs:
        count, took = found.get(opcode, (0, 0.0))
        found[opcode] = (count + 1, took + ended - submitted)
    return found


def busy_seconds(intervals):
    """The length of the union of (start, end) intervals."""
    total, reach = 0.0, None
    for start, end in sorted(intervals):
        if reach is None or start > reach:
            total, reach = total + end - start, end
        elif end > reach:
            total, reach = total + end - reach, end
    return total


# what a wave cannot do without: its nodes drained and undrained, its instances moved
ESSENTIAL = ('OP_NODE_SET_PARAMS', 'OP_INSTANCE_MIGRATE')


def ganeti_between_reboots(report, jobs):
    """Seconds Ganeti spent running the roll's jobs while none of a wave's
    nodes was down: work no orchestration can hide behind the wave's own
    reboots (a wave's nodes must be drained and emptied before they go down,
    and get their instances back after).  Returns (busy seconds, the seconds
    the bound leaves outside the waves' reboots)."""
    downs = [(min(r['down_at'] for r in w['reboots']), max(r['up_at'] for r in w['reboots']))
             for w in report['waves'] if w['reboots']]
    outside = []
    for _op, start, end in jobs:
        pieces = [(start, end)]
        for down, up in downs:
            pieces = [p for a, b in pieces
                      for p in ((a, min(b, down)), (max(a, up), b)) if p[1] > p[0]]
        outside.extend(pieces)
    return busy_seconds(outside), sum(up - down for down, up in downs)


def roll(lab, workdir, reboot_seconds, run_id, **role_vars):
    """One run of the role; (wall seconds, report, the Ganeti jobs it ran)."""
    report_file = os.path.join(workdir, 'report-%s.json' % run_id)
    env = lab.env(GNTLAB_NS=lab.ns, GNTLAB_BASE=lab.base, GNTLAB_SCRIPTS=LAB_DIR,
                  GNTLAB_REBOOT_SECONDS=str(reboot_seconds), GNTLAB_REBOOT_NEVER='',
                  ROLLING_REBOOT_REPORT=report_file)
    role_vars.update(rolling_reboot_run_id=run_id, rolling_reboot_skip_master=True,
                     rolling_reboot_reboot_timeout=reboot_seconds * 5)
    first = last_job(lab)
    start = time.monotonic()
    proc = subprocess.run([tool('ansible-playbook'), PLAYBOOK, '-e', json.dumps(role_vars)],
                          cwd=workdir, env=env, capture_output=True, text=True, check=False)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        raise SystemExit('the roll %s failed:\n%s' % (run_id, (proc.stdout + proc.stderr)[-4000:]))
    with open(report_file, encoding='utf-8') as handle:
        return wall, json.load(handle), jobs_since(lab, first)


def describe(name, wall, report, jobs):
    reboots = [r for wave in report['waves'] for r in wave['reboots']]
    slowest = max(r['up_at'] - r['down_at'] for r in reboots)
    print('%-13s %7.1f s  %d wave(s): %s' % (name, wall, len(report['waves']), ' | '.join(
        '+'.join(w['nodes']) for w in report['waves'])))
    print('%-13s slowest reboot %.1f s; per wave: %s' % ('', slowest, ', '.join(
        '%.0f s' % w['seconds'] for w in report['waves'])))
    # the lab's Ganeti is what a wave's fixed work waits for: its jobs, by kind
    counts = by_opcode(jobs)
    print('%-13s %d Ganeti jobs: %s' % ('', len(jobs), ', '.join(
        '%s %d (%.0f s)' % (op[3:].lower(), n, took) for op, (n, took) in sorted(counts.items()))))
    busy, down = ganeti_between_reboots(report, jobs)
    essential, _down = ganeti_between_reboots(report, [j for j in jobs if j[0] in ESSENTIAL])
    print('%-13s Ganeti busy outside the reboots (%.1f s): %.1f s with all the jobs, %.1f s with '
          'the drains, undrains and migrations alone' % ('', down, busy, essential))
    return slowest, essential


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--nodes', type=int, default=8)
    parser.add_argument('--reboot-seconds', type=int, default=60)
    args = parser.parse_args()
    lab = Lab(read_env_file(os.path.join(lab_settings()['GNTLAB_BASE'], 'lab.env')))
    if lab.nodes_count != args.nodes:
        raise SystemExit('the lab has %d nodes, not %d' % (lab.nodes_count, args.nodes))
    with tempfile.TemporaryDirectory(prefix='bench-roll-') as workdir:
        placement = spread(lab, workdir)
        together = roll(lab, workdir, args.reboot_seconds, 'bench-together')
        if lab.placement() != placement:
            raise SystemExit('the instances did not come back home')
        spread(lab, workdir)
        single = roll(lab, workdir, args.reboot_seconds, 'bench-single',
                      rolling_reboot_wave_concurrency=1)
    print('nodes %d (the master left out), reboot %d s, %d instances'
          % (args.nodes, args.reboot_seconds, len(placement)))
    slowest, busy = describe('whole wave', *together)
    describe('one at a time', *single)
    ratio = single[0] / together[0]
    waves = len(together[1]['waves'])
    bound = waves * slowest * 1.2
    print('ratio %.2fx (bar >= 2.5x: %s); whole-wave roll %.1f s, bound waves x slowest x 1.2 '
          '= %.1f s (%s)' % (ratio, 'met' if ratio >= 2.5 else 'MISSED', together[0], bound,
                             'met' if together[0] <= bound else 'MISSED'))
    # the bound leaves 20 % of the reboots for everything else; Ganeti's own
    # jobs between the reboots (drains, migrations, undrains, tags) need this much
    print('outside the reboots the bound leaves %.1f s; the lab\'s Ganeti needed %.1f s there for '
          'the drains, undrains and migrations alone' % (bound - waves * slowest, busy))


if __name__ == '__main__':
    main()
