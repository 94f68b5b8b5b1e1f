# -*- coding: utf-8 -*-
# Copyright: (c) 2025, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Let ``ansible-test --venv`` bootstrap pip with PyPI as the only network.

ansible-test creates its virtual environments without pip and then runs
``get-pip.py``, which it downloads from ci-files.testing.ansible.com unless
``~/.ansible/test/cache/get_pip_<version>.py`` exists. This script (run with
the venv's Python, where ansible-test is installed) puts a stand-in there: it
runs pip from the pip wheel of the same version, fetched from PyPI, and does
what get-pip.py does (``pip install --upgrade --force-reinstall ARGS``).
An existing file (the real get-pip.py, or an earlier stand-in) is kept.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys

STAND_IN = '''# Stand-in for get-pip.py (written by ganeti.htools hacking/ansible_test_get_pip.py).
import glob
import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WHEEL = sorted(glob.glob(os.path.join(HERE, "pip-%(version)s-*.whl")))[-1]
ARGS = [a for a in sys.argv[1:] if a not in ("--no-setuptools", "--no-wheel")]
sys.path.insert(0, WHEEL)
sys.argv = ["pip", "install", "--upgrade", "--force-reinstall"] + ARGS
runpy.run_module("pip", run_name="__main__", alter_sys=True)
'''


def pip_version():
    """The pip version that this ansible-test bootstraps (the same for every Python it supports)."""
    # pylint: disable-next=import-outside-toplevel
    from ansible_test._internal.python_requirements import get_venv_packages

    class _Python:  # pylint: disable=too-few-public-methods
        version = '%d.%d' % sys.version_info[:2]

    return get_venv_packages(_Python())['pip']


def main():
    version = pip_version()
    cache = os.path.expanduser('~/.ansible/test/cache')
    script = os.path.join(cache, 'get_pip_%s.py' % version.replace('.', '_'))
    if os.path.exists(script):
        return 0
    os.makedirs(cache, exist_ok=True)
    if not glob.glob(os.path.join(cache, 'pip-%s-*.whl' % version)):
        subprocess.run([sys.executable, '-m', 'pip', 'download', '--quiet', '--disable-pip-version-check',
                        '--no-deps', '--only-binary', ':all:', '--dest', cache, 'pip==%s' % version], check=True)
    with open(script + '.tmp', 'w', encoding='utf-8') as handle:
        handle.write(STAND_IN % dict(version=version))
    os.rename(script + '.tmp', script)
    print('ansible-test: pip %s bootstrap stand-in written to %s' % (version, script))
    return 0


if __name__ == '__main__':
    sys.exit(main())
