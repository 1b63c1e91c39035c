package dev.hwtool.sim.cpu.internal;

import dev.hwtool.arch.msr.CpuContext;

/**
 * The door from the simulator's other packages to what {@code LogicalProcessor} keeps from its
 * users: its {@link CpuContext}, the catalog's view of the CPU (its CPUID and the
 * IA32_PERF_CAPABILITIES it reports), which the careful write path, the recorder's perf driver
 * and the scenario runner need. A public method would put a type of the api module's qualified
 * exports into the exported {@code dev.hwtool.sim.cpu} (ModuleBoundariesTest); this is the JDK's
 * SharedSecrets pattern instead: the class installs its view once, as it is initialised, and
 * callers look it up by that class.
 */
public final class CpuInternals {

    /** What is read of one simulated logical processor of type {@code C}. */
    public interface CpuView<C> {

        /** The catalog's view of {@code cpu} (with the simulated IA32_PERF_CAPABILITIES). */
        CpuContext context(C cpu);
    }

    private static Class<?> type;
    private static CpuView<?> view;

    private CpuInternals() {
    }

    /** Called once, by {@code type}'s static initialiser. */
    public static synchronized <C> void install(Class<C> type, CpuView<C> view) {
        if (CpuInternals.view != null) {
            throw new IllegalStateException("a CPU view is installed already, for " + CpuInternals.type.getName());
        }
        CpuInternals.type = type;
        CpuInternals.view = view;
    }

    /** The view {@code type} installed: initialises {@code type} first, which installs it. */
    @SuppressWarnings("unchecked") // checked: the view was installed with this very class
    public static <C> CpuView<C> view(Class<C> type) {
        try {
            Class.forName(type.getName(), true, type.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new AssertionError(type.getName() + " is loaded, yet cannot be found", e);
        }
        synchronized (CpuInternals.class) {
            if (CpuInternals.type != type) {
                throw new IllegalStateException(type.getName() + " installed no CPU view");
            }
            return (CpuView<C>) view;
        }
    }
}
