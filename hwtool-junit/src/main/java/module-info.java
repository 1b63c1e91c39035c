/** {@code @SimulatedCpu} and {@code @RealCpu}: one test body on a simulated and on the real CPU. */
module dev.hwtool.junit {
    requires transitive dev.hwtool.simulator;
    requires transitive org.junit.jupiter.api;
    requires org.junit.platform.commons;

    exports dev.hwtool.junit;
}
