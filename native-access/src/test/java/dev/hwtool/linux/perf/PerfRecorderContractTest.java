package dev.hwtool.linux.perf;

import dev.hwtool.api.Cause;
import dev.hwtool.api.RecordRequest;
import dev.hwtool.api.RecordRequest.Privilege;
import dev.hwtool.api.RecordTarget;
import dev.hwtool.api.Recorder;
import dev.hwtool.api.RecorderContract;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.PerfType;
import dev.hwtool.caps.Probe;
import dev.hwtool.ffm.FfmBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The recorder contract on this machine's kernel. Sampling runs for real (cpu-clock); whether
 * LBR and BTS are refused is what the kernel says to {@link PerfProbe} (here: no PMU, so
 * UNSUPPORTED), and the contract then holds the recorder to the same cause, raised before
 * anything runs. On an Intel host with a PMU the same tests check real branch records.
 */
class PerfRecorderContractTest extends RecorderContract {

    private static FfmBinding binding;
    private static PerfEvents perf;
    private static PerfProbe probe;

    @BeforeAll
    static void open() {
        binding = new FfmBinding();
        perf = new PerfEvents(binding);
        probe = new PerfProbe(perf);
    }

    @AfterAll
    static void close() {
        perf.close();
        binding.close();
    }

    @Override
    protected Recorder recorder() {
        return new PerfRecorder(perf, probe, dev.hwtool.linux.CpuList.online(), PerfRecorder.DEFAULT_DATA_PAGES, 64);
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
        return refusal(probe.lbr(Privilege.USER));
    }

    @Override
    protected Optional<Cause> btsUnavailable() {
        return refusal(probe.bts());
    }

    private static Optional<Cause> refusal(Probe p) {
        return p.usable() ? Optional.empty() : p.failure().map(e -> e.reason());
    }
}
