package dev.hwtool.testing;

import java.util.List;
import java.util.Optional;

/**
 * What {@link Preconditions} cannot find out in pure Java: the probes that take a native call.
 * native-access's test jar provides it ({@code NativeBindingProbe}, registered in
 * META-INF/services), with its own binding; the modules below native-access (hwtool-api,
 * hwtool-perfdata) have none on their test class path.
 */
public interface NativeProbe {

    /**
     * perf_event_open(2) with a NULL attr: the name of the errno it fails with (EFAULT when the
     * kernel itself answers, perf_copy_attr; EPERM or ENOSYS when a seccomp filter answers first),
     * or "none" if it did not fail.
     */
    String perfEventOpenNullErrno();

    /** CPUID.80000001H:EDX[27] (RDTSCP) through the instruction. */
    boolean rdtscpAdvertised();

    /**
     * The first place where the CPUID instruction and /dev/cpu/N/cpuid answer differently, or the
     * same path twice differently, on each of {@code cpus} (see {@link Preconditions#cpuidDisagreement()}).
     */
    Optional<String> cpuidDisagreement(List<Integer> cpus);
}
