package io.github.redislock.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The holds of one client, by lock key and thread. An entry lives from a thread's first
 * acquisition to its last release, or until the watchdog finds its thread dead.
 */
final class Holds {

	private final Map<HoldId, Hold> holds = new ConcurrentHashMap<>();

	Hold get(String lockKey, Thread thread) {
		return this.holds.get(new HoldId(lockKey, thread.getId()));
	}

	void add(Hold hold) {
		this.holds.put(new HoldId(hold.keys().lockKey(), hold.thread().getId()), hold);
	}

	void remove(Hold hold) {
		this.holds.remove(new HoldId(hold.keys().lockKey(), hold.thread().getId()), hold);
	}

	Collection<Hold> all() {
		return this.holds.values();
	}

	int size() {
		return this.holds.size();
	}

	List<HeldLock> describe() {
		Instant now = Instant.now();
		return this.holds.values()
			.stream()
			.map((hold) -> new HeldLock(hold.keys().name(), hold.keys().lockKey(), hold.thread().getName(),
					hold.count(), now.minusMillis(hold.heldForMillis()), Duration.ofMillis(hold.leaseMillis()),
					hold.isWatchdog(), hold.token()))
			.sorted(Comparator.comparing(HeldLock::name).thenComparing(HeldLock::thread))
			.toList();
	}

	private record HoldId(String lockKey, long threadId) {
	}

}
