package io.github.redislock.interceptor;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * How long a call's locks stay taken at least, counted from their acquisition, known when
 * the call ends: fixed by {@code holdAtLeast}, or, for a scheduled job, depending on when
 * the run started, how long it ran and when Redis granted the lock (see
 * {@link ScheduledJob}). A scheduled job's next call may then wait for the end of that
 * hold.
 */
@FunctionalInterface
interface MinimumHold {

	/** The fencing token of a call whose grant is not known when its hold is asked. */
	long UNKNOWN_GRANT = 0;

	/**
	 * The minimum hold of a call that started at {@code startedNanos}
	 * ({@link System#nanoTime()}); zero for none.
	 * @param fencingToken gives the token of the call's first lock (at least Redis' time
	 * of its grant, in microseconds), or {@link #UNKNOWN_GRANT}; asked only by a hold
	 * that depends on it, since it is a lookup
	 */
	Duration holdAtLeast(long startedNanos, LongSupplier fencingToken);

	/**
	 * How long a call that starts at {@code nowNanos} ({@link System#nanoTime()}) waits
	 * at least for its lock: for a scheduled job, for the end of its own previous call's
	 * hold when that is due about now (see {@link ScheduledJob}); zero for none.
	 */
	default Duration waitAtLeast(long nowNanos) {
		return Duration.ZERO;
	}

	static MinimumHold fixed(Duration holdAtLeast) {
		return (startedNanos, fencingToken) -> holdAtLeast;
	}

}
