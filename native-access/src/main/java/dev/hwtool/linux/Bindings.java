package dev.hwtool.linux;

import dev.hwtool.bind.NativeBinding;
import dev.hwtool.ffm.FfmBinding;

import java.util.List;

/**
 * Hands out a {@link NativeBinding} by name. JNA is referenced only from {@link #openJna()},
 * so a process that never asks for {@code jna} never loads a JNA class.
 */
public final class Bindings {

    /** The binding used unless another is asked for. */
    public static final String DEFAULT = "ffm";

    private static final List<String> NAMES = List.of("ffm", "jna");

    private Bindings() {
    }

    /** The valid binding names, the default first. */
    public static List<String> names() {
        return NAMES;
    }

    /**
     * @param name {@code ffm} or {@code jna}
     * @throws IllegalArgumentException for any other name
     */
    public static NativeBinding open(String name) {
        return switch (name) {
            case "ffm" -> new FfmBinding();
            case "jna" -> openJna();
            case null -> throw unknown("null");
            default -> throw unknown("'" + name + "'");
        };
    }

    /** The default binding, {@value #DEFAULT}. */
    public static NativeBinding openDefault() {
        return open(DEFAULT);
    }

    private static NativeBinding openJna() {
        return new dev.hwtool.jna.JnaBinding();
    }

    private static IllegalArgumentException unknown(String shown) {
        return new IllegalArgumentException("unknown binding " + shown + "; valid: " + String.join(", ", NAMES));
    }
}
