package dev.hwtool.sim.workload;

import dev.hwtool.api.BranchType;

import java.util.ArrayList;
import java.util.List;

/** A sink that keeps every retirement in order, for tests to read back. */
final class RecordingCpu implements Retirement {

    sealed interface Event permits Branch, Instructions, Cycles {
    }

    record Branch(long from, long to, BranchType type, int cpl, boolean mispredicted) implements Event {
    }

    record Instructions(long count, int cpl) implements Event {
    }

    record Cycles(long count) implements Event {
    }

    final List<Event> events = new ArrayList<>();

    @Override
    public void branch(long from, long to, BranchType type, int cpl, boolean mispredicted) {
        events.add(new Branch(from, to, type, cpl, mispredicted));
    }

    @Override
    public void instructions(long count, int cpl) {
        events.add(new Instructions(count, cpl));
    }

    @Override
    public void cycles(long count) {
        events.add(new Cycles(count));
    }

    List<Branch> branches() {
        List<Branch> out = new ArrayList<>();
        for (Event e : events) {
            if (e instanceof Branch b) {
                out.add(b);
            }
        }
        return out;
    }

    long plainInstructions() {
        long n = 0;
        for (Event e : events) {
            if (e instanceof Instructions i) {
                n += i.count();
            }
        }
        return n;
    }

    /** Every retired instruction: the plain ones and one per taken branch. */
    long retired() {
        return plainInstructions() + branches().size();
    }

    /** A recorder that has run {@code w}. */
    static RecordingCpu running(Workload w) {
        RecordingCpu cpu = new RecordingCpu();
        w.run(cpu);
        return cpu;
    }

    static List<Event> record(Workload w) {
        RecordingCpu cpu = new RecordingCpu();
        w.run(cpu);
        return cpu.events;
    }
}
