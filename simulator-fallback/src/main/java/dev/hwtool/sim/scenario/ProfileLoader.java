package dev.hwtool.sim.scenario;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.sim.Profile;
import dev.hwtool.sim.Profiles;
import dev.hwtool.sim.script.Scenarios;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How a scenario's {@code profile NAME|FILE} is found: a built-in profile by name, else a dump
 * file. A relative file is looked up next to the script first, so a scenario can ship the dump
 * it needs beside it.
 */
@FunctionalInterface
public interface ProfileLoader {

    /** @throws dev.hwtool.api.HwException BAD_INPUT when there is no such profile or the dump is malformed */
    Profile load(String nameOrFile);

    /** Built-in names and files as {@link Profiles#resolve} finds them (relative to the working directory). */
    static ProfileLoader standard() {
        return Profiles::resolve;
    }

    /** As {@link #standard()}, with relative files resolved against {@code directory} first. */
    static ProfileLoader relativeTo(Path directory) {
        return nameOrFile -> {
            boolean builtIn = Profiles.builtIn().stream().anyMatch(e -> e.name().equals(nameOrFile));
            if (!builtIn && directory != null) {
                try {
                    Path p = Path.of(nameOrFile);
                    if (!p.isAbsolute() && Files.isRegularFile(directory.resolve(p))) {
                        return Profiles.resolve(directory.resolve(p).toString());
                    }
                } catch (java.nio.file.InvalidPathException e) {
                    // Not a path at all: let Profiles name the problem.
                }
            }
            return Profiles.resolve(nameOrFile);
        };
    }

    /** Built-in profiles by name, else a dump shipped beside the scenarios ({@link Scenarios#dump}). */
    static ProfileLoader shipped() {
        return nameOrFile -> {
            if (Profiles.builtIn().stream().anyMatch(e -> e.name().equals(nameOrFile))) {
                return Profiles.resolve(nameOrFile);
            }
            String text = Scenarios.dump(nameOrFile).orElse(null);
            if (text == null) {
                throw new HwException(Cause.BAD_INPUT, "no simulator profile '" + nameOrFile
                        + "' among the built-in profiles or the dumps shipped with the scenarios");
            }
            try {
                return Profile.parse(nameOrFile, "CPUID dump " + nameOrFile + " shipped with the scenarios", true, text);
            } catch (HwException e) {
                throw new IllegalStateException("shipped dump " + nameOrFile + " is corrupt: " + e.getMessage(), e);
            }
        };
    }
}
