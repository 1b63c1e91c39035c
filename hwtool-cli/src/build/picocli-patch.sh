#!/bin/sh
# Eleven changes to picocli's source (unpacked by the build, see pom.xml) for start-up time.
#
# 1. CommandReflection.extractCommandSpec walks a command class's hierarchy up to and including
# java.lang.Object and looks for picocli annotations on every member of every class in it
# (initMethodSubcommands -> getCommandMethods -> Method.isAnnotationPresent, and
# initFromAnnotatedMembers). On Object that parses the JDK's own method annotations
# (@IntrinsicCandidate, @Deprecated and, for their type, @Retention): the JDK makes one proxy class
# per annotation type (sun.reflect.annotation.AnnotationParser.annotationForMap ->
# java.lang.reflect.Proxy), three class generations in the interpreter on every start, for
# annotations picocli never uses. Object has no picocli annotations, so the walk stops below it.
#
# 2. CommandSpec.mixinStandardHelpOptions(true) builds the -h/-V options from the annotations of
# its private AutoHelpMixin, also when it adds them to each subcommand of an INHERIT-scoped root
# (hwtool's): that is an @Option proxy class at run time even when every command's model comes from
# hwtool's build-time model (dev.hwtool.cli.CommandModel). It asks CommandModel.standardHelpMixin()
# first, which builds the same mixin from that model, and reflects as before when it returns null.
#
# 3. Interpolator.interpolate(String) scans every string it is given once per lookup it knows
# (sys, env, bundle, COMMAND-NAME, DEFAULT-VALUE, ...: findOpeningDollar, a codePointAt loop)
# and allocates a HashSet and a HashMap for it, for every option name, description line and
# heading, each time a model is built: a fifth of a 'hwtool batch' line's time (JFR, 3000 lines of
# msr decode). A string without '$' holds no lookup and no "$$" escape, and resolveLookups returns
# it unchanged, so it is returned at once.
#
# 4. Every CommandSpec starts with its own RegexTransformer.createDefault(): four Pattern.compile
# calls per command and mixin, each time a model is built (5% of a batch line). The transformer is
# immutable (unmodifiable maps of compiled Patterns, which are thread-safe), so every spec shares
# one, built once (dev.hwtool.cli.CommandModel.DEFAULT_NEGATABLE).
#
# 5. Each CommandLine's Interpreter registers picocli's ~60 built-in converters, 20 of them found by
# reflection (Class.forName, getDeclaredMethod for java.sql and java.time types, Paths.get): 15% of
# a batch line. The converters are stateless (a Method or Constructor each), so the first
# Interpreter's registrations are kept and later ones copy them.
#
# 6. mixinStandardHelpOptions(true) builds a new help mixin and then drops it when its options are
# there already: the command has the mixin (picocli's overlap check, #1316). It runs again for every
# command of an INHERIT-scoped root's tree each time a subcommand joins it (inheritAttributesFrom),
# so 'hwtool msr decode' built four mixins and used three. A command that has the mixin under its key
# has its options (addMixin adds both), so the overlap check is run with that mixin instead of a new one.
#
# 7. Interpolator.interpolateCommandName has no such shortcut as (3): CommandSpec.name() runs it on
# every call, and picocli calls name() for every qualifiedName(), mixin and help check while it
# builds and parses (4% of a batch line). The same shortcut: without '$' the name comes back as is.
#
# 8. Help.defaultColorScheme(ansi) builds a new ColorScheme for every CommandLine (three per
# 'msr decode' line) and every error report; a ColorScheme is immutable (final fields, unmodifiable
# lists and map), so the one of each Ansi value is built once and returned again.
#
# 9. CommandSpec.resemblesOption tries Long.decode and Double.parseDouble on every positional
# argument and default value that is not an option name ("IA32_DEBUGCTL": two NumberFormatExceptions,
# each with its stack trace). dev.hwtool.cli.PicocliShortcuts.mayBeNumber says when neither can
# parse the string (no digit, '.', '#', NaN or Infinity where a number starts); only then are the
# tries skipped, with the result they would give.
#
# 10. After (5), each later Interpreter still copied the ~60 built-in converters into its own
# HashMap (putAll). Its registry is a dev.hwtool.cli.ConverterRegistry instead, which reads the
# shared built-ins under its own entries: what registerConverter puts stays in that CommandLine.
#
# 11. Every UsageMessageSpec (each command's and each mixin's: eight for an 'msr decode' line) makes
# its map of 18 help-section renderers when it is made, and only a usage message reads it. The map is
# made when sectionMap() is first asked for it; initFrom, which shares the other spec's map, asks.
#
# Idempotent (the unpacked file is kept while it is newer than the sources jar); fails when
# neither the original line nor the patched one is there, e.g. after a picocli upgrade.
set -eu
f=$1/picocli/CommandLine.java

