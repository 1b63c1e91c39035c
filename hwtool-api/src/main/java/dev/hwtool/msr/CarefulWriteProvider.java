package dev.hwtool.msr;

import dev.hwtool.api.MsrAccess;
import dev.hwtool.api.WriteRequest;
import dev.hwtool.api.WriteResult;
import dev.hwtool.spi.CarefulPath;

import java.nio.file.Path;
import java.util.List;

/**
 * {@link CarefulWrites} as the service the contract's {@link MsrAccess} default methods load
 * (module-info {@code provides}; META-INF/services on the class path).
 */
public final class CarefulWriteProvider implements CarefulPath<MsrAccess, WriteRequest, WriteResult> {

    /** For {@link java.util.ServiceLoader}. */
    public CarefulWriteProvider() {
    }

    @Override
    public WriteResult write(MsrAccess access, WriteRequest request) {
        return CarefulWrites.write(access, request);
    }

    @Override
    public void save(MsrAccess access, Path file, List<Integer> cpus, List<String> registers) {
        CarefulWrites.save(access, file, cpus, registers);
    }

    @Override
    public long read(MsrAccess access, int cpu, String register) {
        return CarefulWrites.read(access, cpu, register);
    }

    @Override
    public long readField(MsrAccess access, int cpu, String register, String field) {
        return CarefulWrites.readField(access, cpu, register, field);
    }
}
