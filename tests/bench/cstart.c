// SPDX-License-Identifier: Apache-2.0
/*
 * The C runtime's start and nothing else, linked as the plugin is (static-pie):
 * its exec minus the no-op's (noop.c) is what glibc's static start-up costs every
 * CNI exec on this machine before main (docs/benchmarks.md "ADD's cost": the
 * CPUIDs of its cpu-features probe, each a VM exit on a virtual machine, and
 * the faults of the self-relocation and the first touches).
 */
int main(void)
{
	return 0;
}
