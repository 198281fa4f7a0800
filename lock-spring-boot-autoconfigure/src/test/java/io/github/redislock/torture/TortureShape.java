package io.github.redislock.torture;

import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

import io.github.redislock.torture.TortureFaults.Kind;

/**
 * The shape of a {@link TortureTests} run, from system properties (see there).
 */
record TortureShape(Duration duration, int jvms, int threads, int names, int permits, Duration faultEvery,
		Set<Kind> faults, long seed) {

	static TortureShape fromSystemProperties() {
		String faults = System.getProperty("redislock.torture.faults", "");
		Set<Kind> kinds = faults.isBlank() ? EnumSet.allOf(Kind.class)
				: Arrays.stream(faults.split(","))
					.map(Kind::of)
					.collect(Collectors.toCollection(() -> EnumSet.noneOf(Kind.class)));
		int permits = number("permits", 1);
		if (permits < 1) {
			throw new IllegalArgumentException("redislock.torture.permits must be at least 1, was " + permits);
		}
		return new TortureShape(duration("duration", "23s"), number("jvms", 2), number("threads", 4),
				number("names", 4), permits, duration("faultEvery", "1s"), kinds,
				Long.getLong("redislock.torture.seed", System.nanoTime()));
	}

	/**
	 * Whether each name is an exclusive lock (permits 1, the default) rather than a
	 * semaphore of {@link #permits} permits.
	 */
	boolean exclusive() {
		return this.permits == 1;
	}

	@Override
	public String toString() {
		return String.format(Locale.ROOT, "%s: %d JVMs x %d threads on %d %s, a fault every %s (seed %d)",
				describe(this.duration), this.jvms, this.threads, this.names,
				exclusive() ? "names" : "semaphores of " + this.permits + " permits", describe(this.faultEvery),
				this.seed);
	}

	private static String describe(Duration duration) {
		long millis = duration.toMillis();
		if (millis % 60_000 == 0) {
			return millis / 60_000 + "m";
		}
		return (millis % 1000 == 0) ? millis / 1000 + "s" : millis + "ms";
	}

	private static int number(String property, int defaultValue) {
		return Integer.getInteger("redislock.torture." + property, defaultValue);
	}

	// "10m", "20s", "1500ms" or ISO-8601 ("PT1M30S")
	private static Duration duration(String property, String defaultValue) {
		String value = System.getProperty("redislock.torture." + property, defaultValue).trim();
		if (value.endsWith("ms")) {
			return Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)));
		}
		return Duration.parse(value.toUpperCase(Locale.ROOT).startsWith("PT") ? value : "PT" + value);
	}

}
