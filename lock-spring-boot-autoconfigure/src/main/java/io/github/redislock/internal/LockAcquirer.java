package io.github.redislock.internal;

import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.lang.Nullable;

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
	 * How long a waiter sleeps when Redis refused the acquire for now (a slot being
	 * migrated, a data set being loaded).
	 */
	private static final long REFUSED_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	/** What an attempt returns when Redis refused it for now. */
	private static final long REFUSED_FOR_NOW = Long.MIN_VALUE;

	private final LockCommands commands;

	private final Holds holds;

	private final ReleaseSubscriptions subscriptions;

	LockAcquirer(LockCommands commands, Holds holds, ReleaseSubscriptions subscriptions) {
		this.commands = commands;
		this.holds = holds;
		this.subscriptions = subscriptions;
	}

	/**
	 * Acquires the lock for the given thread, the current one. Returns within the wait
	 * time plus the command timeout: each command is given what is left of that.
	 * @param start when the caller started, from {@link System#nanoTime()}
	 * @param waitNanos how long to wait; negative for no limit
	 * @param interruptible whether an interrupt ends the wait with InterruptedException;
	 * if not, the interrupt status is restored once the method returns
	 * @return the fencing token, or 0 when the wait ended without the lock
	 */
	long acquire(LockKeys keys, String owner, Thread thread, long lease, long start, long waitNanos,
			boolean interruptible) throws InterruptedException {
		Attempts attempts = new Attempts(keys, owner, thread, lease, start, waitNanos);
		long result = attempts.next(waitNanos != 0);
		if (result > 0) {
			return result;
		}
		if (waitNanos == 0) {
			return 0;
		}
		boolean interrupted = false;
		ReleaseSubscriptions.Membership membership = this.subscriptions.join(keys, attempts.budget());
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
					result = attempts.next(true);
					if (result > 0) {
						return result;
					}
				}
				tryNow = true;
				long remaining = (waitNanos < 0) ? Long.MAX_VALUE : waitNanos - (System.nanoTime() - start);
				if (remaining <= 0) {
					if (result == REFUSED_FOR_NOW) {
						throw attempts.refusedThroughout();
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

	private static long sleepAfter(long result) {
		if (result == REFUSED_FOR_NOW) {
			return REFUSED_RETRY_NANOS;
		}
		return (result < 0) ? TimeUnit.MILLISECONDS.toNanos(-result) : UNKNOWN_LEASE_RECHECK_NANOS;
	}

	/** The acquire script runs of one acquisition. */
	private final class Attempts {

		private final LockKeys keys;

		private final String owner;

		private final Thread thread;

		private final long lease;

		private final long start;

		private final long waitNanos;

		@Nullable
		private RedisLockException refusal;

		Attempts(LockKeys keys, String owner, Thread thread, long lease, long start, long waitNanos) {
			this.keys = keys;
			this.owner = owner;
			this.thread = thread;
			this.lease = lease;
			this.start = start;
			this.waitNanos = waitNanos;
		}

		/**
		 * Runs the acquire script once.
		 * @param mayRetry whether the caller will try again, so that a refusal for now is
		 * reported as {@link #REFUSED_FOR_NOW} instead of thrown
		 * @return as {@link LockCommands#acquire}, or {@link #REFUSED_FOR_NOW}
		 */
		long next(boolean mayRetry) {
			Hold hold = LockAcquirer.this.holds.get(this.keys.lockKey(), this.thread);
			try {
				return LockAcquirer.this.commands.acquire(this.keys, this.owner, this.lease,
						(hold != null) ? hold.count() : 0, budget());
			}
			catch (RedisLockException ex) {
				if (mayRetry && RedisCalls.isTransientRefusal(ex)) {
					logger.debug("Redis refused lock '" + this.keys.name() + "' for now; trying again shortly: "
							+ ex.getMessage());
					this.refusal = ex;
					return REFUSED_FOR_NOW;
				}
				throw ex;
			}
		}

		/**
		 * What is left of the wait time plus the command timeout: the longest the next
		 * command may take.
		 */
		long budget() {
			if (this.waitNanos < 0) {
				return RedisCalls.NO_LIMIT;
			}
			long commandTimeout = TimeUnit.MILLISECONDS.toNanos(LockAcquirer.this.commands.timeoutMillis());
			long total = this.waitNanos + commandTimeout;
			// a wait of centuries overflows: no limit then
			return (total < 0) ? RedisCalls.NO_LIMIT : total - (System.nanoTime() - this.start);
		}

		RedisLockException refusedThroughout() {
			Throwable refusal = (this.refusal != null) ? NestedExceptionUtils.getMostSpecificCause(this.refusal) : null;
			String reply = (refusal != null && refusal.getMessage() != null) ? refusal.getMessage() : "";
			String why;
			if (reply.startsWith("TRYAGAIN")) {
				why = "its Redis Cluster slot was being migrated to another node all that time (TRYAGAIN)";
			}
			else if (reply.startsWith("LOADING")) {
				why = "Redis was loading its data set all that time (LOADING)";
			}
			else {
				why = "Redis refused it all that time: " + reply;
			}
			return new RedisLockException(
					"Could not acquire lock '" + this.keys.name() + "' (key '" + this.keys.lockKey() + "') within "
							+ Durations.formatMillis(TimeUnit.NANOSECONDS.toMillis(this.waitNanos)) + ": " + why,
					this.refusal);
		}

	}

}
