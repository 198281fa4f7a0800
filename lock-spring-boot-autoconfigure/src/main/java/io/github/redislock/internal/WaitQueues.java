package io.github.redislock.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The wait queues of one client, by lock (see {@link LockKeys#id()}): one per lock
 * somebody of this client waits for now, gone with its last waiter. Release messages come
 * here, and go to the lock's queue; one that finds no queue had nobody to wake.
 */
final class WaitQueues implements ReleaseSubscriptions.Listener {

	// what a forced release publishes (force-unlock.lua): it names no waiter
	private static final byte[] RELEASED = "released".getBytes(StandardCharsets.UTF_8);

	private final Map<String, WaitQueue> queues = new ConcurrentHashMap<>();

	// the message of this client's own giving up of a lock (see pass.lua)
	private final byte[] ownYield;

	// what this client's owner ids start with
	private final String ownerPrefix;

	/**
	 * @param clientId the client's id, which its owners' ids start with
	 */
	WaitQueues(String clientId) {
		this.ownYield = ("yielded:" + clientId + ":").getBytes(StandardCharsets.UTF_8);
		this.ownerPrefix = clientId + ":";
	}

	/** The lock's queue, with the caller counted in; pair with {@link #exit}. */
	WaitQueue enter(LockKeys keys) {
		for (;;) {
			WaitQueue queue = this.queues.computeIfAbsent(keys.id(), (key) -> new WaitQueue(keys));
			if (queue.enter()) {
				return queue;
			}
			// retired by its last waiter a moment ago
			this.queues.remove(keys.id(), queue);
		}
	}

	void exit(WaitQueue queue) {
		if (queue.exit()) {
			this.queues.remove(queue.keys().id(), queue);
		}
	}

	/**
	 * Whether another owner of this client holds the lock and will pass it on (see
	 * {@link WaitQueue#isHeldHereByOtherThan}): a caller that does not wait is refused
	 * without asking Redis. Nothing else keeps it from asking: a lock this client gave up
	 * for other clients' waiters is free for a caller that does not wait.
	 */
	boolean isHeldHereByOtherThan(LockKeys keys, Owner owner) {
		WaitQueue queue = this.queues.get(keys.id());
		return queue != null && queue.isHeldHereByOtherThan(owner);
	}

	@Override
	public void released(LockKeys keys, byte[] message) {
		WaitQueue queue = this.queues.get(keys.id());
		if (queue != null && keys.kind().wakes() == LockKind.Wakes.NAMED && !Arrays.equals(message, RELEASED)) {
			String next = new String(message, StandardCharsets.UTF_8);
			queue.releasedTo(next, next.startsWith(this.ownerPrefix));
			return;
		}
		// this client's own giving up wakes none of its waiters: the lock is kept for the
		// other clients, and its waiters hold off until one of those releases it or the
		// reservation ends (see WaitQueue#holdOffNanos)
		if (queue != null && !Arrays.equals(message, this.ownYield)) {
			queue.released();
		}
	}

	@Override
	public void missedReleases(LockKeys keys) {
		WaitQueue queue = this.queues.get(keys.id());
		if (queue != null) {
			queue.missedReleases();
		}
	}

	/** The queues of this client now. */
	java.util.Collection<WaitQueue> all() {
		return this.queues.values();
	}

	/** How many callers wait for a lock now. */
	int waitingCount() {
		int waiting = 0;
		for (WaitQueue queue : this.queues.values()) {
			waiting += queue.waiting();
		}
		return waiting;
	}

	/** How many callers wait for each lock now, by lock name. */
	Map<String, Integer> waitingByLock() {
		Map<String, Integer> waiting = new TreeMap<>();
		for (WaitQueue queue : this.queues.values()) {
			int members = queue.waiting();
			if (members > 0) {
				waiting.merge(queue.keys().name(), members, Integer::sum);
			}
		}
		return waiting;
	}

}
