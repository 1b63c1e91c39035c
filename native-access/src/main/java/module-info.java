/**
 * The Linux hardware backend of hwtool's contract ({@code dev.hwtool.api}, which it requires
 * transitively) and its native bindings (FFM, and JNA where it is present); its recorder writes
 * perf.data through dev.hwtool.perfdata. A user reaches the backend through
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
    // the in-memory recording its recorder returns (dev.hwtool.report.InMemoryRecording)
    requires dev.hwtool.perfdata;
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
    // the host's system interfaces the CLI also drives: the chosen binding, /proc and /sys facts,
    // shutdown signals, a command held before its exec
    exports dev.hwtool.linux.sys to dev.hwtool.cli;
    // JNA builds its proxies and reads its Structures by reflection
    opens dev.hwtool.jna to com.sun.jna;

    provides dev.hwtool.api.PlatformProvider with dev.hwtool.linux.LinuxPlatformProvider;
}
