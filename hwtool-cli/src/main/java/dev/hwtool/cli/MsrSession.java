package dev.hwtool.cli;

import dev.hwtool.msr.MsrContexts;
import dev.hwtool.msr.MsrJournal;
import dev.hwtool.msr.MsrMachine;
import dev.hwtool.msr.MsrWriter;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.api.Platform;

import java.io.PrintWriter;

/**
 * One command's MSR machine: the platform the backend options chose, its MSRs, the catalog
 * view of its CPUs, and the backend's journal label ("hw", or the simulator profile's
 * {@code Profile.backend()}: "sim:NAME" for a built-in profile, "sim:/ABSOLUTE/PATH" for a dump file).
 */
final class MsrSession implements AutoCloseable {

    final Platform platform;
    final MsrAccess msr;
    final MsrContexts contexts;
    final String backendLabel;

    MsrSession(BackendOptions options) {
        this.platform = options.open();
        try {
            this.msr = platform.msr();
            this.contexts = new MsrContexts(platform.cpuid(), msr);
        } catch (RuntimeException e) {
            platform.close();
            throw e;
        }
        // The library's name for the backend, not the --profile text as typed: a batch written
        // here can be undone through MsrAccess.write(WriteRequest.undo) and the other way round.
        this.backendLabel = msr instanceof MsrMachine m ? m.backend() : "hw";
    }

    boolean simulated() {
        return platform.kind() == Platform.Kind.SIMULATED;
    }

    /** On stderr, so standard output stays the value a script expects. */
    void noteIfSimulated(PrintWriter err) {
        if (simulated()) {
            err.println("hwtool: note: SIMULATED CPU, " + platform.description() + "; not this machine");
            err.flush();
        }
    }

    /**
     * This backend's undo journal: the state directory's for this machine's registers, its
     * {@code sim/} subdirectory's for the simulator, so that a simulated batch never stands on top
     * of the journal that {@code msr restore --last} on hardware reads.
     */
    MsrJournal journal() {
        MsrJournal state = MsrJournal.atDefaultLocation();
        return simulated() ? state.forSimulator() : state;
    }

    /**
     * The batches {@code msr restore --last} may undo here. On hardware not the simulated ones an
     * earlier hwtool (before the simulator had a journal of its own) left in the hardware journal:
     * they changed no register of this machine, so they are passed over, not refused.
     */
    boolean undoable(MsrJournal.Batch b) {
        return simulated() || !b.backend().startsWith("sim:");
    }

    MsrWriter writer(boolean force, PrintWriter notes) {
        return new MsrWriter(msr, contexts::of, force, backendLabel, notes);
    }

    @Override
    public void close() {
        platform.close();
    }
}
