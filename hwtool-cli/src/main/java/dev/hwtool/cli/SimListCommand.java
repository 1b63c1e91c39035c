package dev.hwtool.cli;

import dev.hwtool.sim.script.Scenarios;
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

/** Lists the scenarios shipped with hwtool, one per SDM rule, with their descriptions. */
@Command(name = "list", description = "List the shipped scenarios (one per SDM rule) and what each checks.")
final class SimListCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "JSON instead of text.")
    boolean json;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        List<Scenarios.Entry> all = Scenarios.list();
        if (json) {
            List<Object> list = new ArrayList<>();
            for (Scenarios.Entry e : all) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", e.name());
                m.put("description", e.description());
                list.add(m);
            }
            out.println(Json.write(list));
        } else {
            int w = all.stream().mapToInt(e -> e.name().length()).max().orElse(4);
            for (Scenarios.Entry e : all) {
                out.printf("%-" + w + "s  %s%n", e.name(), e.description());
            }
            out.println();
            out.println("Run one: hwtool sim run " + Scenarios.PREFIX + "NAME");
        }
        out.flush();
        return ExitCodes.OK;
    }
}
