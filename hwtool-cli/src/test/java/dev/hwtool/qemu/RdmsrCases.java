package dev.hwtool.qemu;

import java.util.ArrayList;
import java.util.List;

/**
 * The rdmsr command lines run in the guest through both msr-tools' rdmsr and hwtool's, whose
 * output, errors and exit codes must match. Every format option of msr-tools 1.3 (rdmsr.c
 * getopt string "hVxXdoruc0ap:f:") alone and in the combinations that change each other's
 * output, on registers with a 64-bit value (IA32_PAT), a 32-bit one (IA32_APIC_BASE), one that
 * is 0 (IA32_TSC_ADJUST) and one that differs per CPU (IA32_TSC_AUX), plus error cases.
 */
final class RdmsrCases {

    /** One invocation; {@code id} names its files in the results directory. */
    record Case(String id, List<String> args) {
    }

    private static final List<List<String>> FORMATS = List.of(
            List.of(), List.of("-x"), List.of("-X"), List.of("-d"), List.of("-u"), List.of("-o"), List.of("-c"),
            List.of("-0"), List.of("-r"),
            List.of("-0", "-x"), List.of("-0", "-X"), List.of("-0", "-d"), List.of("-0", "-u"), List.of("-0", "-o"),
            List.of("-c", "-0"), List.of("-c", "-X"), List.of("-c", "-o"), List.of("-c", "-d"), List.of("-c", "-u"),
            List.of("-c", "-0", "-X"), List.of("-x", "-X"), List.of("-d", "-x"));

    private static final List<String> FORMAT_REGISTERS = List.of("0x277", "0x1b", "0x3b");

    private static final List<List<String>> BITFIELDS = List.of(
            List.of("-f", "11:8"), List.of("-f", "63:32"), List.of("-f", "7:0", "-0"), List.of("-f", "35:12", "-c"),
            List.of("-f", "63:0", "-d"), List.of("-f", "8:8", "-u"), List.of("-f", "11:0", "-X", "-0"),
            List.of("-f", "50:48", "-o"), List.of("-0", "-c", "-f", "63:60"));

    private static final List<List<String>> CPUS = List.of(
            List.of("-p", "1"), List.of("-p1", "-0", "-c"), List.of("-a"), List.of("-a", "-0", "-c"), List.of("-a", "-d"),
            List.of("-a", "-r"), List.of("--processor", "1", "--zero-pad", "--capital-hex"));

    private static final List<List<String>> ERRORS = List.of(
            List.of("-p", "7", "0x1b"), List.of(), List.of("-q", "0x1b"), List.of("-f", "3:7", "0x1b"));

    private RdmsrCases() {
    }

    static List<Case> all() {
        List<Case> cases = new ArrayList<>();
        for (String reg : FORMAT_REGISTERS) {
            for (List<String> f : FORMATS) {
                cases.add(new Case("fmt" + cases.size(), with(f, reg)));
            }
        }
        for (String reg : List.of("0x277", "0x1b")) {
            for (List<String> f : BITFIELDS) {
                cases.add(new Case("bits" + cases.size(), with(f, reg)));
            }
        }
        for (List<String> c : CPUS) {
            cases.add(new Case("cpu" + cases.size(), with(c, "0xc0000103")));
        }
        for (List<String> e : ERRORS) {
            cases.add(new Case("err" + cases.size(), e));
        }
        return cases;
    }

    private static List<String> with(List<String> options, String register) {
        List<String> args = new ArrayList<>(options);
        args.add(register);
        return args;
    }

    /**
     * sh lines that run msr-tools' rdmsr from {@code sbin} for every case into
     * {@code dir}/ID.{out,err,rc}. Found through PATH so that its argv[0], which its usage and
     * getopt messages print, is plain "rdmsr" as when a person types it.
     */
    static String msrToolsScript(java.nio.file.Path sbin, String dir) {
        StringBuilder s = new StringBuilder("mkdir -p " + dir + "\n");
        for (Case c : all()) {
            s.append("PATH=").append(sbin).append(" rdmsr");
            c.args().forEach(a -> s.append(' ').append(Shell.quote(a)));
            s.append(" >").append(dir).append('/').append(c.id()).append(".out 2>").append(dir).append('/').append(c.id())
                    .append(".err; echo $? >").append(dir).append('/').append(c.id()).append(".rc\n");
        }
        return s.toString();
    }
}
