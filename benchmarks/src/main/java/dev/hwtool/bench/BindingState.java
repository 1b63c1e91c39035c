package dev.hwtool.bench;

import dev.hwtool.bind.NativeBinding;
import dev.hwtool.linux.sys.Bindings;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One binding ({@code ffm} or {@code jna}, a JMH parameter) with the files the benchmarks read:
 * {@code /dev/cpu/0/cpuid} and an 8-byte temp file. Opened once per trial so that only the
 * call itself is measured, as in the C reference (benchmarks/src/main/c/cpuid_loop.c).
 */
@State(Scope.Thread)
public class BindingState {

    /** The CPUID device of CPU 0 (arch/x86/kernel/cpuid.c). */
    static final String CPUID_DEVICE = "/dev/cpu/0/cpuid";

    @Param({"ffm", "jna"})
    public String binding;

    NativeBinding nb;
    /** -1 when the device is absent: the device benchmarks then fail by name, the rest run. */
    int cpuidFd = -1;
    int tmpFd = -1;
    private Path tmp;

    /** One CPUID leaf: EAX, EBX, ECX, EDX. */
    final byte[] regs = new byte[16];
    final byte[] word = new byte[8];

    @Setup(Level.Trial)
    public void open() throws IOException {
        nb = Bindings.open(binding);
        tmp = Files.createTempFile("hwtool-bench", ".bin");
        Files.write(tmp, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        tmpFd = nb.open(tmp.toString(), NativeBinding.O_RDONLY | NativeBinding.O_CLOEXEC);
        if (Files.exists(Path.of(CPUID_DEVICE))) {
            cpuidFd = nb.open(CPUID_DEVICE, NativeBinding.O_RDONLY | NativeBinding.O_CLOEXEC);
        }
    }

    int cpuidFd() {
        if (cpuidFd < 0) {
            throw new IllegalStateException(CPUID_DEVICE + " is absent (modprobe cpuid)");
        }
        return cpuidFd;
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        if (cpuidFd >= 0) {
            nb.close(cpuidFd);
        }
        if (tmpFd >= 0) {
            nb.close(tmpFd);
        }
        nb.close();
        Files.deleteIfExists(tmp);
    }
}
