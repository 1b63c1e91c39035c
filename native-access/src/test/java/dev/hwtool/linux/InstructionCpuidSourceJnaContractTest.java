package dev.hwtool.linux;

import dev.hwtool.api.CpuidSource;
import dev.hwtool.api.CpuidSourceContract;
import dev.hwtool.jna.JnaBinding;

/** The CpuidSource contract on the real CPU, through the instruction and the JNA binding. */
class InstructionCpuidSourceJnaContractTest extends CpuidSourceContract {
    @Override
    protected CpuidSource source() {
        return new InstructionCpuidSource(new JnaBinding());
    }
}
