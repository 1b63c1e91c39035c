package dev.hwtool.testing;

import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.bind.Errno;
import dev.hwtool.bind.ErrnoException;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.linux.sys.Bindings;

import java.util.BitSet;
import java.util.List;
import java.util.Optional;

/**
 * {@link Preconditions}' native probes, through this module's default binding: found by
 * {@link java.util.ServiceLoader} (META-INF/services in this test jar), so that the helper itself
 * stays pure Java in hwtool-api's test jar.
 */
public final class NativeBindingProbe implements NativeProbe {

    @Override
    public String perfEventOpenNullErrno() {
        try {
            Bindings.openDefault().syscall(298, 0, 0, -1, -1, 0); // __NR_perf_event_open (x86-64)
            return "none";
        } catch (ErrnoException e) {
            return Errno.name(e.errno());
        }
    }

    @Override
    public boolean rdtscpAdvertised() {
        NativeBinding b = Bindings.openDefault();
        int maxExtended = b.cpuid(0x8000_0000, 0).eax();
        return Integer.compareUnsigned(maxExtended, 0x8000_0001) >= 0 && b.cpuid(0x8000_0001, 0).bit(CpuidRegs.Reg.EDX, 27);
    }

    @Override
    public Optional<String> cpuidDisagreement(List<Integer> cpus) {
        NativeBinding b = Bindings.openDefault();
        BitSet before = b.schedGetaffinity();
        try {
            for (int cpu : cpus) {
                BitSet only = new BitSet();
                only.set(cpu);
                b.schedSetaffinity(only);
                int fd = b.open("/dev/cpu/" + cpu + "/cpuid", NativeBinding.O_RDONLY | NativeBinding.O_CLOEXEC);
                try {
                    for (int base : new int[] {0, 0x8000_0000}) {
                        int max = b.cpuid(base, 0).eax();
                        for (int leaf = base; Integer.compareUnsigned(leaf, max) <= 0 && leaf - base < 256; leaf++) {
                            for (int sub = 0; sub < 4; sub++) {
                                CpuidRegs i1 = b.cpuid(leaf, sub);
                                CpuidRegs i2 = b.cpuid(leaf, sub);
                                CpuidRegs d1 = device(b, fd, leaf, sub);
                                CpuidRegs d2 = device(b, fd, leaf, sub);
                                String where = "CPU " + cpu + " leaf 0x" + Integer.toHexString(leaf) + "." + sub;
                                if (!i1.equals(i2)) {
                                    return Optional.of(where + ": the instruction answered " + i1 + " then " + i2);
                                }
                                if (!d1.equals(d2)) {
                                    return Optional.of(where + ": /dev/cpu/" + cpu + "/cpuid answered " + d1 + " then " + d2);
                                }
                                if (!i1.equals(d1)) {
                                    return Optional.of(where + ": the instruction answered " + i1 + ", /dev/cpu/" + cpu + "/cpuid " + d1);
                                }
                            }
                        }
                    }
                } finally {
                    b.close(fd);
                }
            }
            return Optional.empty();
        } finally {
            b.schedSetaffinity(before);
        }
    }

    /** One /dev/cpu/N/cpuid read: the offset is the leaf in the low and the subleaf in the high 32 bits (cpuid.c cpuid_read). */
    private static CpuidRegs device(NativeBinding b, int fd, int leaf, int subleaf) {
        byte[] buf = new byte[16];
        b.pread(fd, buf, 16, Integer.toUnsignedLong(leaf) | (long) subleaf << 32);
        return CpuidRegs.fromLittleEndian(buf, 0);
    }
}
