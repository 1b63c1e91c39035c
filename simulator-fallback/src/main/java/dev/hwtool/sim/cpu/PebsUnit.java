package dev.hwtool.sim.cpu;

import dev.hwtool.arch.branch.DsSaveArea;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.pebs.AdaptivePebs;
import dev.hwtool.arch.pebs.PebsRecordFormat;
import dev.hwtool.arch.pebs.PebsSupport;

import java.util.List;
import java.util.Optional;

/**
 * Precise event-based sampling of one simulated CPU: the PEBS assist writing records into the
 * PEBS buffer of the DS save area (SDM Vol. 3B 17.4.9, and Performance Monitoring's PEBS
 * sections for Core, Nehalem/Sandy Bridge — "PEBS Interrupt Threshold", "PEBS CounterX Reset",
 * "Performance Counter Prioritization" — Haswell, Skylake and adaptive PEBS; seeds 000, 001, 004;
 * Linux arch/x86/events/intel/ds.c).
 *
 * <p>Which CPU has it: a model of {@link PebsSupport} with DS (CPUID.01H:EDX[21]) and
 * IA32_MISC_ENABLE.PEBS_UNAVAILABLE (bit 12) clear, with the record format its
 * IA32_PERF_CAPABILITIES reports. Elsewhere IA32_PEBS_ENABLE may exist (the catalog) but no
 * assist runs: a PEBS-enabled counter then overflows like any other.
 *
 * <p>The rules, as the SDM states them:
 * <ul>
 * <li>arming: a counter enabled in PERFEVTSELx/IA32_FIXED_CTR_CTRL and IA32_PERF_GLOBAL_CTRL and
 *     in IA32_PEBS_ENABLE that overflows (maximum to zero) sets its GLOBAL_STATUS overflow bit
 *     and <em>arms</em> PEBS; "PEBS hardware triggers upon detection of the first PEBS event after
 *     the PEBS hardware has been armed (a 0 to 1 transition of the counter)" ({@link PerfMon});
 * <li>the assist: "the processor will perform bounds checks based on the parameters defined in
 *     the DS Save Area. Upon successful bounds checks, the processor will store the data record in
 *     the defined buffer area, clear the counter overflow status, and reload the counter" from its
 *     "PEBS CounterX Reset" slot (DS area 40H + 8·counter); the PEBS index advances by the record
 *     size (formats 0–3: 144, 176, 192, 200 bytes; adaptive: MSR_PEBS_DATA_CFG's groups, written
 *     in the record's format_size);
 * <li>a full buffer: "If the bounds checks fail, the PEBS will be skipped entirely" — no record,
 *     no reload, and the counter's overflow bit stays set in IA32_PERF_GLOBAL_STATUS, so the lost
 *     sample is visible to software, and with INT set its PMI still comes; counted as dropped.
 *     The bounds check passes when the record fits: base ≤ index and index + size ≤ absolute
 *     maximum;
 * <li>threshold: "After the processor writes a PEBS record and updates PEBS Index, if the PEBS
 *     Index reaches the threshold value ... the processor will generate a performance interrupt
 *     ... IA32_PERF_GLOBAL_STATUS.PEBS_Ovf bit will be set" (OvfBuffer, bit 62) — after every
 *     record that leaves the index at or past the threshold. That PMI freezes like a counter
 *     overflow PMI (seed 000: "The PEBS buffer is almost full and reaches the interrupt
 *     threshold");
 * <li>INT: with INT (or the fixed field's PMI bit) clear the counter's overflow raises no PMI of
 *     its own — Linux clears it for PEBS events (intel_pmu_pebs_enable) and lets the threshold
 *     interrupt; with INT set, "the PEBS assist is serviced before the counter overflow interrupt
 *     ... If in addition the PEBS interrupt threshold is met, the threshold interrupt is generated
 *     after the PEBS assist completes, followed by the counter overflow interrupt (two separate
 *     interrupts are generated)".
 * </ul>
 * What a record holds: RFLAGS with bit 1 (and TF as set); the IP after the eventing instruction
 * with PEBS_TRAP, at it without (fault-like, Core); the general-purpose registers, data address,
 * data source, latency and TSX fields as 0 — the simulator models no registers and no memory
 * accesses; the applicable counters (format 1+: status; adaptive: applicable_counters); the
 * eventing IP (format 2+: real_ip; adaptive: the basic group's ip, the GPR group's ip being the
 * trap IP); the TSC (format 3 and adaptive); adaptive LBR entries from the LBR stack, most
 * recent first. The simulator knows instruction addresses only for branches: for a taken branch
 * the eventing IP is its source and the next IP its target; a straight-line instruction is
 * recorded at the target of the last branch (the start of its basic block) for both — a stand-in
 * the SDM has no word for.
 */
final class PebsUnit {

    /** IA32_PERF_GLOBAL_STATUS.OvfBuffer (bit 62). */
    static final long OVF_BUFFER = 1L << 62;
    static final long RFLAGS_FIXED = 0x2;
    static final long RFLAGS_TF = 0x100;

    private final SimMemory memory;
    private final PerfMon pmu;
    /** The model's PEBS, or empty. */
    private final Optional<PebsSupport.Flavour> flavour;
    private final boolean ds;
    /** The record format, or null for adaptive records. */
    private final PebsRecordFormat legacy;
    private final boolean trap;
    private final long counterMask;

    long enable;
    long dataCfg;
    boolean unavailable;
    long records;
    long dropped;
    /** Set when a record left the index at or past the interrupt threshold; the CPU delivers the PMI and clears it. */
    boolean thresholdReached;

