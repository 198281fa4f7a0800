package io.github.redislock.internal;

import java.util.List;
import java.util.Map;

/**
 * What the inspector ({@link LockInspector}) and the meters read of one client: its
 * holds, waiters, subscriptions, watched leases and settlements, and the plain reads of
 * Redis. Reads only, except for renewing the leases now.
 */
final class ClientInspection {

	private final Owners owners;

	private final Holds holds;

	private final WaitQueues queues;

	private final ReleaseSubscriptions subscriptions;

	private final LeaseWatchdog watchdog;

	private final Settlements settlements;

	private final LockReads reads;

	ClientInspection(Owners owners, Holds holds, WaitQueues queues, ReleaseSubscriptions subscriptions,
			LeaseWatchdog watchdog, Settlements settlements, LockReads reads) {
		this.owners = owners;
		this.holds = holds;
		this.queues = queues;
		this.subscriptions = subscriptions;
		this.watchdog = watchdog;
		this.settlements = settlements;
		this.reads = reads;
	}

	boolean isOwnedHere(String ownerId) {
		return this.owners.isOwnedHere(ownerId);
	}

	int heldCount() {
		return this.holds.size();
	}

	int subscribedCount() {
		return this.subscriptions.channelCount();
	}

	int waitingCount() {
		return this.queues.waitingCount();
	}

	List<HeldLock> heldLocks() {
		return this.holds.describe();
	}

	Map<String, Integer> waitingByLock() {
		return this.queues.waitingByLock();
	}

	/** The plain reads, for what the inspector asks of kinds. */
	LockReads reads() {
		return this.reads;
	}

	List<Long> remainingLeaseMillis(List<String> lockKeys) {
		return this.reads.remainingLeaseMillis(lockKeys);
	}

	int watchdogCount() {
		return this.watchdog.watchedCount();
	}

	void renewNow() {
		this.watchdog.renewAll();
	}

	int settlingCount() {
		return this.settlements.pendingCount();
	}

}
