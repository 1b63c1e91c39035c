package dev.hwtool.linux.perf;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordRequest;
import dev.hwtool.api.RecordRequest.Privilege;
import dev.hwtool.arch.perf.abi.PerfAttrFlag;
import dev.hwtool.arch.perf.PerfBranchSample;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.abi.PerfEventNames;
import dev.hwtool.arch.perf.abi.PerfFormat;
import dev.hwtool.arch.perf.abi.PerfSample;
import dev.hwtool.arch.perf.PerfType;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The one place that decides which perf_event_attr each {@link RecordRequest} opens, and which
 * attr the capability probes open for the same facility ({@link PerfProbe}), so that a recording
 * and {@code hwtool caps} can never disagree about what was tried.
 *
 * <p>The attrs follow {@code perf record} on a forked command (tools/perf/util/evsel.c,
 * evsel__config; checked against {@code perf record -vv} 6.1): disabled + enable_on_exec so
 * nothing before the command's exec is seen, inherit so its children are, mmap/mmap2/comm/
 * comm_exec/task side-band so PERF_RECORD_MMAP2 and COMM arrive, sample_id_all so every record
 * carries pid/tid/time, read_format ID. Pure apart from {@link #plan}, which reads the intel_bts
 * PMU's dynamic type from sysfs.
 */
public final class RecordingAttrs {

    /** Side-band perf record asks for with every recording event. */
    private static final PerfAttrFlag[] RECORD_FLAGS = {PerfAttrFlag.DISABLED, PerfAttrFlag.INHERIT,
            PerfAttrFlag.ENABLE_ON_EXEC, PerfAttrFlag.MMAP, PerfAttrFlag.COMM, PerfAttrFlag.TASK,
            PerfAttrFlag.SAMPLE_ID_ALL, PerfAttrFlag.MMAP2, PerfAttrFlag.COMM_EXEC};

    /** perf record -b: IP|TID|TIME|BRANCH_STACK (one event: no IDENTIFIER, as perf). */
    public static final long LBR_SAMPLE_TYPE = PerfSample.IP | PerfSample.TID | PerfSample.TIME | PerfSample.BRANCH_STACK;
    /** BTS via branches: the drain puts from in ip and to in addr (ds.c intel_pmu_drain_bts_buffer). */
    public static final long BTS_SAMPLE_TYPE = PerfSample.IP | PerfSample.ADDR | PerfSample.TID | PerfSample.TIME;
    /**
     * intel_bts emits no samples, only AUX records: these fields ride in their sample_id trailer.
     * IDENTIFIER as perf record sets it for AUX events (tools/perf/arch/x86/util/intel-bts.c
     * evsel__set_sample_id): perf's decoder adds a second event with another sample_type and
     * cannot tell the records apart without it (perf 6.1: "failed to process type: 3").
     */
    public static final long AUX_SAMPLE_TYPE = PerfSample.IDENTIFIER | PerfSample.IP | PerfSample.TID
            | PerfSample.TIME | PerfSample.CPU;
    public static final long SAMPLING_SAMPLE_TYPE = PerfSample.IP | PerfSample.TID | PerfSample.TIME
            | PerfSample.CPU | PerfSample.PERIOD;
    /** hwtool stat's read_format (perf stat: the multiplexing scale). */
    public static final long COUNT_READ_FORMAT = PerfFormat.TOTAL_TIME_ENABLED | PerfFormat.TOTAL_TIME_RUNNING;
    /**
     * Added to every LBR filter: HW_INDEX (5.7+) so a sample says where the stack's top is, and
     * TYPE_SAVE (4.14+) so each entry carries its branch type for reports (perf's save_type).
     */
    public static final long LBR_EXTRA_BITS = PerfBranchSample.HW_INDEX | PerfBranchSample.TYPE_SAVE;
    /** The intel_bts PMU's directory under /sys/bus/event_source/devices. */
    public static final String INTEL_BTS = "intel_bts";

    private RecordingAttrs() {
    }

    /**
     * The event a request opens.
     *
     * @param name     as perf shows it ("cycles:u", "intel_bts//u", "branches:u", "cpu-clock")
     * @param auxPmu   the AUX PMU whose area must be mapped (intel_bts), if any
     * @param fallback why the preferred event was not used (intel_bts absent → branches), if so
     */
    public record Planned(String name, PerfEventAttr attr, Optional<String> auxPmu, Optional<HwException> fallback) {
        public Planned {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(attr, "attr");
            Objects.requireNonNull(auxPmu, "auxPmu");
            Objects.requireNonNull(fallback, "fallback");
        }
    }

    /**
     * The event {@code request} opens here. Bts prefers the intel_bts PMU (AUX area, kernel
     * branches possible) and falls back to the {@code branches} event with period 1 as perf does.
     *
     * @throws HwException UNSUPPORTED for BTS of kernel branches without intel_bts (the
     *                     branches event records user mode only)
     */
    public static Planned plan(RecordRequest request, PerfPmus pmus) {
        return switch (request) {
            case RecordRequest.Lbr l -> new Planned(eventName(PerfType.HARDWARE, lbrEventConfig(l))
                    + suffix(l.privilege()), lbr(l), Optional.empty(), Optional.empty());
            case RecordRequest.Sampling s -> new Planned(eventName(s.type(), s.config())
                    + modifiers(s.privilege(), s.precise()), sampling(s), Optional.empty(), Optional.empty());
            case RecordRequest.Bts b -> {
                HwException missing;
                try {
                    int type = pmus.type(INTEL_BTS);
                    yield new Planned(INTEL_BTS + "//" + suffix(b.privilege()).replace(":", ""),
                            intelBts(type, b.privilege()), Optional.of(INTEL_BTS), Optional.empty());
                } catch (HwException e) {
                    if (e.cause() != Cause.UNSUPPORTED) {
                        throw e;
                    }
                    missing = e;
                }
                yield new Planned("branches" + suffix(b.privilege()), btsBranches(b.privilege(), missing),
                        Optional.empty(), Optional.of(missing));
            }
        };
    }

    /**
     * The event an LBR request samples on: {@code branches}, so that a sample comes every
     * {@code period} taken branches whatever the code does (perf record -e branches -b -c PERIOD);
     * {@code cycles} for period 1, because the kernel turns branches with period 1 into BTS
     * (intel_pmu_has_bts_period), which excludes LBR (EBUSY).
     */
    public static long lbrEventConfig(RecordRequest.Lbr r) {
        return r.period() == 1 ? PerfCount.HW_CPU_CYCLES : PerfCount.HW_BRANCH_INSTRUCTIONS;
    }

    /** branch_sample_type of an LBR request: filter | privilege | HW_INDEX | TYPE_SAVE. */
    public static long branchSampleType(RecordRequest.Lbr r) {
        long plm = (r.privilege().user() ? PerfBranchSample.USER : 0)
                | (r.privilege().kernel() ? PerfBranchSample.KERNEL : 0);
        return r.filter().branchSampleType() | plm | LBR_EXTRA_BITS;
    }

    /** perf record -e branches -b -j FILTER -c PERIOD (see {@link #lbrEventConfig}). */
    public static PerfEventAttr lbr(RecordRequest.Lbr r) {
        return recording(PerfType.HARDWARE, lbrEventConfig(r), r.privilege())
                .samplePeriod(r.period())
                .sampleType(LBR_SAMPLE_TYPE)
                .branchSampleType(branchSampleType(r))
                .build();
    }

    /**
     * The intel_bts PMU (arch/x86/events/intel/bts.c): period 1, not freq, as
     * tools/perf/arch/x86/util/intel-bts.c forces; its data arrives in the AUX area.
     */
    public static PerfEventAttr intelBts(int type, Privilege p) {
        return recording(type, 0, p).samplePeriod(1).sampleType(AUX_SAMPLE_TYPE).build();
    }

    /**
     * BTS through the {@code branches} event with sample_period 1 (arch/x86/events/perf_event.h, intel_pmu_has_bts_period):
     * user mode only, as intel_pmu_bts_config refuses exclude_kernel = 0 (EOPNOTSUPP).
     *
     * @param whyNoIntelBts why intel_bts was not used, named when kernel branches were asked for
     */
    public static PerfEventAttr btsBranches(Privilege p, HwException whyNoIntelBts) {
        if (p.kernel()) {
            throw new HwException(Cause.UNSUPPORTED, "BTS of kernel branches needs the intel_bts PMU ("
                    + (whyNoIntelBts == null ? "absent" : whyNoIntelBts.getMessage()) + "); the branches event with"
                    + " period 1 records user mode only (intel_pmu_bts_config)",
                    "record user-space branches only (privilege user)", whyNoIntelBts);
        }
        return recording(PerfType.HARDWARE, PerfCount.HW_BRANCH_INSTRUCTIONS, Privilege.USER)
                .samplePeriod(1).sampleType(BTS_SAMPLE_TYPE).build();
    }

    /**
     * Plain samples of one event: type/config/period as asked, and precise_ip as perf's
     * {@code :p} modifiers set it (tools/perf/util/parse-events.c, get_event_modifier: one p per
     * level).
     */
    public static PerfEventAttr sampling(RecordRequest.Sampling s) {
        return recording(s.type(), s.config(), s.privilege()).samplePeriod(s.period())
                .sampleType(SAMPLING_SAMPLE_TYPE).preciseIp(s.precise()).build();
    }

    /**
     * The sampling attr {@code caps}' PEBS probe opens: {@code cycles:p} of user mode, every
     * {@link RecordRequest.Lbr#DEFAULT_PERIOD} cycles, exactly as {@code hwtool record -e cycles:p}
     * opens it. precise_ip 1 is the lowest level that needs PEBS on Intel (x86_pmu_max_precise
     * counts 1 for pebs_active).
     */
    public static RecordRequest.Sampling pebsProbe() {
        return new RecordRequest.Sampling(Privilege.USER, PerfType.HARDWARE, PerfCount.HW_CPU_CYCLES,
                RecordRequest.Lbr.DEFAULT_PERIOD, 1);
    }

    /**
     * What {@code hwtool stat} opens for {@code instructions} ({@code instructions:u} for
     * USER): counting, disabled + inherit + enable_on_exec, the time-scale read_format.
     */
    public static PerfEventAttr counters(Privilege p) {
        return counting(PerfEventAttr.builder().type(PerfType.HARDWARE).config(PerfCount.HW_INSTRUCTIONS), p);
    }

    /**
     * {@code event} (its type and config set) as hwtool stat counts it, as perf stat does
     * (tools/perf/builtin-stat.c, create_perf_stat_counter): disabled, inherit (children count
     * too), enable_on_exec (counting starts at the command's exec), read_format
     * TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING for the multiplexing scale; {@code p} as perf's
     * :u / :k modifiers set the exclude bits (exclude_hv with either).
     */
    public static PerfEventAttr counting(PerfEventAttr.Builder event, Privilege p) {
        event.readFormat(COUNT_READ_FORMAT).flag(PerfAttrFlag.DISABLED, PerfAttrFlag.INHERIT, PerfAttrFlag.ENABLE_ON_EXEC);
        privilege(event, p);
        return event.build();
    }

    /**
     * The counters attr as a self-monitoring event (for RDPMC): no inherit, because the kernel
     * refuses to mmap an inherited per-task event (perf_mmap: {@code cpu == -1 && inherit} → EINVAL), and
     * enabled at once rather than at an exec that never comes.
     */
    public static PerfEventAttr selfMonitoring(Privilege p) {
        return counters(p).toBuilder().set(PerfAttrFlag.INHERIT, false).set(PerfAttrFlag.ENABLE_ON_EXEC, false)
                .set(PerfAttrFlag.DISABLED, false).build();
    }

    private static PerfEventAttr.Builder recording(int type, long config, Privilege p) {
        PerfEventAttr.Builder b = PerfEventAttr.builder().type(type).config(config)
                .readFormat(PerfFormat.ID).flag(RECORD_FLAGS);
        privilege(b, p);
        return b;
    }

    /**
     * The event {@code spec} names, as a builder with its type and config (a PMU/EVENT/ event's
     * from sysfs): what stat, the library's counters and the exporter's CPU-wide counters open.
     *
     * @throws HwException when the PMU or its event is not in sysfs
     */
    public static PerfEventAttr.Builder event(dev.hwtool.api.EventSpec spec, PerfPmus pmus) {
        return spec.kind() == dev.hwtool.api.EventSpec.Kind.PMU
                ? pmus.event(spec.pmu(), spec.pmuEvent()).attr()
                : PerfEventAttr.builder().type(spec.type()).config(spec.config());
    }

    /** The exclude bits of {@code p}, as perf's :u and :k modifiers set them (exclude_hv with either). */
    public static void privilege(PerfEventAttr.Builder b, Privilege p) {
        if (!p.kernel()) {
            b.flag(PerfAttrFlag.EXCLUDE_KERNEL, PerfAttrFlag.EXCLUDE_HV);
        }
        if (!p.user()) {
            b.flag(PerfAttrFlag.EXCLUDE_USER, PerfAttrFlag.EXCLUDE_HV);
        }
    }

    /** perf's modifiers for a privilege and a precise level: ":u", ":upp", ":p", or none. */
    public static String modifiers(Privilege p, int precise) {
        String pp = "p".repeat(precise);
        String s = suffix(p);
        return s.isEmpty() ? (pp.isEmpty() ? "" : ":" + pp) : s + pp;
    }

    /** perf's modifier: ":u", ":k", or none for both. */
    public static String suffix(Privilege p) {
        return switch (p) {
            case USER -> ":u";
            case KERNEL -> ":k";
            case ALL -> "";
        };
    }

    /** perf's name of a generic event ({@link PerfEventNames#of}). */
    public static String eventName(int type, long config) {
        return PerfEventNames.of(type, config);
    }
}
