# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ganeti.htools contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""(f) credentials, permissions and TLS against the real RAPI daemon.

(That passwords never show in -vvv output or in the process list during a
real execution is checked in test_live_balance.)
"""

from __future__ import annotations

import certifi


def _clean(output):
    assert 'Traceback' not in output and 'MODULE FAILURE' not in output, output


def test_wrong_credentials_give_a_clear_401(lab, tmp_path):
    wrong = 'not-the-%s-password' % lab.user
    env = lab.env(password=wrong)
    status, result, output = lab.run_module(tmp_path, 'ganeti_cluster_info', env=env)
    assert status == 'FAILED', output
    assert 'HTTP 401' in result['msg'] and 'check rapi_user and rapi_password' in result['msg']
    assert result['msg'].startswith('GET /2/info:')
    _clean(output)
    assert wrong not in output

    status, result, output = lab.run_module(tmp_path, 'ganeti_cluster_info',
                                            env=lab.env(user='nobody'))
    assert status == 'FAILED' and 'HTTP 401' in result['msg'], output


def test_a_read_only_user_can_plan_but_not_execute(fresh, tmp_path):
    lab = fresh
    env = lab.env(user=lab.ro_user, password=lab.ro_password)
    status, result, output = lab.run_module(tmp_path, 'ganeti_balance', check=True, env=env)
    assert status == 'CHANGED' and result['moves'], output      # reading is allowed

    jobs = [(j['id'], j['status']) for j in lab.jobs()]
    status, result, output = lab.run_module(tmp_path, 'ganeti_balance', env=env)
    assert status == 'FAILED', output
    assert 'HTTP 403' in result['msg'] and "the RAPI user needs the 'write' option" in result['msg']
    assert result['msg'].startswith('PUT /2/tags:')         # refused when taking the lock
    assert 'execution' not in result
    _clean(output)
    assert lab.ro_password not in output
    assert [(j['id'], j['status']) for j in lab.jobs()] == jobs
    assert not lab.lock_tags()
    assert set(lab.placement().values()) == {'node1'}


def test_certificates_are_verified_by_default(lab, tmp_path):
    # validate_certs defaults to true and the test CA is in no system bundle
    env = lab.env(ca=False)
    status, result, output = lab.run_module(tmp_path, 'ganeti_cluster_info', env=env)
    assert status == 'FAILED', output
    assert 'TLS verification failed' in result['msg'] and 'CERTIFICATE_VERIFY_FAILED' in result['msg']
    assert 'give the cluster\'s CA with ca_path' in result['msg']
    _clean(output)

    # the lab's CA as ca_path: verified, works (as a module option this time)
    status, result, output = lab.run_module(tmp_path, 'ganeti_cluster_info',
                                            {'ca_path': lab.ca, 'details': 'full'}, env=env)
    assert status == 'SUCCESS', output
    assert len(result['nodes']) == lab.nodes_count

    # a CA that did not sign the certificate is refused too
    status, result, output = lab.run_module(
        tmp_path, 'ganeti_cluster_info', {'ca_path': certifi.where()}, env=env)
    assert status == 'FAILED' and 'TLS verification failed' in result['msg'], output

    # the certificate names 127.0.0.1 and localhost, nothing else
    url = lab.url.replace('127.0.0.1', 'localhost')
    status, result, output = lab.run_module(tmp_path, 'ganeti_cluster_info',
                                            {'rapi_url': url, 'ca_path': lab.ca}, env=env)
    assert status == 'SUCCESS', output

    # explicitly unverified: works, by choice
    status, result, output = lab.run_module(tmp_path, 'ganeti_cluster_info',
                                            {'validate_certs': False}, env=env)
    assert status == 'SUCCESS', output
