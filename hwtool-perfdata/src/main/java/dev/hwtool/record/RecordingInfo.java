package dev.hwtool.record;

import dev.hwtool.api.Recorder;
import dev.hwtool.api.RecordTarget;
import dev.hwtool.arch.perf.abi.PerfEventAttr;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a recording holds, given to {@link RecordSink#begin}.
 *
 * @param backend  {@link Recorder#backend()}
 * @param target   {@link RecordTarget#describe()}
 * @param events   the events opened, in order; each record is laid out by its own event's attr,
 *                 found by the id it carries (perf's evlist__event2evsel; a file of one event
 *                 needs none)
 * @param auxPmu   the PMU whose AUX area is recorded (e.g. intel_bts with its type), if any
 * @param machine  the machine the recording ran on, for the file's header; empty: this host (a
 *                 simulated recording gives the simulated machine's identity, never the host's)
 */
public record RecordingInfo(String backend, String target, List<Event> events, Optional<AuxPmu> auxPmu,
                            Optional<Machine> machine) {

    /** A recording of this host. */
    public RecordingInfo(String backend, String target, List<Event> events, Optional<AuxPmu> auxPmu) {
        this(backend, target, events, auxPmu, Optional.empty());
    }

    /** How the simulator's backend names begin: "simulated (profile NAME)". */
    public static final String SIMULATED = "simulated";

    public RecordingInfo {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(target, "target");
        events = List.copyOf(events);
        if (events.isEmpty()) {
            throw new IllegalArgumentException("a recording needs at least one event");
        }
        Objects.requireNonNull(auxPmu, "auxPmu");
        Objects.requireNonNull(machine, "machine");
    }

    /**
     * Whether the simulator made the recording ({@link #SIMULATED}): its addresses are a simulated
     * program's, not this machine's, and every report says so.
     */
    public boolean simulated() {
        return backend.startsWith(SIMULATED);
    }

    /**
     * The machine as perf record's header features describe it (tools/perf/util/header.c
     * write_arch, write_nrcpus, write_cpudesc, write_cpuid, write_total_mem).
     *
     * @param arch          uname's machine, e.g. "x86_64" (HEADER_ARCH)
     * @param cpusAvailable the highest present CPU + 1 (HEADER_NRCPUS nr_cpus_avail)
     * @param cpusOnline    the online CPUs (HEADER_NRCPUS nr_cpus_online)
     * @param cpuDesc       the brand string with runs of spaces squashed (HEADER_CPUDESC)
     * @param cpuid         perf's get_cpuid string, "GenuineIntel,6,85,4" (HEADER_CPUID)
     * @param totalMemKib   MemTotal in KiB (HEADER_TOTAL_MEM); 0 when unknown, and the feature is left out
     */
    public record Machine(String arch, int cpusAvailable, int cpusOnline, String cpuDesc, String cpuid,
                          long totalMemKib) {
        public Machine {
            Objects.requireNonNull(arch, "arch");
            Objects.requireNonNull(cpuDesc, "cpuDesc");
            Objects.requireNonNull(cpuid, "cpuid");
            if (cpusAvailable < 1 || cpusOnline < 1 || cpusOnline > cpusAvailable) {
                throw new IllegalArgumentException("CPUs: " + cpusOnline + " online of " + cpusAvailable);
            }
        }

        /**
         * perf's get_cpuid on x86 (tools/perf/arch/x86/util/header.c): "VENDOR,FAMILY,MODEL,STEPPING"
         * from CPUID.0 and CPUID.1:EAX, family + extended family when it is 0xF, model + extended
         * model &lt;&lt; 4 when the family is 6 or above (perf's rule for every vendor).
         */
        public static String perfCpuid(String vendor, int signature) {
            int family = (signature >>> 8) & 0xF;
            int model = (signature >>> 4) & 0xF;
            int stepping = signature & 0xF;
            if (family == 0xF) {
                family += (signature >>> 20) & 0xFF;
            }
            if (family >= 0x6) {
                model += ((signature >>> 16) & 0xF) << 4;
            }
            return vendor + "," + family + "," + model + "," + stepping;
        }

        /** __write_cpudesc: every run of white space becomes one space, the ends trimmed. */
        public static String squash(String brand) {
            return brand.strip().replaceAll("\\s+", " ");
        }
    }

    /**
     * One opened event.
     *
     * @param name the event's name as perf shows it, e.g. "cycles:u", "intel_bts//u", "branches:u"
     * @param attr the attr as opened (size as negotiated)
     * @param ids  PERF_EVENT_IOC_ID of each fd opened with it (one per CPU or task)
     */
    public record Event(String name, PerfEventAttr attr, List<Long> ids) {
        public Event {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(attr, "attr");
            ids = List.copyOf(ids);
        }
    }

    /**
     * An AUX-area PMU (perf's auxtrace): its dynamic type and the time conversion of its user page,
     * which perf.data's PERF_RECORD_AUXTRACE_INFO for intel_bts carries (tools/perf/util/intel-bts.h).
     */
    public record AuxPmu(String name, int type, int timeShift, long timeMult, long timeZero, boolean capUserTimeZero) {
        public AuxPmu {
            Objects.requireNonNull(name, "name");
        }
    }
}
