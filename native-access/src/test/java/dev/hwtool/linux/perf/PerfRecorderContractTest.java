package dev.hwtool.linux.perf;

import dev.hwtool.api.Cause;
import dev.hwtool.api.Facility;
import dev.hwtool.api.Platform;
import dev.hwtool.api.RecordRequest;
import dev.hwtool.api.RecordRequest.Privilege;
import dev.hwtool.api.RecordTarget;
import dev.hwtool.api.Recorder;
import dev.hwtool.api.RecorderContract;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.PerfType;
import dev.hwtool.caps.CapabilityReport;
import dev.hwtool.caps.Probe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The recorder contract on this machine's kernel, through the façade ({@link Platform#open()},
 * {@link Platform#recorder()}). Sampling runs for real (cpu-clock); whether LBR and BTS are
 * refused is what {@link Platform#capabilities()} found when it tried them (the same
 * {@link PerfProbe} the recorder checks with; here: no PMU, so UNSUPPORTED), and the contract then
 * holds the recorder to the same cause, raised before anything runs. On an Intel host with a PMU
 * the same tests check real branch records.
 */
class PerfRecorderContractTest extends RecorderContract {

    private static Platform platform;
    private static CapabilityReport caps;

    @BeforeAll
    static void open() {
        platform = Platform.open();
        caps = CapabilityReport.of(platform);
    }

    @AfterAll
    static void close() {
        platform.close();
    }

    @Override
    protected Recorder recorder() {
        return platform.recorder();
    }

    @Override
    protected RecordTarget busyTarget() {
        return new RecordTarget.Command(List.of("/bin/sh", "-c",
                "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"));
    }

    @Override
    protected RecordTarget foreignTarget() {
        return new RecordTarget.Workload("calltree depth=3", Path.of("."));
    }

    @Override
    protected RecordRequest.Sampling workingSampling() {
        return new RecordRequest.Sampling(Privilege.USER, PerfType.SOFTWARE, PerfCount.SW_CPU_CLOCK, 100_000);
    }

    @Override
    protected Optional<Cause> lbrUnavailable() {
        return refusal(Facility.LBR_PERF);
    }

    @Override
    protected Optional<Cause> btsUnavailable() {
        return refusal(Facility.BTS_PERF);
    }

    private static Optional<Cause> refusal(Facility f) {
        Probe p = caps.probe(f).orElseThrow(() -> new AssertionError("the hardware backend tries " + f));
        return p.usable() ? Optional.empty() : p.failure().map(e -> e.cause());
    }
}
