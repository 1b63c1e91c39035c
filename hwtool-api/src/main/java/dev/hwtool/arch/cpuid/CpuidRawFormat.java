package dev.hwtool.arch.cpuid;

import java.util.List;

/**
 * Writes CPUID snapshots exactly as {@code cpuid -r} prints them (Todd Allen's cpuid:
 * {@code do_real()} prints the {@code CPU N:} / {@code CPU:} header, {@code print_reg_raw()}
 * each leaf with {@code "   0x%08x 0x%02x: eax=0x%08x ebx=0x%08x ecx=0x%08x edx=0x%08x\n"}),
 * leaves in the snapshot's order. The result can be replayed with {@code cpuid -f}.
 */
public final class CpuidRawFormat {

    private CpuidRawFormat() {
    }

    /** The {@code cpuid -r} layout: one {@code CPU N:} block per snapshot, in list order. */
    public static String format(List<CpuidSnapshot> cpus) {
        StringBuilder sb = new StringBuilder();
        for (CpuidSnapshot cpu : cpus) {
            sb.append("CPU ").append(Integer.toUnsignedString(cpu.cpu())).append(":\n");
            leaves(cpu, sb);
        }
        return sb.toString();
    }

    /** The {@code cpuid -1 -r} layout: a bare {@code CPU:} header (the CPU number is not shown). */
    public static String formatOne(CpuidSnapshot cpu) {
        StringBuilder sb = new StringBuilder("CPU:\n");
        leaves(cpu, sb);
        return sb.toString();
    }

    private static void leaves(CpuidSnapshot cpu, StringBuilder sb) {
        for (CpuidLeaf l : cpu.leaves()) {
            CpuidRegs r = l.regs();
            sb.append(String.format("   0x%08x 0x%02x: eax=0x%08x ebx=0x%08x ecx=0x%08x edx=0x%08x\n",
                    l.leaf(), l.subleaf(), r.eax(), r.ebx(), r.ecx(), r.edx()));
        }
    }
}
