package dev.hwtool.qemu;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ModuleDepsTest {

    /** Lines as depmod writes them for Debian's 6.1 kernel (9p over virtio-pci), in file order. */
    private static final String DEP = """
            kernel/fs/netfs/netfs.ko:
            kernel/fs/fscache/fscache.ko: kernel/fs/netfs/netfs.ko
            kernel/fs/9p/9p.ko: kernel/net/9p/9pnet.ko kernel/fs/fscache/fscache.ko kernel/fs/netfs/netfs.ko
            kernel/drivers/virtio/virtio.ko: kernel/drivers/virtio/virtio_ring.ko
            kernel/drivers/virtio/virtio_ring.ko:
            kernel/drivers/virtio/virtio_pci_modern_dev.ko:
            kernel/drivers/virtio/virtio_pci_legacy_dev.ko:
            kernel/drivers/virtio/virtio_pci.ko: kernel/drivers/virtio/virtio_pci_legacy_dev.ko kernel/drivers/virtio/virtio_pci_modern_dev.ko kernel/drivers/virtio/virtio.ko kernel/drivers/virtio/virtio_ring.ko
            kernel/net/9p/9pnet.ko:
            kernel/net/9p/9pnet_virtio.ko: kernel/net/9p/9pnet.ko kernel/drivers/virtio/virtio.ko kernel/drivers/virtio/virtio_ring.ko
            kernel/arch/x86/kernel/msr.ko:
            kernel/drivers/hid/hid-generic.ko:
            kernel/drivers/foo/packed.ko.xz:
            """;

    private static ModuleDeps deps(Path dir) throws Exception {
        Files.writeString(dir.resolve("modules.dep"), DEP);
        Files.writeString(dir.resolve("modules.builtin"), "kernel/drivers/char/cpuid.ko\nkernel/fs/ext4/ext4.ko\n");
        return ModuleDeps.read(dir);
    }

    private static List<String> rel(Path dir, List<Path> files) {
        return files.stream().map(p -> dir.relativize(p).toString()).toList();
    }

    @Test
    void everyModuleComesAfterItsDependenciesAndOnlyOnce(@TempDir Path dir) throws Exception {
        List<String> order = rel(dir, deps(dir).loadOrder(QemuGuest.BASE_MODULES));
        assertEquals(List.of("kernel/drivers/virtio/virtio_pci_legacy_dev.ko", "kernel/drivers/virtio/virtio_pci_modern_dev.ko",
                "kernel/drivers/virtio/virtio_ring.ko", "kernel/drivers/virtio/virtio.ko", "kernel/drivers/virtio/virtio_pci.ko",
                "kernel/net/9p/9pnet.ko", "kernel/net/9p/9pnet_virtio.ko", "kernel/fs/netfs/netfs.ko",
                "kernel/fs/fscache/fscache.ko", "kernel/fs/9p/9p.ko"), order);
    }

    @Test
    void builtInModulesAreLeftOutAndDashesMatchUnderscores(@TempDir Path dir) throws Exception {
        ModuleDeps d = deps(dir);
        assertTrue(d.isBuiltin("cpuid"));
        assertEquals(List.of("kernel/arch/x86/kernel/msr.ko"), rel(dir, d.loadOrder(List.of("cpuid", "msr"))));
        assertEquals(List.of("kernel/drivers/hid/hid-generic.ko"), rel(dir, d.loadOrder(List.of("hid_generic"))));
    }

    @Test
    void anUnknownOrCompressedModuleIsRefusedByName(@TempDir Path dir) throws Exception {
        ModuleDeps d = deps(dir);
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> d.loadOrder(List.of("nosuch")));
        assertTrue(unknown.getMessage().startsWith("module nosuch is neither built into the kernel nor listed in"), unknown.getMessage());
        IllegalArgumentException packed = assertThrows(IllegalArgumentException.class, () -> d.loadOrder(List.of("packed")));
        assertTrue(packed.getMessage().endsWith("packed.ko.xz is compressed; the guest's insmod needs a plain .ko"), packed.getMessage());
    }

    @Test
    void theInstalledKernelsListsResolveTheGuestsModules() {
        Kernel kernel = Kernel.newestInstalled().orElse(null);
        dev.hwtool.cli.Require.that(kernel != null, Kernel.absenceReason(Kernel.BOOT, Kernel.MODULES));
        List<Path> files = ModuleDeps.of(kernel).loadOrder(List.of("virtio_pci", "9pnet_virtio", "9p", "cpuid", "msr"));
        for (Path f : files) {
            assertTrue(Files.isRegularFile(f), f + " exists");
        }
        assertEquals("9p", ModuleDeps.name(files.stream().filter(f -> f.toString().contains("/fs/9p/")).findFirst().orElseThrow().toString()));
    }
}
