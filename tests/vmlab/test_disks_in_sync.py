# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ganeti_cluster_health's disks_in_sync on real DRBD: a secondary whose
device is gone (as after a reboot) and one disconnected, both written to
meanwhile; the check names them, re-attaches them as Ganeti's watcher would,
waits through the resync (slowed down so that it is seen) and the data is
on both sides afterwards."""

from __future__ import annotations

import pytest

from vmkit import verify_disks_clean, wait_for

# not yet in CI: never run to the end (issue 22); `make vmlab-roll` runs them
pytestmark = [pytest.mark.vmlab, pytest.mark.vmlab_roll]

WRITE_AT_MIB = 8
WRITE_MIB = 40
# KiB/s: a resync of WRITE_MIB takes about four minutes, long enough to be seen
# by a health check (each takes a minute or more against emulated nodes: with
# 16 MiB at 1 MiB/s the resync had ended before the first one looked)
SLOW_RESYNC = 160


def _region_sum(lab, node, path):
    return lab.on(node, 'dd if=%s bs=1M skip=%d count=%d iflag=direct status=none | sha256sum'
                  % (path, WRITE_AT_MIB, WRITE_MIB)).split()[0]


def _write(lab, node, minor):
    lab.on(node, 'dd if=/dev/urandom of=/dev/drbd%d bs=1M seek=%d count=%d oflag=direct '
                 'conv=fsync status=none' % (minor, WRITE_AT_MIB, WRITE_MIB))
    return _region_sum(lab, node, '/dev/drbd%d' % minor)


def _health(lab, tmp_path, **args):
    args = dict({'checks': ['disks_in_sync'], 'fail_on_problems': False}, **args)
    status, result, output = lab.run_module(tmp_path, 'ganeti_cluster_health', args)
    assert status in ('SUCCESS', 'CHANGED'), output
    return status, result


def _two_on_different_secondaries(lab):
    """Two DRBD instances whose secondaries differ from their own primaries and
    from each other when the layout allows it."""
    layout = lab.layout()
    names = sorted(layout)
    first = names[0]
    second = next((n for n in names[1:] if layout[n][1] != layout[first][1]), names[1])
    return (first,) + layout[first], (second,) + layout[second]


def _in_sync_both_sides(lab, name, primary, secondary):
    minor_p = lab.drbd_minor(primary, name)
    minor_s = lab.drbd_minor(secondary, name)
    p_state, s_state = lab.drbd(primary)[minor_p], lab.drbd(secondary)[minor_s]
    return all(d['cs'] == 'Connected' and d['ds'] == 'UpToDate/UpToDate' and d['oos'] == 0
               for d in (p_state, s_state))


def test_disks_in_sync_names_reattaches_and_waits_on_real_drbd(vmlab, tmp_path, timed):
    lab = vmlab
    lab.clear_locks()
    status, result = _health(lab, tmp_path)
    assert result['healthy'] and status == 'SUCCESS', result
    assert result['disks']['checked'] == sorted(lab.layout())
    (gone, gone_p, gone_s), (cut, cut_p, cut_s) = _two_on_different_secondaries(lab)
    gone_minor = {n: lab.drbd_minor(n, gone) for n in (gone_p, gone_s)}
    cut_minor = {n: lab.drbd_minor(n, cut) for n in (cut_p, cut_s)}
    lab.gnt('gnt-cluster', 'modify', '-D', 'drbd:resync-rate=%d' % SLOW_RESYNC)
    try:
        # the secondary's device of `gone` taken down (a rebooted node has none),
        # the one of `cut` disconnected; data written on both primaries meanwhile
        lab.drbd_down(gone_s, gone_minor[gone_s])
        lab.drbd_disconnect(cut_s, cut_minor[cut_s])
        written = {gone: _write(lab, gone_p, gone_minor[gone_p]),
                   cut: _write(lab, cut_p, cut_minor[cut_p])}

        status, result = _health(lab, tmp_path, disks_nodes=[gone_s, cut_s])
        assert status == 'SUCCESS' and not result['healthy'], result
        bad = {(s['instance'], s['node']): s['state'] for s in result['disks']['not_in_sync']}
        assert bad[(gone, gone_s)] == 'not active', bad
        assert bad[(gone, gone_p)] == 'not connected', bad
        assert bad[(cut, cut_p)] == 'not connected', bad
        assert bad[(cut, cut_s)] in ('not connected', 'degraded (local disk unknown)'), bad
        problems = result['checks']['disks_in_sync']['problems']
        assert '%s disk 0 on %s (secondary): not active' % (gone, gone_s) in problems, problems

        with timed('disks_in_sync: re-attach 2 instances, see the resync'):
            status, result = _health(lab, tmp_path, disks_nodes=[gone_s, cut_s],
                                     disks_reattach=True)
            assert status == 'CHANGED' and result['disks']['reattached'] == sorted([gone, cut])
            # the resync runs at SLOW_RESYNC: seen as such, with its progress
            seen = wait_for(lambda: [s for s in _health(lab, tmp_path)[1]['disks']['not_in_sync']
                                     if s['state'] == 'resyncing'], 120, 'a disk resyncing',
                            interval=1)
            assert all(0 <= s['sync_percent'] < 100 for s in seen), seen
        with timed('disks_in_sync: wait for the resync'):
            status, result = _health(lab, tmp_path, disks_wait_timeout=600,
                                     disks_poll_interval=3)
        assert result['healthy'], result
        assert result['disks']['progress'].startswith('every disk in sync'), result['disks']
        assert result['disks']['waited'] > 0
    finally:
        lab.gnt('gnt-cluster', 'modify', '-D', 'drbd:resync-rate=61440')
    for name, (primary, secondary) in ((gone, (gone_p, gone_s)), (cut, (cut_p, cut_s))):
        assert _in_sync_both_sides(lab, name, primary, secondary), name
        # what the primary wrote while its peer was away is on the secondary
        assert _region_sum(lab, secondary, lab.data_volume(secondary, name)) == written[name]
        assert _region_sum(lab, primary, '/dev/drbd%d' % lab.drbd_minor(primary, name)) \
            == written[name]
    out = lab.verify_disks()
    assert verify_disks_clean(out), out
