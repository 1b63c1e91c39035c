package dev.hwtool.linux.sys;

import dev.hwtool.api.HwException;
import dev.hwtool.bind.NativeBinding;

/**
 * Run in a child JVM by {@link BindingsTest} with a JNA that cannot load: opens the binding twice
 * (the second time JNA's Native class is already a failed class) and prints each outcome on one
 * line as "cause|message|remedy".
 */
public final class JnaFailureProbe {

    private JnaFailureProbe() {
    }

    public static void main(String[] args) {
        for (int attempt = 0; attempt < 2; attempt++) {
            try (NativeBinding b = Bindings.open("jna")) {
                System.out.println("opened " + b.name());
            } catch (HwException e) {
                System.out.println(e.cause() + "|" + e.getMessage() + "|" + e.remedy().orElse(""));
            }
        }
    }
}
