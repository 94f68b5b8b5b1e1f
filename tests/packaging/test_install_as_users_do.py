# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Install the collection as a user does and run the README's main example.

The tarball that `ansible-galaxy collection build` makes is installed with
`ansible-galaxy collection install` into an empty collections path, in a
fresh venv holding only requirements.txt, and the example playbook runs from
a directory outside the checkout: nothing of the checkout (its ansible.cfg,
its .cache/collections link, its venv) can help.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

from kit.paths import REPO_ROOT


def _run(argv, **kwargs):
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, **kwargs)
    assert proc.returncode == 0, '%s\n%s%s' % (' '.join(argv), proc.stdout, proc.stderr[-4000:])
    return proc


def test_the_built_tarball_installed_in_a_fresh_venv_runs_the_example(tmp_path):
    venv = tmp_path / 'venv'
    bin_dir = venv / 'bin'
    collections = tmp_path / 'collections'
    work = tmp_path / 'work'
    work.mkdir()
    # a user's environment: none of the suite's ANSIBLE_* settings, a new home
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(('ANSIBLE_', 'PYTHON'))}
    env.update(PATH=str(bin_dir) + os.pathsep + env.get('PATH', ''), HOME=str(tmp_path),
               ANSIBLE_COLLECTIONS_PATH=str(collections), ANSIBLE_LOCALHOST_WARNING='false',
               ANSIBLE_INVENTORY_UNPARSED_WARNING='false', PYTHONNOUSERSITE='1')
    _run([sys.executable, '-m', 'venv', str(venv)], cwd=work, env=env)
    _run([str(bin_dir / 'pip'), 'install', '-q', '-r',
          os.path.join(REPO_ROOT, 'requirements.txt')], cwd=work, env=env)
    dist = tmp_path / 'dist'
    _run([str(bin_dir / 'ansible-galaxy'), 'collection', 'build', '--output-path', str(dist),
          REPO_ROOT], cwd=work, env=env)
    tarballs = list(dist.glob('ganeti-htools-*.tar.gz'))
    assert len(tarballs) == 1, tarballs
    _run([str(bin_dir / 'ansible-galaxy'), 'collection', 'install', '-p', str(collections),
          str(tarballs[0])], cwd=work, env=env)
    assert (collections / 'ansible_collections' / 'ganeti' / 'htools' / 'MANIFEST.json').is_file()

    shutil.copytree(os.path.join(REPO_ROOT, 'playbooks'), work / 'playbooks')
    proc = _run([str(bin_dir / 'ansible-playbook'), 'playbooks/balance.yml'], cwd=work, env=env)
    # the plan of the bundled cluster: score before -> after and its moves
    summary = re.search(r'score (\d+\.\d+) -> (\d+\.\d+), (\d+) moves', proc.stdout)
    assert summary, proc.stdout
    assert float(summary.group(2)) < float(summary.group(1)) and int(summary.group(3)) > 0
    assert 'failed=0' in proc.stdout
