# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The files a run writes (report_file, save_state's two files): checked before
anything is read, never an input of the same run, written whole or not at all.

Relative paths are resolved once, against the module's working directory (on
the controller with the local connection: the directory ansible was started
in, as for data_file), and the resolved path is used everywhere after.
"""

from __future__ import annotations

import os
import stat
import tempfile

# Options naming what a run reads: an output must be none of them.
INPUT_OPTIONS = ("data_file", "util_file", "mond_data", "ca_path", "luxi_socket")
SAVE_STATE_SUFFIXES = (".original", ".balanced")


def resolve(path):
    """`path` made absolute once, through symbolic links (the file that would be replaced)."""
    return os.path.realpath(os.path.abspath(path))


def output_problem(option, path, params, others=()):
    """Why `path` (option `option`, already resolved) must not be written, or None;
    `others`: (what, path) of the run's other outputs, written before it."""
    if os.path.isdir(path):
        return "%s %s is a directory; give the path of a file" % (option, path)
    if os.path.lexists(path) and not stat.S_ISREG(os.stat(path).st_mode):
        return "%s %s exists and is not a regular file" % (option, path)
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        return ("cannot write %s %s: No such file or directory (the directory %s must exist)"
                % (option, path, directory))
    for name, input_path in _inputs(params) + list(others):
        if _same_file(path, input_path):
            return ("%s %s is the %s of this run (%s); it would be overwritten: give another path"
                    % (option, path, name, input_path))
    return None


def _inputs(params):
    """(option, path) of every input of the run, a data_file directory's files included."""
    found = []
    for name in INPUT_OPTIONS:
        path = params.get(name)
        if not path:
            continue
        found.append((name, path))
        if name == "data_file" and os.path.isdir(path):
            found += [("a file of the data_file directory", os.path.join(path, entry))
                      for entry in sorted(os.listdir(path))]
    return found


def _same_file(one, other):
    """Whether two paths name the same file: the same resolved path, or the same
    inode (a hard link)."""
    if resolve(one) == resolve(other):
        return True
    try:
        first, second = os.stat(one), os.stat(other)
    except OSError:
        return False
    return (first.st_dev, first.st_ino) == (second.st_dev, second.st_ino)


def write_atomically(path, blob):
    """Replace `path` by a file holding `blob`, or leave it as it was (OSError).

    A new file gets mode 0666 less the umask, as any file a user creates; an
    existing one keeps its mode.  No temporary file outlives a failure."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(prefix=".%s." % os.path.basename(path), suffix=".tmp",
                               dir=os.path.dirname(path))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(blob)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        _unlink_quietly(tmp)
        raise


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _unlink_quietly(path):
    try:
        os.unlink(path)
    except OSError:
        pass
