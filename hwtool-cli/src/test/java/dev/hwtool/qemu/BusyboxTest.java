package dev.hwtool.qemu;

import dev.hwtool.cli.Require;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BusyboxTest {

    @Test
    void busyboxStaticIsStaticAndADynamicProgramIsNot() throws Exception {
        Require.that(Busybox.unusableReason(Busybox.PATH) == null, String.valueOf(Busybox.unusableReason(Busybox.PATH)));
        assertTrue(Busybox.isStatic(Files.readAllBytes(Busybox.PATH)));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        assertFalse(Busybox.isStatic(Files.readAllBytes(java)), java + " has a PT_INTERP header");
        assertEquals(java + " is dynamically linked and cannot run in an initramfs (apt-get install busybox-static)",
                Busybox.unusableReason(java));
        assertNull(Busybox.unusableReason(Busybox.PATH));
    }

    @Test
    void aMissingOrNonElfFileIsNamed(@TempDir Path dir) throws Exception {
        assertEquals(dir.resolve("busybox") + " is missing (apt-get install busybox-static)", Busybox.unusableReason(dir.resolve("busybox")));
        Path text = Files.writeString(dir.resolve("script"), "#!/bin/sh\necho hi\n................................................................");
        assertTrue(Busybox.unusableReason(text).endsWith("as an ELF64 file: not an ELF64 little-endian file"), Busybox.unusableReason(text));
    }
}
