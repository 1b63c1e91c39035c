package dev.hwtool.io;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The output policy in-process: regular files replaced atomically with their mode, links kept,
 * special files written through, refusals before any write. Full and read-only file systems and
 * signals need a mount namespace or a process of their own: hwtool-cli's OutputFaultsTest.
 */
class OutputFileTest {

    @TempDir
    Path dir;

    private static final byte[] CONTENT = "new content\n".getBytes(StandardCharsets.UTF_8);

    private List<String> names() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aNewFileGetsTheModeOfTheShellsRedirection() throws IOException {
        Path ref = Files.createFile(dir.resolve("ref"), PosixFilePermissions.asFileAttribute(OutputFile.NEW_FILE_MODE));
        Path f = dir.resolve("out");
        OutputFile.write(f, CONTENT);
        assertArrayEquals(CONTENT, Files.readAllBytes(f));
        assertEquals(Files.getPosixFilePermissions(ref), Files.getPosixFilePermissions(f), "0666 minus the umask");
        assertEquals(List.of("out", "ref"), names(), "no temporary file left");
    }

    @Test
    void aPrivateNewFileIsOwnerOnlyAndAReplacedOneKeepsItsMode() throws IOException {
        Path f = dir.resolve("journal");
        OutputFile.write(f, CONTENT, OutputFile.Option.PRIVATE);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
        OutputFile.write(f, CONTENT, OutputFile.Option.PRIVATE, OutputFile.Option.PRIVATE);
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
    }

    @Test
    void aLiveFileIsWrittenInPlaceAsItGoesAndKeepsTheOtherRules() throws IOException {
        Path f = Files.writeString(dir.resolve("trace.jsonl"), "a much longer previous content\n");
        Object inode = Files.getAttribute(f, "unix:ino");
        try (OutputFile out = OutputFile.open(f, OutputFile.Option.LIVE)) {
            assertEquals(0, Files.size(f), "truncated when opened, as the shell's >");
            out.write(ByteBuffer.wrap("one\n".getBytes(StandardCharsets.UTF_8)));
            assertEquals("one\n", Files.readString(f), "a reader sees a line before the commit");
            out.write(ByteBuffer.wrap("two\n".getBytes(StandardCharsets.UTF_8)));
            out.commit();
        }
        assertEquals("one\ntwo\n", Files.readString(f));
        assertEquals(inode, Files.getAttribute(f, "unix:ino"), "the same file, not a replacement");
        Path fresh = dir.resolve("new.jsonl");
        OutputFile.open(fresh, OutputFile.Option.LIVE).close();
        assertTrue(Files.isRegularFile(fresh));
        HwException intoDir = assertThrows(HwException.class, () -> OutputFile.open(dir, OutputFile.Option.LIVE));
        assertEquals(Cause.OS_ERROR, intoDir.cause());
        assertEquals("cannot write " + dir + ": Is a directory", intoDir.getMessage());
        HwException missing = assertThrows(HwException.class,
                () -> OutputFile.open(dir.resolve("no/t"), OutputFile.Option.LIVE));
        assertTrue(missing.getMessage().startsWith("cannot write " + dir.resolve("no/t") + ": directory " + dir.resolve("no")
                + " does not exist"), missing.getMessage());
        try (OutputFile full = OutputFile.open(Path.of("/dev/full"), OutputFile.Option.LIVE)) {
            HwException e = assertThrows(HwException.class, () -> full.write(ByteBuffer.wrap(CONTENT)));
            assertEquals("cannot write /dev/full: No space left on device", e.getMessage());
        }
    }

