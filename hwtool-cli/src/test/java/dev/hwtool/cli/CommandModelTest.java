package dev.hwtool.cli;

import org.junit.jupiter.api.Test;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command model the build wrote (META-INF/hwtool/commands.model, CommandModel) builds what
 * picocli builds from the annotations, for every command path of the tree: the same usage help,
 * options and positionals, completion script, and the same objects injected.
 */
class CommandModelTest {

    @Test
    void theShippedModelBuildsPicocliOwnModelOfEveryCommand() {
        CommandModel m = CommandModel.parse(shipped());
        assertEquals("", String.join("\n", differences(m)));
        // A later build of the same model (a batch's next line) uses the records the first parsed
        // and the attributes it found set: the same model again.
        assertEquals("", String.join("\n", differences(m)));
    }

    @Test
    void theShippedModelIsTheOneCommandsAreBuiltFrom() {
        String text = shipped();
        assertTrue(text.startsWith(CommandModel.HEADER + CommandModelWriter.VERSION + "\n"), text.lines().findFirst().orElse(""));
        // and it is the model the annotations give now (the build step ran after the last compile)
        assertEquals(CommandModelWriter.text(), text);
    }

    @Test
    void aModelMissingAnOptionFails() {
        String text = shipped();
        String line = text.lines().filter(l -> l.startsWith("option\tleaf\t")).findFirst().orElseThrow();
        List<String> diffs = differences(CommandModel.parse(edited(text, line + "\n", "")));
        assertFalse(diffs.isEmpty());
        assertTrue(diffs.stream().anyMatch(d -> d.startsWith("cpuid:")), diffs.toString());
    }

    @Test
    void aModelWithAStaleDescriptionFails() {
        String text = shipped();
        assertTrue(text.contains("Only this leaf, 0 to 0xffffffff (decimal or 0x hex)."));
        List<String> diffs = differences(CommandModel.parse(edited(text, "Only this leaf, 0 to 0xffffffff (decimal or 0x hex).",
                "Only this leaf.")));
        assertTrue(diffs.stream().anyMatch(d -> d.startsWith("cpuid:")), diffs.toString());
    }

    @Test
    void aModelMissingACommandFails() {
        String text = shipped();
        String index = text.lines().skip(1).findFirst().orElseThrow();
        assertTrue(index.contains("\tdev.hwtool.cli.MsrDecodeCommand\t"), index);
        String without = text.replace(index, index.replace("\tdev.hwtool.cli.MsrDecodeCommand\t", "\tdev.hwtool.cli.Gone\t"));
        List<String> diffs = differences(CommandModel.parse(without));
        assertTrue(diffs.stream().anyMatch(d -> d.contains("no dev.hwtool.cli.MsrDecodeCommand")), diffs.toString());
    }

    /** {@code text} with the first {@code from} after the index replaced by {@code to}, and the index moved to match. */
    private static String edited(String text, String from, String to) {
        int first = text.indexOf('\n');
        int second = text.indexOf('\n', first + 1);
        ModelText.In index = new ModelText.In(text.substring(first + 1, second));
        assertEquals("index", index.kind());
        String[] entries = index.list();
        String body = text.substring(second + 1);
        int at = body.indexOf(from);
        assertTrue(at >= 0, from);
        body = body.substring(0, at) + to + body.substring(at + from.length());
        for (int i = 1; i < entries.length; i += 2) {
            int offset = Integer.parseInt(entries[i]);
            if (offset > at) {
                entries[i] = Integer.toString(offset + to.length() - from.length());
            }
        }
        return text.substring(0, first + 1) + new ModelText.Out("index").put(entries).line() + "\n" + body;
    }

