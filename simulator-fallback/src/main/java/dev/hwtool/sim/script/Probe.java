package dev.hwtool.sim.script;

/** What an {@code expect} line reads: a register (or one field), 8 bytes of memory, or a count. */
public sealed interface Probe {

    /** As the script writes it. */
    String text();

    record Register(RegisterRef register) implements Probe {
        @Override
        public String text() {
            return register.text();
        }
    }

    record Memory(long address) implements Probe {
        @Override
        public String text() {
            return "mem64:0x" + Long.toHexString(address);
        }
    }

    record Counted(Count count) implements Probe {
        @Override
        public String text() {
            return count.scriptName();
        }
    }
}
