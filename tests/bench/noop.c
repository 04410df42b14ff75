// SPDX-License-Identifier: Apache-2.0
/*
 * A static program without C runtime start-up that exits at once: exec of it
 * costs fork/execve/wait4 and nothing else, and its ru_maxrss is what the
 * harness's own forked image adds to every child's (built -nostartfiles).
 */
#include <sys/syscall.h>
#include <unistd.h>

/* entered without a return address: realign the stack for the call below */
__attribute__((noreturn, force_align_arg_pointer)) void _start(void);

void _start(void)
{
	syscall(SYS_exit_group, 0);
	__builtin_unreachable();
}
