package dev.hwtool.bind;

import dev.hwtool.ffm.FfmBinding;
import dev.hwtool.jna.JnaBinding;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** read(2) on both twins: sequential reads advance the file position; failures carry the same errno. */
class ReadTwinsTest {

    @Test
    void readAdvancesThePositionAndAgreesOnBothTwins(@TempDir Path dir) throws IOException {
        byte[] content = new byte[300];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 7);
        }
        Path f = dir.resolve("data");
        Files.write(f, content);
        for (NativeBinding b : List.of(new FfmBinding(), new JnaBinding())) {
            int fd = b.open(f.toString(), NativeBinding.O_RDONLY);
            try {
                byte[] small = new byte[40]; // the FFM scratch-buffer path
                assertEquals(40, b.read(fd, small, 40));
                assertArrayEquals(Arrays.copyOfRange(content, 0, 40), small, b.name());
                byte[] big = new byte[400]; // the arena path, short read at end of file
                assertEquals(260, b.read(fd, big, 400));
                assertArrayEquals(Arrays.copyOfRange(content, 40, 300), Arrays.copyOf(big, 260), b.name());
                assertEquals(0, b.read(fd, big, 400), b.name() + " at end of file");
            } finally {
                b.close(fd);
            }
            ErrnoException e = assertThrows(ErrnoException.class, () -> b.read(-1, new byte[8], 8));
            assertEquals(Errno.EBADF, e.errno(), b.name());
            assertEquals("read", e.call());
        }
    }

    /**
     * Why read exists: a pipe, like a perf fd, has no position, so pread(2) on it fails with ESPIPE
     * ("fd is associated with a pipe, socket, or FIFO", pread(2)) and read(2) is the way to get
     * its bytes. A FIFO opened O_RDWR never blocks on open (fifo(7): "Under Linux, opening a FIFO
     * for read and write will succeed both in blocking and nonblocking mode").
     */
    @Test
    void positionlessFilesNeedRead(@TempDir Path dir) throws IOException, InterruptedException {
        Path fifo = dir.resolve("fifo");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertEquals(0, mk.waitFor(), "mkfifo " + fifo);
        for (NativeBinding b : List.of(new FfmBinding(), new JnaBinding())) {
            int fd = b.open(fifo.toString(), NativeBinding.O_RDWR);
            try {
                try (var w = Files.newOutputStream(fifo)) {
                    w.write("through the pipe".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                }
                ErrnoException e = assertThrows(ErrnoException.class, () -> b.pread(fd, new byte[8], 8, 0));
                assertEquals(Errno.ESPIPE, e.errno(), b.name());
                assertEquals("pread", e.call(), b.name());
                byte[] buf = new byte[64];
                long n = b.read(fd, buf, 64);
                assertEquals("through the pipe", new String(buf, 0, (int) n, java.nio.charset.StandardCharsets.US_ASCII), b.name());
            } finally {
                b.close(fd);
            }
        }
    }
}
