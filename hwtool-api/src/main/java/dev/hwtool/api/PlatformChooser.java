package dev.hwtool.api;


import java.util.Optional;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/** {@link Platform#open(Platform.Options)}: the hardware, or the simulator only where asked and labelled. */
final class PlatformChooser {

    private PlatformChooser() {
    }

    static Platform open(Platform.Options options) {
        Optional<PlatformProvider> hardware = provider(Platform.Kind.HARDWARE);
        String why;
        if (hardware.isEmpty()) {
            why = "no hardware backend on the class or module path";
            if (options.fallbackProfile().isEmpty()) {
                throw new HwException(Cause.UNSUPPORTED, why, "put native-access on the path");
            }
        } else {
            Platform p;
            try {
                p = hardware.get().open(options, null);
            } catch (HwException e) {
                if (options.fallbackProfile().isEmpty()) {
                    throw e;
                }
                return simulator(options, "this machine cannot be opened: " + e.getMessage());
            }
            Optional<Verdict> missing = Optional.empty();
            if (!options.required().isEmpty()) {
                Capabilities caps;
                try {
                    caps = p.capabilities();
                } catch (RuntimeException e) {
                    p.close();
                    throw e;
                }
                missing = options.required().stream().sorted().map(caps::verdict).filter(v -> !v.usable()).findFirst();
            }
            if (missing.isEmpty()) {
                return p;
            }
            p.close();
            Verdict v = missing.get();
            if (options.fallbackProfile().isEmpty()) {
                v.requireUsable();
            }
            why = v.facility().label() + " is not usable here: " + v.message();
        }
        return simulator(options, why);
    }

    private static Platform simulator(Platform.Options options, String why) {
        PlatformProvider sim = provider(Platform.Kind.SIMULATED).orElseThrow(() -> new HwException(Cause.UNSUPPORTED,
                "a simulator fallback was asked for, but simulator-fallback is not on the class or module path ("
                        + why + ")", "add the dev.hwtool:simulator-fallback dependency"));
        return sim.open(options, why);
    }

    private static Optional<PlatformProvider> provider(Platform.Kind kind) {
        return ServiceLoader.load(PlatformProvider.class, PlatformChooser.class.getClassLoader()).stream()
                .map(ServiceLoader.Provider::get).filter(p -> p.kind() == kind).findFirst();
    }

    static String names(java.util.Set<Facility> facilities) {
        return facilities.stream().map(Facility::label).collect(Collectors.joining(", "));
    }
}