patch_line() { # $1: the original line (a sed regex, anchored), $2: its replacement (sed), $3: what it is, $4: a fixed string only the patched line has
    if grep -q -F "$4" "$f"; then
        return 0
    fi
    n=$(grep -c "$1" "$f" || true)
    if [ "$n" != 1 ]; then
        echo "picocli-patch.sh: expected one $3 in $f, found $n: check the patch against this picocli version" >&2
        exit 1
    fi
    sed -i "s|$1|$2|" "$f"
    grep -q -F "$4" "$f"
}

patch_line '^                    while (cls != null) {$' \
    '                    while (cls != null \&\& cls != Object.class) { // hwtool: src/build/picocli-patch.sh' \
    'hierarchy walk' 'while (cls != null && cls != Object.class) { // hwtool: src/build/picocli-patch.sh'
patch_line '^                    CommandSpec mixin = CommandSpec.forAnnotatedObject(new AutoHelpMixin(), new DefaultFactory());$' \
    '                    CommandSpec mixin = dev.hwtool.cli.CommandModel.standardHelpMixin(); if (mixin == null) { mixin = CommandSpec.forAnnotatedObject(new AutoHelpMixin(), new DefaultFactory()); } // hwtool: src/build/picocli-patch.sh' \
    'standard help mixin' 'dev.hwtool.cli.CommandModel.standardHelpMixin();'
patch_line '^            public String interpolate(String original) {$' \
    '            public String interpolate(String original) { if (original != null \&\& original.indexOf(0x24) < 0) { return original; } // hwtool: src/build/picocli-patch.sh (0x24 is the dollar sign)' \
    'Interpolator.interpolate' 'if (original != null && original.indexOf(0x24) < 0) { return original; } // hwtool'
patch_line '^            private INegatableOptionTransformer negatableOptionTransformer = RegexTransformer.createDefault();$' \
    '            private INegatableOptionTransformer negatableOptionTransformer = dev.hwtool.cli.CommandModel.DEFAULT_NEGATABLE; // hwtool: src/build/picocli-patch.sh' \
    'default negatable transformer' 'negatableOptionTransformer = dev.hwtool.cli.CommandModel.DEFAULT_NEGATABLE; // hwtool'
patch_line '^        private void registerBuiltInConverters() {$' \
    '        private static volatile Map<Class<?>, ITypeConverter<?>> builtInConverters; private void registerBuiltInConverters() { Map<Class<?>, ITypeConverter<?>> known = builtInConverters; if (known != null) { converterRegistry.putAll(known); return; } registerBuiltInConvertersOnce(); builtInConverters = new HashMap<Class<?>, ITypeConverter<?>>(converterRegistry); } private void registerBuiltInConvertersOnce() { // hwtool: src/build/picocli-patch.sh' \
    'built-in converter registration' 'private void registerBuiltInConvertersOnce() { // hwtool'
patch_line '^                    CommandSpec mixin = dev.hwtool.cli.CommandModel.standardHelpMixin(); if (mixin == null) { mixin = CommandSpec.forAnnotatedObject(new AutoHelpMixin(), new DefaultFactory()); } // hwtool: src/build/picocli-patch.sh$' \
    '                    CommandSpec mixin = mixins.get(AutoHelpMixin.KEY); if (mixin == null) { mixin = dev.hwtool.cli.CommandModel.standardHelpMixin(); } if (mixin == null) { mixin = CommandSpec.forAnnotatedObject(new AutoHelpMixin(), new DefaultFactory()); } // hwtool: src/build/picocli-patch.sh (2, 6)' \
    'standard help mixin, once per command' 'CommandSpec mixin = mixins.get(AutoHelpMixin.KEY); if (mixin == null)'
