/**
 * The Linux hardware backend of hwtool's contract ({@code dev.hwtool.api}, which it requires
 * transitively) and its native bindings (FFM, and JNA where it is present), with the perf.data,
 * ELF and report toolchain its recorder writes and reads. A user reaches the backend through
 * {@code Platform.open()}, which finds it as a {@link dev.hwtool.api.PlatformProvider}; the one
 * package it exports to everyone is {@code dev.hwtool.devcpu}, a simulated platform served as a
 * /dev/cpu tree through FUSE.
 *
 * <p>Compiled with the sources, so javac checks every boundary (JLS §7.7). The qualified exports
 * name the modules that need each package.
 */
module dev.hwtool.nativeaccess {
    // The optional binding (--binding jna): Bindings.openJna loads it only when asked, and turns a
    // missing JNA into a one-line UNSUPPORTED. On the module path it is read when resolved
    // (--add-modules com.sun.jna); an automatic module (Automatic-Module-Name).
    requires static com.sun.jna;
    // the contract, and the register knowledge and careful write path it is built with; transitive,
    // so that a module requiring this one may name the contract's types
    requires transitive dev.hwtool.api;
    // perf.data's zstd-compressed records (dev.hwtool.record); an automatic module
    requires aircompressor.v3;
    // the flame-graph renderer (dev.hwtool.report): the CLI brings the jar; a library user who
    // asks a Recording for a flame graph brings it too, else the call says so (UNSUPPORTED)
    requires static jfr.converter;
    // sun.misc.Signal: ShutdownSignals takes SIGHUP/SIGINT/SIGTERM (jdk.unsupported, JEP 260)
    requires jdk.unsupported;

    // A simulated platform served as a /dev/cpu tree through the FUSE binding: for everyone, so
    // that a user's tests can run their own /dev/cpu programs against the simulator.
    exports dev.hwtool.devcpu;

    // the CLI's error texts (Errno) and its own binding for --binding
    exports dev.hwtool.bind to dev.hwtool.cli;
    exports dev.hwtool.dump to dev.hwtool.simulator, dev.hwtool.cli;
    exports dev.hwtool.linux to dev.hwtool.simulator, dev.hwtool.cli;
    exports dev.hwtool.linux.perf to dev.hwtool.simulator, dev.hwtool.cli;
    // the CLI's record, report and lbr commands
    exports dev.hwtool.elf to dev.hwtool.simulator, dev.hwtool.cli;
    // "record" spelled as a Unicode escape (JLS §3.3): the compiler plugin's module-info parser
    // (QDox) takes it for the record keyword, paul-hammant/qdox#170; javac reads it as the name
    exports dev.hwtool.\u0072ecord to dev.hwtool.cli;
    // the in-memory recording both recorders return (InMemoryRecording)
    exports dev.hwtool.report to dev.hwtool.simulator, dev.hwtool.cli;

    // JNA builds its proxies and reads its Structures by reflection
    opens dev.hwtool.jna to com.sun.jna;

    provides dev.hwtool.api.PlatformProvider with dev.hwtool.linux.LinuxPlatformProvider;
}
