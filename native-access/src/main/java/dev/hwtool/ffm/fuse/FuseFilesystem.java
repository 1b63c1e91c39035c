package dev.hwtool.ffm.fuse;

import java.util.List;

/**
 * What a file system served through {@link FuseMount} answers: a static tree of directories and
 * files, and the read and write of each file at an offset. Every method returns a non-negative
 * result or a negated errno ({@code -EIO}), as libfuse's {@code struct fuse_operations} does
 * (fuse.h: "should return -errno on error"). The methods run on the loop thread, one request at a
 * time; an exception escaping one of them is answered with EIO, never with a crash.
 */
public interface FuseFilesystem {

    /** A node of the tree: a directory with its entries or a file with its mode bits. */
    sealed interface Node permits Directory, File {
    }

    /** A directory listing {@code entries} (without "." and ".."). */
    record Directory(List<String> entries) implements Node {
        public Directory {
            entries = List.copyOf(entries);
        }
    }

    /** A file with permission bits {@code mode} (e.g. 0600) and a size that stat(2) reports. */
    record File(int mode, long size) implements Node {
    }

    /** The node at an absolute path of the tree ("/", "/0/msr"), or null when there is none (ENOENT). */
    Node lookup(String path);

    /** May a process open this file with these open(2) flags? 0 or a negated errno. */
    default int open(String path, int flags, Caller caller) {
        return 0;
    }

    /** Fills {@code buf} (its length is the request's size) from {@code offset}: bytes read or a negated errno. */
    int read(String path, byte[] buf, long offset, Caller caller);

    /** Writes {@code data} at {@code offset}: bytes written or a negated errno. */
    int write(String path, byte[] data, long offset, Caller caller);

    /**
     * Where a request comes from, as libfuse's fuse_get_context() reports it: {@code pid} is the
     * calling thread's id (the kernel fills the request header from task_pid(current),
     * fs/fuse/dev.c), which is the process id for a single-threaded program.
     */
    record Caller(int pid, int uid) {
    }
}
