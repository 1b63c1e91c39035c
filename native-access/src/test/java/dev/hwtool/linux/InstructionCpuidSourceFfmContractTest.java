package dev.hwtool.linux;

import dev.hwtool.api.CpuidSource;
import dev.hwtool.api.CpuidSourceContract;
import dev.hwtool.ffm.FfmBinding;

/** The CpuidSource contract on the real CPU, through the instruction and the FFM binding. */
class InstructionCpuidSourceFfmContractTest extends CpuidSourceContract {
    @Override
    protected CpuidSource source() {
        return new InstructionCpuidSource(new FfmBinding());
    }
}
