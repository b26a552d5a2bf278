#!/usr/bin/python3
"""Writes the sandbox's seccomp filter: a BPF program bwrap loads with `--seccomp FD` (server/toolchain/seccomp.ts).

    /usr/bin/python3 seccomp-filter.py OUT.bpf    build the filter for this machine's architecture
    /usr/bin/python3 seccomp-filter.py --list     print the system calls it denies, one a line
    --no-shared-memory before OUT.bpf or --list   also deny SHARED_MEMORY (the sandbox's fallback without a cgroup)

Built with libseccomp's own Python bindings (Debian `python3-seccomp`), on the machine that runs it, so the
syscall numbers are this architecture's. Everything is allowed except what a document script never needs:
escaping or reshaping the sandbox (namespaces, mounts), reading other processes, kernel keyrings, loading code
into the kernel, io_uring, and changing the machine (clock, swap, modules, reboot). Denied calls fail with EPERM, as
they would for an unprivileged user, so a program that probes for them carries on. Calls of another
architecture's ABI (32-bit x86 on x86_64, x32) kill the process: libseccomp's default for a foreign arch.
"""

import errno
import sys

# Namespace flags, shared by clone(2) and unshare(2). CLONE_NEWTIME (0x80) is unshare-only: in clone's flags
# those bits are the exit signal.
CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_NEWTIME = 0x00000080
CLONE_NAMESPACES = [CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET]

# personality(2) values a program may set: Linux's default, PER_LINUX32, UNAME26 and both, and 0xffffffff (a
# query). The rest (ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC, ...) weaken the process. The same set as Docker's.
PERSONALITY_ALLOWED = [0x0, 0x8, 0x20000, 0x20008, 0xFFFFFFFF]

# Denied outright (EPERM). Names this architecture lacks (iopl on aarch64) are skipped.
DENIED = [
    # namespaces and mounts: the sandbox's shape is bwrap's to set
    "setns",
    "mount",
    "umount",
    "umount2",
    "pivot_root",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    # other processes' memory
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    # kernel keyrings
    "keyctl",
    "add_key",
    "request_key",
    # code into the kernel, kernel observation
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "syslog",
    "lookup_dcookie",
    # the machine
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "quotactl",
    "quotactl_fd",
    "iopl",
    "ioperm",
    "settimeofday",
    "clock_settime",
    "adjtimex",
    "clock_adjtime",
    # files by handle, around path checks
    "name_to_handle_at",
    "open_by_handle_at",
    # io_uring: a second way into most system calls, past a filter that sees only the first (Docker's default
    # profile denies it too)
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
]

# Denied only where a run has no memory cgroup (server/sandbox/run-cgroup.ts): memfd and SysV shared memory pages
# are not counted by RLIMIT_AS, so without a cgroup a run could hold any amount of them.
SHARED_MEMORY = ["memfd_create", "shmget"]

# Denied with arguments: (name, why), for --list.
CONDITIONAL = [
    ("unshare", "with any namespace flag"),
    ("clone", "with a namespace flag"),
    ("clone3", "always, with ENOSYS: its flags are in memory a filter cannot read, and libc falls back to clone"),
    ("personality", "other than the default personas"),
]


def aligned_blocks(lo, hi):
    """[lo, hi] as power-of-two aligned blocks (value, size): each one masked-equality comparison."""
    blocks = []
    while lo <= hi:
        size = lo & -lo if lo else 1 << 32
        while size > hi - lo + 1:
            size >>= 1
        blocks.append((lo, size))
        lo += size
    return blocks


def build(out_path, denied):
    from seccomp import ALLOW, ERRNO, MASKED_EQ, Arch, Arg, Attr, SyscallFilter, resolve_syscall

    def known(name):
        # A name this architecture lacks resolves to a negative pseudo-number (or is refused outright).
        try:
            return resolve_syscall(Arch.NATIVE, name) >= 0
        except (RuntimeError, ValueError):
            return False

    eperm = ERRNO(errno.EPERM)
    f = SyscallFilter(defaction=ALLOW)
    # A binary search over syscall numbers rather than one comparison after another: every call passes here.
    f.set_attr(Attr.CTL_OPTIMIZE, 2)
    for name in denied:
        if known(name):
            f.add_rule(eperm, name)
    # One rule per flag: libseccomp ANDs the comparisons of one rule, and a flag set means denied.
    for flag in CLONE_NAMESPACES + [CLONE_NEWTIME]:
        f.add_rule(eperm, "unshare", Arg(0, MASKED_EQ, flag, flag))
    for flag in CLONE_NAMESPACES:
        f.add_rule(eperm, "clone", Arg(0, MASKED_EQ, flag, flag))
    f.add_rule(ERRNO(errno.ENOSYS), "clone3")
    # The kernel reads personality's argument as 32 bits; every 32-bit value outside the allowed set is denied,
    # as aligned blocks (one comparison may not be paired with another on the same argument).
    edges = [-1] + sorted(PERSONALITY_ALLOWED) + [1 << 32]
    for below, above in zip(edges, edges[1:]):
        for value, size in aligned_blocks(below + 1, above - 1):
            f.add_rule(eperm, "personality", Arg(0, MASKED_EQ, (~(size - 1)) & 0xFFFFFFFF, value))
    with open(out_path, "wb") as out:
        f.export_bpf(out)


def main(argv):
    denied = DENIED
    if argv[:1] == ["--no-shared-memory"]:
        argv = argv[1:]
        denied = DENIED + SHARED_MEMORY
    if argv == ["--list"]:
        for name in denied:
            print(name)
        for name, _why in CONDITIONAL:
            print(name)
        return 0
    if len(argv) != 1 or argv[0].startswith("-"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    build(argv[0], denied)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
