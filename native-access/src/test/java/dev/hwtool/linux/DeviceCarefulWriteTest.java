package dev.hwtool.linux;

import dev.hwtool.linux.sys.FixtureTree;
import dev.hwtool.linux.sys.Bindings;
import dev.hwtool.api.WriteRequest;
import dev.hwtool.api.WriteResult;
import dev.hwtool.bind.NativeBinding;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code MsrAccess.write(WriteRequest)} on the hardware backend: DeviceMsrAccess over fixture
 * {@code /dev/cpu/N/msr} files (regular files, so the register write shows in a file), with the
 * catalog's view of each CPU from this machine's CPUID instruction, as the CLI's default.
 */
class DeviceCarefulWriteTest {

    @TempDir
    Path dir;

    private static long at(Path node, long offset) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel ch = FileChannel.open(node, StandardOpenOption.READ)) {
            assertEquals(8, ch.read(b, offset));
        }
        return b.flip().getLong();
    }

    @Test
    void aCarefulWriteOnTheHardwareBackendIsJournaledAsHwAndUndone() throws IOException {
        FixtureTree tree = FixtureTree.bareVm(dir.resolve("tree")).withMsr("default");
        Path node = tree.at("/dev/cpu/1/msr");
        for (Path n : List.of(tree.at("/dev/cpu/0/msr"), node)) {
            try (RandomAccessFile f = new RandomAccessFile(n.toFile(), "rw")) {
                f.setLength((1L << 32) + 8);
            }
        }
        Path journal = dir.resolve("state");
        try (NativeBinding b = Bindings.openDefault(); DeviceMsrAccess msr = new DeviceMsrAccess(b, tree.at("/dev"), tree.root)) {
            WriteResult r = msr.write(WriteRequest.field(1, "IA32_DEBUGCTL", "BTF", 1).journal(journal));
            assertFalse(r.simulated());
            assertTrue(r.writes().getFirst().verified(), r.toString());
            assertEquals(2, at(node, 0x1D9), "BTF is bit 1 (SDM Vol. 4, Table 2-2)");
            String line = Files.readString(journal.resolve("msr-journal.jsonl"));
            assertTrue(line.contains("\"backend\":\"hw\",\"cpu\":1,\"msr\":\"0x000001d9\""), line);
            msr.write(WriteRequest.undo(r.batch().getAsLong()).journal(journal));
            assertEquals(0, at(node, 0x1D9));
        }
    }
}
