# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A failed playbook's assertion message names the failed task first: CI
shows a long message cut in the middle, which hid the failure of a vm-lab run."""

from __future__ import annotations

from kit.ansible_cli import failure_first, slowest_tasks

RUN = '\n'.join(['PLAY [roll] ***', 'TASK [ganeti.htools.rolling_reboot : Drain] ***', 'ok: [localhost]']
                + ['filler line %d' % i for i in range(500)]
                + ['TASK [ganeti.htools.rolling_reboot : Wait until RAPI answers] ***',
                   'FAILED - RETRYING: [localhost]: Wait until RAPI answers (9 retries left).',
                   'fatal: [localhost]: FAILED! =>',
                   '  msg: the master did not answer',
                   'PLAY RECAP ***'])


def test_the_failed_task_comes_first_with_its_message():
    message = failure_first(RUN, tail=200)
    head = message.split('... the end of the output')[0]
    assert 'TASK [ganeti.htools.rolling_reboot : Wait until RAPI answers]' in head
    assert 'the master did not answer' in head
    assert 'Drain' not in head and 'filler' not in head


def test_a_run_without_a_failed_task_says_so_and_keeps_its_end():
    message = failure_first('PLAY [x]\nline\nPLAY RECAP', tail=200)
    assert '(no failed task in the output)' in message
    assert message.endswith('PLAY RECAP')


LOG = '''2026-12-02 07:44:58,009 p=1 u=root n=ansible INFO| TASK [Drain] ****
2026-12-02 07:44:58,500 p=1 u=root n=ansible INFO| ok: [localhost]
2026-12-02 07:45:00,009 p=1 u=root n=ansible INFO| TASK [ganeti.htools.rolling_reboot : Wait until RAPI answers] ****
2026-12-02 07:46:40,509 p=1 u=root n=ansible INFO| TASK [Reboot] ****
2026-12-02 07:46:50,509 p=1 u=root n=ansible INFO| PLAY RECAP ****
'''


def test_the_slowest_tasks_of_a_log_come_first_with_their_seconds():
    assert slowest_tasks(LOG, count=2) == [
        (100.5, 'ganeti.htools.rolling_reboot : Wait until RAPI answers'), (10.0, 'Reboot')]
