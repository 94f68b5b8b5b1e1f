# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the built tarball ships: the collection, not its test suite, and no
placeholder URLs in its metadata."""

from __future__ import annotations

import json
import subprocess
import sys
import os
import tarfile

from kit.paths import REPO_ROOT


def test_the_tarball_ships_the_collection_without_the_test_suite(tmp_path):
    galaxy = os.path.join(os.path.dirname(sys.executable), 'ansible-galaxy')
    proc = subprocess.run([galaxy, 'collection', 'build', '--output-path', str(tmp_path),
                           REPO_ROOT], capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (tarball,) = tmp_path.glob('ganeti-htools-*.tar.gz')
    with tarfile.open(tarball) as archive:
        names = archive.getnames()
        manifest = json.load(archive.extractfile('MANIFEST.json'))
    # ansible-test reads tests/config.yml in an installed collection; nothing else of tests/
    assert sorted(n for n in names if n.startswith('tests/')) == ['tests/config.yml']
    assert 'pytest.ini' not in names and 'requirements-test.txt' not in names
    for part in ('plugins/modules/ganeti_balance.py', 'roles/rolling_reboot/tasks/main.yml',
                 'playbooks/balance.yml', 'meta/runtime.yml', 'requirements.txt'):
        assert part in names, part
    info = manifest['collection_info']
    for key in ('repository', 'documentation', 'homepage', 'issues'):
        assert 'example' not in (info.get(key) or ''), (key, info[key])
    # about 400 KiB (0.1.0, its changelog fragments included); the test suite
    # would add about 300 KiB more, a stray cache or build far more
    assert tarball.stat().st_size < 512 * 1024
