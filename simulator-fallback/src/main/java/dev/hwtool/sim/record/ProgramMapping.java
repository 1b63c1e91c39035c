package dev.hwtool.sim.record;

import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;

/**
 * One executable mapping of a recorded program, as PERF_RECORD_MMAP2 carries it
 * (include/uapi/linux/perf_event.h): where it is mapped, from which file offset, of which file.
 * The simulated recorder fills it for the simulated program, so that perf resolves its addresses
 * as it does a real program's.
 *
 * @param start    the first mapped address
 * @param length   bytes mapped
 * @param pgoff    the file offset mapped at {@code start}
 * @param filename the file as perf shows and opens it: the program image's path, or a name in
 *                 brackets (as perf's own "[vdso]") when there is no file
 * @param buildId  the file's GNU build id, hex, when known
 */
public record ProgramMapping(long start, long length, long pgoff, String filename, Optional<String> buildId) {

    public ProgramMapping {
        Objects.requireNonNull(filename, "filename");
        Objects.requireNonNull(buildId, "buildId");
        if (length <= 0 || Long.compareUnsigned(start, -length) > 0) {
            throw new IllegalArgumentException("a mapping of " + length + " bytes at 0x" + Long.toHexString(start));
        }
        if (filename.isEmpty() || filename.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("a mapping's file name must be non-empty text: '" + filename + "'");
        }
        buildId.ifPresent(HexFormat.of()::parseHex);
    }

    /** A mapping with no file behind it. */
    public static ProgramMapping anonymous(long start, long length, String name) {
        return new ProgramMapping(start, length, 0, "[" + name + "]", Optional.empty());
    }
}