patch_line '^            public String interpolateCommandName(String original) {$' \
    '            public String interpolateCommandName(String original) { if (original != null \&\& original.indexOf(0x24) < 0) { return original; } // hwtool: src/build/picocli-patch.sh (7; 0x24 is the dollar sign)' \
    'Interpolator.interpolateCommandName' 'public String interpolateCommandName(String original) { if (original != null && original.indexOf(0x24) < 0) { return original; } // hwtool'
patch_line '^        public static ColorScheme defaultColorScheme(Ansi ansi) {$' \
    '        private static final ColorScheme[] DEFAULT_COLOR_SCHEMES = new ColorScheme[Ansi.values().length]; public static ColorScheme defaultColorScheme(Ansi ansi) { if (ansi == null) { return defaultColorSchemeOnce(ansi); } ColorScheme known = DEFAULT_COLOR_SCHEMES[ansi.ordinal()]; if (known == null) { known = defaultColorSchemeOnce(ansi); DEFAULT_COLOR_SCHEMES[ansi.ordinal()] = known; } return known; } private static ColorScheme defaultColorSchemeOnce(Ansi ansi) { // hwtool: src/build/picocli-patch.sh (8)' \
    'default color scheme' 'private static ColorScheme defaultColorSchemeOnce(Ansi ansi) { // hwtool'
patch_line '^                try { Long.decode(arg);        return false; } catch (NumberFormatException nan) {} // negative numbers are not unknown options$' \
    '                if (dev.hwtool.cli.PicocliShortcuts.mayBeNumber(arg)) { try { Long.decode(arg); return false; } catch (NumberFormatException nan) {} try { Double.parseDouble(arg); return false; } catch (NumberFormatException nan) {} } // hwtool: src/build/picocli-patch.sh (9); negative numbers are not unknown options' \
    'number tries of resemblesOption' 'if (dev.hwtool.cli.PicocliShortcuts.mayBeNumber(arg)) { try { Long.decode(arg); return false; }'
patch_line '^                try { Double.parseDouble(arg); return false; } catch (NumberFormatException nan) {} // negative numbers are not unknown options$' \
    '                // hwtool: src/build/picocli-patch.sh (9): Double.parseDouble is tried in the line above' \
    'Double try of resemblesOption' '// hwtool: src/build/picocli-patch.sh (9): Double.parseDouble is tried in the line above'
patch_line '^        private final Map<Class<?>, ITypeConverter<?>> converterRegistry = new HashMap<Class<?>, ITypeConverter<?>>();$' \
    '        private final Map<Class<?>, ITypeConverter<?>> converterRegistry = new dev.hwtool.cli.ConverterRegistry(); // hwtool: src/build/picocli-patch.sh (10)' \
    'converter registry' 'converterRegistry = new dev.hwtool.cli.ConverterRegistry(); // hwtool'
patch_line 'if (known != null) { converterRegistry.putAll(known); return; }' \
    'if (known != null) { ((dev.hwtool.cli.ConverterRegistry) converterRegistry).builtIns(known); return; }' \
    'shared built-in converters' '((dev.hwtool.cli.ConverterRegistry) converterRegistry).builtIns(known); return;'
patch_line '^            private Map<String, IHelpSectionRenderer> helpSectionRendererMap = createHelpSectionRendererMap();$' \
    '            private Map<String, IHelpSectionRenderer> helpSectionRendererMap; // hwtool: src/build/picocli-patch.sh (11): made by sectionMap() when first asked for' \
    'help section map' 'helpSectionRendererMap; // hwtool: src/build/picocli-patch.sh (11)'
patch_line '^            public Map<String, IHelpSectionRenderer> sectionMap() { return helpSectionRendererMap; }$' \
    '            public Map<String, IHelpSectionRenderer> sectionMap() { if (helpSectionRendererMap == null) { helpSectionRendererMap = createHelpSectionRendererMap(); } return helpSectionRendererMap; } // hwtool: src/build/picocli-patch.sh (11)' \
    'help section map getter' 'if (helpSectionRendererMap == null) { helpSectionRendererMap = createHelpSectionRendererMap(); }'
patch_line '^                helpSectionRendererMap = settings.helpSectionRendererMap;$' \
    '                helpSectionRendererMap = settings.sectionMap(); // hwtool: src/build/picocli-patch.sh (11)' \
    'help section map in initFrom' 'helpSectionRendererMap = settings.sectionMap(); // hwtool'
