package dev.hwtool.cli;

import dev.hwtool.sim.Profiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** Lists the simulator's built-in CPU profiles and where their data comes from. */
@Command(name = "profiles", description = "List the simulator's built-in CPU profiles (real CPUID dumps).")
final class ProfilesCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "JSON instead of text.")
    boolean json;

    @Option(names = "--attribution", description = "Print where the dumps come from and their licence.")
    boolean attribution;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (attribution) {
            out.print(Profiles.attribution());
        } else if (json) {
            List<Object> list = new ArrayList<>();
            for (Profiles.Entry e : Profiles.builtIn()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", e.name());
                m.put("processor", e.processor());
                m.put("microarchitecture", e.microarchitecture());
                list.add(m);
            }
            out.println(Json.write(list));
        } else {
            out.printf("%-20s %-24s %s%n", "PROFILE", "PROCESSOR", "MICROARCHITECTURE");
            for (Profiles.Entry e : Profiles.builtIn()) {
                out.printf("%-20s %-24s %s%n", e.name(), e.processor(), e.microarchitecture());
            }
            out.println();
            out.println("Use: hwtool caps --backend sim --profile NAME   (or a CPUID dump file as NAME)");
        }
        out.flush();
        return ExitCodes.OK;
    }
}
