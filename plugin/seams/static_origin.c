// SPDX-License-Identifier: Apache-2.0
/*
 * Linked into the static binaries only (Makefile, STATIC=1), like
 * static_nonss.c. glibc's static start-up (_dl_non_dynamic_init) asks for the
 * executable's directory, readlink("/proc/self/exe"), to expand $ORIGIN in
 * the search paths of a later dlopen. rdma-qos never dlopens (no NSS:
 * static_nonss.c; no iconv), and the /proc lookup was the dearest system call
 * of a CNI command's start: ~14 us of every exec on these VMs (issue 51; a
 * steady ADD is ~700). This definition takes the place of libc.a's
 * dl-origin.o and answers what glibc answers when the link cannot be read:
 * no origin ((char *)-1), so an $ORIGIN would expand to nothing.
 * tests/sim/steady_syscalls.sh checks that no CNI command reads the link.
 */
const char *_dl_get_origin(void);

const char *_dl_get_origin(void)
{
	return (const char *)-1;
}
