import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The start-up floor of a command that touches the machine: Hello plus the one FFM downcall
 * shape hwtool links on x86-64 (FfmBinding.Raw: unbound, the address and seven longs, errno
 * captured), called once for getpid(2) through syscall(2). cpuid, msr decode (this CPU's CPUID
 * decides the fields) and caps pay at least this before their own work.
 */
public class HelloDowncall {
    public static void main(String[] args) throws Throwable {
        Linker linker = Linker.nativeLinker();
        ValueLayout.OfLong c = ValueLayout.JAVA_LONG;
        MethodHandle h = linker.downcallHandle(FunctionDescriptor.of(c, c, c, c, c, c, c, c),
                Linker.Option.captureCallState("errno"));
        MemorySegment syscall = linker.defaultLookup().find("syscall").orElseThrow();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
            long pid = (long) h.invokeExact(syscall, state, 39L /* __NR_getpid */, 0L, 0L, 0L, 0L, 0L, 0L);
            System.out.println("hello from " + pid);
        }
    }
}
