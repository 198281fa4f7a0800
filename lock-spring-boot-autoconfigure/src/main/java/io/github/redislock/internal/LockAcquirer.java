package io.github.redislock.internal;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.NestedExceptionUtils;
import org.jspecify.annotations.Nullable;

import io.github.redislock.RedisLockException;

/**
 * Takes a lock for an owner: try once; if the lock is taken, wait for its release message
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

	private final LockCommands commands;

	private final Holds holds;

	private final WaitQueues queues;

	private final ReleaseSubscriptions subscriptions;

	LockAcquirer(LockCommands commands, Holds holds, WaitQueues queues, ReleaseSubscriptions subscriptions) {
		this.commands = commands;
		this.holds = holds;
		this.queues = queues;
		this.subscriptions = subscriptions;
	}

	/**
	 * Acquires the lock for the owner, on the calling thread. Returns within the wait
	 * time plus the command timeout: each command is given what is left of that.
	 * @param start when the caller started, from {@link System#nanoTime()}
	 * @param interruptible whether an interrupt ends the wait with InterruptedException;
	 * if not, the interrupt status is restored once the method returns
	 * @return the grant, or {@code null} when the wait ended without the lock
	 */
	LockReply.@Nullable Granted acquire(LockKeys keys, Owner owner, Lease lease, long start, Wait wait,
			boolean interruptible) throws InterruptedException {
		Attempts attempts = new Attempts(keys, owner, lease, start, wait);
		if (wait.isNone()) {
			return (attempts.next(false) instanceof LockReply.Granted granted) ? granted : null;
		}
		// in the queue before the first attempt: a release announced after it is kept
		// for this caller's sleep
		WaitQueue queue = this.queues.enter(keys);
		try {
			LockReply first = attempts.next(true);
			if (first instanceof LockReply.Granted granted) {
				return granted;
			}
			return await(queue, attempts, first, interruptible);
		}
		finally {
			this.queues.exit(queue);
		}
	}

	private LockReply.@Nullable Granted await(WaitQueue queue, Attempts attempts, @Nullable LockReply first,
			boolean interruptible) throws InterruptedException {
		// joining does not give way to an interrupt (it would leave a half-made
		// subscription); one that came meanwhile ends the wait here
		ReleaseSubscriptions.Membership membership = this.subscriptions.joinNow(attempts.keys, attempts.budget());
		// counted as waiting once subscribed: from then on no release is missed
		queue.startWaiting();
		boolean interrupted = false;
		SleepingThread sleeper = new SleepingThread(queue);
		try {
			if (interruptible && Thread.interrupted()) {
				throw new InterruptedException();
			}
			LockReply result = first;
			boolean tryNow = membership.subscribedSinceJoining();
			for (;;) {
				if (!interruptible && Thread.interrupted()) {
					interrupted = true;
				}
				if (tryNow) {
					result = attempts.next(true);
					if (result instanceof LockReply.Granted granted) {
						return granted;
					}
				}
				tryNow = true;
				long remaining = attempts.wait.remainingNanos(attempts.start);
				if (remaining <= 0) {
					if (result == null) {
						throw attempts.refusedThroughout();
					}
					return null;
				}
				try {
					sleeper.sleep(Math.min(remaining, sleepAfter(result)));
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
			queue.stopWaiting();
			this.subscriptions.leave(membership);
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	// until the holder's lease ends, when no release message comes first
	static long sleepAfter(@Nullable LockReply result) {
		if (result instanceof LockReply.Busy busy && busy.isLeaseKnown()) {
			return TimeUnit.MILLISECONDS.toNanos(busy.remainingLeaseMillis());
		}
		return (result == null) ? REFUSED_RETRY_NANOS : UNKNOWN_LEASE_RECHECK_NANOS;
	}

	/** A thread asleep in a wait queue until woken or its time is up. */
	private static final class SleepingThread implements WaitQueue.Waiter {

		private final WaitQueue queue;

		private final Semaphore woken = new Semaphore(0);

		SleepingThread(WaitQueue queue) {
			this.queue = queue;
		}

		@Override
		public void wake() {
			this.woken.release();
		}

		void sleep(long nanos) throws InterruptedException {
			// a wake-up that raced the end of the last sleep: spent by the attempt since
			this.woken.drainPermits();
			this.queue.sleep(this);
			boolean wokenUp = false;
			try {
				wokenUp = this.woken.tryAcquire(nanos, TimeUnit.NANOSECONDS);
			}
			catch (InterruptedException ex) {
				// chosen by a release it will not try for: the next waiter tries instead
				if (!this.queue.remove(this)) {
					this.queue.released();
				}
				throw ex;
			}
			if (!wokenUp) {
				// timed out, or woken just now: either way it tries again next
				this.queue.remove(this);
			}
		}

	}

	/** The acquire script runs of one acquisition. */
	private final class Attempts {

		final LockKeys keys;

		private final Owner owner;

		private final Lease lease;

		final long start;

		final Wait wait;

		@Nullable private RedisLockException refusal;

		Attempts(LockKeys keys, Owner owner, Lease lease, long start, Wait wait) {
			this.keys = keys;
			this.owner = owner;
			this.lease = lease;
			this.start = start;
			this.wait = wait;
		}

		/**
		 * Runs the acquire script once.
		 * @param mayRetry whether the caller will try again, so that a refusal for now is
		 * reported as {@code null} instead of thrown
		 * @return the reply, or {@code null} when Redis refused the attempt for now
		 */
		@Nullable LockReply next(boolean mayRetry) {
			Hold hold = LockAcquirer.this.holds.get(this.keys, this.owner);
			try {
				return LockAcquirer.this.commands.acquire(this.keys, this.owner, this.lease,
						(hold != null) ? hold.count() : 0, budget());
			}
			catch (RedisLockException ex) {
				if (mayRetry && RedisCalls.isTransientRefusal(ex)) {
					logger.debug("Redis refused lock '" + this.keys.name() + "' for now; trying again shortly: "
							+ ex.getMessage());
					this.refusal = ex;
					return null;
				}
				throw ex;
			}
		}

		/**
		 * What is left of the wait time plus the command timeout: the longest the next
		 * command may take.
		 */
		long budget() {
			if (this.wait.isUnlimited()) {
				return RedisCalls.NO_LIMIT;
			}
			long commandTimeout = TimeUnit.MILLISECONDS.toNanos(LockAcquirer.this.commands.timeoutMillis());
			long total = this.wait.nanos() + commandTimeout;
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
			return new RedisLockException("Could not acquire lock '" + this.keys.name() + "' (key '"
					+ this.keys.lockKey() + "') " + this.wait.describe() + ": " + why, this.refusal);
		}

	}

}
