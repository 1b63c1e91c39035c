package dev.hwtool.qemu;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KernelTest {

    @Test
    void versionsCompareNumberByNumber() {
        assertTrue(Kernel.compareVersions("6.10.0-1-amd64", "6.9.12-3-amd64") > 0);
        assertTrue(Kernel.compareVersions("6.1.0-56-amd64", "6.1.0-9-amd64") > 0);
        assertTrue(Kernel.compareVersions("6.1.0-56-amd64", "6.1.0-56-amd64") == 0);
        assertTrue(Kernel.compareVersions("5.10.0-30-amd64", "6.1.0-1-amd64") < 0);
    }

    @Test
    void theNewestKernelWithModulesIsChosen(@TempDir Path dir) throws Exception {
        Path boot = Files.createDirectories(dir.resolve("boot"));
        Path modules = Files.createDirectories(dir.resolve("lib/modules"));
        for (String v : new String[] {"6.1.0-9-amd64", "6.1.0-56-amd64", "6.12.0-1-amd64"}) {
            Files.writeString(boot.resolve("vmlinuz-" + v), "image");
        }
        Files.writeString(boot.resolve("config-6.1.0-56-amd64"), "config");
        for (String v : new String[] {"6.1.0-9-amd64", "6.1.0-56-amd64"}) {
            Files.writeString(Files.createDirectories(modules.resolve(v)).resolve("modules.dep"), "");
        }
        // 6.12.0-1 has an image but no modules: not bootable with our initramfs.
        Kernel k = Kernel.newestInstalled(boot, modules).orElseThrow();
        assertEquals("6.1.0-56-amd64", k.version());
        assertEquals(boot.resolve("vmlinuz-6.1.0-56-amd64"), k.image());
        assertEquals(modules.resolve("6.1.0-56-amd64"), k.modules());
        assertTrue(Kernel.newestInstalled(dir.resolve("nothing"), modules).isEmpty());
    }
}