    @Test
    void aReplacedFileKeepsItsMode() throws IOException {
        for (String mode : List.of("rw-------", "rw-r--r--", "rwxr-x---", "r--r--r--")) {
            Path f = dir.resolve("keep-" + mode);
            Files.writeString(f, "old");
            Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
            if (mode.charAt(1) != 'w' && !dev.hwtool.testing.Preconditions.hasCapability(1) /* CAP_DAC_OVERRIDE */) {
                // A file its owner may not write is refused, as the shell's > is (open(2) EACCES);
                // CAP_DAC_OVERRIDE (root's, capabilities(7)) lets its holder replace it.
                dev.hwtool.api.HwException e = assertThrows(dev.hwtool.api.HwException.class,
                        () -> OutputFile.write(f, CONTENT));
                assertTrue(e.getMessage().endsWith(": Permission denied"), e.getMessage());
                assertEquals("old", Files.readString(f), "the refused file is untouched");
                continue;
            }
            OutputFile.write(f, CONTENT);
            assertArrayEquals(CONTENT, Files.readAllBytes(f));
            assertEquals(mode, PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        }
    }

    @Test
    void theReplacementIsAtomicAndCloseWithoutCommitLeavesThePreviousFile() throws IOException {
        Path f = Files.writeString(dir.resolve("data"), "previous");
        try (OutputFile out = OutputFile.open(f)) {
            assertEquals(OutputFile.Kind.REPLACE, out.kind());
            out.write(ByteBuffer.wrap(CONTENT));
            assertEquals("previous", Files.readString(f), "nothing reaches the target before commit");
            assertEquals(2, names().size(), "the temporary file beside it: " + names());
            assertTrue(names().stream().anyMatch(n -> n.matches("\\.data\\.[0-9a-f]{16}\\.tmp")), names().toString());
        }
        assertEquals("previous", Files.readString(f));
        assertEquals(List.of("data"), names());
    }

    @Test
    void keepOldKeepsThePreviousRegularFileBesideTheNew() throws IOException {
        Path f = Files.writeString(dir.resolve("perf.data"), "first");
        OutputFile.write(f, CONTENT, OutputFile.Option.KEEP_OLD);
        assertEquals("first", Files.readString(dir.resolve("perf.data.old")));
        OutputFile.write(f, "third".getBytes(StandardCharsets.UTF_8), OutputFile.Option.KEEP_OLD);
        assertArrayEquals(CONTENT, Files.readAllBytes(dir.resolve("perf.data.old")));
        assertEquals("third", Files.readString(f));
        assertEquals(List.of("perf.data", "perf.data.old"), names());
    }

    @Test
    void aSymlinkToARegularFileStaysALinkAndItsTargetIsReplaced() throws IOException {
        Path real = Files.writeString(dir.resolve("real"), "old");
        Files.setPosixFilePermissions(real, PosixFilePermissions.fromString("rw-r-----"));
        Path link = Files.createSymbolicLink(dir.resolve("link"), Path.of("real"));
        Path chain = Files.createSymbolicLink(dir.resolve("chain"), link);
        OutputFile.write(chain, CONTENT, OutputFile.Option.KEEP_OLD);
        assertTrue(Files.isSymbolicLink(link) && Files.isSymbolicLink(chain), "the links stay links");
        assertEquals(Path.of("real"), Files.readSymbolicLink(link));
        assertArrayEquals(CONTENT, Files.readAllBytes(real));
        assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(real)));
        assertEquals("old", Files.readString(dir.resolve("real.old")), "NAME.old beside the file replaced");
        assertEquals(List.of("chain", "link", "real", "real.old"), names());
    }

    @Test
    void aDanglingSymlinkCreatesItsTarget() throws IOException {
        Path link = Files.createSymbolicLink(dir.resolve("link"), Path.of("new"));
        OutputFile.write(link, CONTENT);
        assertTrue(Files.isSymbolicLink(link));
        assertArrayEquals(CONTENT, Files.readAllBytes(dir.resolve("new")));
    }

    @Test
    void devNullIsWrittenThroughAndStaysACharacterDevice() throws IOException {
        Path dev = Path.of("/dev/null");
        Object rdev = Files.getAttribute(dev, "unix:rdev");
        try (OutputFile out = OutputFile.open(dev, OutputFile.Option.KEEP_OLD)) {
            assertEquals(OutputFile.Kind.THROUGH, out.kind());
            FileChannel ch = out.channel();
            ch.write(ByteBuffer.wrap(CONTENT), 0);
            ch.write(ByteBuffer.wrap(CONTENT), 4096);
            out.commit();
        }
        assertTrue(isCharacterDevice(dev), "/dev/null is still a character device");
        assertEquals(rdev, Files.getAttribute(dev, "unix:rdev"));
        assertFalse(Files.exists(Path.of("/dev/null.old"), LinkOption.NOFOLLOW_LINKS), "no NAME.old beside a device");
    }

    @Test
    void devFullFailsWithEnospcInWords() {
        HwException e = assertThrows(HwException.class, () -> OutputFile.write(Path.of("/dev/full"), CONTENT,
                OutputFile.Option.KEEP_OLD));
        assertEquals(Cause.OS_ERROR, e.cause());
        assertEquals("cannot write /dev/full: No space left on device", e.getMessage());
        assertTrue(isCharacterDevice(Path.of("/dev/full")));
        assertFalse(Files.exists(Path.of("/dev/full.old"), LinkOption.NOFOLLOW_LINKS));
        // Through a channel too (a recorder's positional writes).
        try (OutputFile out = OutputFile.open(Path.of("/dev/full"))) {
            IOException io = assertThrows(IOException.class, () -> out.channel().write(ByteBuffer.wrap(CONTENT), 0));
            assertEquals("No space left on device", IoErrors.reason(io));
        }
    }

    @Test
    void aFifoIsOpenedWhenTheContentIsReadyAndWrittenThrough() throws Exception {
        Path fifo = dir.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        // Opening for writing blocks until a reader comes (fifo(7)): open() must not.
        try (OutputFile out = OutputFile.open(fifo)) {
            assertEquals(OutputFile.Kind.STREAM, out.kind());
            CompletableFuture<byte[]> reader = CompletableFuture.supplyAsync(() -> {
                try {
                    return Files.readAllBytes(fifo);
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            // A positional writer gets a spool, copied through at commit.
            FileChannel ch = out.channel();
            ch.write(ByteBuffer.wrap("XXXXcontent\n".getBytes(StandardCharsets.UTF_8)), 0);
            ch.write(ByteBuffer.wrap("new ".getBytes(StandardCharsets.UTF_8)), 0);
            out.commit();
            assertArrayEquals(CONTENT, reader.get(60, TimeUnit.SECONDS));
        }
        assertEquals(0010000, type(fifo), "still a FIFO");
        assertEquals(List.of("fifo"), names());
    }

    /**
     * A descriptor of this JVM's own is written through only when it is declared passed
     * ({@link Descriptors#PROPERTY}, which the launchers set): this test opens it itself, so it
     * declares it, as a library user may.
     */
    @Test
    void aDescriptorLinkToARegularFileIsAppendedToNotReplaced() throws IOException {
        Path f = Files.writeString(dir.resolve("stdout-file"), "before\n");
        String property = System.getProperty(Descriptors.PROPERTY);
        try (FileOutputStream held = new FileOutputStream(f.toFile(), true)) {
            Path fd = descriptorOf(f);
            HwException refused = assertThrows(HwException.class, () -> OutputFile.open(fd));
            assertTrue(refused.getMessage().contains(": descriptor " + fd.getFileName() + " "), refused.getMessage());
            System.setProperty(Descriptors.PROPERTY, "0,1,2," + fd.getFileName());
            Object inode = Files.getAttribute(f, "unix:ino");
            try (OutputFile out = OutputFile.open(fd, OutputFile.Option.KEEP_OLD)) {
                assertEquals(OutputFile.Kind.STREAM, out.kind());
                out.channel().write(ByteBuffer.wrap(CONTENT), 0);
                out.commit();
            }
            assertEquals(inode, Files.getAttribute(f, "unix:ino"), "the file the descriptor holds, not a new one");
            assertEquals("before\nnew content\n", Files.readString(f));
            assertEquals(List.of("stdout-file"), names());
        } finally {
            if (property == null) {
                System.clearProperty(Descriptors.PROPERTY);
            } else {
                System.setProperty(Descriptors.PROPERTY, property);
            }
        }
    }

    @Test
    void descriptorsOfThisProcessAreFoundByEveryName() throws IOException {
        long pid = ProcessHandle.current().pid();
        for (String p : List.of("/dev/stdout", "/proc/self/fd/1", "/dev/fd/1", "/proc/" + pid + "/fd/1", "/proc/thread-self/fd/1")) {
            Path path = Path.of(p);
            // /dev/stdout is a link to /proc/self/fd/1: the policy reaches the descriptor through it.
            Path named = Files.isSymbolicLink(path) && !path.startsWith("/proc") && !path.startsWith("/dev/fd")
                    ? path.resolveSibling(Files.readSymbolicLink(path)) : path;
            assertEquals(1, Descriptors.ownDescriptor(named), p);
        }
        Path link = Files.createSymbolicLink(dir.resolve("fds"), Path.of("/proc/self/fd"));
        assertEquals(2, Descriptors.ownDescriptor(link.resolve("2")), "through a link to the directory");
        assertEquals(-1, Descriptors.ownDescriptor(Path.of("/proc/1/fd/1")), "another process's");
        assertEquals(-1, Descriptors.ownDescriptor(dir.resolve("1")), "a plain file named 1");
    }

    @Test
    void theLaunchersListIsParsedAndAMalformedOneIsNone() {
        assertEquals(java.util.Set.of(0, 1, 2, 10), Descriptors.parse("0,1,10,2"));
        assertEquals(java.util.Set.of(), Descriptors.parse(""));
        assertNull(Descriptors.parse("0,x"));
        assertNull(Descriptors.parse(null));
    }

    @Test
    void aDirectoryIsRefusedBeforeAnyWrite() throws IOException {
        Path d = Files.createDirectory(dir.resolve("d"));
        HwException e = assertThrows(HwException.class, () -> OutputFile.open(d));
        assertEquals(Cause.OS_ERROR, e.cause());
        assertEquals("cannot write " + d + ": Is a directory", e.getMessage());
        try (Stream<Path> s = Files.list(d)) {
            assertEquals(0, s.count());
        }
    }

    @Test
    void aMissingDirectoryIsRefusedAndNeverCreated() {
        Path f = dir.resolve("no/such/out");
        HwException e = assertThrows(HwException.class, () -> OutputFile.open(f));
        assertEquals(Cause.OS_ERROR, e.cause());
        assertEquals("cannot write " + f + ": directory " + dir.resolve("no/such") + " does not exist"
                + " (No such file or directory)", e.getMessage());
        assertTrue(e.remedy().orElseThrow().contains("mkdir -p"), e.remedy().toString());
        assertFalse(Files.exists(dir.resolve("no")));
    }

    @Test
    void aFileInPlaceOfTheDirectoryIsNotADirectory() throws IOException {
        Path file = Files.writeString(dir.resolve("file"), "x");
        HwException e = assertThrows(HwException.class, () -> OutputFile.open(file.resolve("out")));
        assertEquals(Cause.OS_ERROR, e.cause());
        assertTrue(e.getMessage().endsWith("Not a directory)"), e.getMessage());
        assertEquals(List.of("file"), names());
    }

    @Test
    void aDirectoryWhereNameOldWouldGoIsRefusedBeforeAnyWrite() throws IOException {
        Path f = Files.writeString(dir.resolve("perf.data"), "previous");
        Files.createDirectory(dir.resolve("perf.data.old"));
        HwException e = assertThrows(HwException.class, () -> OutputFile.open(f, OutputFile.Option.KEEP_OLD));
        assertTrue(e.getMessage().contains("is a directory"), e.getMessage());
        assertEquals(List.of("perf.data", "perf.data.old"), names());
        OutputFile.write(f, CONTENT); // without KEEP_OLD the directory is no obstacle
        assertArrayEquals(CONTENT, Files.readAllBytes(f));
    }

    @Test
    void aSymlinkLoopIsRefusedInWords() throws IOException {
        Path a = dir.resolve("a");
        Files.createSymbolicLink(a, dir.resolve("b"));
        Files.createSymbolicLink(dir.resolve("b"), a);
        HwException e = assertThrows(HwException.class, () -> OutputFile.open(a));
        assertEquals("cannot write " + a + ": Too many levels of symbolic links", e.getMessage());
    }

    @Test
    void aFailedWriteAbandonsTheOutput() throws IOException {
        Path f = Files.writeString(dir.resolve("data"), "previous");
        OutputFile out = OutputFile.open(f);
        out.close();
        assertThrows(IllegalStateException.class, () -> out.write(ByteBuffer.wrap(CONTENT)));
        assertThrows(IllegalStateException.class, out::commit);
        assertEquals(List.of("data"), names());
        assertEquals("previous", Files.readString(f));
    }

    @Test
    void reasonsAreStrerrorsWordsWithoutThePath() {
        assertEquals("Permission denied", IoErrors.reason(new java.nio.file.AccessDeniedException("/x")));
        assertEquals("No such file or directory", IoErrors.reason(new java.nio.file.NoSuchFileException("/x")));
        assertEquals("File exists", IoErrors.reason(new java.nio.file.FileAlreadyExistsException("/x")));
        assertEquals("Read-only file system", IoErrors.reason(new java.nio.file.FileSystemException("/x", null,
                "Read-only file system")));
        assertEquals("No space left on device", IoErrors.reason(new IOException("No space left on device")));
    }

    private static boolean isCharacterDevice(Path p) {
        return type(p) == 0020000;
    }

    /** The S_IFMT bits of stat(2). */
    private static int type(Path p) {
        try {
            return (Integer) Files.readAttributes(p, "unix:mode").get("mode") & 0170000;
        } catch (IOException e) {
            return -1;
        }
    }

    /** /proc/self/fd/N of the descriptor this process holds on {@code f}. */
    private static Path descriptorOf(Path f) throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(p -> {
                try {
                    return Files.readSymbolicLink(p).equals(f.toRealPath());
                } catch (IOException e) {
                    return false;
                }
            }).findFirst().orElseThrow();
        }
    }
}
