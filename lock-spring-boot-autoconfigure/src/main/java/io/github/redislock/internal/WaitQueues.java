package io.github.redislock.internal;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The wait queues of one client, by lock key: one per lock somebody of this client waits
 * for now, gone with its last waiter. Release messages come here, and go to the lock's
 * queue; one that finds no queue had nobody to wake.
 */
final class WaitQueues implements ReleaseSubscriptions.Listener {

	private final Map<String, WaitQueue> queues = new ConcurrentHashMap<>();

	/** The lock's queue, with the caller counted in; pair with {@link #exit}. */
	WaitQueue enter(LockKeys keys) {
		for (;;) {
			WaitQueue queue = this.queues.computeIfAbsent(keys.lockKey(), (key) -> new WaitQueue(keys));
			if (queue.enter()) {
				return queue;
			}
			// retired by its last waiter a moment ago
			this.queues.remove(keys.lockKey(), queue);
		}
	}

	void exit(WaitQueue queue) {
		if (queue.exit()) {
			this.queues.remove(queue.keys().lockKey(), queue);
		}
	}

	/**
	 * Whether another owner of this client holds the lock and may pass it on; see
	 * {@link WaitQueue#isHeldHereByOtherThan}.
	 */
	boolean isHeldHereByOtherThan(LockKeys keys, Owner owner) {
		WaitQueue queue = this.queues.get(keys.lockKey());
		return queue != null && queue.isHeldHereByOtherThan(owner);
	}

	@Override
	public void released(LockKeys keys) {
		WaitQueue queue = this.queues.get(keys.lockKey());
		if (queue != null) {
			queue.released();
		}
	}

	@Override
	public void missedReleases(LockKeys keys) {
		WaitQueue queue = this.queues.get(keys.lockKey());
		if (queue != null) {
			queue.missedReleases();
		}
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
