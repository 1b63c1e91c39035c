package dev.hwtool.linux;

import dev.hwtool.api.Platform;
import dev.hwtool.api.PlatformProvider;

/** The hardware backend for {@link Platform#open}. */
public final class LinuxPlatformProvider implements PlatformProvider {

    @Override
    public Platform.Kind kind() {
        return Platform.Kind.HARDWARE;
    }

    @Override
    public Platform open(Platform.Options options, String fallbackReason) {
        return LinuxPlatform.open(options);
    }
}
