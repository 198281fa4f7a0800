package io.github.redislock.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The holds of one client, by lock key and owner. An entry lives from an owner's first
 * acquisition to its last release, or until the owner is found gone (a thread that ended,
 * a handle that became unreachable).
 */
final class Holds {

	private final Map<HoldId, Hold> holds = new ConcurrentHashMap<>();

	Hold get(LockKeys keys, Owner owner) {
		return this.holds.get(new HoldId(keys.lockKey(), owner.id()));
	}

	void add(Hold hold) {
		this.holds.put(id(hold), hold);
	}

	void remove(Hold hold) {
		this.holds.remove(id(hold), hold);
	}

	boolean contains(Hold hold) {
		return this.holds.get(id(hold)) == hold;
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
			.map((hold) -> new HeldLock(hold.keys().name(), hold.keys().lockKey(), hold.owner().id(),
					hold.owner().isHandle(), hold.owner().thread().getName(), hold.count(),
					now.minusMillis(hold.heldForMillis()), Duration.ofMillis(hold.lease().millis()),
					hold.lease().watchdog(), hold.token()))
			.sorted(Comparator.comparing(HeldLock::name).thenComparing(HeldLock::owner))
			.toList();
	}

	private static HoldId id(Hold hold) {
		return new HoldId(hold.keys().lockKey(), hold.owner().id());
	}

	private record HoldId(String lockKey, String ownerId) {
	}

}
