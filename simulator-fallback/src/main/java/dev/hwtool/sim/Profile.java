package dev.hwtool.sim;

import dev.hwtool.arch.cpuid.CpuidDump;

/**
 * A simulated processor: the CPUID answers of a real one, recorded in a dump.
 *
 * @param name      the built-in name ("skylake") or the file it was loaded from
 * @param processor what the dump was taken from, e.g. "Core i7-6700K"
 * @param builtIn   shipped with hwtool (see profiles/ATTRIBUTION.md) rather than a user's file
 */
public record Profile(String name, String processor, boolean builtIn, CpuidDump cpuid) {
}
