package dev.hwtool.sim.record;

import dev.hwtool.api.BranchType;
import dev.hwtool.sim.workload.Retirement;

import java.util.function.BooleanSupplier;

/**
 * Sits between a workload and the simulated CPU and keeps what a kernel knows at an interrupt:
 * the address of the next instruction and the current privilege level (the interrupted frame's
 * RIP and CS), and the program text ({@link ProgramText}). It also plays the scheduler tick: every
 * {@code tickCycles} retired cycles {@link Tick#tick} runs between two retirements, as a timer
 * interrupt is taken at an instruction boundary (used for counter rotation).
 *
 * <p>The simulator knows addresses only at taken branches; between them it counts instructions of
 * the workloads' plain length ({@link #PLAIN_INSTRUCTION_BYTES}, the generators' Encoding.PLAIN),
 * so the next address after a branch to T followed by n plain instructions is T + 4n.
 */
final class TrackingRetirement implements Retirement {

    /** The length the workload generators give every non-branch instruction. */
    static final int PLAIN_INSTRUCTION_BYTES = 4;

    /** Retirements between two looks at the stop request: a volatile read each would cost a few percent. */
    static final int STOP_CHECK_INTERVAL = 4096;

    /**
     * Thrown out of the workload, between two retirements, when a stop was requested: the
     * simulated process ends there, as a command ends at the instruction where a signal kills it.
     */
    static final class Stopped extends RuntimeException {
        Stopped() {
            super("stopped on request", null, false, false);
        }
    }

    /** A periodic callback between retirements. */
    interface Tick {
        void tick();
    }

    private final Retirement cpu;
    private final ProgramText text;
    /** CPU instruction count before this run: the simulated CPU's counts are absolute. */
    private final long instructionBase;
    private long instructions;
    private long cycles;
    private long lastTo;
    private long instructionsAtLastTo;
    private int cpl = 3;
    private Tick tick;
    private long tickCycles;
    private long nextTick = Long.MAX_VALUE;
    private BooleanSupplier stop = () -> false;
    private int untilStopCheck = STOP_CHECK_INTERVAL;

    TrackingRetirement(Retirement cpu, ProgramText text, long instructionBase, long entry) {
        this.cpu = cpu;
        this.text = text;
        this.instructionBase = instructionBase;
        this.lastTo = entry;
    }

    void tickEvery(long cycles, Tick t) {
        this.tick = t;
        this.tickCycles = cycles;
        this.nextTick = this.cycles + cycles;
    }

    /** Ends the run ({@link Stopped}) at the first retirement boundary after {@code stop} says so. */
    void stopWhen(BooleanSupplier stop) {
        this.stop = stop;
        this.untilStopCheck = 1;
    }

    @Override
    public void branch(long from, long to, BranchType type, int cpl, boolean mispredicted) {
        text.note(from, type, cpl);
        instructions++;
        cycles++;
        lastTo = to;
        instructionsAtLastTo = instructions;
        this.cpl = cpl;
        cpu.branch(from, to, type, cpl, mispredicted);
        ticks();
    }

    @Override
    public void instructions(long count, int cpl) {
        this.cpl = cpl;
        instructions += count;
        cycles += count;
        cpu.instructions(count, cpl);
        ticks();
    }

    @Override
    public void cycles(long count) {
        cycles += count;
        cpu.cycles(count);
        ticks();
    }

    private void ticks() {
        if (cycles >= nextTick) {
            nextTick = cycles + tickCycles;
            tick.tick();
        }
        if (--untilStopCheck == 0) {
            untilStopCheck = STOP_CHECK_INTERVAL;
            if (stop.getAsBoolean()) {
                throw new Stopped();
            }
        }
    }

    /**
     * The address of the instruction after the one that was retiring when the CPU had retired
     * {@code cpuInstructions} (a {@code Pmi.instruction()}): where an interrupt taken then returns to.
     */
    long nextIp(long cpuInstructions) {
        long sinceBranch = cpuInstructions - instructionBase - instructionsAtLastTo;
        return lastTo + Math.max(0, sinceBranch) * PLAIN_INSTRUCTION_BYTES;
    }

    /** The privilege level of the code retiring now. */
    int cpl() {
        return cpl;
    }

    long cyclesRetired() {
        return cycles;
    }
}
