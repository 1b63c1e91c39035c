package dev.hwtool.ffm.fuse;

/**
 * Offsets and sizes of the libfuse3 structures this binding touches, for x86-64 Linux and
 * FUSE_USE_VERSION 31 (libfuse 3.14's /usr/include/fuse3/fuse.h and fuse_common.h, glibc's
 * struct stat). FuseAbiVsHeaderTest compiles a C program against the installed headers and
 * compares every value.
 */
final class FuseAbi {
    private FuseAbi() {
    }

    // struct fuse_operations (fuse.h): 42 function pointers in 3.14.
    static final long OPS_SIZE = 336;
    static final long OPS_GETATTR = 0;
    static final long OPS_OPEN = 96;
    static final long OPS_READ = 104;
    static final long OPS_WRITE = 112;
    static final long OPS_RELEASE = 136;
    static final long OPS_READDIR = 192;

    // struct fuse_file_info (fuse_common.h): int flags; then a word of bitfields
    // (writepage:1, direct_io:1, keep_cache:1, ...); uint64_t fh.
    static final long FFI_FLAGS = 0;
    static final long FFI_BITS = 4;
    static final int FFI_DIRECT_IO_BIT = 1;
    static final int FFI_NONSEEKABLE_BIT = 4;

    // struct stat (glibc, x86-64: bits/struct_stat.h).
    static final long STAT_SIZE = 144;
    static final long ST_NLINK = 16;
    static final long ST_MODE = 24;
    static final long ST_UID = 28;
    static final long ST_GID = 32;
    static final long ST_SIZE = 48;

    // struct fuse_context (fuse.h): struct fuse *fuse; uid_t uid; gid_t gid; pid_t pid; ...
    static final long CTX_UID = 8;
    static final long CTX_PID = 16;

    // struct fuse_args (fuse_opt.h): int argc; char **argv; int allocated.
    static final long ARGS_SIZE = 24;
    static final long ARGS_ARGC = 0;
    static final long ARGS_ARGV = 8;
    static final long ARGS_ALLOCATED = 16;

    // <sys/stat.h> file types.
    static final int S_IFDIR = 0040000;
    static final int S_IFREG = 0100000;

    /** umount2(2) flag: detach now, clean up when the last reference goes (MNT_DETACH, <sys/mount.h>). */
    static final int MNT_DETACH = 2;
}
