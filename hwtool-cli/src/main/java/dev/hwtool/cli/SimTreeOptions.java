package dev.hwtool.cli;

import dev.hwtool.api.HwException;
import dev.hwtool.io.OutputFile;
import dev.hwtool.devcpu.DevCpuAccess;
import dev.hwtool.sim.Profile;
import dev.hwtool.sim.Profiles;
import dev.hwtool.sim.SimulatedPlatform;
import dev.hwtool.sim.scenario.ScenarioRunner;
import picocli.CommandLine.Option;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** The options of 'hwtool sim mount' and 'hwtool sim exec': which machine, and the access trace. */
final class SimTreeOptions {

    @Option(names = "--profile", paramLabel = "NAME|FILE",
            description = "Simulator profile (default: " + ScenarioRunner.DEFAULT_PROFILE + "); a built-in name or a CPUID dump file.")
    String profile;

    @Option(names = "--cpus", paramLabel = "N", description = "Simulate only the profile's first N CPUs, N >= 1 (default: all).")
    Integer cpus;

    @Option(names = "--trace", paramLabel = "FILE",
            description = "Write every access as a JSON line: time, pid, cpu, kind (msr|cpuid), op (read|write), reg, "
                    + "subleaf (cpuid), value, result (ok|EIO|EINVAL).")
    Path trace;

    private Profile resolved;

    /**
     * The options' own ranges: a usage error (exit 2) before anything is checked, created or
     * mounted; --cpus up to the profile's CPUs, so the profile is loaded here (a file that cannot
     * be read is exit 3).
     */
    void check() {
        if (cpus != null && cpus < 1) {
            throw new UsageException("--cpus needs N >= 1 (at most the profile's CPUs), got " + cpus);
        }
        if (resolved == null) {
            resolved = Profiles.resolve(profile == null ? ScenarioRunner.DEFAULT_PROFILE : profile);
        }
        int available;
        try (SimulatedPlatform whole = new SimulatedPlatform(resolved)) {
            available = whole.cpuid().cpus().size();
        }
        if (cpus != null && cpus > available) {
            throw new UsageException("--cpus needs N from 1 to " + available + " (the CPUs of profile "
                    + resolved.name() + "), got " + cpus);
        }
    }

    SimulatedPlatform platform() {
        check();
        return cpus == null ? new SimulatedPlatform(resolved) : new SimulatedPlatform(resolved, cpus);
    }

    /**
     * The trace writer (a no-op without --trace), opened under the output policy of every
     * output ({@link OutputFile}, {@link OutputFile.Option#LIVE}: a directory, a missing
     * directory, a descriptor hwtool did not inherit are refused here, exit 13, before anything
     * is mounted); every line is written at once, so a reader sees it at once.
     */
    TraceFile traceFile() {
        return new TraceFile(trace == null ? null : OutputFile.open(trace, OutputFile.Option.LIVE));
    }

    /**
     * Writes each access as a JSON line. The first failed write (ENOSPC on /dev/full or a full
     * file system, EIO) is kept and reported to {@link #onFailure}, which stops the command: an
     * access the trace misses must not pass unnoticed. The access itself is still answered with
     * its own result; a failed trace is not a register fault (EIO) of the program reading.
     */
    static final class TraceFile implements Consumer<DevCpuAccess>, AutoCloseable {
        private final OutputFile out;
        private HwException failure;
        private Runnable onFailure;
        private boolean closed;

        TraceFile(OutputFile out) {
            this.out = out;
        }

        /** Runs {@code action} (once, on a thread of its own) when a write fails; at once if one failed already. */
        synchronized void onFailure(Runnable action) {
            onFailure = action;
            if (failure != null) {
                Thread.ofPlatform().name("trace failed").start(action);
            }
        }

        /** The first write failure (exit 13, the path and the reason), or null. */
        synchronized HwException failure() {
            return failure;
        }

        @Override
        public synchronized void accept(DevCpuAccess a) {
            if (out == null || failure != null || closed) {
                return; // closed: a request the FUSE loop serves while the command ends
            }
            try {
                out.write(ByteBuffer.wrap((Json.line(json(a)) + "\n").getBytes(StandardCharsets.UTF_8)));
            } catch (HwException e) {
                failure = e;
                if (onFailure != null) {
                    // Not on this FUSE thread: stopping the mount waits for the loop this thread serves.
                    Thread.ofPlatform().name("trace failed").start(onFailure);
                }
            }
        }

        static Map<String, Object> json(DevCpuAccess a) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("time", a.time().toString());
            m.put("pid", a.pid() == 0 ? null : a.pid());
            m.put("cpu", a.cpu());
            m.put("kind", a.kind() == DevCpuAccess.Kind.MSR ? "msr" : "cpuid");
            m.put("op", a.op() == DevCpuAccess.Op.READ ? "read" : "write");
            if (a.kind() == DevCpuAccess.Kind.MSR) {
                m.put("reg", Numbers.hex32(a.register()));
                m.put("value", a.value() == null ? null : Numbers.hex64(a.value()));
            } else {
                m.put("reg", Numbers.hex32(a.register()));
                m.put("subleaf", Numbers.hex32(a.subleaf()));
                m.put("value", a.regs() == null ? null : List.of(Numbers.hex32(a.regs().eax()), Numbers.hex32(a.regs().ebx()),
                        Numbers.hex32(a.regs().ecx()), Numbers.hex32(a.regs().edx())));
            }
            m.put("result", a.result());
            return m;
        }

        /** Closes the trace; a failure to write it is thrown here if none was before (exit 13). */
        @Override
        public synchronized void close() {
            if (out == null || closed) {
                return;
            }
            closed = true;
            if (failure != null) {
                out.close();
                throw failure;
            }
            out.commit();
        }
    }
}
