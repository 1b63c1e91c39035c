package dev.hwtool.bench;

import dev.hwtool.linux.DeviceCpuidSource;
import dev.hwtool.linux.InstructionCpuidSource;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** hwtool's two hardware CPUID sources over the binding of {@link BindingState}. */
@State(Scope.Thread)
public class SourceState {

    DeviceCpuidSource device;
    InstructionCpuidSource instruction;

    @Setup(Level.Trial)
    public void open(BindingState s) {
        device = new DeviceCpuidSource(s.nb);
        instruction = new InstructionCpuidSource(s.nb);
    }

    @TearDown(Level.Trial)
    public void close() {
        device.close();
    }
}
