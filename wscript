# -*- Mode: python; py-indent-offset: 4; indent-tabs-mode: nil; coding: utf-8; -*-
# Build description for waf-era ns-3 trees. It lists the same sources and
# headers as CMakeLists.txt (test/build-lists-test.cc checks that).


def build(bld):
    module = bld.create_ns3_module('collective-scheduling', ['core', 'network'])
    module.source = [
        'model/roce/rdma-congestion-ops.cc',
        ]

    headers = bld(features='ns3header')
    headers.module = 'collective-scheduling'
    headers.source = [
        'model/roce/rdma-congestion-ops.h',
        ]

    module.uselib = 'SQLITE3'

    if bld.env.ENABLE_EXAMPLES:
        bld.recurse('examples')
