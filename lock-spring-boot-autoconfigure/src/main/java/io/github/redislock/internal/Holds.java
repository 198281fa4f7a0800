package io.github.redislock.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The holds of one client, by lock key and owner. An entry lives from an owner's first
 * acquisition to its last release, or until the owner is found gone (a thread that ended,
 * a handle that became unreachable), or until it passes the lock to another owner of the
 * client. While the client may pass a lock on, its holder is known to the lock's
 * {@link WaitQueue}, so that the client's other owners wait there instead of asking
 * Redis.
 */
final class Holds {

	private final Map<HoldId, Hold> holds = new ConcurrentHashMap<>();

	@Nullable private final WaitQueues queues;

	/**
	 * @param queues the client's wait queues when it passes locks between its owners,
	 * else {@code null}
	 */
	Holds(@Nullable WaitQueues queues) {
		this.queues = queues;
	}

	@Nullable Hold get(LockKeys keys, Owner owner) {
		return this.holds.get(new HoldId(keys.id(), owner.id()));
	}

	void add(Hold hold) {
		this.holds.put(id(hold), hold);
		if (this.queues != null && hold.lease().watchdog() && hold.keys().kind() instanceof LockKind.PassesLocally) {
			WaitQueue queue = this.queues.enter(hold.keys());
			hold.queue(queue);
			queue.held(hold);
		}
	}

	/**
	 * Adds back an owner's hold found lost, which it still releases: in no wait queue,
	 * since it can pass nothing on.
	 */
	void addLost(Hold hold) {
		this.holds.put(id(hold), hold);
	}

	void remove(Hold hold) {
		if (this.holds.remove(id(hold), hold)) {
			WaitQueue queue = hold.queue();
			if (queue != null && this.queues != null) {
				hold.queue(null);
				queue.notHeld(hold);
				this.queues.exit(queue);
			}
		}
	}

	/**
	 * Replaces the hold by the one of the owner it passed the lock to; the lock stays in
	 * the queue's hands.
	 */
	void passed(Hold from, Hold to) {
		WaitQueue queue = from.queue();
		Assert.state(queue != null, "Not a hold that passes locks on");
		this.holds.remove(id(from), from);
		from.queue(null);
		to.queue(queue);
		this.holds.put(id(to), to);
		queue.held(to);
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
					hold.lease().watchdog(), hold.token(), hold.keys().kind().mode()))
			.sorted(Comparator.comparing(HeldLock::name).thenComparing(HeldLock::owner))
			.toList();
	}

	private static HoldId id(Hold hold) {
		return new HoldId(hold.keys().id(), hold.owner().id());
	}

	// equals and hashCode written out: the generated ones of a record go through an
	// invokedynamic bootstrap that costs more on this, the hottest map of the client
	private record HoldId(String lockId, String ownerId) {

		@Override
		public boolean equals(Object other) {
			return this == other
					|| (other instanceof HoldId id && this.lockId.equals(id.lockId) && this.ownerId.equals(id.ownerId));
		}

		@Override
		public int hashCode() {
			return 31 * this.lockId.hashCode() + this.ownerId.hashCode();
		}

	}

}
