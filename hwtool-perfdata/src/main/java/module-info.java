/**
 * perf.data as perf writes and reads it, ELF files, and the reports hwtool draws from them: the
 * perf.data writer and reader ({@code record}: the kernel's records, zstd-compressed ones
 * included, perf's header features, symbolization), the ELF64 reader ({@code elf}), and the
 * analyses ({@code report}: hot branches, BTS traces and hot paths, folded stacks, flame graphs,
 * and the in-memory {@link dev.hwtool.api.Recording} both recorders return). Pure Java: files
 * are read through read-only mappings (java.lang.foreign segments), and no native call is made.
 *
 * <p>Split from the Linux backend (issue 25), which writes perf.data through it, as the simulator
 * does; the CLI's record, report, lbr and bts commands read it. Its own API, exported to everyone,
 * is {@code dev.hwtool.perfdata}: a perf.data file opened and asked what an in-memory recording
 * is asked. The rest is exported only to the modules that build on it.
 */
module dev.hwtool.perfdata {
    requires transitive dev.hwtool.api;
    // perf.data's zstd-compressed records (dev.hwtool.record); an automatic module
    requires aircompressor.v3;
    // the flame-graph renderer (dev.hwtool.report): the CLI brings the jar; a library user who
    // asks a Recording for a flame graph brings it too, else the call says so (UNSUPPORTED)
    requires static jfr.converter;

    // a perf.data file, perf's or hwtool's, asked what a Recording is asked
    exports dev.hwtool.perfdata;

    // the perf ABI's layouts and parsers: perf_event_open's attrs and ring buffer (native-access),
    // the simulator's records, the CLI's readers
    exports dev.hwtool.arch.perf.abi to dev.hwtool.nativeaccess, dev.hwtool.simulator, dev.hwtool.cli;
    exports dev.hwtool.elf to dev.hwtool.simulator;
    // "record" spelled as a Unicode escape (JLS §3.3): the compiler plugin's module-info parser
    // (QDox) takes it for the record keyword, paul-hammant/qdox#170; javac reads it as the name
    exports dev.hwtool.\u0072ecord to dev.hwtool.nativeaccess, dev.hwtool.simulator, dev.hwtool.cli;
    // the in-memory recording both recorders return (InMemoryRecording); the CLI's reports
    exports dev.hwtool.report to dev.hwtool.nativeaccess, dev.hwtool.simulator, dev.hwtool.cli;

    // the program images a recording's MMAP records cannot name: a simulated program, which only
    // the simulator can rebuild (it provides one)
    uses dev.hwtool.report.ProgramImages;
}
