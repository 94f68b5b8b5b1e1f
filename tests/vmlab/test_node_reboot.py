# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A real node reboot through ansible.builtin.reboot: the node comes back,
Ganeti sees it, and DRBD resyncs what the primaries wrote meanwhile.

The lab's own proof (no module of the collection runs here): 15 minutes of
emulation that slowed every other lab test of CI, so `make vmlab-long` runs it,
not `make test`; the rolling_reboot role's roll (make vmlab-roll) is to take
its place there."""

from __future__ import annotations

import collections

import pytest

from vmkit import ansible_result, verify_disks_clean, wait_for

pytestmark = [pytest.mark.vmlab, pytest.mark.vmlab_long]

WRITE_MIB = 4          # written to each mirror while its secondary is down
WRITE_AT_MIB = 8


def _pick_node(lab):
    """Not the master (RAPI and the cluster IP live there); the node holding
    the most DRBD disks."""
    master = lab.master()
    counts = collections.Counter(node for pair in lab.layout().values() for node in pair)
    candidates = [node for node in counts if node != master]
    assert candidates, 'no DRBD disk outside the master: %s' % lab.layout()
    return max(candidates, key=lambda node: (counts[node], node))


def _region_sum(lab, node, path):
    return lab.on(node, 'dd if=%s bs=1M skip=%d count=%d iflag=direct status=none | sha256sum'
                  % (path, WRITE_AT_MIB, WRITE_MIB)).split()[0]


def _secondaries_in_sync(lab, node, count):
    devices = lab.drbd(node)
    configured = {m: d for m, d in devices.items() if d['cs'] != 'Unconfigured'}
    return len(configured) == count and all(
        d['cs'] == 'Connected' and d['ds'] == 'UpToDate/UpToDate' and d['oos'] == 0
        and d['ro'].startswith('Secondary/') for d in configured.values())


def _write_while_away(lab, devices, reboot):
    """Once the primaries have lost their peer, write to each mirror: DRBD
    counts those blocks out of sync until the secondary is back."""
    by_primary = collections.defaultdict(list)
    for primary, minor in devices.values():
        by_primary[primary].append(minor)

    def peers_gone():
        if reboot.poll() is not None:
            raise AssertionError('the reboot ended before the node went away:\n'
                                 + ansible_result(reboot)[2])
        return all(all(states[minor]['cs'] == 'WFConnection' for minor in minors)
                   for states, minors in ((lab.drbd(p), m) for p, m in by_primary.items()))
    wait_for(peers_gone, 600, 'primaries waiting for their rebooting peer')
    for primary, minors in by_primary.items():
        lab.on(primary, '; '.join(
            'dd if=/dev/urandom of=/dev/drbd%d bs=1M seek=%d count=%d oflag=direct conv=fsync '
            'status=none' % (minor, WRITE_AT_MIB, WRITE_MIB) for minor in minors))
        states = lab.drbd(primary)
        assert all(states[minor]['oos'] >= WRITE_MIB * 1024 for minor in minors), states


def test_real_reboot_and_drbd_resync(vmlab, tmp_path, timed):
    lab = vmlab
    node = _pick_node(lab)
    # as a rolling reboot would: primaries leave the node first (live migration)
    if any(pnode == node for pnode, _snode in lab.layout().values()):
        with timed('gnt-node migrate %s' % node):
            lab.gnt('gnt-node', 'migrate', '-f', node)
    layout = lab.layout()
    mirrored = sorted(name for name, (pnode, snode) in layout.items() if snode == node)
    assert mirrored and all(pnode != node for pnode, _snode in layout.values()), layout
    devices = {name: (layout[name][0], lab.drbd_minor(layout[name][0], name))
               for name in mirrored}       # primary node and DRBD minor there
    assert _secondaries_in_sync(lab, node, len(mirrored))
    boot_id = lab.boot_id(node)

    with timed('reboot %s (ansible.builtin.reboot)' % node):
        reboot = lab.start_ansible(tmp_path, node, 'ansible.builtin.reboot',
                                   {'reboot_timeout': 900}, inventory=lab.inventory)
        _write_while_away(lab, devices, reboot)
        status, result, output = ansible_result(reboot, timeout=1200)
    assert status == 'CHANGED' and result['rebooted'] is True, output
    assert lab.boot_id(node) != boot_id

    with timed('Ganeti sees %s again' % node):
        wait_for(lambda: lab.nodes()[node]['mfree'] is not None, 600,
                 'live data of %s over RAPI' % node)
    assert not lab.nodes()[node]['offline']

    # the first verify-disks activates the mirrors of the returned node and
    # DRBD resyncs the blocks written meanwhile; then it finds nothing to do
    def resynced():
        return verify_disks_clean(lab.verify_disks()) \
            and _secondaries_in_sync(lab, node, len(mirrored))
    with timed('DRBD resync after the reboot'):
        wait_for(resynced, 900, 'DRBD of %s connected and in sync' % node, interval=10)
    for primary, minor in devices.values():
        assert lab.drbd(primary)[minor]['oos'] == 0, lab.drbd(primary)
    # the secondary's volumes now hold what the primaries wrote
    for name, (primary, minor) in devices.items():
        assert _region_sum(lab, node, lab.data_volume(node, name)) \
            == _region_sum(lab, primary, '/dev/drbd%d' % minor), name
    instances = lab.instances()
    assert all(i['status'] == 'running' for i in instances.values()), \
        {n: i['status'] for n, i in instances.items()}
