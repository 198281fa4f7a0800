package io.github.redislock.internal;

/**
 * What the lock and handle objects of one client ask about a lock or a hold, read from
 * Redis and from this client's holds; changes nothing.
 */
final class LockQueries {

	private final LockReads reads;

	private final Holds holds;

	LockQueries(LockReads reads, Holds holds) {
		this.reads = reads;
		this.holds = holds;
	}

	boolean isLocked(LockKeys keys) {
		return this.reads.exists(keys);
	}

	/**
	 * The owner's holds: what this client counts, provided Redis still has the owner as
	 * the lock's owner. A grant this client does not account for (an acquisition that
	 * failed, settled in the background) is not one.
	 */
	int holdCount(LockKeys keys, Owner owner) {
		Hold hold = this.holds.get(keys, owner);
		if (hold == null) {
			return 0;
		}
		return (this.reads.holdCount(keys, hold.redisOwner()) > 0) ? hold.count() : 0;
	}

	/**
	 * Whether this client counts a hold of the owner on the lock (asks Redis nothing).
	 */
	boolean holdsLocally(LockKeys keys, Owner owner) {
		return this.holds.get(keys, owner) != null;
	}

	/** Whether the hold is still the owner's, here and in Redis. */
	boolean isHeld(Hold hold) {
		return this.holds.contains(hold)
				&& this.reads.remainingLeaseMillis(hold.keys(), hold.redisOwner()) != LockReads.NO_KEY;
	}

	/** What Redis says is left of the hold's lease; 0 once the owner no longer holds. */
	long remainingLeaseMillis(Hold hold) {
		if (!this.holds.contains(hold)) {
			return 0;
		}
		return Math.max(0, this.reads.remainingLeaseMillis(hold.keys(), hold.redisOwner()));
	}

	/**
	 * What Redis says is left of the lock's lease, whoever holds it; see
	 * {@link LockReads#remainingLeaseMillis(LockKeys)}.
	 */
	long remainingLeaseMillis(LockKeys keys) {
		return this.reads.remainingLeaseMillis(keys);
	}

	/**
	 * The fencing token of the thread owner's hold.
	 * @throws IllegalMonitorStateException when the owner holds no hold here
	 */
	long fencingToken(LockKeys keys, Owner owner) {
		return held(keys, owner, "it has no fencing token").token();
	}

	/**
	 * The owner's hold of the lock.
	 * @param so what follows for the caller, for the message: "it has no fencing token"
	 * @throws IllegalMonitorStateException if the owner holds no lock here
	 */
	Hold held(LockKeys keys, Owner owner, String so) {
		Hold hold = this.holds.get(keys, owner);
		if (hold == null) {
			throw new IllegalMonitorStateException("Lock '" + keys.name() + "' is not held by the current thread " + "'"
					+ owner.thread().getName() + "', so " + so);
		}
		return hold;
	}

}
