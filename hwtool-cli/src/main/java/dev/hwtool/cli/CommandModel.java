package dev.hwtool.cli;

import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.IGetter;
import picocli.CommandLine.Model.IScope;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.Model.UnmatchedArgsBinding;
import picocli.CommandLine.Model.UsageMessageSpec;
import picocli.CommandLine.Range;
import picocli.CommandLine.ScopeType;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * picocli's model of the commands, built without reading an annotation at run time.
 *
 * <p>Why: picocli's own model reads {@code @Command}, {@code @Option} and the rest at every start;
 * the JDK's AnnotationParser makes a dynamic proxy class for each annotation type it returns
 * ({@code sun.reflect.annotation.AnnotationParser.annotationForMap}, {@code java.lang.reflect.Proxy}),
 * generated in the interpreter (ProxyGenerator and the ClassFile API), ~5 ms each, on every start:
 * a JDK 25 AOT cache does not hold them ({@code -Xlog:class+load} shows {@code jdk.proxy2.$ProxyN
 * source: __dynamic_proxy__}, next to classes from the "shared objects file"). With picocli's own
 * reflective walk that was 40-50 ms of each one-shot command's start (issue 13).
 *
 * <p>How: the annotations stay the only source. At build time {@link CommandModelWriter} lets
 * picocli build each command's model from them and writes what that model holds to
 * {@value #RESOURCE} (a versioned line format, {@link ModelText}, of which a command line reads
 * only the blocks of the commands it builds); here the same model is built
 * through picocli's programmatic API ({@code CommandSpec.wrapWithoutInspection},
 * {@code OptionSpec.builder}, {@code PositionalParamSpec.builder}, {@code UsageMessageSpec}),
 * bound to the same fields (found by name: {@code getDeclaredField} and {@code setAccessible},
 * which read no annotation), with the same mixins, {@code @Spec} injection (SELF and MIXEE),
 * {@code @Unmatched} lists, converters, version provider and model transformer. Each call builds
 * fresh command objects and a fresh model (batch lines must not share state); what is kept is
 * immutable: the parsed records, and the classes, fields and constructors they name. A data file
 * rather than generated Java source: one build step (no second compilation), and the reader is
 * one class, the same for every command.
 *
 * <p>All through picocli's public API, on its unmodified source: no picocli method is asked to call
 * back into hwtool. Two of picocli's defaults would still read annotations or repeat work, and are
 * replaced where the model is built:
 * <ul>
 * <li>The standard help options: picocli's {@code CommandSpec.mixinStandardHelpOptions(true)} builds
 * them from its private AutoHelpMixin by reflection ({@code forAnnotatedObject}), for the root and
 * again for each subcommand that joins an INHERIT-scoped root. {@link #standardHelp} adds the same
 * mixin, built from the model, with {@code addMixin} under picocli's own key, once the tree is
 * complete (before that, a subcommand joining a root that has the mixin would make picocli build
 * one more by reflection).</li>
 * <li>Variable interpolation: picocli scans every option name, description and heading once per
 * kind of lookup, at every call ({@code Interpolator.interpolate}). A spec none of whose texts
 * holds {@code ${} or {@code $$} gets {@code interpolateVariables(false)}, which the
 * Interpolator checks before it scans, and which leaves those texts as they are.</li>
 * </ul>
 *
 * <p>Without the resource (classes run from an IDE without the build's process-classes step) every
 * command falls back to picocli's reflective model: slower, same behaviour. The jar and the launcher
 * always have it. CommandModelTest compares, for every command path, the model built here with
 * picocli's (usage help, every option and positional), so a stale or incomplete resource fails the build.
 */
public final class CommandModel {

    static final String RESOURCE = "/META-INF/hwtool/commands.model";
    static final String HEADER = "hwtool-command-model ";
    static final String STANDARD_HELP_MIXIN_NAME = "mixinStandardHelpOptions";
    static final Class<?> STANDARD_HELP_MIXIN = standardHelpMixinClass();

    /** Builds picocli's model by reflection from the annotations (the fallback, and the reference). */
    static final CommandModel REFLECTIVE = new CommandModel(null, Map.of());

    private static final ThreadLocal<CommandModel> CURRENT = new ThreadLocal<>();

    /** The blocks of records after the index, one per class; null for {@link #REFLECTIVE}. */
    private final String body;
    /** Where each class's block starts in {@link #body}. */
    private final Map<String, Integer> index;
    /** The blocks read so far, by class name: a command line reads only those it needs. */
    private final Map<String, List<ModelText.In>> blocks = new java.util.concurrent.ConcurrentHashMap<>();
    /**
     * The option and positional records parsed (by record: ModelText.In has identity equality), so
     * that a batch line does not parse the same text again; what they hold is immutable (strings,
     * Ranges, enums, Classes) or copied into each build (arrays).
     */
    private final Map<ModelText.In, Object> parsed = new java.util.concurrent.ConcurrentHashMap<>();

    private CommandModel(String body, Map<String, Integer> index) {
        this.body = body;
        this.index = index;
    }

    /** The model of {@code text} (the resource's content). */
    static CommandModel parse(String text) {
        int first = text.indexOf('\n');
        int second = first < 0 ? -1 : text.indexOf('\n', first + 1);
        if (second < 0 || !text.substring(0, first).equals(HEADER + CommandModelWriter.VERSION)) {
            throw new IllegalStateException("command model: not version " + CommandModelWriter.VERSION + " of " + RESOURCE);
        }
        ModelText.In in = new ModelText.In(text.substring(first + 1, second));
        if (!in.kind().equals("index")) {
            throw new IllegalStateException("command model: no index in " + RESOURCE);
        }
        String[] entries = in.list();
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < entries.length; i += 2) {
            index.put(entries[i], Integer.parseInt(entries[i + 1]));
        }
        return new CommandModel(text.substring(second + 1), index);
    }

    /** The records of class {@code name}'s block, or null when the model has none. */
    private List<ModelText.In> block(String name) {
        List<ModelText.In> block = blocks.get(name);
        if (block != null) {
            return block;
        }
        Integer start = index.get(name);
        if (start == null) {
            return null;
        }
        block = new ArrayList<>();
        int at = start;
        while (true) {
            int nl = body.indexOf('\n', at);
            if (nl < 0) {
                throw new IllegalStateException("command model: the block of " + name + " has no end");
            }
            String line = body.substring(at, nl);
            at = nl + 1;
            if (line.equals("end")) {
                break;
            }
            ModelText.In r = new ModelText.In(line);
            if (block.isEmpty() && !(r.kind().equals("command") && name.equals(r.reader().str()))) {
                throw new IllegalStateException("command model: the index does not point at " + name);
            }
            block.add(r);
        }
        blocks.put(name, block);
        return block;
    }

    /** The model the resource holds, or {@link #REFLECTIVE} without it. */
    private static final class Shipped {
        static final CommandModel MODEL = load();

        private static CommandModel load() {
            // Through the jar as a ZipFile (dev.hwtool.io.Resources), not a jar: URL: a few ms less
            // of every start, and the same ZipFile the simulator's profiles are read from.
            try {
                byte[] text = dev.hwtool.io.Resources.read(CommandModel.class, RESOURCE.substring(1));
                return text == null ? REFLECTIVE : parse(new String(text, StandardCharsets.UTF_8));
            } catch (java.io.UncheckedIOException e) {
                return REFLECTIVE;
            }
        }
    }

    /** The model commands are built from on this thread: the shipped one unless {@link #using} says otherwise. */
    static CommandModel current() {
        CommandModel m = CURRENT.get();
        return m != null ? m : Shipped.MODEL;
    }

    /** Runs {@code body} with {@code model} as this thread's model (tests, the build-time writer). */
    static <T> T using(CommandModel model, Supplier<T> body) {
        CommandModel before = CURRENT.get();
        CURRENT.set(model);
        try {
            return body.get();
        } finally {
            CURRENT.set(before);
        }
    }

    static <T> T reflectively(Supplier<T> body) {
        return using(REFLECTIVE, body);
    }

    /** A fresh CommandLine of command class {@code c}, with fresh command objects. */
    CommandLine commandLine(Class<?> c) {
        return new CommandLine(body == null ? c : spec(c));
    }

    /**
     * Adds picocli's standard help options ({@code -h/--help}, {@code -V/--version}) to the tree
     * of {@code root} where {@code mixinStandardHelpOptions} puts them: to each command whose
     * {@code @Command} asks for them and, below such a command with scope INHERIT, to every command
     * under it. After its own options, as picocli adds them last (its #377), and not where a
     * command has an option of the same name (its #1316). Call it once the tree is complete
     * (a reflective model has them from picocli already).
     */
    void standardHelp(CommandLine root) {
        if (body != null) {
            standardHelp(root.getCommandSpec(), false);
        }
    }

    private void standardHelp(CommandSpec spec, boolean inherited) {
        List<ModelText.In> block = block(spec.userObject().getClass().getName());
        boolean wants = inherited || (block != null && parsed.get(block.getFirst()) instanceof CommandText t && t.standardHelp);
        if (wants && !spec.mixins().containsKey(STANDARD_HELP_MIXIN_NAME)) {
            CommandSpec help = spec(STANDARD_HELP_MIXIN);
            boolean overlap = false;
            boolean raw = false;
            for (OptionSpec o : help.options()) {
                for (String name : o.names()) {
                    overlap |= spec.optionsMap().containsKey(name);
                    raw |= name.indexOf('$') >= 0;
                }
            }
            if (!overlap) {
                if (raw) {
                    spec.interpolateVariables(true); // a name left as written (HelpName): picocli resolves it
                }
                spec.addMixin(STANDARD_HELP_MIXIN_NAME, help);
            }
        }
        boolean down = wants && (spec.scopeType() == ScopeType.INHERIT || spec.inherited());
        java.util.Set<CommandLine> done = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (CommandLine sub : spec.subcommands().values()) {
            if (done.add(sub)) { // an alias maps to the same CommandLine
                standardHelp(sub.getCommandSpec(), down);
            }
        }
    }

    /**
     * Whether every command and mixin object of {@code cl}'s tree keeps nothing but what picocli
     * binds (options, positionals, mixins, {@code @Spec}, {@code @Unmatched}) and therefore resets
     * before each parse: then the tree can parse line after line of a batch as if new. A class
     * with any other instance field (a count, a cached profile, a child process) may carry a
     * line's state to the next; false, also without the model.
     */
    boolean stateless(CommandLine cl) {
        if (body == null) {
            return false;
        }
        CommandSpec spec = cl.getCommandSpec();
        if (!stateless(spec)) {
            return false;
        }
        for (CommandLine sub : spec.subcommands().values()) {
            if (!stateless(sub)) {
                return false;
            }
        }
        return true;
    }

    private boolean stateless(CommandSpec spec) {
        Class<?> c = spec.userObject().getClass();
        Boolean known = statelessClasses.get(c);
        if (known == null) {
            known = boundOnly(c);
            statelessClasses.put(c, known);
        }
        if (!known) {
            return false;
        }
        for (CommandSpec m : spec.mixins().values()) {
            if (!stateless(m)) {
                return false;
            }
        }
        return true;
    }

    /** Whether each instance field of {@code c} is one the model binds. */
    private boolean boundOnly(Class<?> c) {
        List<ModelText.In> block = block(c.getName());
        if (block == null) {
            return false;
        }
        java.util.Set<String> bound = new java.util.HashSet<>();
        for (ModelText.In record : block) {
            ModelText.In r = record.reader();
            switch (r.kind()) {
                case "option", "positional", "spec", "unmatched" -> bound.add(r.str());
                case "mixin" -> {
                    r.str(); // its name
                    bound.add(r.str());
                }
                default -> {
                    // the command's attributes, its version provider and subcommands: no field
                }
            }
        }
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
            for (Field f : k.getDeclaredFields()) {
                if (!java.lang.reflect.Modifier.isStatic(f.getModifiers()) && !f.isSynthetic() && !bound.contains(f.getName())) {
                    return false;
                }
            }
        }
        return true;
    }

    /** {@link #boundOnly} of each class asked about. */
    private final Map<Class<?>, Boolean> statelessClasses = new java.util.concurrent.ConcurrentHashMap<>();

    private CommandSpec spec(Class<?> c) {
        return spec(c, null);
    }

    /** The model of class {@code c} for object {@code user} (null: a new one). */
    private CommandSpec spec(Class<?> c, Object user) {
        List<ModelText.In> block = block(c.getName());
        if (block == null) {
            throw new IllegalStateException("command model: no " + c.getName() + " in " + RESOURCE + " (rebuild)");
        }
        if (user == null) {
            user = instantiate(c);
        }
        CommandSpec spec = CommandSpec.wrapWithoutInspection(user);
        boolean interpolate = false;
        for (ModelText.In record : block) {
            ModelText.In r = record.reader();
            interpolate |= record.interpolates();
            switch (r.kind()) {
                case "command" -> command(spec, record);
                case "versionSpec" -> set(spec.versionProvider(), r.str(), spec);
                case "subcommand" -> {
                    String name = r.str();
                    spec.addSubcommand(name, new CommandLine(spec(load(r.str()))));
                }
                case "option" -> spec.addOption(option(user, record));
                case "positional" -> spec.addPositional(positional(user, record));
                case "mixin" -> interpolate |= mixin(spec, user, r).interpolateVariables();
                case "spec" -> {
                    String field = r.str();
                    if (r.str().equals(CommandLine.Spec.Target.SELF.name())) {
                        set(user, field, spec);
                    }
                }
                case "unmatched" -> spec.addUnmatchedArgsBinding(unmatched(user, r.str()));
                default -> throw new IllegalStateException("command model: unknown record '" + r.kind() + "'");
            }
        }
        if (!interpolate && c != STANDARD_HELP_MIXIN) {
            // No text of this command or its mixins holds a variable or a "$$" escape: the
            // Interpolator would return each unchanged, after a scan per lookup at every call.
            spec.interpolateVariables(false);
        }
        return spec;
    }

    /** The command's own attributes (whether it mixes in the standard help options: {@link #standardHelp}). */
    private void command(CommandSpec spec, ModelText.In record) {
        CommandText t = (CommandText) parsed.get(record);
        if (t == null) {
            t = CommandText.read(record.reader());
            parsed.put(record, t);
        }
        t.apply(spec);
    }

    /**
     * A command record as read from the model. Only what differs from picocli's defaults is set, as
     * its updateFromCommand sets only that: an attribute left unset is inherited from an
     * INHERIT-scoped root (the footer, for one). The version provider and model transformer are
     * new objects in each build.
     */
    private record CommandText(String name, String[] aliases, String[] version, Class<?> versionProvider,
                               boolean helpCommand, boolean subcommandsRepeatable, ScopeType scope,
                               Class<?> modelTransformer, String separator, int exitCodeOnSuccess,
                               int exitCodeOnUsageHelp, int exitCodeOnVersionHelp, int exitCodeOnInvalidInput,
                               int exitCodeOnExecutionException, boolean standardHelp, String headerHeading,
                               String[] header, String synopsisHeading, String[] customSynopsis,
                               boolean abbreviateSynopsis, String descriptionHeading, String[] description,
                               String parameterListHeading, String optionListHeading, String commandListHeading,
                               String footerHeading, String[] footer, boolean sortOptions, boolean sortSynopsis,
                               boolean showDefaultValues, boolean hidden, char requiredOptionMarker, boolean autoWidth,
                               int width, boolean showAtFileInUsageHelp, boolean showEndOfOptionsDelimiterInUsageHelp,
                               String exitCodeListHeading, Map<String, String> exitCodeList,
                               String synopsisSubcommandLabel, boolean adjustLineBreaksForWideCJKCharacters) {

        static CommandText read(ModelText.In r) {
            r.str(); // the class
            String name = r.str();
            String[] aliases = r.list();
            String[] version = r.list();
            String versionProvider = r.str();
            boolean helpCommand = r.bool();
            boolean subcommandsRepeatable = r.bool();
            ScopeType scope = ScopeType.valueOf(r.str());
            String transformer = r.str();
            String separator = r.str();
            int onSuccess = r.integer();
            int onUsageHelp = r.integer();
            int onVersionHelp = r.integer();
            int onInvalidInput = r.integer();
            int onExecutionException = r.integer();
            boolean standardHelp = r.bool();
            String headerHeading = r.str();
            String[] header = r.list();
            String synopsisHeading = r.str();
            String[] customSynopsis = r.list();
            boolean abbreviateSynopsis = r.bool();
            String descriptionHeading = r.str();
            String[] description = r.list();
            String parameterListHeading = r.str();
            String optionListHeading = r.str();
            String commandListHeading = r.str();
            String footerHeading = r.str();
            String[] footer = r.list();
            boolean sortOptions = r.bool();
            boolean sortSynopsis = r.bool();
            boolean showDefaultValues = r.bool();
            boolean hidden = r.bool();
            char marker = r.str().charAt(0);
            boolean autoWidth = r.bool();
            int width = r.integer();
            boolean showAtFile = r.bool();
            boolean showEndOfOptions = r.bool();
            String exitCodeListHeading = r.str();
            String[] codes = r.list();
            Map<String, String> exitCodeList = null;
            if (codes.length > 0) {
                Map<String, String> m = new LinkedHashMap<>();
                for (int i = 0; i < codes.length; i += 2) {
                    m.put(codes[i], codes[i + 1]);
                }
                exitCodeList = java.util.Collections.unmodifiableMap(m); // UsageMessageSpec copies it
            }
            String synopsisSubcommandLabel = r.str();
            boolean cjk = r.bool();
            return new CommandText(name, aliases, version, versionProvider == null ? null : load(versionProvider),
                    helpCommand, subcommandsRepeatable, scope, transformer == null ? null : load(transformer), separator,
                    onSuccess, onUsageHelp, onVersionHelp, onInvalidInput, onExecutionException, standardHelp,
                    headerHeading, header, synopsisHeading, customSynopsis, abbreviateSynopsis, descriptionHeading,
                    description, parameterListHeading, optionListHeading, commandListHeading, footerHeading, footer,
                    sortOptions, sortSynopsis, showDefaultValues, hidden, marker, autoWidth, width, showAtFile,
                    showEndOfOptions, exitCodeListHeading, exitCodeList, synopsisSubcommandLabel, cjk);
        }

        /** Sets what differs from picocli's defaults on {@code spec}, a new one (arrays are copied: each build has its own). */
        void apply(CommandSpec spec) {
            if (!Objects.equals(name, spec.name())) {
                spec.name(name);
            }
            spec.aliases(aliases.clone());
            if (!Arrays.equals(version, spec.version())) {
                spec.version(version.clone());
            }
            if (versionProvider != null) {
                spec.versionProvider((CommandLine.IVersionProvider) instantiate(versionProvider));
            }
            if (helpCommand != spec.helpCommand()) {
                spec.helpCommand(helpCommand);
            }
            if (subcommandsRepeatable != spec.subcommandsRepeatable()) {
                spec.subcommandsRepeatable(subcommandsRepeatable);
            }
            spec.scopeType(scope);
            if (modelTransformer != null) {
                spec.modelTransformer((CommandLine.IModelTransformer) instantiate(modelTransformer));
            }
            if (!Objects.equals(separator, spec.parser().separator())) {
                spec.parser().separator(separator);
            }
            if (exitCodeOnSuccess != spec.exitCodeOnSuccess()) {
                spec.exitCodeOnSuccess(exitCodeOnSuccess);
            }
            if (exitCodeOnUsageHelp != spec.exitCodeOnUsageHelp()) {
                spec.exitCodeOnUsageHelp(exitCodeOnUsageHelp);
            }
            if (exitCodeOnVersionHelp != spec.exitCodeOnVersionHelp()) {
                spec.exitCodeOnVersionHelp(exitCodeOnVersionHelp);
            }
            if (exitCodeOnInvalidInput != spec.exitCodeOnInvalidInput()) {
                spec.exitCodeOnInvalidInput(exitCodeOnInvalidInput);
            }
            if (exitCodeOnExecutionException != spec.exitCodeOnExecutionException()) {
                spec.exitCodeOnExecutionException(exitCodeOnExecutionException);
            }
            UsageMessageSpec u = spec.usageMessage();
            if (!Objects.equals(headerHeading, u.headerHeading())) {
                u.headerHeading(headerHeading);
            }
            if (!Arrays.equals(header, u.header())) {
                u.header(header.clone());
            }
            if (!Objects.equals(synopsisHeading, u.synopsisHeading())) {
                u.synopsisHeading(synopsisHeading);
            }
            if (!Arrays.equals(customSynopsis, u.customSynopsis())) {
                u.customSynopsis(customSynopsis.clone());
            }
            if (abbreviateSynopsis != u.abbreviateSynopsis()) {
                u.abbreviateSynopsis(abbreviateSynopsis);
            }
            if (!Objects.equals(descriptionHeading, u.descriptionHeading())) {
                u.descriptionHeading(descriptionHeading);
            }
            if (!Arrays.equals(description, u.description())) {
                u.description(description.clone());
            }
            if (!Objects.equals(parameterListHeading, u.parameterListHeading())) {
                u.parameterListHeading(parameterListHeading);
            }
            if (!Objects.equals(optionListHeading, u.optionListHeading())) {
                u.optionListHeading(optionListHeading);
            }
            if (!Objects.equals(commandListHeading, u.commandListHeading())) {
                u.commandListHeading(commandListHeading);
            }
            if (!Objects.equals(footerHeading, u.footerHeading())) {
                u.footerHeading(footerHeading);
            }
            if (!Arrays.equals(footer, u.footer())) {
                u.footer(footer.clone());
            }
            if (sortOptions != u.sortOptions()) {
                u.sortOptions(sortOptions);
            }
            if (sortSynopsis != u.sortSynopsis()) {
                u.sortSynopsis(sortSynopsis);
            }
            if (showDefaultValues != u.showDefaultValues()) {
                u.showDefaultValues(showDefaultValues);
            }
            if (hidden != u.hidden()) {
                u.hidden(hidden);
            }
            if (requiredOptionMarker != u.requiredOptionMarker()) {
                u.requiredOptionMarker(requiredOptionMarker);
            }
            if (autoWidth) {
                u.autoWidth(true);
            }
            if (width != UsageMessageSpec.DEFAULT_USAGE_WIDTH) {
                u.width(width);
            }
            if (showAtFileInUsageHelp != u.showAtFileInUsageHelp()) {
                u.showAtFileInUsageHelp(showAtFileInUsageHelp);
            }
            if (showEndOfOptionsDelimiterInUsageHelp != u.showEndOfOptionsDelimiterInUsageHelp()) {
                u.showEndOfOptionsDelimiterInUsageHelp(showEndOfOptionsDelimiterInUsageHelp);
            }
            if (!Objects.equals(exitCodeListHeading, u.exitCodeListHeading())) {
                u.exitCodeListHeading(exitCodeListHeading);
            }
            if (exitCodeList != null) {
                u.exitCodeList(exitCodeList);
            }
            if (!Objects.equals(synopsisSubcommandLabel, u.synopsisSubcommandLabel())) {
                u.synopsisSubcommandLabel(synopsisSubcommandLabel);
            }
            if (adjustLineBreaksForWideCJKCharacters != u.adjustLineBreaksForWideCJKCharacters()) {
                u.adjustLineBreaksForWideCJKCharacters(adjustLineBreaksForWideCJKCharacters);
            }
        }
    }

    private OptionSpec option(Object user, ModelText.In record) {
        OptionText o = (OptionText) parsed.get(record);
        if (o == null) {
            o = OptionText.read(record.reader());
            parsed.put(record, o);
        }
        Field f = field(user, o.field);
        String[] names = o.help == null ? o.names.clone() : HelpName.resolved(o.help, o.names);
        OptionSpec.Builder b = OptionSpec.builder(names).usageHelp(o.usageHelp).versionHelp(o.versionHelp).help(o.helpOption)
                .negatable(o.negatable).fallbackValue(o.fallback).order(o.order);
        ArgText a = o.arg;
        b.mapFallbackValue(a.mapFallback);
        FieldBinding binding = new FieldBinding(user, f);
        b.arity(a.arity).required(a.required).paramLabel(a.paramLabel).hideParamSyntax(a.hideParamSyntax)
                .description(a.description.clone()).descriptionKey(a.descriptionKey).splitRegex(a.split)
                .splitRegexSynopsisLabel(a.splitLabel).hidden(a.hidden).defaultValue(a.defaultValue)
                .showDefaultValue(a.showDefault).scopeType(a.scope).converters(a.converters()).type(a.type)
                .auxiliaryTypes(a.aux.clone()).withToString(a.text).interactive(a.interactive).echo(a.echo).prompt(a.prompt)
                .userObject(f).getter(binding).setter(binding).scope(binding.scope())
                .initialValue(binding.get()).hasInitialValue(true);
        return b.build();
    }

    /** An option record as read from the model; {@code help} is not null for the standard help options' names. */
    private record OptionText(String field, String[] names, HelpName[] help, boolean usageHelp, boolean versionHelp,
                              boolean helpOption, boolean negatable, String fallback, int order, ArgText arg) {
        static OptionText read(ModelText.In r) {
            String field = r.str();
            String[] names = r.list();
            return new OptionText(field, names, HelpName.parse(names), r.bool(), r.bool(), r.bool(), r.bool(), r.str(),
                    r.integer(), ArgText.read(r));
        }
    }

    /**
     * One name of the standard help options ({@code ${picocli.help.name.0:--h}} and the like),
     * resolved as picocli's Interpolator does: the system property of that key, else the
     * environment variable, else the resource bundle's entry (hwtool's commands have none:
     * CommandModelWriter refuses a bundle), else the default after {@code :-}; then {@code $$}
     * becomes {@code $}. Resolved once per build instead of at every {@code OptionSpec.names()}
     * call, which picocli makes a dozen times per command and mixin as it builds and parses (each a
     * scan of the string per kind of lookup, a HashSet and a HashMap): a sixth of a batch line's
     * time. A name of another form, or whose value holds a {@code $}, is left to picocli as written.
     */
    private record HelpName(String key, String defaultValue) {
        /** The environment does not change in a JVM (System.getenv is a snapshot); absent: "". */
        private static final Map<String, Optional<String>> ENV = new java.util.concurrent.ConcurrentHashMap<>();

        /** The names' keys and defaults, or null unless every name with a '$' is {@code ${key:-default}}. */
        static HelpName[] parse(String[] names) {
            HelpName[] out = new HelpName[names.length];
            boolean any = false;
            for (int i = 0; i < names.length; i++) {
                String n = names[i];
                if (n.indexOf('$') < 0) {
                    continue;
                }
                if (!n.startsWith("${") || !n.endsWith("}")) {
                    return null;
                }
                String full = n.substring(2, n.length() - 1);
                int d = full.indexOf(":-");
                if (d <= 0 || full.indexOf('$') >= 0 || full.indexOf('{') >= 0 || full.indexOf('}') >= 0
                        || full.indexOf('\\') >= 0) {
                    return null;
                }
                String key = full.substring(0, d);
                if (key.indexOf(':') >= 0 || key.equals("COMMAND-NAME") || key.equals("COMMAND-FULL-NAME")
                        || key.equals("PARENT-COMMAND-NAME") || key.equals("PARENT-COMMAND-FULL-NAME")
                        || key.equals("ROOT-COMMAND-NAME")) {
                    return null; // sys:, env:, bundle: and the command-name lookups
                }
                out[i] = new HelpName(key, full.substring(d + 2));
                any = true;
            }
            return any ? out : null;
        }

        /** {@code names} with those of {@code help} resolved, or {@code names} as written when a value holds a '$'. */
        static String[] resolved(HelpName[] help, String[] names) {
            String[] out = names.clone();
            for (int i = 0; i < out.length; i++) {
                if (help[i] == null) {
                    continue;
                }
                String v = System.getProperty(help[i].key);
                if (v == null) {
                    v = env(help[i].key);
                }
                if (v == null) {
                    v = help[i].defaultValue;
                }
                if (v.indexOf('$') >= 0) {
                    return names.clone();
                }
                out[i] = v;
            }
            return out;
        }

        private static String env(String key) {
            Optional<String> v = ENV.get(key);
            if (v == null) {
                v = Optional.ofNullable(System.getenv(key));
                ENV.put(key, v);
            }
            return v.orElse(null);
        }
    }

    private PositionalParamSpec positional(Object user, ModelText.In record) {
        PositionalText p = (PositionalText) parsed.get(record);
        if (p == null) {
            ModelText.In r = record.reader();
            p = new PositionalText(r.str(), range(r), ArgText.read(r));
            parsed.put(record, p);
        }
        Field f = field(user, p.field);
        PositionalParamSpec.Builder b = PositionalParamSpec.builder().index(p.index);
        ArgText a = p.arg;
        FieldBinding binding = new FieldBinding(user, f);
        b.arity(a.arity).required(a.required).paramLabel(a.paramLabel).hideParamSyntax(a.hideParamSyntax)
                .description(a.description.clone()).descriptionKey(a.descriptionKey).splitRegex(a.split)
                .splitRegexSynopsisLabel(a.splitLabel).hidden(a.hidden).defaultValue(a.defaultValue)
                .showDefaultValue(a.showDefault).scopeType(a.scope).converters(a.converters()).type(a.type)
                .auxiliaryTypes(a.aux.clone()).withToString(a.text).interactive(a.interactive).echo(a.echo).prompt(a.prompt)
                .userObject(f).getter(binding).setter(binding).scope(binding.scope())
                .initialValue(binding.get()).hasInitialValue(true);
        return b.build();
    }

    private record PositionalText(String field, Range index, ArgText arg) {
    }

    /**
     * What options and positionals share (picocli's ArgSpec.Builder, not public), as the model
     * holds it. Each build binds it to the field of its own object, whose value now is the initial
     * value (as picocli reads it from a fresh object), and makes its own converters.
     */
    private record ArgText(Range arity, boolean required, String paramLabel, boolean hideParamSyntax, String[] description,
                           String descriptionKey, String split, String splitLabel, boolean hidden, String defaultValue,
                           String mapFallback, CommandLine.Help.Visibility showDefault, ScopeType scope,
                           Class<?>[] converterClasses, Class<?> type, Class<?>[] aux, String text,
                           boolean interactive, boolean echo, String prompt) {
        static ArgText read(ModelText.In r) {
            Range arity = range(r);
            boolean required = r.bool();
            String paramLabel = r.str();
            boolean hideParamSyntax = r.bool();
            String[] description = r.list();
            String descriptionKey = r.str();
            String split = r.str();
            String splitLabel = r.str();
            boolean hidden = r.bool();
            String defaultValue = r.str();
            String mapFallback = r.str();
            CommandLine.Help.Visibility showDefault = CommandLine.Help.Visibility.valueOf(r.str());
            ScopeType scope = ScopeType.valueOf(r.str());
            String[] converterNames = r.list();
            Class<?>[] converters = new Class<?>[converterNames.length];
            for (int i = 0; i < converters.length; i++) {
                converters[i] = load(converterNames[i]);
            }
            Class<?> type = load(r.str());
            String[] auxNames = r.list();
            Class<?>[] aux = new Class<?>[auxNames.length];
            for (int i = 0; i < aux.length; i++) {
                aux[i] = load(auxNames[i]);
            }
            return new ArgText(arity, required, paramLabel, hideParamSyntax, description, descriptionKey, split, splitLabel,
                    hidden, defaultValue, mapFallback, showDefault, scope, converters, type, aux, r.str(), r.bool(),
                    r.bool(), r.str());
        }

        /** New converters, as picocli makes them for each model (a converter class may hold state). */
        ITypeConverter<?>[] converters() {
            ITypeConverter<?>[] out = new ITypeConverter<?>[converterClasses.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = (ITypeConverter<?>) instantiate(converterClasses[i]);
            }
            return out;
        }
    }

    /** Adds the mixin record {@code r} names to {@code spec}; returns the mixin's spec. */
    private CommandSpec mixin(CommandSpec spec, Object user, ModelText.In r) {
        String name = r.str();
        Field f = field(user, r.str());
        Class<?> c = load(r.str());
        FieldBinding binding = new FieldBinding(user, f);
        Object existing = binding.get();
        CommandSpec mixin;
        if (existing == null) {
            mixin = spec(c);
            binding.set(mixin.userObject());
        } else {
            mixin = spec(c, existing);
        }
        spec.addMixin(name, mixin);
        for (ModelText.In s : block(c.getName())) {
            if (s.kind().equals("spec")) {
                ModelText.In in = s.reader();
                String field = in.str();
                if (in.str().equals(CommandLine.Spec.Target.MIXEE.name())) {
                    set(mixin.userObject(), field, spec);
                }
            }
        }
        return mixin;
    }

    private static UnmatchedArgsBinding unmatched(Object user, String name) {
        Field f = field(user, name);
        FieldBinding binding = new FieldBinding(user, f);
        return f.getType() == String[].class ? UnmatchedArgsBinding.forStringArrayConsumer(binding)
                : UnmatchedArgsBinding.forStringCollectionSupplier(binding);
    }

    private static Range range(ModelText.In r) {
        Range range = Range.valueOf(r.str());
        return range.unspecified(r.bool());
    }

    /** A new object of {@code c} by its no-argument constructor, as picocli's default factory makes one. */
    static Object instantiate(Class<?> c) {
        try {
            Constructor<?> k = CONSTRUCTORS.get(c);
            if (k == null) {
                k = c.getDeclaredConstructor();
                k.setAccessible(true);
                CONSTRUCTORS.put(c, k);
            }
            return k.newInstance();
        } catch (ReflectiveOperationException e) {
            throw new CommandLine.InitializationException("Could not instantiate " + c + ": " + e, e);
        }
    }

    /*
     * Reflective look-ups, once per JVM rather than once per build (a batch builds a model per line).
     * What they hold cannot carry a line's state: a Class, and a Field or Constructor made accessible
     * once (its only mutable bit, always set here to the same value); the objects and specs that
     * hold the values are still new for every build.
     */
    private static final Map<String, Class<?>> CLASSES = new java.util.concurrent.ConcurrentHashMap<>();
    private static final Map<Class<?>, Constructor<?>> CONSTRUCTORS = new java.util.concurrent.ConcurrentHashMap<>();
    private static final Map<Class<?>, Map<String, Field>> FIELDS = new java.util.concurrent.ConcurrentHashMap<>();

    private static Class<?> load(String name) {
        Class<?> c = CLASSES.get(name);
        if (c == null) {
            c = find(name);
            CLASSES.put(name, c);
        }
        return c;
    }

    private static Class<?> find(String name) {
        return switch (name) {
            case "boolean" -> boolean.class;
            case "int" -> int.class;
            case "long" -> long.class;
            case "short" -> short.class;
            case "byte" -> byte.class;
            case "char" -> char.class;
            case "float" -> float.class;
            case "double" -> double.class;
            default -> {
                try {
                    yield Class.forName(name, false, CommandModel.class.getClassLoader());
                } catch (ClassNotFoundException e) {
                    throw new IllegalStateException("command model: no class " + name + " (rebuild)", e);
                }
            }
        };
    }

    private static Field field(Object user, String name) {
        Map<String, Field> known = FIELDS.get(user.getClass());
        if (known == null) {
            known = new java.util.concurrent.ConcurrentHashMap<>();
            Map<String, Field> raced = ((java.util.concurrent.ConcurrentHashMap<Class<?>, Map<String, Field>>) FIELDS)
                    .putIfAbsent(user.getClass(), known);
            known = raced != null ? raced : known;
        }
        Field f = known.get(name);
        if (f == null) {
            f = findField(user, name);
            known.put(name, f);
        }
        return f;
    }

    private static Field findField(Object user, String name) {
        for (Class<?> k = user.getClass(); k != null && k != Object.class; k = k.getSuperclass()) {
            try {
                Field f = k.getDeclaredField(name);
                f.setAccessible(true);
                return f;
            } catch (NoSuchFieldException e) {
                // the superclass's, then
            }
        }
        throw new IllegalStateException("command model: no field " + name + " in " + user.getClass().getName() + " (rebuild)");
    }

    private static void set(Object target, String field, Object value) {
        new FieldBinding(target, field(target, field)).set(value);
    }

    private static Class<?> standardHelpMixinClass() {
        try {
            return Class.forName("picocli.CommandLine$AutoHelpMixin", false, CommandModel.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A field of one object, read and written as picocli's own FieldBinding does. */
    private record FieldBinding(Object target, Field field) implements IGetter, ISetter {
        @Override
        @SuppressWarnings("unchecked")
        public <T> T get() {
            try {
                return (T) field.get(target);
            } catch (IllegalAccessException e) {
                throw new CommandLine.PicocliException("Could not get value for field " + field, e);
            }
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T set(T value) {
            try {
                T old = (T) field.get(target);
                field.set(target, value);
                return old;
            } catch (IllegalAccessException | IllegalArgumentException e) {
                throw new CommandLine.PicocliException("Could not set value for field " + field + " to " + value, e);
            }
        }

        IScope scope() {
            return new Scope(target);
        }
    }

    /** The object a command's fields belong to, as picocli's ObjectScope holds it. */
    private static final class Scope implements IScope {
        private Object value;

        Scope(Object value) {
            this.value = value;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T get() {
            return (T) value;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T set(T newValue) {
            T old = (T) value;
            value = newValue;
            return old;
        }
    }
}
