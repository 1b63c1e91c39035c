package dev.hwtool.cli;

import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * {@code hwtool generate-completion}: picocli's bash/zsh completion script. Not picocli's own
 * {@code AutoComplete.GenerateCompletion}: that one is a help command (helpCommand = true), for
 * which picocli accepts any unknown option and exits 0; this one refuses them as usage errors.
 */
@Command(name = "generate-completion", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = {"Print a bash/zsh completion script for hwtool.",
                "Load it in the current shell with:  source <(hwtool generate-completion)"})
final class GenerateCompletionCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        out.print(AutoComplete.bash(spec.root().name(), spec.root().commandLine()));
        out.print('\n');
        out.flush();
        return ExitCodes.OK;
    }
}
