package dev.hwtool.sim.workload;

import dev.hwtool.api.BranchType;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class TraceWorkloadTest {

    @TempDir
    Path tmp;

    @Test
    void aFileIsRetiredInOrder() throws IOException {
        Path f = Files.writeString(tmp.resolve("a.trace"), "0x10 0x20 call\n0x30 0x15 ret mispredict\n");
        RecordingCpu cpu = RecordingCpu.running(new TraceWorkload(f));
        assertEquals(List.of(new RecordingCpu.Branch(0x10, 0x20, BranchType.NEAR_REL_CALL, 3, false),
                new RecordingCpu.Branch(0x30, 0x15, BranchType.NEAR_RET, 3, true)), cpu.events);
        assertEquals(cpu.events, RecordingCpu.record(new TraceWorkload(f)), "a file can be run again");
    }

    @Test
    void aBadRegularFileRetiresNothing() throws IOException {
        Path f = Files.writeString(tmp.resolve("b.trace"), "1 2\n3 4\n5 6 cpl=9\n");
        RecordingCpu cpu = new RecordingCpu();
        HwException e = assertThrows(HwException.class, () -> new TraceWorkload(f).run(cpu));
        assertEquals(f + ":3: bad cpl (cpl=9), expected cpl=0..3", e.getMessage());
        assertEquals(List.of(), cpu.events);
    }

    @Test
    void standardInputIsStreamedAndSaysHowFarItGot() {
        InputStream saved = System.in;
        try {
            System.setIn(new ByteArrayInputStream("1 2\n3 4\nnope\n".getBytes(StandardCharsets.UTF_8)));
            RecordingCpu cpu = new RecordingCpu();
            HwException e = assertThrows(HwException.class, () -> TraceWorkload.stdin().run(cpu));
            assertEquals("<stdin>:3: bad FROM address (nope), expected 0x-hex or decimal, unsigned 64-bit;"
                    + " stopped after 2 branches", e.getMessage());
            assertEquals(2, cpu.events.size());
        } finally {
            System.setIn(saved);
        }
    }

    @Test
    void aMissingFileIsBadInput() {
        Path f = tmp.resolve("gone.trace");
        HwException e = assertThrows(HwException.class, () -> new TraceWorkload(f).run(new RecordingCpu()));
        assertEquals(Cause.BAD_INPUT, e.cause());
        assertEquals("cannot read " + f + ": no such file", e.getMessage());
    }

    @Test
    void malformedUtf8IsNotText() throws IOException {
        Path f = Files.write(tmp.resolve("c.trace"), new byte[] {'1', ' ', '2', ' ', (byte) 0xff, '\n'});
        HwException e = assertThrows(HwException.class, () -> new TraceWorkload(f).run(new RecordingCpu()));
        assertEquals(f + ":1: not UTF-8 text (byte 0xff)", e.getMessage());
    }

    @Test
    void describeIsTheSpec() {
        assertEquals("trace -", TraceWorkload.stdin().describe());
        assertEquals("trace /x/y.trace", new TraceWorkload(Path.of("/x/y.trace")).describe());
    }
}
