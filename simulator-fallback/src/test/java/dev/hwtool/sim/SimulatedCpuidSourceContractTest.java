package dev.hwtool.sim;

import dev.hwtool.api.CpuidSourceContract;
import dev.hwtool.caps.CpuidReading;
import org.junit.jupiter.api.Nested;

/** The CpuidReading contract on the simulator, for an old, a hybrid and an AMD profile. */
class SimulatedCpuidSourceContractTest {

    @Nested
    class Core2 extends CpuidSourceContract {
        @Override
        protected CpuidReading source() {
            return SimulatedPlatform.of("core2").cpuidReading();
        }
    }

    @Nested
    class AlderLake extends CpuidSourceContract {
        @Override
        protected CpuidReading source() {
            return SimulatedPlatform.of("alderlake").cpuidReading();
        }
    }

    @Nested
    class AmdEpyc extends CpuidSourceContract {
        @Override
        protected CpuidReading source() {
            return SimulatedPlatform.of("amd-epyc-kvm-guest").cpuidReading();
        }
    }
}
