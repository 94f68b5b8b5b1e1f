# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Sphinx settings of the ganeti.htools documentation site (docs/build.sh)."""

project = 'ganeti.htools'
copyright = 'ganeti.htools contributors'    # pylint: disable=redefined-builtin
title = 'ganeti.htools documentation'
html_short_title = title
extensions = ['sphinx_antsibull_ext']
pygments_style = 'ansible'
highlight_language = 'YAML+Jinja'
html_theme = 'sphinx_ansible_theme'
html_show_sphinx = False
html_use_modindex = False
html_use_index = False
html_copy_source = False
# Built offline: no intersphinx; the few references antsibull-docs makes to
# Ansible's own documentation resolve to docs/ansible_references.rst.
default_role = 'any'
nitpicky = True
