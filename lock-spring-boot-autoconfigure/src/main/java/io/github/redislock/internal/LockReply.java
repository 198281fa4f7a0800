package io.github.redislock.internal;

/**
 * What a lock script answered, decoded by its {@link LockKind}: the engine decides on
 * these and never sees a script's raw numbers.
 */
sealed interface LockReply {

	/** The singleton {@link NotHeld} reply. */
	LockReply NOT_HELD = new NotHeld();

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
	 * @param remainingLeaseMillis what is left of its lease, or 0 when its key has no
	 * expiry (not written by this library)
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
