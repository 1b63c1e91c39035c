package dev.hwtool.qemu;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * An installed Linux kernel: {@code /boot/vmlinuz-VERSION} and its modules in
 * {@code /lib/modules/VERSION} (the layout Debian's linux-image packages install).
 */
record Kernel(String version, Path image, Path modules) {

    static final Path BOOT = Path.of("/boot");
    static final Path MODULES = Path.of("/lib/modules");

    /**
     * The newest kernel in {@code boot} that is readable and has a {@code modules.dep} under
     * {@code modulesRoot}; empty if there is none.
     */
    static Optional<Kernel> newestInstalled(Path boot, Path modulesRoot) {
        return installed(boot, modulesRoot).stream().max(Comparator.comparing(Kernel::version, Kernel::compareVersions));
    }

    static Optional<Kernel> newestInstalled() {
        return newestInstalled(BOOT, MODULES);
    }

    /** Why {@link #newestInstalled()} found nothing, for a skip or failure message. */
    static String absenceReason(Path boot, Path modulesRoot) {
        return "no readable " + boot + "/vmlinuz-VERSION with " + modulesRoot
                + "/VERSION/modules.dep (apt-get install linux-image-amd64)";
    }

    private static List<Kernel> installed(Path boot, Path modulesRoot) {
        if (!Files.isDirectory(boot)) {
            return List.of();
        }
        List<Kernel> found = new ArrayList<>();
        try (Stream<Path> files = Files.list(boot)) {
            for (Path image : files.toList()) {
                String name = image.getFileName().toString();
                if (!name.startsWith("vmlinuz-") || !Files.isReadable(image)) {
                    continue;
                }
                String version = name.substring("vmlinuz-".length());
                Path modules = modulesRoot.resolve(version);
                if (Files.isReadable(modules.resolve("modules.dep"))) {
                    found.add(new Kernel(version, image, modules));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + boot, e);
        }
        return found;
    }

    /** Numeric runs compare as numbers, the rest as text: 6.10.0 is newer than 6.9.12. */
    static int compareVersions(String a, String b) {
        String[] x = a.split("(?<=\\d)(?=\\D)|(?<=\\D)(?=\\d)");
        String[] y = b.split("(?<=\\d)(?=\\D)|(?<=\\D)(?=\\d)");
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            int c = x[i].matches("\\d+") && y[i].matches("\\d+")
                    ? new java.math.BigInteger(x[i]).compareTo(new java.math.BigInteger(y[i]))
                    : x[i].compareTo(y[i]);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(x.length, y.length);
    }
}
