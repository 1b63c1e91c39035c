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
    // the recorder and counting the CLI drives directly (users reach them as SimulatedPlatform.recorder() and
    // counters(), typed by the contract)
    // ("record" as a Unicode escape: QDox, the compiler plugin's parser, paul-hammant/qdox#170)
    exports dev.hwtool.sim.\u0072ecord to dev.hwtool.cli;
    exports dev.hwtool.sim.workload;
    // the CLI's sim scenarios (hwtool sim run): their scripts, and their runs on a simulated platform
    exports dev.hwtool.sim.script to dev.hwtool.cli;
    exports dev.hwtool.sim.scenario to dev.hwtool.cli;

    provides dev.hwtool.api.PlatformProvider with dev.hwtool.sim.SimulatedPlatformProvider;
    // a simulated recording's program, rebuilt from its workload, for perf.data's readers
    provides dev.hwtool.report.ProgramImages with dev.hwtool.sim.\u0072ecord.SimulatedImages;
}
