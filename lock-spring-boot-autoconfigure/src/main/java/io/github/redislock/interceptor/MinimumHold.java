package io.github.redislock.interceptor;

import java.time.Duration;

/**
 * How long a call's locks stay taken at least, counted from their acquisition, known when
 * the call ends: fixed by {@code holdAtLeast}, or, for a scheduled job, depending on when
 * the run started and how long it ran (see {@link ScheduledJob}).
 */
@FunctionalInterface
interface MinimumHold {

	/**
	 * The minimum hold of a call that started at {@code startedNanos}
	 * ({@link System#nanoTime()}); zero for none.
	 */
	Duration holdAtLeast(long startedNanos);

	static MinimumHold fixed(Duration holdAtLeast) {
		return (startedNanos) -> holdAtLeast;
	}

}
