package io.github.redislock.internal;

/**
 * Which grant of a lock a command speaks for: the owner Redis knows as the holder, and
 * the fencing token Redis granted that owner's hold with (the lock hash's {@code token},
 * which a re-entry and the passes of a local run keep).
 * <p>
 * The owner alone does not name a grant: a hold passed on among this client's threads
 * speaks as the thread that took the lock in Redis ({@link Hold#redisOwner}), and that
 * thread may since have been granted the lock anew under the same owner id, after a lease
 * lost before this client saw it, or Redis may have rolled back to an earlier grant of
 * the same owner (a failover to a replica that missed writes). A kind that passes locally
 * releases and passes on only the grant named.
 *
 * @param owner the owner Redis knows as the holder
 * @param token the grant's fencing token, or 0 when unknown (a settlement of an
 * acquisition whose reply never came), which leaves the grant unchecked
 */
record Grant(Owner owner, long token) {

	/** The owner's grant, whichever it is. */
	static Grant anyOf(Owner owner) {
		return new Grant(owner, 0);
	}

}
