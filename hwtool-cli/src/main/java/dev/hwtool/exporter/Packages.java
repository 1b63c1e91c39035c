package dev.hwtool.exporter;

import dev.hwtool.api.HwException;
import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.caps.CpuidReading;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The physical package of each logical CPU, from its own CPUID (SDM Vol. 3A 10.9 "Topology
 * enumeration"; Linux arch/x86/kernel/cpu/topology_ext.c): the x2APIC ID of leaf 0BH (EDX)
 * shifted right by the last level's EAX[4:0]; without leaf 0BH, the initial APIC ID of leaf 01H
 * (EBX[31:24]) shifted by the bits that EBX[23:16] logical processors need. A CPU whose CPUID
 * says neither, or whose CPUID cannot be read, is its own package (Target#packageOfCpu).
 */
public final class Packages {

    private Packages() {
    }

    /** CPU → package id, in {@code cpuid.cpus()} order. */
    public static Map<Integer, Integer> of(CpuidReading cpuid) {
        Map<Integer, Integer> out = new LinkedHashMap<>();
        for (int cpu : cpuid.cpus()) {
            try {
                out.put(cpu, packageOf(cpuid.reader(cpu), cpu));
            } catch (HwException e) {
                // CPUID of that CPU unreadable (offline, no cpuid driver): it counts as its own package.
            }
        }
        return out;
    }

    static int packageOf(CpuidReader r, int cpu) {
        int maxLeaf = r.cpuid(0).eax();
        if (maxLeaf >= 0xB && r.cpuid(0xB, 0).ebx() != 0) {
            int shift = 0;
            int x2apic = r.cpuid(0xB, 0).edx();
            for (int sub = 0; sub < 8; sub++) {
                CpuidRegs l = r.cpuid(0xB, sub);
                if ((l.ecx() >>> 8 & 0xFF) == 0) { // level type 0: past the last level
                    break;
                }
                shift = l.eax() & 0x1F;
            }
            return x2apic >>> shift;
        }
        if (maxLeaf >= 1) {
            CpuidRegs l1 = r.cpuid(1);
            int apic = l1.ebx() >>> 24;
            boolean htt = (l1.edx() >>> 28 & 1) != 0;
            int count = htt ? l1.ebx() >>> 16 & 0xFF : 1;
            int shift = count <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(count - 1);
            return apic >>> shift;
        }
        return cpu;
    }

    /** The first CPU of each package, in the order given. */
    static List<Integer> firsts(Map<Integer, Integer> packages) {
        Map<Integer, Integer> first = new LinkedHashMap<>();
        packages.forEach((cpu, pkg) -> first.putIfAbsent(pkg, cpu));
        return List.copyOf(first.values());
    }
}
