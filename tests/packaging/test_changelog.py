# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The changelog is made by antsibull-changelog from fragments.

* the fragments are valid (`antsibull-changelog lint`);
* CHANGELOG.md and CHANGELOG.rst are what changelogs/changelog.yaml generates
  (nobody edits them by hand);
* every commit since the last release that changes plugins/ or roles/ adds a
  fragment (the release process in the README);
* the pending fragments make a release: a trial release in a copy of the
  collection shows every one of their entries.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
import yaml

from kit.ansible_cli import tool
from kit.paths import REPO_ROOT

CHANGELOGS = os.path.join(REPO_ROOT, 'changelogs')
FRAGMENTS = os.path.join(CHANGELOGS, 'fragments')
GENERATED = ('CHANGELOG.md', 'CHANGELOG.rst')
# what a copy of the collection needs for antsibull-changelog (plugins: it
# lists new modules in a release)
COLLECTION_PARTS = ('galaxy.yml', 'meta', 'plugins', 'roles', 'changelogs') + GENERATED


def _antsibull(*args, cwd):
    env = dict(os.environ)
    # ansible-doc from the same venv (antsibull-changelog finds new plugins with it)
    env['PATH'] = os.path.dirname(tool('antsibull-changelog')) + os.pathsep + env.get('PATH', '')
    return subprocess.run([tool('antsibull-changelog'), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False)


def _copy_collection(tmp_path):
    root = tmp_path / 'collection'
    root.mkdir()
    for part in COLLECTION_PARTS:
        source = os.path.join(REPO_ROOT, part)
        if os.path.isdir(source):
            shutil.copytree(source, root / part, ignore=shutil.ignore_patterns('__pycache__'))
        else:
            shutil.copy(source, root / part)
    return root


def _fragments():
    return sorted(name for name in os.listdir(FRAGMENTS)
                  if name.endswith(('.yml', '.yaml')))


def _git(*args):
    return subprocess.run(['git', '-C', REPO_ROOT, *args], capture_output=True, text=True,
                          check=True).stdout


def test_fragments_are_valid():
    proc = _antsibull('lint', cwd=REPO_ROOT)
    assert proc.returncode == 0 and not proc.stdout.strip(), proc.stdout + proc.stderr


# ansible-lint's yaml rule (yamllint's default line length in its profile)
LINT_LINE_LENGTH = 160


def test_fragment_lines_fit_ansible_lint():
    """ansible-lint reads the fragments too; a long entry fails CI's lint step
    long after the unit tests, so say it here first."""
    long_lines = []
    for name in _fragments():
        with open(os.path.join(FRAGMENTS, name), encoding='utf-8') as handle:
            for number, line in enumerate(handle, 1):
                if len(line.rstrip('\n')) > LINT_LINE_LENGTH:
                    long_lines.append('%s:%d (%d characters)' % (name, number, len(line.rstrip('\n'))))
    assert not long_lines, long_lines


def test_the_changelog_files_are_generated(tmp_path):
    root = _copy_collection(tmp_path)
    for name in GENERATED:
        os.remove(root / name)
    proc = _antsibull('generate', cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in GENERATED:
        with open(os.path.join(REPO_ROOT, name), encoding='utf-8') as handle:
            assert (root / name).read_text(encoding='utf-8') == handle.read(), (
                '%s differs from what changelogs/changelog.yaml generates: edit fragments, '
                'not the file' % name)


def _releases_at(commit):
    """The versions changelogs/changelog.yaml records at a commit."""
    proc = subprocess.run(['git', '-C', REPO_ROOT, 'show', commit + ':changelogs/changelog.yaml'],
                          capture_output=True, text=True, check=False)
    if proc.returncode:
        return set()
    return set((yaml.safe_load(proc.stdout) or {}).get('releases') or {})


def _last_release_commit():
    """The newest commit that added a release (not one that only reformatted)."""
    for commit in _git('log', '--format=%H', '--', 'changelogs/changelog.yaml').split():
        if _releases_at(commit) != _releases_at(commit + '^'):
            return commit
    return None


def test_every_change_since_the_release_has_a_fragment():
    if not os.path.isdir(os.path.join(REPO_ROOT, '.git')):
        pytest.skip('not a git checkout')
    if _git('rev-parse', '--is-shallow-repository').strip() == 'true':
        pytest.skip('a shallow clone: the history since the release may be cut')
    release = _last_release_commit()
    assert release, 'no release recorded in changelogs/changelog.yaml'
    missing = []
    # merge commits only bring in commits that are checked on their own
    for commit in _git('log', '--no-merges', '--format=%H', '%s..HEAD' % release, '--',
                       'plugins', 'roles').split():
        added = _git('diff-tree', '--no-commit-id', '--name-only', '-r', '--diff-filter=AM',
                     commit, '--', 'changelogs/fragments').split()
        if not any(name.endswith(('.yml', '.yaml')) for name in added):
            missing.append(_git('log', '-1', '--format=%h %s', commit).strip())
    assert not missing, ('changes to plugins/ or roles/ without a changelog fragment '
                         '(changelogs/fragments/*.yml):\n  ' + '\n  '.join(missing))


def test_the_pending_fragments_make_a_release(tmp_path):
    pending = _fragments()
    if not pending:
        pytest.skip('no fragment pending')
    with open(os.path.join(CHANGELOGS, 'config.yaml'), encoding='utf-8') as handle:
        trivial = yaml.safe_load(handle)['trivial_section_name']   # never in a changelog
    entries = []
    for name in pending:
        with open(os.path.join(FRAGMENTS, name), encoding='utf-8') as handle:
            for section, value in yaml.safe_load(handle).items():
                if section != trivial:
                    entries += value if isinstance(value, list) else [value]
    root = _copy_collection(tmp_path)
    proc = _antsibull('release', '--version', '99.0.0', '--date', '2099-01-01', cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(root / 'changelogs' / 'changelog.yaml', encoding='utf-8') as handle:
        release = yaml.safe_load(handle)['releases']['99.0.0']
    recorded = [e for value in release['changes'].values()
                for e in (value if isinstance(value, list) else [value])]
    assert sorted(recorded) == sorted(entries)
