package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.sim.DevCpuAccess;
import dev.hwtool.sim.Profiles;
import dev.hwtool.sim.SimulatedPlatform;
import dev.hwtool.sim.script.ScenarioRunner;
import picocli.CommandLine.Option;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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

    /** The options' own ranges: a usage error (exit 2) before anything is checked, created or mounted. */
    void check() {
        if (cpus != null && cpus < 1) {
            throw new UsageException("--cpus needs N >= 1 (at most the profile's CPUs), got " + cpus);
        }
    }

    SimulatedPlatform platform() {
        check();
        var p = Profiles.resolve(profile == null ? ScenarioRunner.DEFAULT_PROFILE : profile);
        return cpus == null ? new SimulatedPlatform(p) : new SimulatedPlatform(p, cpus);
    }

    /** The trace writer (a no-op without --trace); every line is flushed, so a reader sees it at once. */
    TraceFile traceFile() {
        if (trace == null) {
            return new TraceFile(null);
        }
        try {
            return new TraceFile(Files.newBufferedWriter(trace, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new HwException(Cause.BAD_INPUT, "cannot write the trace file " + trace + ": " + e.getMessage());
        }
    }

    static final class TraceFile implements Consumer<DevCpuAccess>, AutoCloseable {
        private final BufferedWriter w;

        TraceFile(BufferedWriter w) {
            this.w = w;
        }

        @Override
        public void accept(DevCpuAccess a) {
            if (w == null) {
                return;
            }
            try {
                w.write(Json.line(json(a)));
                w.newLine();
                w.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
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

        @Override
        public void close() {
            if (w != null) {
                try {
                    w.close();
                } catch (IOException e) {
                    // Every line was flushed already.
                }
            }
        }
    }
}
