package dev.hwtool.sim.record;

import dev.hwtool.api.CountersContract;
import dev.hwtool.api.Platform;
import dev.hwtool.sim.SimulatedPlatform;
import org.junit.jupiter.api.Nested;

/**
 * The counters contract on the simulator, through {@link SimulatedPlatform#of}: instructions
 * retired on the simulated CPU 0; task-clock (no simulated clock of this thread) is the event it
 * never counts. The same suite runs on the real kernel (PerfCountersContractTest in native-access).
 */
class SimulatedCountersContractTest {

    abstract static class OnProfile extends CountersContract {
        private final String profile;

        OnProfile(String profile) {
            this.profile = profile;
        }

        @Override
        protected Platform open() {
            return SimulatedPlatform.of(profile);
        }

        @Override
        protected void region(Platform p, int size) {
            ((SimulatedPlatform) p).machine().cpus().getFirst().instructions(1000L * size, 3);
        }

        @Override
        protected String countedEvent() {
            return "instructions";
        }

        @Override
        protected String neverCountedEvent() {
            return "task-clock";
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
