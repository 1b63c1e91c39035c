package dev.hwtool.linux;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.io.CpuList;

import java.nio.file.Files;
import java.nio.file.Path;

/** The one wording of "that CPU is not there", shared by the CPUID sources. */
final class NoSuchCpu {

    private NoSuchCpu() {
    }

    /**
     * {@link Cause#NO_SUCH_CPU}: "CPU 7 does not exist or is offline (online: 0-1)", prefixed by
     * what failed (may be empty). The remedy tells an offline CPU (its sysfs directory exists:
     * drivers/base/cpu.c registers cpuN for every present CPU) from one that does not exist.
     */
    static HwException of(int cpu, Path sysfsRoot, String prefix, Throwable underlying) {
        String online;
        try {
            online = CpuList.format(CpuList.online(sysfsRoot));
        } catch (RuntimeException e) {
            online = "unknown: " + e.getMessage();
        }
        Path cpuDir = sysfsRoot.resolve("devices/system/cpu/cpu" + cpu);
        String remedy = cpu >= 0 && Files.isDirectory(cpuDir)
                ? "bring it online (echo 1 > " + cpuDir.resolve("online") + ") or choose one of the online CPUs: " + online
                : "choose one of the online CPUs: " + online;
        return new HwException(Cause.NO_SUCH_CPU,
                prefix + "CPU " + cpu + " does not exist or is offline (online: " + online + ")", remedy, underlying);
    }
}
