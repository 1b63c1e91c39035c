package dev.hwtool.sim.script;

import java.util.List;

/**
 * A whole parsed scenario: where it came from (for {@code ORIGIN:LINE:} messages) and its
 * commands in order. Nothing runs until the whole text has parsed.
 */
public record Script(String origin, List<Command> commands) {

    public Script {
        commands = List.copyOf(commands);
    }
}
