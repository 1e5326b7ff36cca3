# -*- Mode: python; py-indent-offset: 4; indent-tabs-mode: nil; coding: utf-8; -*-
# Build description for waf-era ns-3 trees. It lists the same sources and
# headers as CMakeLists.txt (test/build-lists-test.cc checks that).


def build(bld):
    module = bld.create_ns3_module('collective-scheduling', ['core', 'network'])
    module.source = [
        'model/roce/rdma-congestion-ops.cc',
        'model/roce/roce-header.cc',
        'model/roce/pfc-header.cc',
        'model/roce/roce-channel.cc',
        'model/roce/roce-net-device.cc',
        'model/roce/rdma-nic.cc',
        'model/fabric/roce-switch.cc',
        'helper/roce-fabric-helper.cc',
        'helper/roce-flow-monitor.cc',
        'helper/flag-checks.cc',
        'helper/simulation-run.cc',
        'model/roce/dcqcn.cc',
        'model/fabric/fabric-topology.cc',
        'model/fabric/fat-tree-topology.cc',
        'model/fabric/leaf-spine-topology.cc',
        'model/fabric/lingjun-topology-reader.cc',
        'model/fabric/ecmp-routes.cc',
        'model/fabric/switch-mmu.cc',
        'model/results/results-database.cc',
        'model/workload/scenario-reader.cc',
        'model/workload/job-trace-reader.cc',
        'model/workload/synthetic-job-generator.cc',
        'model/workload/model-catalog.cc',
        'model/workload/job-placement.cc',
        'model/workload/collective.cc',
        'model/workload/ring-collective.cc',
        'model/workload/ring-all-reduce.cc',
        'model/workload/ring-reduce-scatter.cc',
        'model/workload/ring-all-gather.cc',
        'model/workload/halving-doubling-all-reduce.cc',
        'model/workload/all-to-all.cc',
        'model/workload/collective-factory.cc',
        'model/workload/training-job.cc',
        'helper/fabric-collective-transport.cc',
        'helper/training-cluster.cc',
        'helper/training-results.cc',
        'helper/scenario-helper.cc',
        ]

    headers = bld(features='ns3header')
    headers.module = 'collective-scheduling'
    headers.source = [
        'model/roce/rdma-congestion-ops.h',
        'model/roce/roce-psn.h',
        'model/roce/wake-timer.h',
        'model/roce/roce-header.h',
        'model/roce/pfc-header.h',
        'model/roce/roce-channel.h',
        'model/roce/roce-net-device.h',
        'model/roce/rdma-queue-pair.h',
        'model/roce/rdma-nic.h',
        'model/fabric/roce-switch.h',
        'helper/roce-fabric-helper.h',
        'helper/roce-flow-monitor.h',
        'helper/flag-checks.h',
        'helper/simulation-run.h',
        'model/roce/dcqcn.h',
        'model/fabric/fabric-topology.h',
        'model/fabric/fat-tree-topology.h',
        'model/fabric/leaf-spine-topology.h',
        'model/fabric/lingjun-topology-reader.h',
        'model/fabric/ecmp-routes.h',
        'model/fabric/switch-mmu.h',
        'model/results/results-database.h',
        'model/workload/scenario-spec.h',
        'model/workload/scenario-reader.h',
        'model/workload/job-trace-reader.h',
        'model/workload/synthetic-job-generator.h',
        'model/workload/job-spec.h',
        'model/workload/model-catalog.h',
        'model/workload/job-placement.h',
        'model/workload/collective-transport.h',
        'model/workload/collective.h',
        'model/workload/ring-collective.h',
        'model/workload/ring-all-reduce.h',
        'model/workload/ring-reduce-scatter.h',
        'model/workload/ring-all-gather.h',
        'model/workload/halving-doubling-all-reduce.h',
        'model/workload/all-to-all.h',
        'model/workload/collective-factory.h',
        'model/workload/training-job.h',
        'helper/fabric-collective-transport.h',
        'helper/training-cluster.h',
        'helper/training-results.h',
        'helper/scenario-helper.h',
        ]

    module.uselib = 'SQLITE3'

    if bld.env.ENABLE_EXAMPLES:
        bld.recurse('examples')
