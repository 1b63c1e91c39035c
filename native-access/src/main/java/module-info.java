/**
 * hwtool's contract ({@code dev.hwtool.api}), the register and CPUID knowledge ({@code arch}),
 * the Linux hardware backend and its native bindings (FFM, and JNA where it is present).
 *
 * <p>Compiled with the sources, so javac checks every boundary (JLS §7.7): a package not exported
 * here cannot be imported by another module. The qualified exports name the one module that needs
 * each package; they shrink as the modules split (issue 25).
 */
module dev.hwtool.nativeaccess {
    // The optional binding (--binding jna): Bindings.openJna loads it only when asked, and turns a
    // missing JNA into a one-line UNSUPPORTED. On the module path it is read when resolved
    // (--add-modules com.sun.jna); an automatic module (Automatic-Module-Name).
    requires static com.sun.jna;
    // the careful MSR write path's journal and save files (dev.hwtool.msr, dev.hwtool.json)
    requires com.fasterxml.jackson.jr.ob;
    // perf.data's zstd-compressed records (dev.hwtool.record); an automatic module
    requires aircompressor.v3;
    // the flame-graph renderer (dev.hwtool.report): the CLI brings the jar; a library user who
    // asks a Recording for a flame graph brings it too, else the call says so (UNSUPPORTED)
    requires static jfr.converter;
    // sun.misc.Signal: ShutdownSignals takes SIGHUP/SIGINT/SIGTERM (jdk.unsupported, JEP 260)
    requires jdk.unsupported;

    // The contract: the one package exported to everyone. Its signatures name its own types and
    // the JDK's only (ModuleBoundariesTest), but RecordingInfo.Event.attr(), the kernel's
    // perf_event_attr that a RecordSink writes into perf.data (issue 25's hwtool-perfdata).
    exports dev.hwtool.api;

    // The register knowledge (SDM), the perf ABI, the capability rules and the file helpers:
    // hwtool's own modules build on them; users see them through the contract's own types.
    exports dev.hwtool.arch.branch to dev.hwtool.simulator;
    exports dev.hwtool.arch.cpuid to dev.hwtool.simulator, dev.hwtool.cli;
    exports dev.hwtool.arch.decode to dev.hwtool.simulator, dev.hwtool.cli;
    exports dev.hwtool.arch.msr to dev.hwtool.simulator, dev.hwtool.cli;
    exports dev.hwtool.arch.pebs to dev.hwtool.simulator;
    exports dev.hwtool.arch.perf to dev.hwtool.simulator, dev.hwtool.cli;
    // CapabilityReport (what caps, doctor and the exporter show besides the verdicts), CpuidReading
    exports dev.hwtool.caps to dev.hwtool.simulator, dev.hwtool.cli;
    exports dev.hwtool.io to dev.hwtool.simulator, dev.hwtool.cli;

    // SimDevCpu serves the simulated /dev/cpu tree through the FUSE binding (bind, ffm.fuse);
    // the simulator's recorder and journal reuse the Linux ones' record layout and journal.
    exports dev.hwtool.bind to dev.hwtool.simulator, dev.hwtool.cli;
    exports dev.hwtool.ffm.fuse to dev.hwtool.simulator;
    exports dev.hwtool.dump to dev.hwtool.simulator, dev.hwtool.cli;
    exports dev.hwtool.linux to dev.hwtool.simulator, dev.hwtool.cli;
    exports dev.hwtool.linux.perf to dev.hwtool.simulator, dev.hwtool.cli;
    exports dev.hwtool.msr to dev.hwtool.simulator, dev.hwtool.cli;
    // the CLI's record, report and lbr commands
    exports dev.hwtool.elf to dev.hwtool.simulator, dev.hwtool.cli;
    // "record" spelled as a Unicode escape (JLS §3.3): the compiler plugin's module-info parser
    // (QDox) takes it for the record keyword, paul-hammant/qdox#170; javac reads it as the name
    exports dev.hwtool.\u0072ecord to dev.hwtool.cli;
    // the in-memory recording both recorders return (InMemoryRecording)
    exports dev.hwtool.report to dev.hwtool.simulator, dev.hwtool.cli;

    // JNA builds its proxies and reads its Structures by reflection
    opens dev.hwtool.jna to com.sun.jna;

    // MsrAccess's careful write path (dev.hwtool.spi.CarefulPath): the contract finds the write
    // planner and journal at run time, so that it does not name them (no package cycle)
    uses dev.hwtool.spi.CarefulPath;
    provides dev.hwtool.spi.CarefulPath with dev.hwtool.msr.CarefulWriteProvider;

    uses dev.hwtool.api.PlatformProvider;
    provides dev.hwtool.api.PlatformProvider with dev.hwtool.linux.LinuxPlatformProvider;
}
