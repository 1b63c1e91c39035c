/**
 * The simulated platform: the same contract as the hardware backend, in pure Java, driven by CPU
 * profiles; it never touches a device.
 */
module dev.hwtool.simulator {
    // the contract it implements, whose types its own API names
    requires transitive dev.hwtool.api;
    // what it shares with the Linux backend: the dump-file CPUID source, the recording attributes
    requires dev.hwtool.nativeaccess;
    // the in-memory recording its recorder returns, and the ELF reader that names its programs
    requires dev.hwtool.perfdata;

    exports dev.hwtool.sim;
    exports dev.hwtool.sim.cpu;
    exports dev.hwtool.sim.record;
    exports dev.hwtool.sim.workload;
    // the CLI's sim scenarios (hwtool sim run)
    exports dev.hwtool.sim.script to dev.hwtool.cli;

    provides dev.hwtool.api.PlatformProvider with dev.hwtool.sim.SimulatedPlatformProvider;
}
