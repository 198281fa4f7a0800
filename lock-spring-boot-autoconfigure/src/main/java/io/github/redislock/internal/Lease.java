package io.github.redislock.internal;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * How long Redis keeps a lock without hearing from its holder.
 *
 * @param millis the lease in milliseconds, at least 1
 * @param watchdog whether the client's watchdog renews it until the lock is released
 */
record Lease(long millis, boolean watchdog) {

	Lease {
		if (millis < 1) {
			throw new IllegalArgumentException("A lease must be at least 1ms, was " + millis + "ms");
		}
	}

	static Lease watchdog(long millis) {
		return new Lease(millis, true);
	}

	static Lease fixed(long millis) {
		return new Lease(millis, false);
	}

	/**
	 * The lease a caller asked for: {@code null} for the watchdog's.
	 * @param watchdogMillis the client's watchdog lease
	 */
	static Lease of(@Nullable Duration leaseTime, long watchdogMillis) {
		return (leaseTime != null) ? fixed(leaseTime.toMillis()) : watchdog(watchdogMillis);
	}

	String describe() {
		return this.watchdog ? "watchdog lease of " + Durations.formatMillis(this.millis)
				: "lease of " + Durations.formatMillis(this.millis);
	}

}
