# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r'''
---
name: plan_report_html
short_description: A plan as a self-contained HTML page
version_added: 0.2.0
author:
  - Ganeti htools collection contributors (@ganeti-htools)
description:
  - Renders the registered result of M(ganeti.htools.ganeti_balance),
    M(ganeti.htools.ganeti_evacuate_group) or M(ganeti.htools.ganeti_rolling_reboot) -
    or only its C(plan) - as one HTML page, the same page as their C(report_file)
    option writes.
  - The page shows the per-node usage (memory, disk, vCPUs per CPU, instance counts)
    before and after the plan as bar charts (for a rolling reboot, after each wave's
    moves), the cluster score per step as a line, the moves in a table grouped by
    jobset (or wave), and the warnings, the instances that cannot move and the nodes
    failing the N+1 check highlighted.
  - Inline CSS and SVG, no script and no external URL - it opens offline, for example
    attached to a change ticket.
options:
  _input:
    description:
      - The result registered from a planning module, or its C(plan) value (the plan
        document alone, for example one stored for approval).
    type: dict
    required: true
seealso:
  - module: ganeti.htools.ganeti_balance
  - module: ganeti.htools.ganeti_evacuate_group
  - module: ganeti.htools.ganeti_rolling_reboot
'''

EXAMPLES = r'''
- name: Plan the balance (check mode)
  ganeti.htools.ganeti_balance:
    data_file: /var/tmp/cluster.data
  check_mode: true
  register: balance

- name: Keep the plan's report next to the plan, on the controller
  ansible.builtin.copy:
    content: "{{ balance | ganeti.htools.plan_report_html }}"
    dest: /srv/approvals/balance.html
    mode: "0644"
  delegate_to: localhost

- name: The report of a plan stored earlier (the plan document alone)
  ansible.builtin.copy:
    content: "{{ lookup('ansible.builtin.file', 'plan.json') | from_json | ganeti.htools.plan_report_html }}"
    dest: /srv/approvals/stored-plan.html
    mode: "0644"
'''

RETURN = r'''
_value:
  description: The HTML page, a complete document starting with C(<!DOCTYPE html>).
  type: str
'''

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.text.converters import to_native

from ansible_collections.ganeti.htools.plugins.module_utils.report.html import render_plan_html
from ansible_collections.ganeti.htools.plugins.module_utils.report.plan_view import NotAPlan


def plan_report_html(value):
    """The HTML report of a planning result or plan document."""
    try:
        return render_plan_html(value)
    except NotAPlan as err:
        raise AnsibleFilterError("plan_report_html: %s" % to_native(err)) from None
    except (KeyError, TypeError) as err:
        raise AnsibleFilterError("plan_report_html: the plan lacks or mistypes %s"
                                 % to_native(err)) from None


class FilterModule(object):
    """The plan report filter."""

    def filters(self):
        return {"plan_report_html": plan_report_html}
