package dev.hwtool.api;

import dev.hwtool.spi.CarefulPath;

import java.util.ServiceLoader;

/** The careful write path {@link MsrAccess}'s default methods call, found once (see {@link CarefulPath}). */
final class CarefulPaths {

    private CarefulPaths() {
    }

    /** Loaded on first use: a platform that never writes carefully never loads the write planner. */
    private static final class Holder {
        static final CarefulPath<MsrAccess, WriteRequest, WriteResult> PATH = load();
    }

    static CarefulPath<MsrAccess, WriteRequest, WriteResult> get() {
        return Holder.PATH;
    }

    @SuppressWarnings("unchecked")
    private static CarefulPath<MsrAccess, WriteRequest, WriteResult> load() {
        // The loader that defined the contract defines the provider too (one module, or one jar on
        // the class path): not the thread's context loader, which a framework may have replaced.
        return ServiceLoader.load(CarefulPath.class, CarefulPath.class.getClassLoader()).findFirst()
                .orElseThrow(() -> new IllegalStateException("no " + CarefulPath.class.getName()
                        + " provider next to " + MsrAccess.class.getName() + ": the jar is incomplete"));
    }
}
