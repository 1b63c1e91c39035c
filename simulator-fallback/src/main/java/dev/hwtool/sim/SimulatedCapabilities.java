package dev.hwtool.sim;

import dev.hwtool.api.Cause;
import dev.hwtool.api.Facility;
import dev.hwtool.api.Platform;
import dev.hwtool.api.Verdict;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.CpuDecoder;
import dev.hwtool.arch.decode.HybridDecoder;
import dev.hwtool.caps.CapabilityReport;
import dev.hwtool.sim.cpu.LogicalProcessor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a simulated platform offers its caller, facility by facility: the simulator's own
 * facilities on the simulated CPU (its register file, its recorder playing the Linux drivers, its
 * counters), judged from the profile's CPUID as the simulator itself decides them. Every reason
 * says SIMULATED: none of this describes the machine the JVM runs on.
 */
final class SimulatedCapabilities {

    private SimulatedCapabilities() {
    }

    static CapabilityReport of(SimulatedPlatform p) {
        CpuCapabilities cpu = CpuDecoder.decode(p.cpuidReading().reader(p.cpuidReading().cpus().getFirst()));
        LogicalProcessor first = p.machine().cpus().getFirst();
        String sim = "SIMULATED (profile " + p.profile().name() + "): ";
        List<Verdict> out = new ArrayList<>();
        for (Facility f : Facility.values()) {
            out.add(switch (f) {
                case CPUID -> yes(f, sim + "CPUID answers from the profile's dump");
                case MSR_READ, MSR_WRITE -> yes(f, sim + "the simulated register file; unknown registers, reserved"
                        + " bits and read-only registers raise #GP (REGISTER_FAULT) as on hardware");
                case LBR_PERF -> first.lbrDepth() > 0 || cpu.archLbr().supported()
                        ? yes(f, sim + "the simulated recorder programs the LBR as Linux's lbr.c does ("
                        + first.lbrKind() + " LBR, depth " + first.lbrDepth() + ")")
                        : no(f, sim + "this CPU model has no LBR the simulator models" + amdNote(cpu,
                                "AMD's LBR v2 and BRS are catalogued registers only, not a recording unit"));
                case BTS_PERF -> cpu.identity().isIntel() && cpu.features().ds() && cpu.features().dtes64()
                        ? yes(f, sim + "BTS through the simulated DS save area, drained as Linux's ds.c does")
                        : no(f, sim + "no BTS: " + (cpu.identity().isIntel() ? "CPUID reports no DS/DTES64"
                        : "not an Intel CPU"));
                case HW_COUNTERS -> cpu.archPerfmon().present() && cpu.archPerfmon().version() >= 2
                        ? yes(f, sim + "architectural perfmon v" + cpu.archPerfmon().version() + ": "
                        + cpu.archPerfmon().gpCounters() + " general-purpose and " + cpu.archPerfmon().fixedCounters()
                        + " fixed counters, counting what the simulated CPU retires")
                        : no(f, sim + "no architectural perfmon version 2 or later in CPUID.0AH" + amdNote(cpu,
                                "AMD's counters (MSR_K7_PERFCTR0..3, MSR_F15H_PERF_CTR0..5) are stored, not counting"));
                case RDPMC -> no(f, sim + "RDPMC is not modelled: counters() reads the simulated counters directly");
                case PEBS_PERF -> first.pebsAvailable()
                        ? yes(f, sim + "PEBS through the simulated DS save area, driven as Linux's ds.c does")
                        : no(f, sim + "no PEBS on this CPU model (or IA32_MISC_ENABLE reports it unavailable)"
                        + amdNote(cpu, "AMD's precise sampling, IBS, is not modelled"));
            });
        }
        return CapabilityReport.of(Platform.Kind.SIMULATED, "simulated CPU, profile " + p.profile().name()
                + " (not this machine)", cpu, HybridDecoder.coreTypes(cpu, p.cpuidReading().cpus(), p.cpuidReading()::reader), out,
                Optional.empty(), Map.of());
    }

    /** "; {@code what}" on an AMD CPU, whose facilities the simulator does not run. */
    private static String amdNote(CpuCapabilities cpu, String what) {
        return cpu.amd().present() ? "; " + what : "";
    }

    private static Verdict yes(Facility f, String reason) {
        return new Verdict(f, true, Optional.empty(), reason, "");
    }

    private static Verdict no(Facility f, String reason) {
        return new Verdict(f, false, Optional.of(Cause.UNSUPPORTED), reason, "");
    }
}
