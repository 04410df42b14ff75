# SPDX-License-Identifier: Apache-2.0
# The on-the-wire guest alone (tests/vm/wire.sh; make vm-test runs it too, from tests/vm/run.sh)
.PHONY: vm-wire-test
vm-wire-test: all
	RQ_BUILD=$(abspath $(B)) bash tests/vm/run.sh tests/vm/wire.sh
# The confinement guest alone (tests/vm/confine.sh; make vm-test runs it too)
.PHONY: vm-confine-test
vm-confine-test: all
	RQ_BUILD=$(abspath $(B)) bash tests/vm/run.sh tests/vm/confine.sh
# The congestion telemetry guest alone (tests/vm/telemetry.sh; make vm-test runs it too)
.PHONY: vm-telemetry-test
vm-telemetry-test: all
	RQ_BUILD=$(abspath $(B)) bash tests/vm/run.sh tests/vm/telemetry.sh
# The bond guest alone (tests/vm/bond.sh: a Linux bond over the PFs in legacy SR-IOV mode;
# bond_lldp.sh: the link partner heard on a bond slave, a Linux bridge and an OVS port)
.PHONY: vm-bond-test
vm-bond-test: all
	RQ_BUILD=$(abspath $(B)) bash tests/vm/run.sh tests/vm/bond.sh
# The QP census guest alone (tests/vm/qps.sh; make vm-test runs it too)
.PHONY: vm-qps-test
vm-qps-test: all
	RQ_BUILD=$(abspath $(B)) bash tests/vm/run.sh tests/vm/qps.sh
# The adoption guest alone (tests/vm/adopt.sh: the production agent adopts a VF moved as
# dranet moves it in exclusive RDMA netns mode; issue 38)
.PHONY: vm-adopt-test
vm-adopt-test: all
	RQ_BUILD=$(abspath $(B)) bash tests/vm/run.sh tests/vm/adopt.sh

# The GPUDirect RDMA guest alone (tests/vm/gdr.sh: PIX and PHB from a real kernel's PCIe tree)
.PHONY: vm-gdr-test
vm-gdr-test: all
	RQ_BUILD=$(abspath $(B)) bash tests/vm/run.sh tests/vm/gdr.sh

# The fabric guest alone (tests/vm/fabric.sh: netdevsim as a rail port, lldpd as its leaf,
# link health from ethtool/devlink netlink and real carrier flaps; issue 43)
.PHONY: vm-fabric-test
vm-fabric-test: all
	RQ_BUILD=$(abspath $(B)) bash tests/vm/run.sh tests/vm/fabric.sh
