# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shape of plugins/: data flows one way between the folders of module_utils,
no function is too long to read, only planners know planners, and the action
group lists every module."""

from __future__ import annotations

import ast
import os

import yaml

from ansible_collections.ganeti.htools.plugins.module_utils.planner.registry import PLANNERS
from kit.paths import REPO_ROOT

PLUGINS = os.path.join(REPO_ROOT, 'plugins')
MODULE_UTILS = os.path.join(PLUGINS, 'module_utils')
PACKAGE = 'ansible_collections.ganeti.htools.plugins.module_utils'
LONGEST_FUNCTION = 100          # lines, decorators and docstring included
PLANNER_BLIND = ('report', 'live')  # folders that draw or run any plan, knowing no planner


def _python_files(top):
    for folder, _dirs, files in os.walk(top):
        for name in sorted(files):
            if name.endswith('.py'):
                yield os.path.join(folder, name)


def _tree(path):
    with open(path, encoding='utf-8') as handle:
        return ast.parse(handle.read(), path)


def _imported_folders(path):
    """The module_utils folders that the module at `path` imports from."""
    parts = os.path.relpath(path, MODULE_UTILS).split(os.sep)[:-1]
    found = set()
    for node in ast.walk(_tree(path)):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = parts[:len(parts) - (node.level - 1)] if node.level > 1 else parts
            target = base + (node.module.split('.') if node.module else [])
        elif (node.module or '').startswith(PACKAGE + '.'):
            target = node.module[len(PACKAGE) + 1:].split('.')
        else:
            continue
        if target and os.path.isdir(os.path.join(MODULE_UTILS, target[0])):
            found.add(target[0])
    return found


def folder_graph():
    """{folder: folders it imports from} among the subfolders of module_utils."""
    graph = {}
    for path in _python_files(MODULE_UTILS):
        rel = os.path.relpath(path, MODULE_UTILS).split(os.sep)
        if len(rel) < 2:
            continue
        graph.setdefault(rel[0], set()).update(_imported_folders(path) - {rel[0]})
    return graph


def _cycle(graph):
    """A folder cycle as a list of folders, or None."""
    done, path = set(), []

    def visit(folder):
        if folder in path:
            return path[path.index(folder):] + [folder]
        if folder in done:
            return None
        path.append(folder)
        for nxt in sorted(graph.get(folder, ())):
            found = visit(nxt)
            if found:
                return found
        path.pop()
        done.add(folder)
        return None

    for folder in sorted(graph):
        found = visit(folder)
        if found:
            return found
    return None


def test_no_import_cycle_between_the_folders_of_module_utils():
    graph = folder_graph()
    assert 'plan' in graph and 'backend' in graph['planner']     # the graph is read at all
    assert _cycle(graph) is None


def test_the_pure_layers_import_no_outer_layer():
    graph = folder_graph()
    assert graph['model'] == set()
    assert graph['plan'] <= {'model'}
    assert not graph['planner'] & {'live', 'report', 'module'}


def test_no_function_in_plugins_is_over_100_lines():
    long = []
    for path in _python_files(PLUGINS):
        for node in ast.walk(_tree(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                length = node.end_lineno - start + 1
                if length > LONGEST_FUNCTION:
                    where = os.path.relpath(path, REPO_ROOT)
                    long.append('%s:%d %s (%d lines)' % (where, node.lineno, node.name, length))
    assert not long


def _kind_words():
    """Each registered planner kind as a string and as an identifier part."""
    words = set()
    for planner in PLANNERS:
        words.add(planner.kind.lower())
        words.add(planner.kind.replace('-', '_').lower())
    return words


def test_report_and_live_name_no_planner_kind():
    words = _kind_words()
    found = []
    for folder in PLANNER_BLIND:
        for path in _python_files(os.path.join(MODULE_UTILS, folder)):
            for node in ast.walk(_tree(path)):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    named = node.value.strip().lower() in words
                elif isinstance(node, ast.Name):
                    named = node.id.lower() in words
                elif isinstance(node, ast.Attribute):
                    named = node.attr.lower() in words
                else:
                    continue
                if named:
                    found.append('%s:%d' % (os.path.relpath(path, REPO_ROOT), node.lineno))
    assert not found


def test_the_action_group_lists_exactly_the_modules():
    with open(os.path.join(REPO_ROOT, 'meta', 'runtime.yml'), encoding='utf-8') as handle:
        group = yaml.safe_load(handle)['action_groups']['ganeti']
    modules = sorted(name[:-3] for name in os.listdir(os.path.join(PLUGINS, 'modules'))
                     if name.endswith('.py') and not name.startswith('_'))
    assert sorted(group) == modules
    assert len(group) == len(set(group))


def test_every_registered_planner_is_complete():
    kinds = [planner.kind for planner in PLANNERS]
    assert len(kinds) == len(set(kinds))
    for planner in PLANNERS:
        module = planner.module.rsplit('.', 1)[-1]
        assert os.path.exists(os.path.join(PLUGINS, 'modules', module + '.py')), module
        assert planner.title and planner.marker and planner.table, planner.kind
        assert set(planner.writes).isdisjoint(planner.options), planner.kind
