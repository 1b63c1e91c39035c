/**
 * hwtool's contract ({@code dev.hwtool.api}), and the knowledge and rules it needs, with no native
 * code: the register and CPUID knowledge of the SDM ({@code arch}), the capability rules
 * ({@code caps}), and the careful MSR write path, its planning, save files and journal
 * ({@code msr}), which call only the contract. The backends are other modules: the Linux one
 * (dev.hwtool.nativeaccess) and the simulator, found by {@link java.util.ServiceLoader} as
 * {@link dev.hwtool.api.PlatformProvider}s.
 *
 * <p>Compiled with the sources, so javac checks every boundary (JLS §7.7). Only the contract is
 * exported to everyone; the rest, to the modules that build on it (ModuleBoundariesTest checks
 * that each target uses what it is given, that no package cycle is left, and that this module
 * makes no native call).
 */
module dev.hwtool.api {
    // the careful MSR write path's journal and save files (dev.hwtool.msr, dev.hwtool.json)
    requires com.fasterxml.jackson.jr.ob;

    // The contract: the one package exported to everyone. Its signatures name its own types and
    // the JDK's only (ModuleBoundariesTest), but RecordingInfo.Event.attr(), the kernel's
    // perf_event_attr that a RecordSink writes into perf.data (issue 25's hwtool-perfdata).
    exports dev.hwtool.api;

    // The register knowledge (SDM), the perf ABI, the capability rules, the careful write path
    // and the file helpers: hwtool's own modules build on them; users see them through the
    // contract's own types.
    exports dev.hwtool.arch.branch to dev.hwtool.perfdata, dev.hwtool.simulator;
    exports dev.hwtool.arch.cpuid to dev.hwtool.nativeaccess, dev.hwtool.simulator, dev.hwtool.cli;
    exports dev.hwtool.arch.decode to dev.hwtool.nativeaccess, dev.hwtool.simulator, dev.hwtool.cli;
    exports dev.hwtool.arch.msr to dev.hwtool.nativeaccess, dev.hwtool.simulator, dev.hwtool.cli;
    exports dev.hwtool.arch.pebs to dev.hwtool.simulator;
    exports dev.hwtool.arch.perf to dev.hwtool.nativeaccess, dev.hwtool.perfdata, dev.hwtool.simulator, dev.hwtool.cli;
    // CapabilityReport (what caps, doctor and the exporter show besides the verdicts), CpuidReading
    exports dev.hwtool.caps to dev.hwtool.nativeaccess, dev.hwtool.simulator, dev.hwtool.cli;
    exports dev.hwtool.io to dev.hwtool.nativeaccess, dev.hwtool.perfdata, dev.hwtool.simulator, dev.hwtool.cli;
    // the journal and the machine view the backends' own accesses give the careful write path
    exports dev.hwtool.msr to dev.hwtool.nativeaccess, dev.hwtool.simulator, dev.hwtool.cli;

    // MsrAccess's careful write path (dev.hwtool.spi.CarefulPath): the contract finds the write
    // planner and journal at run time, so that it does not name them (no package cycle)
    uses dev.hwtool.spi.CarefulPath;
    provides dev.hwtool.spi.CarefulPath with dev.hwtool.msr.CarefulWriteProvider;

    // Platform.open: the backends (the Linux one, the simulator) and a user's own
    uses dev.hwtool.api.PlatformProvider;
}
