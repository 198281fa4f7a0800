package io.github.redislock.internal;

import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redislock.RedisLockException;

/**
 * Takes a lock for a thread: try once; if the lock is taken, wait for its release message
 * or its holder's lease end, whichever is first, and try again until the wait time is
 * over. A waiter never polls Redis, except while the lock's cluster slot is being
 * migrated, when Redis refuses the script and no message announces the end.
 */
final class LockAcquirer {

	private static final Log logger = LogFactory.getLog(LockAcquirer.class);

	/**
	 * How long a waiter sleeps when the holder's lease is unknown (a key without expiry).
	 */
	private static final long UNKNOWN_LEASE_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

	/**
	 * How long a waiter sleeps when Redis refused the acquire because the lock's slot is
	 * being migrated.
	 */
	private static final long SLOT_MIGRATING_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	/** What an attempt returns when the lock's slot is being migrated. */
	private static final long SLOT_MIGRATING = Long.MIN_VALUE;

	private final LockCommands commands;

	private final Holds holds;

	private final ReleaseSubscriptions subscriptions;

	LockAcquirer(LockCommands commands, Holds holds, ReleaseSubscriptions subscriptions) {
		this.commands = commands;
		this.holds = holds;
		this.subscriptions = subscriptions;
	}

	/**
	 * Acquires the lock for the given thread, the current one.
	 * @param start when the caller started, from {@link System#nanoTime()}
	 * @param waitNanos how long to wait; negative for no limit
	 * @param interruptible whether an interrupt ends the wait with InterruptedException;
	 * if not, the interrupt status is restored once the method returns
	 * @return the fencing token, or 0 when the wait ended without the lock
	 */
	long acquire(LockKeys keys, String owner, Thread thread, long lease, long start, long waitNanos,
			boolean interruptible) throws InterruptedException {
		long result = attempt(keys, owner, lease, thread, waitNanos != 0);
		if (result > 0) {
			return result;
		}
		if (waitNanos == 0) {
			return 0;
		}
		boolean interrupted = false;
		ReleaseSubscriptions.Membership membership = this.subscriptions.join(keys);
		ReleaseSubscriptions.Waiters waiters = membership.waiters();
		boolean tryNow = membership.subscribedHere();
		try {
			// joining does not give way to an interrupt (it would leave a half-made
			// subscription); one that came meanwhile ends the wait here
			if (interruptible && Thread.interrupted()) {
				throw new InterruptedException();
			}
			for (;;) {
				if (!interruptible && Thread.interrupted()) {
					interrupted = true;
				}
				if (tryNow) {
					result = attempt(keys, owner, lease, thread, true);
					if (result > 0) {
						return result;
					}
				}
				tryNow = true;
				long remaining = (waitNanos < 0) ? Long.MAX_VALUE : waitNanos - (System.nanoTime() - start);
				if (remaining <= 0) {
					if (result == SLOT_MIGRATING) {
						throw slotMigratingThroughout(keys, waitNanos);
					}
					return 0;
				}
				try {
					waiters.await(Math.min(remaining, sleepAfter(result)));
				}
				catch (InterruptedException ex) {
					if (interruptible) {
						throw ex;
					}
					interrupted = true;
				}
			}
		}
		finally {
			this.subscriptions.leave(waiters);
			if (interrupted) {
				thread.interrupt();
			}
		}
	}

	/**
	 * Runs the acquire script once.
	 * @param mayRetry whether the caller will try again, so that a slot migration is
	 * reported as {@link #SLOT_MIGRATING} instead of thrown
	 * @return as {@link LockCommands#acquire}, or {@link #SLOT_MIGRATING}
	 */
	private long attempt(LockKeys keys, String owner, long lease, Thread thread, boolean mayRetry) {
		try {
			return this.commands.acquire(keys, owner, lease, holdCountHere(keys, thread));
		}
		catch (RedisLockException ex) {
			if (mayRetry && RedisCalls.isSlotMigrating(ex)) {
				logger.debug("Lock '" + keys.name() + "' is in a cluster slot being migrated; trying again shortly");
				return SLOT_MIGRATING;
			}
			throw ex;
		}
	}

	private static long sleepAfter(long result) {
		if (result == SLOT_MIGRATING) {
			return SLOT_MIGRATING_RETRY_NANOS;
		}
		return (result < 0) ? TimeUnit.MILLISECONDS.toNanos(-result) : UNKNOWN_LEASE_RECHECK_NANOS;
	}

	private int holdCountHere(LockKeys keys, Thread thread) {
		Hold hold = this.holds.get(keys.lockKey(), thread);
		return (hold != null) ? hold.count() : 0;
	}

	private static RedisLockException slotMigratingThroughout(LockKeys keys, long waitNanos) {
		return new RedisLockException("Could not acquire lock '" + keys.name() + "' (key '" + keys.lockKey()
				+ "') within " + Durations.formatMillis(TimeUnit.NANOSECONDS.toMillis(waitNanos))
				+ ": its Redis Cluster slot was being migrated to another node all that time (TRYAGAIN)", null);
	}

}
