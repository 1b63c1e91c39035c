package dev.hwtool.sim.record;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.decode.ArchPerfmonEvent;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.PerfType;

import java.util.Optional;

/**
 * A perf event resolved to what Linux programs into a counter for it on Intel: the
 * IA32_PERFEVTSELx event/umask bits of {@code intel_perfmon_event_map} (arch/x86/events/intel/core.c)
 * for PERF_TYPE_HARDWARE, or a raw config masked with X86_RAW_EVENT_MASK (event, umask, E, INV,
 * CMASK) for PERF_TYPE_RAW.
 *
 * @param name      perf's name of the event ("cycles", "r01c4", ...)
 * @param evtsel    the IA32_PERFEVTSELx bits besides USR/OS/INT/EN
 * @param arch      the architectural event it is, whose CPUID.0AH:EBX availability applies; null for raw
 *                  configs that are none
 * @param fixed     the fixed counter that counts it (-1: none); {@link #fixedOnly} events have no GP form
 * @param fixedOnly whether only that fixed counter can count it (ref-cycles: Linux's pseudo-encoding 0x0300)
 */
record EventCode(String name, long evtsel, ArchPerfmonEvent arch, int fixed, boolean fixedOnly) {

    /** X86_RAW_EVENT_MASK (arch/x86/include/asm/perf_event.h): event, umask, edge, inv, cmask. */
    static final long RAW_EVENT_MASK = 0xFF | 0xFF00L | 1L << 18 | 1L << 23 | 0xFFL << 24;

    /**
     * The event {@code type}/{@code config} names.
     *
     * @throws HwException UNSUPPORTED for software and other non-counter types, and for hardware
     *                     events the simulator has no model of (caches, bus cycles)
     */
    static EventCode of(int type, long config, String name) {
        if (type == PerfType.SOFTWARE) {
            throw new HwException(Cause.UNSUPPORTED, name + ": the simulator has no software events (it runs no kernel)");
        }
        if (type == PerfType.RAW) {
            long evtsel = config & RAW_EVENT_MASK;
            Optional<ArchPerfmonEvent> arch = archOf(evtsel);
            return new EventCode(name, evtsel, arch.orElse(null), -1, false);
        }
        if (type != PerfType.HARDWARE) {
            throw new HwException(Cause.UNSUPPORTED, name + ": the simulator serves perf types HARDWARE and RAW only, not "
                    + type);
        }
        if (config == PerfCount.HW_CPU_CYCLES) {
            return new EventCode(name, 0x003C, ArchPerfmonEvent.CORE_CYCLES, 1, false);
        } else if (config == PerfCount.HW_INSTRUCTIONS) {
            return new EventCode(name, 0x00C0, ArchPerfmonEvent.INSTRUCTIONS_RETIRED, 0, false);
        } else if (config == PerfCount.HW_BRANCH_INSTRUCTIONS) {
            return new EventCode(name, 0x00C4, ArchPerfmonEvent.BRANCH_INSTRUCTIONS_RETIRED, -1, false);
        } else if (config == PerfCount.HW_BRANCH_MISSES) {
            return new EventCode(name, 0x00C5, ArchPerfmonEvent.BRANCH_MISPREDICTS_RETIRED, -1, false);
        } else if (config == PerfCount.HW_REF_CPU_CYCLES) {
            // Not gated by CPUID.0AH:EBX: Linux's intel_arch_events_map gives bit 2 to bus-cycles (0x013c).
            return new EventCode(name, 0x0300, null, 2, true);
        }
        throw new HwException(Cause.UNSUPPORTED, name + ": the simulator models no caches or bus, so hardware event "
                + config + " has nothing to count (it counts cycles, instructions, branches, branch-misses, ref-cycles)");
    }

    private static Optional<ArchPerfmonEvent> archOf(long evtsel) {
        for (ArchPerfmonEvent e : ArchPerfmonEvent.values()) {
            if (e.eventSelect() == (evtsel & 0xFF) && e.umask() == (evtsel >>> 8 & 0xFF)) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }
}
