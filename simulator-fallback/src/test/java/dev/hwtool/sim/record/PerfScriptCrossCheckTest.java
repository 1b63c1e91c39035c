package dev.hwtool.sim.record;

import dev.hwtool.api.RecordRequest;
import dev.hwtool.api.RecordRequest.Privilege;
import dev.hwtool.api.RecordTarget;
import dev.hwtool.api.BranchFilter;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.abi.PerfRecord;
import dev.hwtool.sim.SimulatedPlatform;
import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * An independent reader: the simulator's records, put in a minimal perf.data (header, one attr,
 * the records as the data section; tools/perf/Documentation/perf.data-file-format.txt), are read
 * by the installed {@code perf script}, which must see the same branches.
 */
class PerfScriptCrossCheckTest {

    static final Path PERF = Path.of("/usr/bin/perf");

    /** perf.data: struct perf_file_header (104 bytes), perf_file_attr {attr, ids section}, ids, data. */
    static Path perfData(Path dir, CollectingSink sink) throws IOException {
        PerfEventAttr attr = sink.info.events().getFirst().attr();
        byte[] a = attr.encode(PerfEventAttr.SIZE_VER7); // perf 6.1 reads attrs up to its own 128 bytes
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        for (byte[] r : sink.records) {
            data.write(r);
        }
        long attrsOffset = 104;
        long attrSize = a.length + 16;
        long idsOffset = attrsOffset + attrSize;
        long dataOffset = idsOffset + 8;
        ByteBuffer b = ByteBuffer.allocate((int) (dataOffset + data.size())).order(ByteOrder.LITTLE_ENDIAN);
        b.put("PERFILE2".getBytes(StandardCharsets.US_ASCII)).putLong(104).putLong(attrSize)
                .putLong(attrsOffset).putLong(attrSize)
                .putLong(dataOffset).putLong(data.size())
                .putLong(0).putLong(0)
                .put(new byte[32]);
        b.put(a).putLong(idsOffset).putLong(8);
        b.putLong(SimulatedRecorder.EVENT_ID);
        b.put(data.toByteArray());
        Path f = dir.resolve("perf.data");
        Files.write(f, b.array());
        return f;
    }

    /** perf script's lines; a perf that does not finish in 60 s is a failure (a hang is a bug, not a missing tool). */
    static List<String> perfScript(Path file, String fields) throws Exception {
        Path err = file.resolveSibling("perf-script.err");
        Path out = file.resolveSibling("perf-script.out");
        Process p = new ProcessBuilder(PERF.toString(), "script", "-f", "-i", file.toString(), "-F", fields)
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            fail("perf script -F " + fields + " did not finish in 60 s: " + read(err));
        }
        assertEquals(0, p.exitValue(), () -> "perf script failed: " + read(err));
        return Files.readString(out, StandardCharsets.UTF_8).lines()
                .map(String::strip).filter(l -> !l.isEmpty()).toList();
    }

    private static String read(Path f) {
        try {
            return Files.readString(f).replace('\n', ' ');
        } catch (IOException e) {
            return e.toString();
        }
    }

    @Test
    void perfScriptReadsTheBtsSamples(@TempDir Path dir) throws Exception {
        Preconditions.tool(PERF.toString(), "linux-perf");
        String spec = "loop seed=3 iterations=20 body=4";
        CollectingSink sink = new CollectingSink();
        ((SimulatedRecorder) SimulatedPlatform.of("skylake").recorder()).record(new RecordRequest.Bts(Privilege.USER),
                new RecordTarget.Workload(spec, Path.of("")), sink);
        List<String> lines = perfScript(perfData(dir, sink), "ip,addr");
        List<PerfRecord.Sample> samples = sink.samples();
        assertEquals(samples.size(), lines.size(), "one line per sample");
        for (int i = 0; i < samples.size(); i++) {
            String[] w = lines.get(i).split("\\s+"); // "FROM => TO" for a branch sample with ADDR
            assertEquals(samples.get(i).ip(), Long.parseUnsignedLong(w[0], 16), lines.get(i));
            assertEquals(samples.get(i).addr(), Long.parseUnsignedLong(w[w.length - 1], 16), lines.get(i));
        }
    }

    @Test
    void perfScriptReadsTheBranchStacks(@TempDir Path dir) throws Exception {
        Preconditions.tool(PERF.toString(), "linux-perf");
        String spec = "calltree seed=5 depth=5 fanout=2 calls=40";
        CollectingSink sink = new CollectingSink();
        ((SimulatedRecorder) SimulatedPlatform.of("skylake").recorder()).record(new RecordRequest.Lbr(Privilege.USER,
                BranchFilter.ANY, 20), new RecordTarget.Workload(spec, Path.of("")), sink);
        List<String> lines = perfScript(perfData(dir, sink), "brstack");
        List<PerfRecord.Sample> samples = sink.samples();
        assertEquals(samples.size(), lines.size());
        for (int i = 0; i < samples.size(); i++) {
            List<String> expected = new ArrayList<>();
            for (var e : samples.get(i).branchStack().orElseThrow().entries()) {
                expected.add("0x" + Long.toHexString(e.from()) + "/0x" + Long.toHexString(e.to()) + "/"
                        + (e.mispred() ? "M" : "P"));
            }
            List<String> got = new ArrayList<>();
            for (String w : lines.get(i).split("\\s+")) {
                String[] parts = w.split("/");
                got.add(parts[0] + "/" + parts[1] + "/" + parts[2]);
            }
            assertEquals(expected, got, lines.get(i));
        }
    }
}
