package dev.hwtool.sim;

import dev.hwtool.api.MsrAccess;
import dev.hwtool.api.MsrAccessContract;
import dev.hwtool.caps.CpuidReading;
import org.junit.jupiter.api.Nested;

/**
 * The MsrAccess contract on the simulator: an old Intel part, a Skylake, the hybrid Alder Lake
 * (whose CPU list includes its Gracemont E-cores, CPUs 16-23) and an AMD guest.
 */
class SimulatedMsrAccessContractTest {

    abstract static class OnProfile extends MsrAccessContract {
        private final String profile;
        private SimulatedPlatform platform;

        OnProfile(String profile) {
            this.profile = profile;
        }

        private SimulatedPlatform platform() {
            if (platform == null) {
                platform = SimulatedPlatform.of(profile);
            }
            return platform;
        }

        @Override
        protected MsrAccess msr() {
            return platform().msr();
        }

        @Override
        protected CpuidReading cpuid() {
            return platform().cpuidReading();
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

    @Nested
    class AmdEpycKvmGuest extends OnProfile {
        AmdEpycKvmGuest() {
            super("amd-epyc-kvm-guest");
        }
    }
}
