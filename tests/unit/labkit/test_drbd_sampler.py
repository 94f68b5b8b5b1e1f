# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The vm lab's DRBD sampler judges its samples after the roll: a node that
missed an answer on a busy host was down only if it came back with another
boot id, and a sample whose peer did not answer is unverified, not clean."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), 'vmlab'))

from vmkit import DrbdSampler  # noqa: E402  pylint: disable=wrong-import-position

MINORS = {'inst1': {'node1': 0, 'node2': 0}}


def _seen(boot, ds='UpToDate/UpToDate', state='running'):
    return {'boot_id': boot, 'state': state, 'drbd': {0: {'cs': 'Connected', 'ds': ds}}}


def _sampler(rounds):
    sampler = DrbdSampler(lab=None, minors=MINORS)
    for pos, seen in enumerate(rounds):
        sampler.samples.append({'time': float(pos), 'seen': seen})
    return sampler


def test_a_silent_node_that_kept_its_boot_id_was_not_down():
    sampler = _sampler([{'node1': _seen('a'), 'node2': _seen('x')},
                        {'node1': None, 'node2': _seen('x', ds='Inconsistent/UpToDate')},
                        {'node1': _seen('a'), 'node2': _seen('x')}])
    assert sampler.verdict() == ([], [])
    assert sampler.figures()['with_a_node_down'] == 0


def test_a_reboot_while_the_peer_is_not_up_to_date_is_a_violation():
    sampler = _sampler([{'node1': _seen('a', state='stopping'), 'node2': _seen('x')},
                        {'node1': None, 'node2': _seen('x', ds='Inconsistent/DUnknown')},
                        {'node1': _seen('b'), 'node2': _seen('x')}])
    violations, unverified = sampler.verdict()
    assert [(v[1], v[2], v[3]) for v in violations] == [('node1', 'inst1', 'node2')]
    assert unverified == []
    assert sampler.figures()['with_a_node_down'] == 2     # going down, then down


def test_a_silent_peer_leaves_the_sample_unverified():
    sampler = _sampler([{'node1': _seen('a'), 'node2': _seen('x')},
                        {'node1': None, 'node2': None},
                        {'node1': _seen('b'), 'node2': _seen('x')}])
    violations, unverified = sampler.verdict()
    assert violations == [] and [(u[1], u[3]) for u in unverified] == [('node1', 'node2')]


def test_a_node_that_never_answers_again_counts_as_down():
    sampler = _sampler([{'node1': _seen('a'), 'node2': _seen('x')},
                        {'node1': None, 'node2': _seen('x', ds='UpToDate/DUnknown')}])
    assert sampler.verdict() == ([], [])
    assert sampler.figures()['with_a_node_down'] == 1
