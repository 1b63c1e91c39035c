package dev.hwtool.sim.script;

import dev.hwtool.api.BranchType;

/**
 * One parsed line of a scenario script, with its line number and text (comment stripped). The
 * grammar is documented in {@link ScriptParser}.
 */
public sealed interface Command {

    int line();

    String source();

    /** Whether the command needs the simulated machine (everything but {@code profile} and {@code cpus}). */
    default boolean usesMachine() {
        return true;
    }

    record UseProfile(int line, String source, String profile) implements Command {
        @Override
        public boolean usesMachine() {
            return false;
        }
    }

    record UseCpus(int line, String source, int count) implements Command {
        @Override
        public boolean usesMachine() {
            return false;
        }
    }

    record SelectCpu(int line, String source, int cpu) implements Command {
    }

    record Wrmsr(int line, String source, RegisterRef register, long value) implements Command {
    }

    record Rdmsr(int line, String source, RegisterRef register) implements Command {
    }

    record MemWrite(int line, String source, long address, long value) implements Command {
    }

    record MemRead(int line, String source, long address) implements Command {
    }

    record Branch(int line, String source, long from, long to, int cpl, BranchType type, boolean mispredicted)
            implements Command {
    }

    /** {@code count} branches; branch i goes from {@code from + 16·i} to {@code to + 16·i}. */
    record Branches(int line, String source, long count, long from, long to, int cpl, BranchType type,
                    boolean mispredicted) implements Command {
    }

    record Instructions(int line, String source, long count, int cpl) implements Command {
    }

    /** Extension: stall cycles. */
    record Cycles(int line, String source, long count) implements Command {
    }

    /** {@code lbr}, {@code bts} or {@code pmi}: a readable report. */
    record Show(int line, String source, Report report) implements Command {
    }

    /** Extension: {@code handler builtin|none}. */
    record SetHandler(int line, String source, boolean builtin) implements Command {
    }

    /** Extension: {@code single-step on|off} (EFLAGS.TF). */
    record SingleStep(int line, String source, boolean on) implements Command {
    }

    /** Extension: {@code platform REG[.FIELD] VALUE}, a value the platform fixes (no WRMSR rules). */
    record PlatformValue(int line, String source, RegisterRef register, long value) implements Command {
    }

    record Expect(int line, String source, Probe probe, long expected) implements Command {
    }

    /** Extension: {@code expect diagnostic CODE}. */
    record ExpectDiagnostic(int line, String source, String code) implements Command {
    }

    /** {@code expect-fault wrmsr|rdmsr ...}: the access must raise #GP. */
    record ExpectFault(int line, String source, Command access) implements Command {
    }

    /** A generated or recorded workload, retired on the current CPU. */
    record RunWorkload(int line, String source, dev.hwtool.sim.workload.Workload workload) implements Command {
    }

    /** The reports {@link Show} prints. */
    enum Report {
        LBR, BTS, PMI
    }
}
