package dev.hwtool.linux.sys;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.ffm.FfmBinding;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hands out a {@link NativeBinding} by name. JNA is referenced only from {@link #openJna()},
 * so a process that never asks for {@code jna} never loads a JNA class.
 */
public final class Bindings {

    /** The binding used unless another is asked for. */
    public static final String DEFAULT = "ffm";

    private static final List<String> NAMES = List.of("ffm", "jna");

    private Bindings() {
    }

    /** The valid binding names, the default first. */
    public static List<String> names() {
        return NAMES;
    }

    /**
     * @param name {@code ffm} or {@code jna}
     * @throws IllegalArgumentException for any other name
     * @throws HwException              UNSUPPORTED when JNA cannot load its native library here
     */
    public static NativeBinding open(String name) {
        // Not a switch with 'case null': that is a pattern switch, whose SwitchBootstraps.typeSwitch
        // spins a class on every start (the AOT cache does not keep it).
        if (name == null) {
            throw unknown("null");
        }
        if (name.equals("ffm")) {
            return new FfmBinding();
        }
        if (name.equals("jna")) {
            return openJna();
        }
        throw unknown("'" + name + "'");
    }

    /** The default binding, {@value #DEFAULT}. */
    public static NativeBinding openDefault() {
        return open(DEFAULT);
    }

    private static NativeBinding openJna() {
        try {
            return new dev.hwtool.jna.JnaBinding();
        } catch (LinkageError e) {
            throw jnaUnavailable(e);
        }
    }

    /** "Exception java.lang.UnsatisfiedLinkError: MESSAGE [in thread "main"]", the JDK's record of a failed static init. */
    private static final Pattern FAILED_INIT = Pattern.compile("Exception (\\S+): (.*?)(?: \\[in thread \".*\"\\])?");

    /**
     * The one-line failure for a JNA that cannot run here. JNA's static initializer (Native)
     * unpacks libjnidispatch.so into jna.tmpdir (default: java.io.tmpdir) and loads it; that fails
     * with UnsatisfiedLinkError when the directory is not writable, or is mounted noexec ("failed
     * to map segment from shared object", from ld.so's mmap with PROT_EXEC). Later uses of the
     * class then fail with NoClassDefFoundError "Could not initialize class", whose cause keeps
     * the first message; without the JNA jar on the class path it is NoClassDefFoundError too.
     */
    static HwException jnaUnavailable(LinkageError e) {
        String detail = firstFailure(e);
        String why;
        if (detail.contains("failed to map segment")) {
            why = "JNA cannot map libjnidispatch.so from its temporary directory, which is mounted noexec (" + detail + ")";
        } else if (detail.contains("JNA temporary directory")) {
            why = "JNA cannot unpack libjnidispatch.so (" + detail + ")";
        } else if (e instanceof NoClassDefFoundError && !detail.startsWith("Could not initialize")
                && detail.contains("com/sun/jna/")) {
            why = "JNA is not on the class path (" + detail + " not found)";
        } else {
            why = "JNA cannot load its native library (" + e.getClass().getSimpleName() + ": " + detail + ")";
        }
        return new HwException(Cause.UNSUPPORTED, "the jna binding cannot run here: " + why,
                "use --binding ffm (it needs no file), or run java with -Djna.tmpdir=DIR (e.g. in JAVA_TOOL_OPTIONS)"
                        + " where DIR is writable and on a file system mounted without noexec", e);
    }

    /** The message of the failure that started it all, on one line. */
    private static String firstFailure(LinkageError e) {
        String m = String.valueOf(e.getMessage());
        if (e instanceof NoClassDefFoundError && e.getCause() instanceof ExceptionInInitializerError init
                && init.getMessage() != null) {
            Matcher first = FAILED_INIT.matcher(init.getMessage().strip());
            m = first.matches() ? first.group(2) : init.getMessage();
        }
        return m.lines().findFirst().orElse("").strip();
    }

    private static IllegalArgumentException unknown(String shown) {
        return new IllegalArgumentException("unknown binding " + shown + "; valid: " + String.join(", ", NAMES));
    }
}
