package dev.hwtool.cli;

import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.util.ArrayList;
import java.util.List;

/**
 * SIGINT and SIGTERM as a request to stop a command that serves until stopped (sim mount,
 * sim exec): {@code onStop} runs on a thread of its own, so the command can clean up (unmount)
 * and return its exit code instead of the JVM ending at once. The previous handlers come back
 * on close.
 */
final class StopSignals implements AutoCloseable {

    private final List<Signal> signals = new ArrayList<>();
    private final List<SignalHandler> previous = new ArrayList<>();

    private StopSignals() {
    }

    static StopSignals install(Runnable onStop) {
        StopSignals s = new StopSignals();
        for (String name : List.of("INT", "TERM")) {
            Signal sig = new Signal(name);
            try {
                s.previous.add(Signal.handle(sig, x -> Thread.ofPlatform().name("stop on SIG" + name).start(onStop)));
                s.signals.add(sig);
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                // Reserved by the VM (-Xrs): the signal then ends the JVM as usual.
            }
        }
        return s;
    }

    @Override
    public void close() {
        for (int i = 0; i < signals.size(); i++) {
            Signal.handle(signals.get(i), previous.get(i));
        }
    }
}
