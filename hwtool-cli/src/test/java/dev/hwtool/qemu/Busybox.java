package dev.hwtool.qemu;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The busybox that runs as the guest's /init. It must be statically linked: the initramfs has
 * no C library, and the host root is mounted only later, by this very program. Debian's
 * busybox-static installs it as /bin/busybox (the plain busybox package's is dynamic).
 */
final class Busybox {

    static final Path PATH = Path.of("/bin/busybox");

    /** ELF program header type of the dynamic loader's path (elf.h); present only in dynamic binaries. */
    private static final int PT_INTERP = 3;

    private Busybox() {
    }

    /** Why {@code binary} cannot be the guest's init, or null if it can. */
    static String unusableReason(Path binary) {
        if (!Files.isReadable(binary)) {
            return binary + " is missing (apt-get install busybox-static)";
        }
        try {
            return isStatic(Files.readAllBytes(binary)) ? null
                    : binary + " is dynamically linked and cannot run in an initramfs (apt-get install busybox-static)";
        } catch (IOException | RuntimeException e) {
            return "cannot read " + binary + " as an ELF64 file: " + e.getMessage();
        }
    }

    /** Whether an ELF64 little-endian image has no PT_INTERP program header (System V gABI, ch. 5). */
    static boolean isStatic(byte[] elf) {
        ByteBuffer b = ByteBuffer.wrap(elf).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getInt(0) != 0x464c457f || elf[4] != 2 || elf[5] != 1) {
            throw new IllegalArgumentException("not an ELF64 little-endian file");
        }
        long phoff = b.getLong(0x20);
        int phentsize = Short.toUnsignedInt(b.getShort(0x36));
        int phnum = Short.toUnsignedInt(b.getShort(0x38));
        for (int i = 0; i < phnum; i++) {
            if (b.getInt(Math.toIntExact(phoff + (long) i * phentsize)) == PT_INTERP) {
                return false;
            }
        }
        return true;
    }
}
