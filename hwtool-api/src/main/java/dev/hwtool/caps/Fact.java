package dev.hwtool.caps;

import java.util.Optional;
import java.util.function.Function;

/**
 * One thing read from the kernel's files, with how the reading went: a value, or why there is
 * none. "Absent" (the file does not exist — the kernel does not offer it) and "unreadable" (it
 * exists but this process may not read it) lead to different verdicts, so they stay distinct.
 */
public sealed interface Fact<T> permits Fact.Known, Fact.Absent, Fact.Unreadable, Fact.Malformed {

    /** The file was read and parsed. */
    record Known<T>(T value) implements Fact<T> {
    }

    /** The file does not exist. */
    record Absent<T>(String path) implements Fact<T> {
    }

    /** The file exists but reading it failed, e.g. EACCES. */
    record Unreadable<T>(String path, String error) implements Fact<T> {
    }

    /** The file was read but its text is not what the kernel writes there. */
    record Malformed<T>(String path, String text) implements Fact<T> {
    }

    static <T> Fact<T> known(T value) {
        return new Known<>(value);
    }

    static <T> Fact<T> absent(String path) {
        return new Absent<>(path);
    }

    static <T> Fact<T> unreadable(String path, String error) {
        return new Unreadable<>(path, error);
    }

    static <T> Fact<T> malformed(String path, String text) {
        return new Malformed<>(path, text);
    }

    default Optional<T> optional() {
        return this instanceof Known<T> k ? Optional.of(k.value()) : Optional.empty();
    }

    default boolean isKnown() {
        return this instanceof Known;
    }

    default boolean isAbsent() {
        return this instanceof Absent;
    }

    default T orElse(T other) {
        return optional().orElse(other);
    }

    /** The same outcome with the value transformed; a missing value stays missing for the same reason. */
    default <R> Fact<R> map(Function<? super T, ? extends R> f) {
        return switch (this) {
            case Known<T> k -> new Known<>(f.apply(k.value()));
            case Absent<T> a -> new Absent<>(a.path());
            case Unreadable<T> u -> new Unreadable<>(u.path(), u.error());
            case Malformed<T> m -> new Malformed<>(m.path(), m.text());
        };
    }

    /** One word for text output: the value, or "absent" / "unreadable" / "malformed". */
    default String describe() {
        return switch (this) {
            case Known<T> k -> String.valueOf(k.value());
            case Absent<T> a -> "absent";
            case Unreadable<T> u -> "unreadable";
            case Malformed<T> m -> "malformed";
        };
    }
}
