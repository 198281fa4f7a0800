package io.github.redislock.internal;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Writes durations the way Spring Boot properties spell them ({@code 500ms}, {@code 3s},
 * {@code 1.25s}).
 */
final class Durations {

	private Durations() {
	}

	static String format(@Nullable Duration duration) {
		if (duration == null) {
			return "(none)";
		}
		long millis = duration.toMillis();
		if (millis < 1000) {
			return millis + "ms";
		}
		if (millis % 60_000 == 0) {
			return (millis / 60_000) + "m";
		}
		if (millis % 1000 == 0) {
			return (millis / 1000) + "s";
		}
		return String.format(java.util.Locale.ROOT, "%.3fs", millis / 1000.0).replaceAll("0+s$", "s");
	}

	static String formatMillis(long millis) {
		return format(Duration.ofMillis(millis));
	}

}