    @Test
    void aModelOfAnotherFormatVersionIsRefused() {
        String text = shipped().replaceFirst("^" + CommandModel.HEADER + "\\d+", CommandModel.HEADER + "0");
        IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> CommandModel.parse(text));
        assertTrue(e.getMessage().contains("version"), e.getMessage());
    }

    @Test
    void withoutTheModelCommandsRunAsWithIt() {
        // What a run from classes without the build step gets: picocli's reflective model.
        for (String[] a : List.of(new String[]{"profiles"}, new String[]{"msr", "decode", "IA32_DEBUGCTL", "0x1"},
                new String[]{"cpuid", "--frob"}, new String[]{"--help"}, new String[]{"help", "lbr", "record"},
                new String[]{"caps", "--backend", "sim", "--profile", "skylake", "--json"})) {
            assertEquals(Run.of(a).toString(), CommandModel.reflectively(() -> Run.of(a)).toString(), String.join(" ", a));
        }
    }

    @Test
    void eachBuildMakesFreshCommandObjects() {
        CommandModel m = CommandModel.parse(shipped());
        CommandLine a = CommandModel.using(m, () -> Cli.commandLine(sink(), sink()));
        CommandLine b = CommandModel.using(m, () -> Cli.commandLine(sink(), sink()));
        Object ca = a.getSubcommands().get("cpuid").getCommand();
        Object cb = b.getSubcommands().get("cpuid").getCommand();
        assertFalse(ca == cb);
        a.parseArgs("cpuid", "-l", "7");
        assertEquals(7, ((CpuidCommand) ca).leaf);
        assertEquals(null, ((CpuidCommand) cb).leaf);
        // the option is bound to the field, and the mixin's to the mixin object in the command's field
        a.parseArgs("caps", "--backend", "sim", "--profile", "skylake");
        CapsCommand caps = a.getSubcommands().get("caps").getCommand();
        assertEquals("sim", caps.backend.backend);
        assertEquals("ffm", caps.backend.binding);
    }

    @Test
    void theStandardHelpNamesResolveAsPicocliResolvesThem() {
        // The model resolves ${picocli.help.name.0:--h} and the like once per build (CommandModel.HelpName);
        // picocli resolves them at each names() call: the same system property decides both.
        CommandModel m = CommandModel.parse(shipped());
        System.setProperty("picocli.help.name.0", "-?");
        System.setProperty("picocli.version.name.1", "--show-version");
        try {
            assertEquals("", String.join("\n", differences(m)));
            CommandLine cl = CommandModel.using(m, () -> Cli.commandLine(sink(), sink()));
            CommandLine decode = cl.getSubcommands().get("msr").getSubcommands().get("decode");
            assertTrue(decode.getCommandSpec().optionsMap().containsKey("-?"), decode.getCommandSpec().optionsMap().keySet().toString());
            assertTrue(cl.getCommandSpec().optionsMap().containsKey("--show-version"));
            assertFalse(cl.getCommandSpec().optionsMap().containsKey("-h"));
        } finally {
            System.clearProperty("picocli.help.name.0");
            System.clearProperty("picocli.version.name.1");
        }
        // and the next build, without them, has the defaults again
        CommandLine cl = CommandModel.using(m, () -> Cli.commandLine(sink(), sink()));
        assertTrue(cl.getCommandSpec().optionsMap().containsKey("-h"));
        assertFalse(cl.getCommandSpec().optionsMap().containsKey("-?"));
    }

    @Test
    void eachBuildHasItsOwnHelpMixinAndArrays() {
        // What builds share (parsed records, Fields, Constructors) holds no value of a build.
        CommandModel m = CommandModel.parse(shipped());
        CommandLine a = CommandModel.using(m, () -> Cli.commandLine(sink(), sink()));
        CommandLine b = CommandModel.using(m, () -> Cli.commandLine(sink(), sink()));
        CommandSpec da = a.getSubcommands().get("msr").getSubcommands().get("decode").getCommandSpec();
        CommandSpec db = b.getSubcommands().get("msr").getSubcommands().get("decode").getCommandSpec();
        assertFalse(da.mixins().get(CommandModel.STANDARD_HELP_MIXIN_NAME).userObject()
                == db.mixins().get(CommandModel.STANDARD_HELP_MIXIN_NAME).userObject());
        a.parseArgs("msr", "decode", "--help");
        assertTrue(a.getSubcommands().get("msr").getSubcommands().get("decode").isUsageHelpRequested());
        b.parseArgs("msr", "decode", "IA32_DEBUGCTL", "0x1");
        assertFalse(b.getSubcommands().get("msr").getSubcommands().get("decode").isUsageHelpRequested());
        for (int i = 0; i < da.options().size(); i++) {
            OptionSpec oa = da.options().get(i);
            OptionSpec ob = db.options().get(i);
            assertFalse(oa == ob || oa.getter() == ob.getter() || (oa.converters().length > 0 && oa.converters()[0] == ob.converters()[0]),
                    oa.longestName());
        }
    }

    @Test
    void everyCommandHasTheStandardHelpOptionsBuiltFromTheModel() {
        // picocli's mixinStandardHelpOptions(true) would build them from AutoHelpMixin's annotations
        // (its options read and written through picocli's own bindings); the model's through its own.
        CommandModel m = CommandModel.parse(shipped());
        CommandLine cl = CommandModel.using(m, () -> Cli.commandLine(sink(), sink()));
        List<String> paths = new ArrayList<>();
        standardHelpFromModel("hwtool", cl, paths);
        assertTrue(paths.size() > 25, paths.toString());
        CommandLine reflective = CommandModel.reflectively(() -> Cli.commandLine(sink(), sink()));
        assertFalse(fromModel(reflective.getCommandSpec().mixins().get(CommandModel.STANDARD_HELP_MIXIN_NAME).options().getFirst()),
                "the reflective model's are picocli's own");
    }

    private static void standardHelpFromModel(String path, CommandLine c, List<String> paths) {
        CommandSpec help = c.getCommandSpec().mixins().get(CommandModel.STANDARD_HELP_MIXIN_NAME);
        // (picocli's 'help' has -h/--help of its own, so neither model gives it the mixin:
        // theShippedModelBuildsPicocliOwnModelOfEveryCommand compares the mixins of each command)
        if (help != null) {
            assertEquals(2, help.options().size(), path);
            for (OptionSpec o : help.options()) {
                assertTrue(fromModel(o), path + " " + o.longestName() + ": " + o.getter());
                assertTrue(c.getCommandSpec().options().contains(o), path);
            }
            paths.add(path);
        }
        c.getSubcommands().forEach((n, sub) -> standardHelpFromModel(path + " " + n, sub, paths));
    }

    private static boolean fromModel(OptionSpec o) {
        return o.getter().getClass().getEnclosingClass() == CommandModel.class;
    }

    @Test
    void onlyACommandWithAVariableInItsTextsInterpolates() {
        CommandModel m = CommandModel.parse(shipped());
        CommandLine cl = CommandModel.using(m, () -> Cli.commandLine(sink(), sink()));
        assertFalse(cl.getCommandSpec().interpolateVariables());
        assertFalse(cl.getSubcommands().get("msr").getSubcommands().get("decode").getCommandSpec().interpolateVariables());
        assertFalse(cl.getSubcommands().get("cpuid").getCommandSpec().interpolateVariables());
        // "(default ${DEFAULT-VALUE}; 0: all)": picocli expands it, as with the annotations
        CommandSpec report = cl.getSubcommands().get("report").getCommandSpec();
        assertTrue(report.interpolateVariables());
        assertTrue(cl.getSubcommands().get("report").getUsageMessage(CommandLine.Help.Ansi.OFF)
                .contains("(default " + SampleReportCommand.DEFAULT_LIMIT + "; 0: all)"));
    }

    /** What differs between the tree built from {@code model} and picocli's, one line per difference. */
    static List<String> differences(CommandModel model) {
        List<String> diffs = new ArrayList<>();
        CommandLine reflective = CommandModel.reflectively(() -> Cli.commandLine(sink(), sink()));
        CommandLine generated;
        try {
            generated = CommandModel.using(model, () -> Cli.commandLine(sink(), sink()));
        } catch (RuntimeException e) {
            diffs.add("building: " + e);
            return diffs;
        }
        compare("hwtool", reflective, generated, diffs);
        if (!AutoComplete.bash("hwtool", reflective).equals(AutoComplete.bash("hwtool", generated))) {
            diffs.add("generate-completion output");
        }
        return diffs;
    }

    private static void compare(String path, CommandLine r, CommandLine g, List<String> diffs) {
        CommandSpec rs = r.getCommandSpec();
        CommandSpec gs = g.getCommandSpec();
        check(path, "usage help", r.getUsageMessage(CommandLine.Help.Ansi.OFF), g.getUsageMessage(CommandLine.Help.Ansi.OFF), diffs);
        check(path, "command", command(rs), command(gs), diffs);
        check(path, "option count", rs.options().size(), gs.options().size(), diffs);
        for (int i = 0; i < Math.min(rs.options().size(), gs.options().size()); i++) {
            OptionSpec ro = rs.options().get(i);
            OptionSpec go = gs.options().get(i);
            check(path, "option " + ro.longestName(), option(ro), option(go), diffs);
        }
        check(path, "positional count", rs.positionalParameters().size(), gs.positionalParameters().size(), diffs);
        for (int i = 0; i < Math.min(rs.positionalParameters().size(), gs.positionalParameters().size()); i++) {
            PositionalParamSpec rp = rs.positionalParameters().get(i);
            PositionalParamSpec gp = gs.positionalParameters().get(i);
            check(path, "positional " + rp.paramLabel(), positional(rp), positional(gp), diffs);
        }
        check(path, "injected", injected(rs.userObject(), rs), injected(gs.userObject(), gs), diffs);
        check(path, "subcommands", r.getSubcommands().keySet().toString(), g.getSubcommands().keySet().toString(), diffs);
        r.getSubcommands().forEach((name, rsub) -> {
            CommandLine gsub = g.getSubcommands().get(name);
            if (gsub != null) {
                compare(path + " " + name, rsub, gsub, diffs);
            }
        });
    }

    private static void check(String path, String what, Object reflective, Object generated, List<String> diffs) {
        if (!reflective.equals(generated)) {
            String r = reflective.toString();
            String g = generated.toString();
            List<String> rl = r.lines().toList();
            List<String> gl = g.lines().toList();
            int i = 0;
            while (i < rl.size() && i < gl.size() && rl.get(i).equals(gl.get(i))) {
                i++;
            }
            diffs.add(path.replaceFirst("^hwtool ?", "").replaceFirst("^$", "hwtool") + ": " + what + ", line " + (i + 1)
                    + (i >= rl.size() || i >= gl.size() ? " (the ends: '" + r.substring(Math.max(0, r.length() - 40)).replace("\n", "\\n")
                    + "', '" + g.substring(Math.max(0, g.length() - 40)).replace("\n", "\\n") + "')" : "")
                    + ": picocli has '" + (i < rl.size() ? rl.get(i) : "") + "', the model has '" + (i < gl.size() ? gl.get(i) : "") + "'");
        }
    }

    private static String command(CommandSpec s) {
        return String.join("\n", "name=" + s.name(), "aliases=" + Arrays.toString(s.aliases()),
                "class=" + s.userObject().getClass().getName(),
                "versionProvider=" + className(s.versionProvider()), "version=" + Arrays.toString(s.version()),
                "helpCommand=" + s.helpCommand(), "scope=" + s.scopeType(), "inherited=" + s.inherited(),
                "mixinStandardHelpOptions=" + s.mixinStandardHelpOptions(), "mixins=" + s.mixins().keySet()
                        + s.mixins().values().stream().map(m -> m.userObject().getClass().getName()).toList(),
                "modelTransformer=" + className(s.modelTransformer()),
                "stopAtPositional=" + s.parser().stopAtPositional(), "unmatchedAllowed=" + s.parser().unmatchedArgumentsAllowed(),
                "unmatched=" + s.unmatchedArgsBindings().size(), "separator=" + s.parser().separator(),
                "exitCodes=" + s.exitCodeOnSuccess() + "," + s.exitCodeOnUsageHelp() + "," + s.exitCodeOnVersionHelp()
                        + "," + s.exitCodeOnInvalidInput() + "," + s.exitCodeOnExecutionException(),
                "hidden=" + s.usageMessage().hidden(), "sortOptions=" + s.usageMessage().sortOptions(),
                "exitCodeList=" + s.usageMessage().exitCodeList());
    }

    private static String option(OptionSpec o) {
        return arg(o) + "\nnames=" + Arrays.toString(o.names()) + " usageHelp=" + o.usageHelp() + " versionHelp=" + o.versionHelp()
                + " help=" + o.help() + " negatable=" + o.negatable() + " fallback=" + o.fallbackValue() + " order=" + o.order();
    }

    private static String positional(PositionalParamSpec p) {
        return arg(p) + "\nindex=" + p.index();
    }

    private static String arg(ArgSpec a) {
        return String.join("\n", "arity=" + a.arity(), "type=" + a.type().getName(),
                "auxiliaryTypes=" + Arrays.stream(a.auxiliaryTypes()).map(Class::getName).toList(),
                "default=" + a.defaultValue(), "paramLabel=" + a.paramLabel(), "hidden=" + a.hidden(),
                "required=" + a.required(), "split=" + a.splitRegex() + " " + a.splitRegexSynopsisLabel(),
                "converters=" + Arrays.stream(a.converters()).map(c -> c.getClass().getName()).toList(),
                "description=" + Arrays.toString(a.description()), "descriptionKey=" + a.descriptionKey(),
                "hideParamSyntax=" + a.hideParamSyntax(), "showDefault=" + a.showDefaultValue(),
                "scope=" + a.scopeType(), "inherited=" + a.inherited(), "interactive=" + a.interactive(),
                "initial=" + a.initialValue() + " " + a.hasInitialValue(), "userObject=" + a.userObject(),
                "toString=" + a, "multiValue=" + a.isMultiValue(), "typeInfo=" + a.typeInfo().isArray()
                        + a.typeInfo().isCollection() + a.typeInfo().isMap() + a.typeInfo().isEnum()
                        + a.typeInfo().isOptional() + a.typeInfo().isBoolean() + a.typeInfo().isMultiValue()
                        + a.typeInfo().getClassName() + a.typeInfo().getEnumConstantNames(),
                "originallyRequired=" + a.originallyRequired(), "mapFallback=" + (a instanceof OptionSpec o ? o.mapFallbackValue() : ""));
    }

    /** Which of {@code o}'s CommandSpec fields hold which spec (its own, a parent's), and its mixin objects. */
    private static String injected(Object o, CommandSpec self) {
        StringBuilder sb = new StringBuilder();
        for (Field f : CommandModelWriter.fields(o.getClass())) {
            if (f.getType() == CommandSpec.class) {
                f.setAccessible(true);
                try {
                    Object v = f.get(o);
                    sb.append(f.getName()).append('=').append(v == null ? "null" : v == self ? "self" : ((CommandSpec) v).qualifiedName()).append(' ');
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
            }
        }
        self.mixins().forEach((name, m) -> {
            if (!name.equals(CommandModel.STANDARD_HELP_MIXIN_NAME)) {
                sb.append("mixin ").append(name).append(':').append(injected(m.userObject(), m)).append(' ');
            }
        });
        return sb.toString();
    }

    private static String className(Object o) {
        return o == null ? "null" : o.getClass().getName();
    }

    static String shipped() {
        try (InputStream in = CommandModel.class.getResourceAsStream(CommandModel.RESOURCE)) {
            assertNotNull(in, CommandModel.RESOURCE + " is missing: the build's process-classes step (CommandModelWriter) writes it");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static PrintWriter sink() {
        return new PrintWriter(new StringWriter());
    }
}
