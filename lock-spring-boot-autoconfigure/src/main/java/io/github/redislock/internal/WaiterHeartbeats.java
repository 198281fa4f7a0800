package io.github.redislock.internal;

import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Renews the places of this client's waiters of locks whose kind
 * {@link LockKind.KeepsWaitersAlive keeps them} (fair locks), every
 * {@link #PERIOD_MILLIS}, in one script per lock and batch of waiters rather than one per
 * waiter: so that a client may have many thousands of waiters, and a waiter may sleep
 * until the release that names it or the holder's lease end. Waiters Redis dropped
 * meanwhile (found gone: the client was paused too long) are woken to ask again, and
 * queue at the back. Runs on the watchdog's thread.
 */
final class WaiterHeartbeats {

	private static final Log logger = LogFactory.getLog(WaiterHeartbeats.class);

	/** How often the places are renewed. */
	static final long PERIOD_MILLIS = TimeUnit.SECONDS.toMillis(2);

	private static final int BATCH_SIZE = 1000;

	private final RedisLockCommands commands;

	private final WaitQueues queues;

	WaiterHeartbeats(RedisLockCommands commands, WaitQueues queues) {
		this.commands = commands;
		this.queues = queues;
	}

	void beat() {
		for (WaitQueue queue : this.queues.all()) {
			LockKeys keys = queue.keys();
			if (!(keys.kind() instanceof LockKind.KeepsWaitersAlive kind)) {
				continue;
			}
			List<String> owners = queue.asleepOwnerIds();
			for (int from = 0; from < owners.size(); from += BATCH_SIZE) {
				List<String> batch = owners.subList(from, Math.min(owners.size(), from + BATCH_SIZE));
				try {
					List<String> gone = this.commands.keepAlive(kind, keys, batch);
					if (!gone.isEmpty()) {
						queue.wake(new HashSet<>(gone));
					}
				}
				catch (RuntimeException ex) {
					// their own attempts renew them too; a waiter that cannot reach Redis
					// fails on its own, and Redis lost or refusing is told once by
					// RedisAvailability
					if (logger.isDebugEnabled()) {
						logger.debug(ex.getMessage() + "; they keep their places while Redis has them for "
								+ Durations.formatMillis(kind.aliveMillis()) + " more");
					}
				}
			}
		}
	}

}
