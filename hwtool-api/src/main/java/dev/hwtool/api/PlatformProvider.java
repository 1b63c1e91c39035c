package dev.hwtool.api;

/**
 * A backend {@link Platform#open(Platform.Options)} can choose, found through
 * {@link java.util.ServiceLoader}: the Linux hardware backend (native-access) and the simulator
 * (simulator-fallback). Not for library users: they call {@link Platform#open}.
 */
public interface PlatformProvider {

    /** The kind of platform {@link #open} gives. */
    Platform.Kind kind();

    /**
     * Opens a platform.
     *
     * @param options        the caller's options
     * @param fallbackReason for the simulator: why the hardware was not used (shown in its
     *                       description), or null when the simulator was asked for directly
     */
    Platform open(Platform.Options options, String fallbackReason);
}
