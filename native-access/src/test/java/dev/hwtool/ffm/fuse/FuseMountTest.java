package dev.hwtool.ffm.fuse;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The binding end to end: a small file system mounted through libfuse3, read and written with
 * pread/pwrite at offsets far past its size (direct_io: the handler sees every request as
 * made), unmounted with no mount left behind; and the one-line errors of a second mount on the
 * same directory and of a missing FUSE device.
 */
class FuseMountTest {

    /** One file whose reads return the offset and the size asked for; writes are recorded. */
    static final class Echo implements FuseFilesystem {
        final List<String> writes = new ArrayList<>();

        @Override
        public Node lookup(String path) {
            return switch (path) {
                case "/" -> new Directory(List.of("echo"));
                case "/echo" -> new File(0600, 0);
                default -> null;
            };
        }

        @Override
        public int read(String path, byte[] buf, long offset, Caller caller) {
            if (offset == 99) {
                throw new IllegalStateException("a bug in a handler");
            }
            ByteBuffer.wrap(buf).putLong(offset).putInt(buf.length);
            return buf.length;
        }

        @Override
        public int write(String path, byte[] data, long offset, Caller caller) {
            if (offset == 13) {
                return -5; // EIO
            }
            writes.add(offset + ":" + data.length + ":" + caller.pid());
            return data.length;
        }
    }

    static void requireFuse() {
        Preconditions.that(Files.exists(Path.of("/dev/fuse")), "no /dev/fuse (modprobe fuse; docker run --device /dev/fuse)");
        Preconditions.library("libfuse3.so.3", "libfuse3-3"); // by soname, as Libfuse loads it
    }

    @Test
    void readsAndWritesReachTheHandlerExactlyAndUnmountLeavesNothing(@TempDir Path dir) throws Exception {
        requireFuse();
        Echo fs = new Echo();
        try (FuseMount m = FuseMount.mount(dir, fs, "hwtool-test")) {
            assertEquals("fuse.hwtool", FuseMount.MountTable.fsTypeAt(dir.toAbsolutePath()));
            assertArrayEquals(new String[]{"echo"}, dir.toFile().list());
            try (FileChannel ch = FileChannel.open(dir.resolve("echo"), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                for (long off : new long[]{0, 0x345, 0xFFFF_FFFFL, 0x7_0000_0012L}) {
                    ByteBuffer b = ByteBuffer.allocate(24);
                    assertEquals(24, ch.read(b, off));
                    assertEquals(off, b.getLong(0));
                    assertEquals(24, b.getInt(8));
                }
                // An exception escaping a handler is answered with EIO; the upcall never unwinds into libfuse.
                IOException bug = assertThrows(IOException.class, () -> ch.read(ByteBuffer.allocate(8), 99));
                assertEquals("Input/output error", bug.getMessage());
                assertEquals(8, ch.write(ByteBuffer.allocate(8), 0x1d9));
                IOException e = assertThrows(IOException.class, () -> ch.write(ByteBuffer.allocate(8), 13));
                assertTrue(e.getMessage().contains("Input/output error"), e.getMessage());
            }
            assertEquals(1, fs.writes.size());
            assertTrue(fs.writes.get(0).startsWith("473:8:"), fs.writes.toString());
            // FUSE reports the calling thread (task_pid of current): a thread of this process.
            String tid = fs.writes.get(0).split(":")[2];
            assertTrue(Files.isDirectory(Path.of("/proc/self/task", tid)), "thread " + tid + " of this process");
        }
        assertNull(FuseMount.MountTable.fsTypeAt(dir.toAbsolutePath()), "still mounted after close");
        assertArrayEquals(new String[0], dir.toFile().list());
    }

    @Test
    void aSecondMountOnTheSameDirectoryIsRefused(@TempDir Path dir) {
        requireFuse();
        try (FuseMount m = FuseMount.mount(dir, new Echo(), "hwtool-test")) {
            HwException e = assertThrows(HwException.class, () -> FuseMount.mount(dir, new Echo(), "hwtool-test"));
            assertEquals(Cause.BAD_INPUT, e.cause());
            assertTrue(e.getMessage().contains("already a mount point (fuse.hwtool)"), e.getMessage());
            assertTrue(e.remedy().orElseThrow().contains("fusermount3 -u"));
            assertTrue(m.serving());
        }
    }

    @Test
    void anOutsideUnmountEndsTheLoop(@TempDir Path dir) throws Exception {
        requireFuse();
        Preconditions.tool("/usr/bin/fusermount3", "fuse3");
        try (FuseMount m = FuseMount.mount(dir, new Echo(), "hwtool-test")) {
            Process p = new ProcessBuilder("fusermount3", "-u", dir.toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            assertEquals(0, p.waitFor(), out);
            m.awaitUnmounted();
            assertFalse(m.serving());
            assertEquals(0, m.loopResult());
        }
        assertNull(FuseMount.MountTable.fsTypeAt(dir.toAbsolutePath()));
    }

    @Test
    void aMissingDeviceIsOneErrorWithARemedy(@TempDir Path dir) {
        String before = System.getProperty(FuseMount.DEVICE_PROPERTY);
        System.setProperty(FuseMount.DEVICE_PROPERTY, dir.resolve("no-such-fuse").toString());
        try {
            HwException e = assertThrows(HwException.class, () -> FuseMount.mount(dir, new Echo(), "hwtool-test"));
            assertEquals(Cause.DRIVER_NOT_LOADED, e.cause());
            assertTrue(e.getMessage().endsWith("does not exist, so FUSE is not available here"), e.getMessage());
            assertTrue(e.remedy().orElseThrow().contains("modprobe fuse"));
        } finally {
            if (before == null) {
                System.clearProperty(FuseMount.DEVICE_PROPERTY);
            } else {
                System.setProperty(FuseMount.DEVICE_PROPERTY, before);
            }
        }
    }
}
