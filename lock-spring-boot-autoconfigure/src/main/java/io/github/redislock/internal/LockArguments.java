package io.github.redislock.internal;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Checks what a caller passes for one lock, with messages that name the lock: the same
 * for the blocking and the reactive client.
 */
final class LockArguments {

	private LockArguments() {
	}

	static void check(String name, Duration waitTime, @Nullable Duration leaseTime) {
		checkName(name);
		checkWaitTime(name, waitTime);
		checkLeaseTime(name, leaseTime);
	}

	static void checkName(String name) {
		checkNotNull(name);
		String problem = LockNames.clientProblem(name);
		if (problem != null) {
			throw new IllegalArgumentException("Lock name " + LockNames.quote(name) + " " + problem);
		}
	}

	static void checkNotNull(String name) {
		Assert.notNull(name, "Lock name must not be null");
	}

	static void checkWaitTime(String name, Duration waitTime) {
		Assert.notNull(waitTime, () -> "waitTime of lock '" + name + "' must not be null");
		Assert.isTrue(!waitTime.isNegative(),
				() -> "waitTime of lock '" + name + "' must not be negative, was " + waitTime);
	}

	/** A {@code null} lease is the watchdog's. */
	static void checkLeaseTime(String name, @Nullable Duration leaseTime) {
		Assert.isTrue(leaseTime == null || leaseTime.toMillis() > 0,
				() -> "leaseTime of lock '" + name + "' must be at least 1ms, was " + leaseTime);
	}

}
