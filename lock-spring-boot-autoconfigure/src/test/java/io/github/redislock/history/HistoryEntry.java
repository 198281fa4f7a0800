package io.github.redislock.history;

import org.jspecify.annotations.Nullable;

/**
 * One call of a recorded history: an acquisition (and, when it was granted, its release)
 * by one caller of one client, with every instant on one clock
 * ({@link System#nanoTime()}).
 *
 * @param client which client (0, 1, ...) made the call
 * @param caller who called: a thread, a handle, an asynchronous or a reactive caller
 * @param op what was asked
 * @param side what was asked for: the lock, its read or write side, or a permit
 * @param invoked when the acquisition was called
 * @param returned when it returned
 * @param granted whether it returned the lock
 * @param token the fencing token of a grant, else 0
 * @param released when the release was called (0 when not granted)
 * @param releaseReturned when the release returned (0 when not granted)
 * @param failure the exception the acquisition or its release threw, if any
 */
record HistoryEntry(int client, String caller, Op op, Side side, long invoked, long returned, boolean granted,
		long token, long released, long releaseReturned, @Nullable String failure) {

	/** What a call asked for. */
	enum Op {

		/** {@code tryLock()}: no wait at all. */
		TRY_NOW,

		/** A short wait that often ends without the lock (1-30 ms). */
		TRY_BRIEFLY,

		/** A long wait (10 s): it ends with the lock. */
		WAIT,

		/** {@code tryLock()} after a burst, when no call is under way. */
		PROBE;

		boolean waits() {
			return this == TRY_BRIEFLY || this == WAIT;
		}

	}

	/** Which side of a lock a call asked for. */
	enum Side {

		/** An exclusive or fair lock, or a write lock: excludes every other hold. */
		EXCLUSIVE,

		/** A read lock: excludes only writers. */
		READ,

		/** A permit of a semaphore: at most its permits at once. */
		PERMIT;

		boolean conflictsWith(Side other) {
			return this != READ || other != READ;
		}

	}

	/**
	 * The instant the lock was certainly held from (its grant came before the reply);
	 * {@link #certainUntil()} the instant it was certainly held to.
	 */
	long certainFrom() {
		return this.returned;
	}

	long certainUntil() {
		return this.released;
	}

	/**
	 * The earliest instant the grant may have happened: Redis granted it after the call.
	 */
	long possibleFrom() {
		return this.invoked;
	}

	/**
	 * The latest instant the hold may have lasted: Redis freed it before the release
	 * returned.
	 */
	long possibleUntil() {
		return this.releaseReturned;
	}

	/** The last instant of the call and its release. */
	long end() {
		return Math.max(this.returned, this.releaseReturned);
	}

}