    PebsUnit(SimMemory memory, PerfMon pmu, CpuCapabilities caps, boolean ds) {
        this.memory = memory;
        this.pmu = pmu;
        this.ds = ds;
        this.flavour = PebsSupport.of(caps.identity());
        this.legacy = flavour.filter(f -> !f.baseline()).map(f -> PebsRecordFormat.of(f.format())).orElse(null);
        this.trap = flavour.map(PebsSupport.Flavour::trap).orElse(false);
        long gp = (1L << pmu.gpCounters) - 1;
        long fixed = ((1L << pmu.fixedCounters) - 1) << PerfMon.FIXED_BASE;
        this.counterMask = flavour.map(f -> f.baseline() ? gp | fixed : gp).orElse(0L);
    }

    /** Whether the assist runs: a PEBS model with DS and IA32_MISC_ENABLE.PEBS_UNAVAILABLE clear. */
    boolean available() {
        return flavour.isPresent() && ds && !unavailable;
    }

    /** After a write of IA32_PEBS_ENABLE or IA32_MISC_ENABLE: which counters are PEBS counters now. */
    void update() {
        pmu.setPebsCounters(available() ? enable & counterMask : 0);
    }

    /** Record size of the current configuration. */
    int recordSize() {
        return legacy != null ? legacy.size() : AdaptivePebs.recordSize(dataCfg);
    }

    /**
     * The assist for the counters in {@code triggered} (GLOBAL_STATUS numbering): one record for
     * them all at the PEBS index, or nothing when the record does not fit.
     *
     * @return whether a record was written
     */
    boolean assist(long dsArea, long triggered, long eventingIp, long nextIp, long rflags, long tsc,
                   LbrSnapshot lbr) {
        long base = memory.read64(dsArea + DsSaveArea.PEBS_BUFFER_BASE);
        long index = memory.read64(dsArea + DsSaveArea.PEBS_INDEX);
        long max = memory.read64(dsArea + DsSaveArea.PEBS_ABSOLUTE_MAXIMUM);
        long threshold = memory.read64(dsArea + DsSaveArea.PEBS_INTERRUPT_THRESHOLD);
        int size = recordSize();
        if (Long.compareUnsigned(index, base) < 0 || Long.compareUnsigned(index + size, max) > 0
                || Long.compareUnsigned(index + size, index) < 0) {
            dropped++;
            return false;
        }
        if (legacy != null) {
            writeLegacy(index, triggered, eventingIp, nextIp, rflags, tsc);
        } else {
            writeAdaptive(index, triggered, eventingIp, nextIp, rflags, tsc, lbr);
        }
        long next = index + size;
        memory.write64(dsArea + DsSaveArea.PEBS_INDEX, next);
        records++;
        for (long t = triggered; t != 0; t &= t - 1) {
            int c = Long.numberOfTrailingZeros(t);
            pmu.setCounter(c, memory.read64(dsArea + DsSaveArea.pebsCounterReset(c)));
        }
        pmu.resetStatus(triggered);
        if (Long.compareUnsigned(next, threshold) >= 0) {
            pmu.setStatus(OVF_BUFFER);
            thresholdReached = true;
        }
        return true;
    }

    private void writeLegacy(long at, long triggered, long eventingIp, long nextIp, long rflags, long tsc) {
        for (int off = 0; off < legacy.size(); off += 8) {
            memory.write64(at + off, 0);
        }
        memory.write64(at + PebsRecordFormat.FLAGS, rflags);
        memory.write64(at + PebsRecordFormat.IP, trap ? nextIp : eventingIp);
        if (legacy.hasStatus()) {
            memory.write64(at + PebsRecordFormat.STATUS, triggered);
        }
        if (legacy.hasRealIp()) {
            memory.write64(at + PebsRecordFormat.REAL_IP, eventingIp);
        }
        if (legacy.hasTsc()) {
            memory.write64(at + PebsRecordFormat.TSC, tsc);
        }
    }

    private void writeAdaptive(long at, long triggered, long eventingIp, long nextIp, long rflags, long tsc,
                               LbrSnapshot lbr) {
        long cfg = dataCfg;
        int size = AdaptivePebs.recordSize(cfg);
        for (int off = 0; off < size; off += 8) {
            memory.write64(at + off, 0);
        }
        memory.write64(at + AdaptivePebs.FORMAT_SIZE, AdaptivePebs.formatSize(cfg));
        memory.write64(at + AdaptivePebs.IP, eventingIp);
        memory.write64(at + AdaptivePebs.APPLICABLE_COUNTERS, triggered);
        memory.write64(at + AdaptivePebs.TSC, tsc);
        int gprs = AdaptivePebs.gprsOffset(cfg);
        if (gprs >= 0) {
            memory.write64(at + gprs + AdaptivePebs.GPRS_FLAGS, rflags);
            memory.write64(at + gprs + AdaptivePebs.GPRS_IP, nextIp);
        }
        int lbrAt = AdaptivePebs.lbrOffset(cfg);
        if (lbrAt >= 0) {
            int n = Math.min(AdaptivePebs.lbrEntries(cfg), lbr.count());
            for (int i = 0; i < n; i++) {
                long entry = at + lbrAt + (long) i * AdaptivePebs.LBR_ENTRY_SIZE;
                memory.write64(entry, lbr.from(i));
                memory.write64(entry + 8, lbr.to(i));
                memory.write64(entry + 16, lbr.infoRaw(i));
            }
        }
    }

    /** Whether records are adaptive (PEBS_BASELINE). */
    boolean adaptive() {
        return flavour.isPresent() && legacy == null;
    }

    PebsRecordFormat legacyFormat() {
        return legacy;
    }
}
