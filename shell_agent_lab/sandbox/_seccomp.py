"""The system-call filter a program's process runs under, loaded through libseccomp (the
library bubblewrap, systemd and container runtimes build their filters with).

What it refuses, whatever the program calls it through (Python, numpy, a C extension):
creating processes (``fork``, ``vfork``, ``clone`` without ``CLONE_THREAD``, ``execve``),
sockets of any family, opening a file for writing, tracing or reading another process, and the
calls that change namespaces, mounts, keys or the kernel. Threads stay allowed (numpy and
pyarrow may start them). Standard library only: the sandbox loads it by path.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os

__all__ = ["SeccompUnavailable", "load_filter", "compile_filter", "install", "available"]

_ALLOW = 0x7FFF0000
_CLONE_THREAD = 0x00010000
_CMP_MASKED_EQ = 7


def _errno(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


class SeccompUnavailable(Exception):
    """libseccomp cannot be loaded, or the kernel refused the filter."""


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int),
                ("datum_a", ctypes.c_uint64), ("datum_b", ctypes.c_uint64)]


#: refused outright, with EPERM
_DENIED = (
    "execve", "execveat", "fork", "vfork", "ptrace", "process_vm_readv", "process_vm_writev",
    "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "fsopen", "fsmount", "move_mount",
    "open_tree", "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register", "kexec_load", "kexec_file_load",
    "init_module", "finit_module", "delete_module", "reboot", "swapon", "swapoff", "acct",
    "quotactl", "name_to_handle_at", "open_by_handle_at", "mknod", "mknodat", "creat",
    "link", "linkat", "symlink", "symlinkat", "rename", "renameat", "renameat2", "unlink", "unlinkat",
    "mkdir", "mkdirat", "rmdir", "truncate", "chmod", "fchmod", "fchmodat", "chown", "fchown",
    "lchown", "fchownat", "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr",
    "fremovexattr", "utimensat", "utimes", "utime", "futimesat", "personality", "lookup_dcookie",
    "pidfd_open", "pidfd_getfd", "pidfd_send_signal", "memfd_secret",
)
#: refused with ENOSYS so the C library falls back to a call the filter can inspect
_NOT_THERE = ("clone3", "openat2")
#: (call, index of its flags argument) for calls that may open a file for writing
_OPENS = (("open", 1), ("openat", 2))


def _library() -> ctypes.CDLL:
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name, use_errno=True)
    except OSError as exc:
        raise SeccompUnavailable(f"libseccomp could not be loaded: {exc}") from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.POINTER(_ArgCmp)]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


def available() -> bool:
    """Whether libseccomp loads here (the kernel's support is tried by :func:`load_filter`)."""
    try:
        _library()
    except SeccompUnavailable:
        return False
    return True


def load_filter() -> None:
    """Install the filter on the calling process (and every thread it starts later); it cannot
    be lifted. Raises :class:`SeccompUnavailable` when it could not be installed."""
    install(compile_filter())


def compile_filter() -> bytes:
    """The filter as the kernel's BPF program, built by libseccomp (once, in the process that
    forks the programs' processes; each of them only installs it)."""
    lib = _library()
    ctx = _rules(lib)
    try:
        read_end, write_end = os.pipe()
        try:
            rc = lib.seccomp_export_bpf(ctx, write_end)
            os.close(write_end)
            write_end = -1
            if rc < 0:
                raise SeccompUnavailable(f"the filter could not be built ({os.strerror(-rc)})")
            parts = []
            while True:
                chunk = os.read(read_end, 65536)
                if not chunk:
                    break
                parts.append(chunk)
        finally:
            os.close(read_end)
            if write_end >= 0:
                os.close(write_end)
    finally:
        lib.seccomp_release(ctx)
    program = b"".join(parts)
    if not program or len(program) % 8:
        raise SeccompUnavailable("libseccomp built an empty filter")
    return program


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2


def install(program: bytes) -> None:
    """Install a filter :func:`compile_filter` built; after it, no new privilege can be gained
    (``execve`` of a set-user-ID file included) and the filter cannot be removed."""
    libc = ctypes.CDLL(None, use_errno=True)
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise SeccompUnavailable(f"no_new_privs was refused ({os.strerror(ctypes.get_errno())})")
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        raise SeccompUnavailable(f"the kernel refused the filter ({os.strerror(ctypes.get_errno())})")


def _rules(lib: ctypes.CDLL) -> int:
    """A libseccomp context holding the rules (the caller releases it)."""
    ctx = lib.seccomp_init(_ALLOW)
    if not ctx:
        raise SeccompUnavailable("seccomp_init failed")
    try:
        def rule(action: int, name: str, *cmps: tuple[int, int, int]) -> None:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number < 0:
                return            # not a call on this architecture (``open`` on arm64)
            args = (_ArgCmp * max(1, len(cmps)))(*[_ArgCmp(i, _CMP_MASKED_EQ, mask, value)
                                                   for i, mask, value in cmps])
            rc = lib.seccomp_rule_add_array(ctx, action, number, len(cmps), args)
            if rc < 0:
                raise SeccompUnavailable(f"the rule for {name} was refused ({os.strerror(-rc)})")

        for name in _DENIED:
            rule(_errno(errno.EPERM), name)
        for name in _NOT_THERE:
            rule(_errno(errno.ENOSYS), name)
        # a new process is a clone without CLONE_THREAD; a thread keeps working
        rule(_errno(errno.EPERM), "clone", (0, _CLONE_THREAD, 0))
        for name, index in _OPENS:
            for flag in (os.O_WRONLY, os.O_RDWR, os.O_CREAT, os.O_TRUNC):
                rule(_errno(errno.EACCES), name, (index, flag, flag))
    except BaseException:
        lib.seccomp_release(ctx)
        raise
    return int(ctx)
