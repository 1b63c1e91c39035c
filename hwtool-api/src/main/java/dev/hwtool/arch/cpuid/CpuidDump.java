package dev.hwtool.arch.cpuid;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The CPUID answers of several logical CPUs as read from one dump, in the order the dump
 * lists them. {@code origin} names where the dump came from (a file name, "stdin", ...), for
 * messages. CPU numbers are unique within a dump.
 */
public record CpuidDump(String origin, List<CpuidSnapshot> cpus) {

    public CpuidDump {
        Objects.requireNonNull(origin, "origin");
        cpus = List.copyOf(cpus);
        Set<Integer> seen = new HashSet<>();
        for (CpuidSnapshot s : cpus) {
            if (!seen.add(s.cpu())) {
                throw new IllegalArgumentException("CPU " + s.cpu() + " appears twice in dump " + origin);
            }
        }
    }

    /** The CPU numbers, in dump order. */
    public List<Integer> cpuNumbers() {
        return cpus.stream().map(CpuidSnapshot::cpu).toList();
    }

    public Optional<CpuidSnapshot> cpu(int cpu) {
        return cpus.stream().filter(s -> s.cpu() == cpu).findFirst();
    }
}
