package dev.hwtool.linux.sys;

import dev.hwtool.bind.NativeBinding;

/** Run in a child JVM by {@link BindingsTest}: opens one binding and uses libc and a stub. */
public final class BindingProbe {

    private BindingProbe() {
    }

    public static void main(String[] args) {
        try (NativeBinding b = Bindings.open(args[0])) {
            if (b.syscall(39) != ProcessHandle.current().pid() || b.cpuid(0, 0).isZero()) {
                throw new AssertionError("probe got wrong answers");
            }
            System.out.println("probe " + b.name() + " ok");
        }
    }
}
