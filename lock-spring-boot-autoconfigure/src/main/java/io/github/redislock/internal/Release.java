package io.github.redislock.internal;

/**
 * One release command for one hold, as every kind's release script takes it.
 *
 * @param grant the grant released: who Redis knows as the holder (the hold's owner, or,
 * for a hold passed on within this client, the owner that took the lock in Redis), and
 * its token, which a kind that passes locally checks (see {@link Grant})
 * @param holdsBefore the owner's holds before this release
 * @param keep after the last hold, how long the lock stays taken for nobody; always
 * {@link KeepForNobody#NONE} unless the kind {@link LockKind.KeepsForNobody}
 * @param othersOnly whether this client wakes its own waiters itself, so that the release
 * needs telling only when another client's waiter waits (see {@link LockKind#release})
 */
record Release(Grant grant, int holdsBefore, KeepForNobody keep, boolean othersOnly) {

	/** The release of the last hold of the grant, freeing it at once. */
	static Release last(Grant grant) {
		return new Release(grant, 1, KeepForNobody.NONE, false);
	}

	/** Who Redis knows as the holder. */
	Owner owner() {
		return this.grant.owner();
	}

}
