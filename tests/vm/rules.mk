# SPDX-License-Identifier: Apache-2.0
# The QEMU guest suites, a boot each (tests/vm/run.sh SCRIPT: the production binary in a guest
# with a real kernel): make vm-NAME-test runs tests/vm/NAME.sh; make vm-test runs them all,
# make test runs them in its guest lane, longest first (tests/lanes.sh). Each guest boots
# in about 6 s of its 60-200 s, so a boot of its own per suite costs little and keeps the
# suites from inheriting each other's kernel state (RDMA netns mode, loaded modules, VFs).
#   e2e        dcbnl through dcbsim, SR-IOV sysfs, rxe, the CNI chain
#   tos        the VF's class in exclusive RDMA netns mode (the mode switches only while
#              no other netns exists)
#   wire       RoCEv2 packets on the wire (rxe on VFs, tcpdump); shared.sh in the same boot:
#              pods on the PF's own RDMA device through Debian's macvlan/ipvlan plugins
#   confine    the agent from the image, confined as deploy/base/daemonset.yaml says
#   telemetry  dcbsim's port stats, ibsim's hw_counters, rxe under netem loss
#   bond       a Linux bond over both PFs in legacy SR-IOV mode, the partner on bonds,
#              bridges and OVS ports ("# vm: pfs-wired")
#   qps        the QP census (rxe under perftest and rping, ibsim's kernel QPs)
#   adopt      the agent adopts a VF moved as dranet moves it (exclusive mode)
#   gdr        GPUDirect RDMA on a real PCIe tree ("# vm: gdr-tree")
#   fabric     netdevsim as a rail port, lldpd as its leaf, link health
#   agent      the production agent against real dcbnl, lldpd as the switch ("# vm: pfs-wired")
#   reload     a driver reload under the running agent
VM_SUITES := agent qps telemetry confine e2e wire bond reload fabric gdr tos adopt
LANE_GUEST += $(VM_SUITES:%=vm-%-test)
# wire.sh's shared.sh (issue 50): the pkg/ functions of the shared path on the guest's kernel
$(B)/tests/vm/shared-probe: $(B)/tests/vm/shared_probe.o $(B)/pkg/netns/lower.o $(B)/pkg/rdma/gid.o \
                            $(B)/pkg/sysfs/sysfs.o $(B)/pkg/nlparse/nlparse.o \
                            $(B)/pkg/netns/resolve.o $(B)/pkg/netns/netns.o $(B)/pkg/mem/mem.o \
                            $(B)/pkg/netns/rtnl.o $(B)/pkg/nlparse/ask.o
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)
vm-%-test: all $(B)/tests/vm/shared-probe
	RQ_BUILD=$(abspath $(B)) bash tests/vm/run.sh tests/vm/$*.sh
vm-test: $(LANE_GUEST)
# make test's early lane: the guest's kernel, modules and initramfs (tests/vm/guest.sh setup),
# and the dcb encoder the guests run, ready before the first guest
.PHONY: vm-test vm-prep
vm-prep: all $(B)/tests/dcb/dcb-encode $(B)/tests/vm/shared-probe
	bash tests/vm/guest.sh setup
LANE_EARLY += vm-prep
