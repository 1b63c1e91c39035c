package dev.hwtool.qemu;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A cpio archive in the "newc" format the kernel unpacks as an initramfs
 * (Documentation/driver-api/early-userspace/buffer-format.rst): a 110-byte ASCII header of
 * hex fields, the NUL-terminated name, data, each padded to 4 bytes, and a TRAILER!!! entry.
 * Written here rather than by cpio(1) so a device node (/dev/console) needs no mknod and no root.
 */
final class Cpio {

    private static final int S_IFMT = 0170000;
    private static final int S_IFDIR = 0040000;
    private static final int S_IFREG = 0100000;
    private static final int S_IFCHR = 0020000;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private int inode = 1;
    private boolean finished;

    Cpio directory(String name) {
        return entry(name, S_IFDIR | 0755, 0, 0, new byte[0]);
    }

    Cpio file(String name, int permissions, byte[] data) {
        return entry(name, S_IFREG | permissions, 0, 0, data);
    }

    Cpio charDevice(String name, int permissions, int major, int minor) {
        return entry(name, S_IFCHR | permissions, major, minor, new byte[0]);
    }

    /** The archive with its trailer; no entries can be added afterwards. */
    byte[] finish() {
        if (!finished) {
            entry("TRAILER!!!", 0, 0, 0, new byte[0]);
            finished = true;
        }
        return out.toByteArray();
    }

    private Cpio entry(String name, int mode, int rdevMajor, int rdevMinor, byte[] data) {
        if (finished) {
            throw new IllegalStateException("archive already finished");
        }
        byte[] nameBytes = (name + "\0").getBytes(StandardCharsets.UTF_8);
        StringBuilder h = new StringBuilder("070701");
        int nlink = (mode & S_IFMT) == S_IFDIR ? 2 : 1;
        for (long field : new long[] {inode++, mode, 0, 0, nlink, 0, data.length, 0, 0, rdevMajor, rdevMinor,
                nameBytes.length, 0}) {
            h.append(String.format("%08x", field));
        }
        out.writeBytes(h.toString().getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(nameBytes);
        pad();
        out.writeBytes(data);
        pad();
        return this;
    }

    private void pad() {
        while (out.size() % 4 != 0) {
            out.write(0);
        }
    }
}
