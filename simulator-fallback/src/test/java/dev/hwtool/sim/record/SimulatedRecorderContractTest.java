package dev.hwtool.sim.record;

import dev.hwtool.api.Cause;
import dev.hwtool.api.RecordRequest;
import dev.hwtool.api.RecordRequest.Privilege;
import dev.hwtool.api.RecordTarget;
import dev.hwtool.api.Recorder;
import dev.hwtool.api.RecorderContract;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.PerfType;
import dev.hwtool.sim.SimulatedPlatform;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The recorder contract on the simulator, on three generations: Core 2 (4-deep LBR, no
 * LBR_SELECT), Skylake (32-deep with LBR_INFO) and Alder Lake (architectural LBR). The same
 * suite runs on the real kernel (PerfRecorderContractTest in native-access).
 */
class SimulatedRecorderContractTest {

    abstract static class OnProfile extends RecorderContract {
        private final String profile;
        private final List<SimulatedPlatform> opened = new java.util.ArrayList<>();

        OnProfile(String profile) {
            this.profile = profile;
        }

        @AfterEach
        void closePlatforms() {
            opened.forEach(SimulatedPlatform::close);
        }

        @Override
        protected Recorder recorder() {
            SimulatedPlatform p = SimulatedPlatform.of(profile);
            opened.add(p);
            return p.recorder(); // through the façade: Platform.recorder()
        }

        @Override
        protected RecordTarget busyTarget() {
            return new RecordTarget.Workload("calltree seed=7 depth=5 fanout=3 calls=20000", Path.of("."));
        }

        @Override
        protected RecordTarget foreignTarget() {
            return new RecordTarget.Command(List.of("/bin/true"));
        }

        @Override
        protected RecordRequest.Sampling workingSampling() {
            return new RecordRequest.Sampling(Privilege.USER, PerfType.HARDWARE, PerfCount.HW_INSTRUCTIONS, 1000);
        }

        @Override
        protected Optional<Cause> lbrUnavailable() {
            return Optional.empty();
        }

        @Override
        protected Optional<Cause> btsUnavailable() {
            return Optional.empty();
        }
    }

    @Nested
    class Core2 extends OnProfile {
        Core2() {
            super("core2");
        }
    }

    @Nested
    class Skylake extends OnProfile {
        Skylake() {
            super("skylake");
        }
    }

    @Nested
    class AlderLake extends OnProfile {
        AlderLake() {
            super("alderlake");
        }
    }
}
