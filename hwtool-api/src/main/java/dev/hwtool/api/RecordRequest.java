package dev.hwtool.api;

import dev.hwtool.api.BranchFilter;

import java.util.Objects;

/** What a {@link Recorder} is asked to record: a closed set. */
public sealed interface RecordRequest {

    /** Which privilege levels' branches or samples are kept (perf's exclude_user/exclude_kernel). */
    enum Privilege {
        /** CPL 3 only: exclude_kernel, exclude_hv (allowed at perf_event_paranoid 2). */
        USER,
        /** CPL 0 only: exclude_user. */
        KERNEL,
        /** Both. */
        ALL;

        public boolean user() {
            return this != KERNEL;
        }

        public boolean kernel() {
            return this != USER;
        }
    }

    Privilege privilege();

    /**
     * Branch-stack (LBR) samples, as {@code perf record -b -j FILTER -c PERIOD}: every
     * {@code period} branches (the cycles event on hardware without a branch event) a
     * PERF_RECORD_SAMPLE carries the LBR stack.
     *
     * @param period sample period in events, at least 1
     */
    record Lbr(Privilege privilege, BranchFilter filter, long period) implements RecordRequest {
        /**
         * {@code hwtool lbr record}'s period, and the one caps probes with, so both open the same
         * attr. Not a round number: a period that divides a loop's trip count samples the same
         * branches every time.
         */
        public static final long DEFAULT_PERIOD = 100_003;

        public Lbr {
            Objects.requireNonNull(privilege, "privilege");
            Objects.requireNonNull(filter, "filter");
            if (period < 1) {
                throw new IllegalArgumentException("period must be at least 1, got " + period);
            }
        }
    }

    /**
     * Every taken branch (the branch trace store): the intel_bts PMU's AUX buffer where it exists,
     * else the {@code branches} event with sample_period 1, whose samples carry ip = from and
     * addr = to (arch/x86/events/intel/ds.c, intel_pmu_drain_bts_buffer).
     */
    record Bts(Privilege privilege) implements RecordRequest {
        public Bts {
            Objects.requireNonNull(privilege, "privilege");
        }
    }

    /**
     * Plain samples of one perf event (type and config as in perf_event_attr), e.g. cpu-clock
     * with sample_type IP|TID|TIME|CPU|PERIOD.
     *
     * @param period  sample period (nanoseconds for the clocks), at least 1
     * @param precise perf_event_attr.precise_ip, perf's {@code :p} modifiers: 0 arbitrary skid,
     *                1 constant skid, 2 requested zero skid, 3 must have zero skid
     *                (include/uapi/linux/perf_event.h). Above 0, Intel serves the event through
     *                PEBS (arch/x86/events/intel/ds.c), and the kernel refuses a level above the
     *                PMU's caps/max_precise with EOPNOTSUPP (x86_pmu_hw_config).
     */
    record Sampling(Privilege privilege, int type, long config, long period, int precise) implements RecordRequest {

        /** The highest precise_ip perf_event_attr can hold (a 2-bit field). */
        public static final int MAX_PRECISE = 3;

        public Sampling {
            Objects.requireNonNull(privilege, "privilege");
            if (period < 1) {
                throw new IllegalArgumentException("period must be at least 1, got " + period);
            }
            if (precise < 0 || precise > MAX_PRECISE) {
                throw new IllegalArgumentException("precise must be 0.." + MAX_PRECISE + ", got " + precise);
            }
        }

        /** Samples with arbitrary skid (precise_ip 0). */
        public Sampling(Privilege privilege, int type, long config, long period) {
            this(privilege, type, config, period, 0);
        }
    }
}
