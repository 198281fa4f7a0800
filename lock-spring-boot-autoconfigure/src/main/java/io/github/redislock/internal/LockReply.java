package io.github.redislock.internal;

import org.jspecify.annotations.Nullable;

/**
 * What a lock script answered, decoded here for every {@link LockKind}: the engine
 * decides on these and never sees a script's raw numbers.
 * <p>
 * Every kind's scripts answer alike. An acquire script answers the fencing token
 * ({@code > 0}) when granted; when busy, minus how long to wait at most before asking
 * again, in milliseconds ({@code < 0}: the holder's remaining lease, or a kind's own
 * bound), or {@code 0} when no time is known (the holder's key has no expiry: it was not
 * written by this library). A release script answers the owner's holds left
 * ({@code > 0}), {@code 0} when the owner holds it no more, {@link #NOT_HELD_REPLY} when
 * the owner held nothing. A yes/no script (extend, force-unlock, withdraw) answers
 * {@code 1} or {@code 0}.
 */
sealed interface LockReply {

	/** The singleton {@link NotHeld} reply. */
	LockReply NOT_HELD = new NotHeld();

	/**
	 * What a release script answers when the owner holds nothing here: prelude.lua's
	 * {@code NOT_HELD}, where the scripts read it.
	 */
	long NOT_HELD_REPLY = -1;

	/**
	 * Decodes an acquire script's reply.
	 * @param tokens how many tokens a grant reserved (see {@link Granted#tokens()})
	 */
	static LockReply acquired(@Nullable Long reply, int tokens) {
		long value = (reply != null) ? reply : 0;
		return (value > 0) ? new Granted(value, tokens) : new Busy(-value);
	}

	/** Decodes a release script's reply. */
	static LockReply released(@Nullable Long reply) {
		long value = (reply != null) ? reply : NOT_HELD_REPLY;
		return (value < 0) ? NOT_HELD : new Released((int) value);
	}

	/**
	 * Decodes the reply of pass.lua, which lets a client go on passing a lock among its
	 * threads: the first reserved token ({@code > 0}) when it goes on, {@code 0} when
	 * another client waits (a release of the client's run), {@link #NOT_HELD_REPLY} when
	 * the holder no longer holds it.
	 * @param tokens how many tokens it reserved (see {@link Granted#tokens()})
	 */
	static LockReply continued(@Nullable Long reply, int tokens) {
		long value = (reply != null) ? reply : NOT_HELD_REPLY;
		if (value > 0) {
			return new Granted(value, tokens);
		}
		return (value == 0) ? new Released(0) : NOT_HELD;
	}

	/** Decodes a yes/no script's reply. */
	static boolean yes(@Nullable Long reply) {
		return reply != null && reply == 1L;
	}

	/**
	 * The lock was acquired, or re-entered.
	 *
	 * @param fencingToken the hold's fencing token, greater than 0
	 * @param tokens how many tokens were reserved from {@code fencingToken} on: the
	 * holder's and those of the owners of its client it may pass the lock to (see
	 * {@link LocalRun})
	 */
	record Granted(long fencingToken, int tokens) implements LockReply {

		Granted(long fencingToken) {
			this(fencingToken, 1);
		}

	}

	/**
	 * Another owner holds the lock.
	 *
	 * @param remainingLeaseMillis how long to wait at most before asking again: what is
	 * left of its lease, or a kind's own bound; 0 when no time is known (its key has no
	 * expiry: not written by this library)
	 */
	record Busy(long remainingLeaseMillis) implements LockReply {

		boolean isLeaseKnown() {
			return this.remainingLeaseMillis > 0;
		}

	}

	/**
	 * One hold was released.
	 *
	 * @param holdsLeft the owner's holds left; 0 when the lock became free
	 */
	record Released(int holdsLeft) implements LockReply {
	}

	/**
	 * The owner holds no lock here: its lease ran out, or the lock was force-unlocked.
	 */
	record NotHeld() implements LockReply {
	}

}
