# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The execution-environment definitions, checked with ansible-builder itself.

ansible-builder reads a collection's meta/execution-environment.yml when it
builds an EE: `introspect` shows what it would install for this collection,
and `create` writes the build context of the example definition (no
container is built).
"""

from __future__ import annotations

import os
import subprocess

import yaml

from kit.ansible_cli import tool
from kit.paths import COLLECTIONS_DIR, REPO_ROOT


def _requirement_names(path):
    with open(path, encoding='utf-8') as handle:
        return {line.split('#')[0].strip() for line in handle if line.split('#')[0].strip()}


def test_introspection_finds_the_modules_python_requirements():
    proc = subprocess.run([tool('ansible-builder'), 'introspect', COLLECTIONS_DIR],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    found = yaml.safe_load(proc.stdout.split('\n', 1)[1])
    ours = sorted(entry.split('#')[0].strip() for entry in found['python']
                  if entry.endswith('from collection ganeti.htools'))
    assert ours == ['numpy', 'requests'], found
    # the same packages the collection's runtime requirements name, minus ansible-core
    runtime = {name.split('>')[0].split('<')[0].split('=')[0]
               for name in _requirement_names(os.path.join(REPO_ROOT, 'requirements.txt'))}
    assert runtime - {'ansible-core'} == set(ours)


def test_the_example_definition_gives_a_build_context(tmp_path):
    context = tmp_path / 'context'
    proc = subprocess.run([tool('ansible-builder'), 'create', '-f',
                           os.path.join(REPO_ROOT, 'execution-environment.yml'),
                           '-c', str(context)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(context / '_build' / 'requirements.yml', encoding='utf-8') as handle:
        galaxy = yaml.safe_load(handle)
    assert [c['name'] for c in galaxy['collections']] == ['ganeti.htools']
    containerfile = next(p for p in context.iterdir() if p.name in ('Containerfile', 'Dockerfile'))
    text = containerfile.read_text(encoding='utf-8')
    assert 'ansible-galaxy collection install' in text or 'install-from-bindep' in text


def test_the_example_definition_takes_the_newest_ansible_core_the_collection_supports():
    from packaging.requirements import Requirement
    with open(os.path.join(REPO_ROOT, 'execution-environment.yml'), encoding='utf-8') as handle:
        definition = yaml.safe_load(handle)
    wanted = Requirement(definition['dependencies']['ansible_core']['package_pip'])
    supported = next(Requirement(line) for line in
                     _requirement_names(os.path.join(REPO_ROOT, 'requirements.txt'))
                     if line.startswith('ansible-core'))
    assert wanted.name == supported.name == 'ansible-core'
    # a current base: the newest release line requirements.txt admits, and nothing it refuses
    newest = max(v for v in ('2.19.4', '2.20.6', '2.21.5', '2.22.0') if v in supported.specifier)
    assert newest == '2.21.5' and newest in wanted.specifier
    assert not any(v in wanted.specifier and v not in supported.specifier
                   for v in ('2.15.13', '2.22.0', '2.23.0'))
