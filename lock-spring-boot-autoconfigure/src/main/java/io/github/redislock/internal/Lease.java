package io.github.redislock.internal;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * How long Redis keeps a lock without hearing from its holder: {@link #millis()}, at
 * least 1, and whether the client's watchdog renews it until the lock is released
 * ({@link #watchdog()}). A value; it keeps its millisecond count encoded as a script
 * argument, since every acquisition sends it.
 */
final class Lease {

	private final long millis;

	private final boolean watchdog;

	private final byte[] argument;

	Lease(long millis, boolean watchdog) {
		if (millis < 1) {
			throw new IllegalArgumentException("A lease must be at least 1ms, was " + millis + "ms");
		}
		this.millis = millis;
		this.watchdog = watchdog;
		this.argument = ScriptCalls.number(millis);
	}

	/** The lease in milliseconds, at least 1. */
	long millis() {
		return this.millis;
	}

	/** Whether the client's watchdog renews it until the lock is released. */
	boolean watchdog() {
		return this.watchdog;
	}

	/** {@link #millis()} as a script argument; not to be changed. */
	byte[] argument() {
		return this.argument;
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

	@Override
	public boolean equals(@Nullable Object other) {
		return other instanceof Lease lease && this.millis == lease.millis && this.watchdog == lease.watchdog;
	}

	@Override
	public int hashCode() {
		return Long.hashCode(this.millis) * 31 + Boolean.hashCode(this.watchdog);
	}

	@Override
	public String toString() {
		return describe();
	}

}
