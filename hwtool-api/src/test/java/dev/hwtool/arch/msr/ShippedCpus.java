package dev.hwtool.arch.msr;

import dev.hwtool.arch.cpuid.CpuidDump;
import dev.hwtool.arch.cpuid.CpuidDumpParser;
import dev.hwtool.arch.cpuid.CpuidSnapshot;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * CpuContexts of the real CPUID dumps shipped with the project (the surefire property
 * hwtool.cpuid.dumps points at them), parsed with the project's dump reader.
 */
final class ShippedCpus {

    static final Path DIR = Path.of(System.getProperty("hwtool.cpuid.dumps",
            "../simulator-fallback/src/main/resources/dev/hwtool/sim/profiles"));

    private static final Map<String, CpuidDump> DUMPS = load();

    private ShippedCpus() {
    }

    private static Map<String, CpuidDump> load() {
        try (Stream<Path> s = Files.list(DIR)) {
            Map<String, CpuidDump> m = new LinkedHashMap<>();
            for (Path p : s.filter(p -> p.getFileName().toString().endsWith(".txt")).sorted().toList()) {
                String name = p.getFileName().toString();
                m.put(name, CpuidDumpParser.parse(name, Files.readString(p, StandardCharsets.ISO_8859_1)));
            }
            return m;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The first logical CPU of {@code file} (e.g. "skylake.txt"). */
    static CpuContext cpu(String file) {
        return cpu(file, 0);
    }

    /** Logical CPU at position {@code index} in that dump. */
    static CpuContext cpu(String file, int index) {
        CpuidDump d = DUMPS.get(file);
        if (d == null) {
            throw new IllegalArgumentException("no shipped dump " + file + " in " + DIR + ": " + DUMPS.keySet());
        }
        return CpuContext.of(d.cpus().get(index));
    }

    /** Every dump's file name. */
    static List<String> files() {
        return List.copyOf(DUMPS.keySet());
    }

    /** The first CPU of every dump, and every distinct CPU of hybrid dumps, labelled. */
    static Map<String, CpuContext> all() {
        Map<String, CpuContext> m = new LinkedHashMap<>();
        DUMPS.forEach((file, dump) -> {
            for (CpuidSnapshot s : dump.cpus()) {
                m.put(file + "#" + s.cpu(), CpuContext.of(s));
            }
        });
        return m;
    }
}
