package dev.hwtool.cli;

/** A usage error found after parsing (an impossible combination of options): exit code 2. */
final class UsageException extends RuntimeException {
    UsageException(String message) {
        super(message);
    }
}
