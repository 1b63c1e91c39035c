package dev.hwtool.ffm.fuse;

import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link FuseAbi} against the installed libfuse3 headers (Debian libfuse3-dev): a C program built
 * here with FUSE_USE_VERSION 31 prints every offset, size and bit the binding uses; each must
 * equal ours. The direct_io bit is found by setting the bitfield and looking for the bit.
 */
class FuseAbiVsHeaderTest {

    private static final Path HEADER = Path.of("/usr/include/fuse3/fuse.h");

    @Test
    void everyOffsetMatchesTheHeader(@TempDir Path dir) throws IOException, InterruptedException {
        Preconditions.that(Files.isRegularFile(HEADER), "no " + HEADER + " (apt-get install libfuse3-dev)");
        Preconditions.tool("/usr/bin/cc", "gcc");
        String c = """
                #define FUSE_USE_VERSION 31
                #include <fuse.h>
                #include <stdio.h>
                #include <stddef.h>
                #include <string.h>
                #include <sys/stat.h>
                #include <sys/mount.h>
                #define OFF(s, m) printf(#s "." #m " %zu\\n", offsetof(struct s, m))
                #define BIT(m) do { struct fuse_file_info fi; memset(&fi, 0, sizeof fi); fi.m = 1; unsigned w; \\
                    memcpy(&w, (char *)&fi + 4, 4); printf("bit." #m " %d\\n", __builtin_ctz(w)); } while (0)
                int main(void) {
                printf("sizeof.fuse_operations %zu\\n", sizeof(struct fuse_operations));
                OFF(fuse_operations, getattr); OFF(fuse_operations, open); OFF(fuse_operations, read);
                OFF(fuse_operations, write); OFF(fuse_operations, release); OFF(fuse_operations, readdir);
                OFF(fuse_file_info, flags); OFF(fuse_file_info, fh); BIT(direct_io); BIT(nonseekable);
                printf("sizeof.stat %zu\\n", sizeof(struct stat));
                OFF(stat, st_nlink); OFF(stat, st_mode); OFF(stat, st_uid); OFF(stat, st_gid); OFF(stat, st_size);
                OFF(fuse_context, uid); OFF(fuse_context, pid);
                printf("sizeof.fuse_args %zu\\n", sizeof(struct fuse_args));
                OFF(fuse_args, argc); OFF(fuse_args, argv); OFF(fuse_args, allocated);
                printf("val.S_IFDIR %d\\nval.S_IFREG %d\\nval.MNT_DETACH %d\\n", S_IFDIR, S_IFREG, MNT_DETACH);
                return 0; }
                """;
        Path src = dir.resolve("abi.c");
        Files.writeString(src, c);
        Path exe = dir.resolve("abi");
        run(List.of("/usr/bin/cc", "-I/usr/include/fuse3", "-o", exe.toString(), src.toString()));
        Map<String, Long> theirs = new LinkedHashMap<>();
        for (String line : run(List.of(exe.toString())).split("\n")) {
            String[] p = line.split(" ");
            theirs.put(p[0], Long.parseLong(p[1]));
        }
        Map<String, Long> ours = new LinkedHashMap<>();
        ours.put("sizeof.fuse_operations", FuseAbi.OPS_SIZE);
        ours.put("fuse_operations.getattr", FuseAbi.OPS_GETATTR);
        ours.put("fuse_operations.open", FuseAbi.OPS_OPEN);
        ours.put("fuse_operations.read", FuseAbi.OPS_READ);
        ours.put("fuse_operations.write", FuseAbi.OPS_WRITE);
        ours.put("fuse_operations.release", FuseAbi.OPS_RELEASE);
        ours.put("fuse_operations.readdir", FuseAbi.OPS_READDIR);
        ours.put("fuse_file_info.flags", FuseAbi.FFI_FLAGS);
        ours.put("fuse_file_info.fh", 16L);
        ours.put("bit.direct_io", (long) FuseAbi.FFI_DIRECT_IO_BIT);
        ours.put("bit.nonseekable", (long) FuseAbi.FFI_NONSEEKABLE_BIT);
        ours.put("sizeof.stat", FuseAbi.STAT_SIZE);
        ours.put("stat.st_nlink", FuseAbi.ST_NLINK);
        ours.put("stat.st_mode", FuseAbi.ST_MODE);
        ours.put("stat.st_uid", FuseAbi.ST_UID);
        ours.put("stat.st_gid", FuseAbi.ST_GID);
        ours.put("stat.st_size", FuseAbi.ST_SIZE);
        ours.put("fuse_context.uid", FuseAbi.CTX_UID);
        ours.put("fuse_context.pid", FuseAbi.CTX_PID);
        ours.put("sizeof.fuse_args", FuseAbi.ARGS_SIZE);
        ours.put("fuse_args.argc", FuseAbi.ARGS_ARGC);
        ours.put("fuse_args.argv", FuseAbi.ARGS_ARGV);
        ours.put("fuse_args.allocated", FuseAbi.ARGS_ALLOCATED);
        ours.put("val.S_IFDIR", (long) FuseAbi.S_IFDIR);
        ours.put("val.S_IFREG", (long) FuseAbi.S_IFREG);
        ours.put("val.MNT_DETACH", (long) FuseAbi.MNT_DETACH);
        assertEquals(ours, theirs);
    }

    private static String run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), String.join(" ", cmd) + ":\n" + out);
        return out;
    }
}
