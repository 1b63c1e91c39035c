package dev.hwtool.qemu;

import dev.hwtool.cli.Require;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The archive as GNU cpio (an independent reader of the newc format) lists it. */
class CpioTest {

    @Test
    void gnuCpioListsEveryEntryWithItsTypeModeAndSize(@TempDir Path dir) throws Exception {
        Require.tool("/usr/bin/cpio");
        byte[] archive = new Cpio().directory("bin").charDevice("dev/console", 0600, 5, 1)
                .file("bin/hello", 0755, "hello, world\n".getBytes(StandardCharsets.UTF_8))
                .file("odd", 0644, new byte[] {1, 2, 3}).finish();
        assertEquals(0, archive.length % 4, "entries are padded to 4 bytes");
        Path file = Files.write(dir.resolve("a.cpio"), archive);
        Process p = new ProcessBuilder("/usr/bin/cpio", "-itv", "--quiet", "-F", file.toString()).redirectErrorStream(true).start();
        String listing = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), listing);
        var lines = listing.lines().map(l -> l.replaceAll("\\s+", " ")).toList();
        assertEquals(4, lines.size(), listing);
        assertTrue(lines.get(0).startsWith("drwxr-xr-x") && lines.get(0).endsWith(" bin"), lines.get(0));
        assertTrue(lines.get(1).startsWith("crw-------") && lines.get(1).contains(" 5, 1 ") && lines.get(1).endsWith(" dev/console"), lines.get(1));
        assertTrue(lines.get(2).startsWith("-rwxr-xr-x") && lines.get(2).contains(" 13 ") && lines.get(2).endsWith(" bin/hello"), lines.get(2));
        assertTrue(lines.get(3).startsWith("-rw-r--r--") && lines.get(3).contains(" 3 ") && lines.get(3).endsWith(" odd"), lines.get(3));
    }
}
