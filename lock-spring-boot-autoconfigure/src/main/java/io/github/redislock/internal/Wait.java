package io.github.redislock.internal;

import java.time.Duration;

/**
 * How long an acquisition may wait for a lock another owner holds.
 *
 * @param nanos the wait in nanoseconds: 0 for none, {@link Long#MAX_VALUE} for no limit
 */
record Wait(long nanos) {

	static final Wait NONE = new Wait(0);

	static final Wait NO_LIMIT = new Wait(Long.MAX_VALUE);

	Wait {
		if (nanos < 0) {
			throw new IllegalArgumentException("A wait must not be negative, was " + nanos + "ns");
		}
	}

	/** The wait a caller asked for; one beyond about 292 years has no limit. */
	static Wait of(Duration waitTime) {
		try {
			return new Wait(Math.max(0, waitTime.toNanos()));
		}
		catch (ArithmeticException tooLong) {
			return NO_LIMIT;
		}
	}

	boolean isNone() {
		return this.nanos == 0;
	}

	boolean isUnlimited() {
		return this.nanos == Long.MAX_VALUE;
	}

	/** What is left of it for a caller that started at {@code start}. */
	long remainingNanos(long start) {
		return isUnlimited() ? Long.MAX_VALUE : this.nanos - (System.nanoTime() - start);
	}

	/**
	 * What is left of it plus the command timeout, for a caller that started at
	 * {@code start}: the longest its next command may take; {@link RedisCalls#NO_LIMIT}
	 * when it has no limit (or one so long that the sum overflows).
	 */
	long budgetNanos(long start, long commandTimeoutNanos) {
		if (isUnlimited()) {
			return RedisCalls.NO_LIMIT;
		}
		long total = this.nanos + commandTimeoutNanos;
		return (total < 0) ? RedisCalls.NO_LIMIT : total - (System.nanoTime() - start);
	}

	String describe() {
		return isUnlimited() ? "without a limit" : "within " + Durations.formatMillis(this.nanos / 1_000_000);
	}

}
