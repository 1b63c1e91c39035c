package dev.hwtool.api;

import dev.hwtool.arch.perf.BranchFilter;

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
     * @param period sample period (nanoseconds for the clocks), at least 1
     */
    record Sampling(Privilege privilege, int type, long config, long period) implements RecordRequest {
        public Sampling {
            Objects.requireNonNull(privilege, "privilege");
            if (period < 1) {
                throw new IllegalArgumentException("period must be at least 1, got " + period);
            }
        }
    }
}
