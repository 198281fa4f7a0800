package io.github.redislock.internal;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.redislock.RedisLockClient;

/**
 * What a client built by {@link RedisLockClient#builder} tells about its locks, for the
 * {@code locks} Actuator endpoint, the meters and tests: read-only, except for
 * {@link #renewNow()}. Not API: it may change in any release.
 */
public interface LockInspector {

	/**
	 * The client's inspector, or empty for a client of another implementation (a test
	 * double, say).
	 */
	static Optional<LockInspector> of(RedisLockClient client) {
		return (client instanceof LockInspector inspector) ? Optional.of(inspector) : Optional.empty();
	}

	/** The locks this client's threads and handles hold now, by lock name, then owner. */
	List<HeldLock> heldLocks();

	/** How many of this client's callers wait for each lock now, by lock name. */
	Map<String, Integer> waitingByLock();

	/** Locks this client's owners hold now. */
	int heldCount();

	/** Callers of this client waiting for a lock now. */
	int waitingCount();

	/** Locks this client is subscribed to: waited for now, or within the last second. */
	int subscribedCount();

	/** Holds the watchdog renews now. */
	int watchdogCount();

	/** Acquisitions and releases whose outcome is being settled in the background. */
	int settlingCount();

	/**
	 * What Redis holds for every kind's lock of the name, whoever holds it, each read by
	 * its kind: one per layout (a read/write lock's two sides once), in the order of
	 * {@link LockType}, in one round trip. The first is the name's own lock, whose key is
	 * the name's.
	 */
	List<KindState> kindStates(String name);

	/**
	 * What Redis holds for that kind's lock of the name, whoever holds it, read by its
	 * kind in one round trip.
	 */
	KindState kindState(LockType type, String name);

	/**
	 * The fencing counter the name's tokens come from, of every kind (shared with the
	 * other names in its cluster slot), and the clock of the server that holds it, read
	 * together in one round trip.
	 */
	FencingCounter fencingCounter(String name);

	/** What Redis answers as the remaining lease of a key that does not exist. */
	long NO_KEY = LockReads.NO_KEY;

	/**
	 * What Redis says is left of each lock's lease, in one round trip; -2 for a key that
	 * is gone, -1 for one without expiry.
	 */
	List<Long> remainingLeaseMillis(List<String> lockKeys);

	/** Whether an owner of {@link KindState#holders()} is one of this client's. */
	boolean isOwnedHere(String ownerId);

	/** Runs one lease renewal round now instead of at the next period. */
	void renewNow();

}
