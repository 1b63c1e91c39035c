package dev.hwtool.cli;

import java.util.List;

/**
 * What {@code hwtool stat} measured.
 *
 * @param backend   "hardware" (or the simulator's name)
 * @param command   the command's argv
 * @param events    one entry per requested event, in order
 * @param exitCode  the command's exit status; 128 + N when signal N ended it, as shells report it
 * @param elapsedNs wall time from the command's release to its end
 */
record StatResult(String backend, List<String> command, List<EventCount> events, int exitCode, long elapsedNs) {
}
