package dev.hwtool.arch.cpuid;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The real CPUID dumps shipped with the project (copied into the simulator profiles; the surefire property hwtool.cpuid.dumps points at them). */
final class ShippedDumps {

    static final Path DIR = Path.of(System.getProperty("hwtool.cpuid.dumps", "../simulator-fallback/src/main/resources/dev/hwtool/sim/profiles"));
    static final String CPUID_R = "amd-epyc-kvm-guest.cpuid-r.txt";

    private ShippedDumps() {
    }

    static List<Path> all() {
        try (Stream<Path> s = Files.list(DIR)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".txt")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String text(String name) {
        return text(DIR.resolve(name));
    }

    static String text(Path p) {
        try {
            return Files.readString(p, StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static CpuidDump parse(String name) {
        return CpuidDumpParser.parse(name, text(name));
    }
}
