# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a run left on a lab (either lab: an object with get() and nodes()):
its marks per node, kept as cluster tags or left as node tags, read with
Ganeti's own RAPI answers, not through the collection's clients."""

from __future__ import annotations

from ansible_collections.ganeti.htools.plugins.module_utils.run_tags import PREFIX, project


def marks_left(lab):
    """{node: every ganeti.htools tag it carries, and its marks kept as cluster tags}."""
    kept = project(lab.get('/2/tags'))
    found = {}
    for name, node in lab.nodes().items():
        marks = [t for t in node['tags'] if t.startswith(PREFIX)] + kept.get(name, [])
        if marks:
            found[name] = marks
    return found


def kept_marks(lab):
    """The cluster tags that keep nodes' marks."""
    return [t for t in lab.get('/2/tags') if project([t])]
