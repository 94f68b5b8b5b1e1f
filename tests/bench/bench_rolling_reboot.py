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
(by opcode, with their seconds from submission to end) and the bar:
concurrent >= 2.5x faster, and the concurrent roll within
waves x slowest reboot + 20 %.

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
    """{opcode: (jobs, their seconds from submission to end)} of the jobs after `first`."""
    def seconds(stamp):
        return stamp[0] + stamp[1] / 1e6
    found = {}
    for job in lab.jobs():
        if job['id'] <= first or not job.get('end_ts'):
            continue
        opcode = job['ops'][0].get('OP_ID', '?')
        count, took = found.get(opcode, (0, 0.0))
        found[opcode] = (count + 1, took + seconds(job['end_ts']) - seconds(job['received_ts']))
    return found


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
    print('%-13s %d Ganeti jobs: %s' % ('', sum(n for n, _s in jobs.values()), ', '.join(
        '%s %d (%.0f s)' % (op[3:].lower(), n, took) for op, (n, took) in sorted(jobs.items()))))
    return slowest


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
    slowest = describe('whole wave', *together)
    describe('one at a time', *single)
    ratio = single[0] / together[0]
    bound = len(together[1]['waves']) * slowest * 1.2
    print('ratio %.2fx (bar >= 2.5x: %s); whole-wave roll %.1f s, bound waves x slowest x 1.2 '
          '= %.1f s (%s)' % (ratio, 'met' if ratio >= 2.5 else 'MISSED', together[0], bound,
                             'met' if together[0] <= bound else 'MISSED'))


if __name__ == '__main__':
    main()
