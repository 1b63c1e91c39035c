package dev.hwtool.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.IAnnotatedElement;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.Model.UsageMessageSpec;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Build time (hwtool-cli/pom.xml, phase process-classes): builds every command's model the way
 * picocli does at run time without it (reflectively, from the annotations) and writes what
 * {@link CommandModel} needs to build the same model without reading an annotation, to
 * {@code META-INF/hwtool/commands.model} under the directory given. The annotations stay the only
 * source: this file is derived from them on every build, and CommandModelTest compares the model
 * built from it with picocli's own for every command.
 *
 * <p>It fails (exit 1) on a picocli feature the reader does not rebuild (argument groups, method
 * subcommands, {@code @ParentCommand}, resource bundles, completion candidates, parameter
 * consumers, preprocessors, default value providers, {@code "_NULL_"} defaults), so that using
 * one in an annotation cannot silently drop it from the shipped model.
 */
public final class CommandModelWriter {

    static final int VERSION = 1;

    private CommandModelWriter() {
    }

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args[0], CommandModel.RESOURCE.substring(1));
        Files.createDirectories(out.getParent());
        Files.writeString(out, text(), StandardCharsets.UTF_8);
    }

    /** The whole model, as the resource holds it. */
    static String text() {
        return CommandModel.reflectively(() -> {
            Set<Class<?>> todo = new LinkedHashSet<>();
            todo.add(HwtoolCommand.class);
            todo.addAll(HwtoolCommand.SUBCOMMANDS.values());
            HwtoolCommand.GROUPS.values().forEach(g -> todo.addAll(g.values()));
            todo.add(CommandModel.STANDARD_HELP_MIXIN);
            // The blocks, and before them an index of where each starts (CommandModel reads only
            // the blocks a command line needs).
            StringBuilder body = new StringBuilder();
            List<String> index = new ArrayList<>();
            Set<Class<?>> done = new LinkedHashSet<>();
            while (!todo.isEmpty()) {
                Class<?> c = todo.iterator().next();
                todo.remove(c);
                if (done.add(c)) {
                    index.add(c.getName());
                    index.add(Integer.toString(body.length()));
                    for (String line : block(c, todo)) {
                        body.append(line).append('\n');
                    }
                }
            }
            StringBuilder sb = new StringBuilder(CommandModel.HEADER + VERSION + "\n");
            sb.append(new ModelText.Out("index").put(index.toArray(String[]::new)).line()).append('\n').append(body);
            return sb.toString();
        });
    }

    /** The records of class {@code c}; adds the classes it refers to (subcommands, mixins) to {@code more}. */
    private static List<String> block(Class<?> c, Set<Class<?>> more) {
        Object user = CommandModel.instantiate(c);
        CommandSpec spec = CommandSpec.forAnnotatedObject(user);
        // Raw texts: the model built from them interpolates ${...} when it is used, as picocli's does.
        spec.interpolateVariables(false);
        unsupported(c, spec);
        CommandLine.Command cmd = c.getAnnotation(CommandLine.Command.class);
        UsageMessageSpec u = spec.usageMessage();
        List<String> lines = new ArrayList<>();
        lines.add(new ModelText.Out("command").put(c.getName()).put(spec.name()).put(spec.aliases())
                // the annotation's static version: CommandSpec.version() asks the version provider
                .put(cmd == null ? new String[0] : cmd.version())
                .put(className(spec.versionProvider())).put(spec.helpCommand()).put(spec.subcommandsRepeatable())
                .put(spec.scopeType().name()).put(className(spec.modelTransformer())).put(spec.parser().separator())
                .put(spec.exitCodeOnSuccess()).put(spec.exitCodeOnUsageHelp()).put(spec.exitCodeOnVersionHelp())
                .put(spec.exitCodeOnInvalidInput()).put(spec.exitCodeOnExecutionException())
                .put(spec.mixinStandardHelpOptions())
                .put(u.headerHeading()).put(u.header()).put(u.synopsisHeading()).put(u.customSynopsis())
                .put(u.abbreviateSynopsis()).put(u.descriptionHeading()).put(u.description())
                .put(u.parameterListHeading()).put(u.optionListHeading()).put(u.commandListHeading())
                .put(u.footerHeading()).put(u.footer()).put(u.sortOptions()).put(u.sortSynopsis())
                .put(u.showDefaultValues()).put(u.hidden()).put(String.valueOf(u.requiredOptionMarker()))
                .put(cmd != null && cmd.usageHelpAutoWidth()).put(cmd == null ? UsageMessageSpec.DEFAULT_USAGE_WIDTH : cmd.usageHelpWidth())
                .put(u.showAtFileInUsageHelp()).put(u.showEndOfOptionsDelimiterInUsageHelp())
                .put(u.exitCodeListHeading()).put(entries(u.exitCodeList()))
                .put(u.synopsisSubcommandLabel()).put(u.adjustLineBreaksForWideCJKCharacters())
                .line());
        if (spec.versionProvider() != null) {
            for (Field f : fields(spec.versionProvider().getClass())) {
                if (f.isAnnotationPresent(CommandLine.Spec.class)) {
                    lines.add(new ModelText.Out("versionSpec").put(f.getName()).line());
                }
            }
        }
        spec.subcommands().forEach((name, sub) -> {
            Class<?> sc = sub.getCommandSpec().userObject().getClass();
            more.add(sc);
            lines.add(new ModelText.Out("subcommand").put(name).put(sc.getName()).line());
        });
        // The members in the order picocli added them: own arguments, and each mixin where its
        // first argument is (picocli adds a mixin's arguments when it meets the mixin's field).
        Map<ArgSpec, String> mixinOf = new IdentityHashMap<>();
        spec.mixins().forEach((name, m) -> {
            if (!name.equals(CommandModel.STANDARD_HELP_MIXIN_NAME)) {
                m.args().forEach(a -> mixinOf.put(a, name));
            }
        });
        Set<String> mixinsDone = new LinkedHashSet<>();
        for (ArgSpec a : spec.args()) {
            String m = mixinOf.get(a);
            if (m != null) {
                if (mixinsDone.add(m)) {
                    lines.add(mixin(spec, m, more));
                }
            } else if (!isStandardHelp(spec, a)) {
                lines.add(arg(c, a));
            }
        }
        for (String m : spec.mixins().keySet()) {
            if (!m.equals(CommandModel.STANDARD_HELP_MIXIN_NAME) && mixinsDone.add(m)) {
                lines.add(mixin(spec, m, more));
            }
        }
        for (IAnnotatedElement e : spec.specElements()) {
            lines.add(new ModelText.Out("spec").put(e.getName()).put(e.getAnnotation(CommandLine.Spec.class).value().name()).line());
        }
        for (Field f : fields(c)) {
            if (f.isAnnotationPresent(CommandLine.Unmatched.class)) {
                lines.add(new ModelText.Out("unmatched").put(f.getName()).line());
            }
        }
        lines.add("end");
        return lines;
    }

    private static boolean isStandardHelp(CommandSpec spec, ArgSpec a) {
        CommandSpec help = spec.mixins().get(CommandModel.STANDARD_HELP_MIXIN_NAME);
        return help != null && help.args().stream().anyMatch(h -> h == a);
    }

    private static String mixin(CommandSpec spec, String name, Set<Class<?>> more) {
        Class<?> mc = spec.mixins().get(name).userObject().getClass();
        more.add(mc);
        IAnnotatedElement e = spec.mixinAnnotatedElements().get(name);
        return new ModelText.Out("mixin").put(name).put(e.getName()).put(mc.getName()).line();
    }

    private static String arg(Class<?> c, ArgSpec a) {
        if (!(a.userObject() instanceof Field f)) {
            throw new IllegalStateException(c.getName() + ": " + a + " is not a field; the command model binds fields only");
        }
        String[] converters = Arrays.stream(a.converters()).map(CommandModelWriter::className).toArray(String[]::new);
        String[] aux = Arrays.stream(a.auxiliaryTypes()).map(Class::getName).toArray(String[]::new);
        ModelText.Out o;
        if (a instanceof OptionSpec opt) {
            o = new ModelText.Out("option").put(f.getName()).put(opt.names()).put(opt.usageHelp()).put(opt.versionHelp())
                    .put(opt.help()).put(opt.negatable()).put(opt.fallbackValue()).put(opt.order());
        } else {
            PositionalParamSpec p = (PositionalParamSpec) a;
            o = new ModelText.Out("positional").put(f.getName()).put(p.index().toString()).put(p.index().isUnspecified());
        }
        return o.put(a.arity().toString()).put(a.arity().isUnspecified()).put(a.required()).put(a.paramLabel())
                .put(a.hideParamSyntax()).put(a.description()).put(a.descriptionKey()).put(a.splitRegex())
                .put(a.splitRegexSynopsisLabel()).put(a.hidden()).put(a.defaultValue()).put(a.mapFallbackValue())
                .put(a.showDefaultValue().name()).put(a.scopeType().name()).put(converters).put(a.type().getName())
                .put(aux).put(a.toString()).put(a.interactive()).put(a.echo()).put(a.prompt()).line();
    }

    private static void unsupported(Class<?> c, CommandSpec spec) {
        List<String> why = new ArrayList<>();
        if (!spec.argGroups().isEmpty()) {
            why.add("@ArgGroup");
        }
        if (!spec.parentCommandElements().isEmpty()) {
            why.add("@ParentCommand");
        }
        if (spec.resourceBundleBaseName() != null) {
            why.add("resourceBundle");
        }
        if (spec.defaultValueProvider() != null) {
            why.add("defaultValueProvider");
        }
        if (!spec.preprocessor().getClass().getName().equals("picocli.CommandLine$NoOpParameterPreprocessor")) {
            why.add("preprocessor");
        }
        if (spec.subcommands().values().stream().anyMatch(s -> s.getCommandSpec().userObject() instanceof java.lang.reflect.Method)) {
            why.add("method subcommands");
        }
        for (ArgSpec a : spec.args()) {
            boolean enumType = a.type().isEnum() || Arrays.stream(a.auxiliaryTypes()).anyMatch(Class::isEnum);
            if (a.completionCandidates() != null && !enumType) {
                why.add("completionCandidates of " + a);
            }
            if (a.parameterConsumer() != null) {
                why.add("parameterConsumer of " + a);
            }
            if (!a.preprocessor().getClass().getName().equals("picocli.CommandLine$NoOpParameterPreprocessor")) {
                why.add("preprocessor of " + a);
            }
            if (CommandLine.Option.NULL_VALUE.equals(a.defaultValue())) {
                why.add("_NULL_ default of " + a);
            }
        }
        if (!why.isEmpty()) {
            throw new IllegalStateException(c.getName() + " uses what the command model does not rebuild: " + why
                    + " (hwtool-cli CommandModel)");
        }
    }

    /** The fields of {@code c} and its superclasses below Object, most derived first. */
    static List<Field> fields(Class<?> c) {
        List<Field> all = new ArrayList<>();
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
            all.addAll(Arrays.asList(k.getDeclaredFields()));
        }
        return all;
    }

    private static String className(Object o) {
        return o == null ? null : o.getClass().getName();
    }

    private static String[] entries(Map<String, String> m) {
        List<String> l = new ArrayList<>();
        m.forEach((k, v) -> {
            l.add(k);
            l.add(v);
        });
        return l.toArray(String[]::new);
    }
}
