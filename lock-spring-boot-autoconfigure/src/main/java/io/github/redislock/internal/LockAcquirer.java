package io.github.redislock.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

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
	 * How often a waiter for a pass looks again whether the holder of its client still
	 * holds (asking nobody). A holder that passes nothing on frees the lock in Redis,
	 * whose message wakes a waiter, and one that is forgotten or found lost wakes one
	 * too; this only bounds what a missed wake-up costs.
	 */
	static final long PASS_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final Waiting waiting;

	private final Holds holds;

	LockAcquirer(Waiting waiting, Holds holds) {
		this.waiting = waiting;
		this.holds = holds;
	}

	/**
	 * Acquires the lock for the owner, on the calling thread: the blocking way of waiting
	 * of the algorithm {@link Acquisition} describes. Returns within the wait time plus
	 * the command timeout: each command is given what is left of that. While another
	 * owner of this client holds the lock and may pass it on, the owner waits for that
	 * pass without asking Redis.
	 * @param start when the caller started, from {@link System#nanoTime()}
	 * @param interruptible whether an interrupt ends the wait with InterruptedException;
	 * if not, the interrupt status is restored once the method returns; an interrupt that
	 * comes as the lock is passed to the owner leaves it the lock, with the interrupt
	 * status set
	 * @param grants makes the owner's hold of a grant from Redis
	 * @return the owner's hold, or {@code null} when the wait ended without the lock
	 */
	@Nullable Hold acquire(LockKeys keys, Owner owner, Lease lease, long start, Wait wait, boolean interruptible,
			Function<LockReply.Granted, Hold> grants) throws InterruptedException {
		Acquisition acquisition = this.waiting.acquisition(keys, owner, lease, wait, start);
		if (wait.isNone()) {
			if (this.waiting.queues().isHeldHereByOtherThan(keys, owner)) {
				return null;
			}
			LockReply reply = new Attempts(acquisition, null).next(false);
			return (reply instanceof LockReply.Granted granted) ? grants.apply(granted) : null;
		}
		// in the queue before the first attempt: a release announced after it is kept
		// for this caller's sleep
		WaitQueue queue = this.waiting.queues().enter(keys);
		Attempts attempts = new Attempts(acquisition, queue);
		try {
			LockReply first = null;
			long holdOff = acquisition.holdOffNanos(queue, true);
			long messagesBefore = queue.messages();
			if (holdOff == 0) {
				first = attempts.next(true);
				if (first instanceof LockReply.Granted granted) {
					return grants.apply(granted);
				}
			}
			return await(queue, attempts, first, holdOff, messagesBefore, interruptible, grants);
		}
		finally {
			this.waiting.queues().exit(queue);
		}
	}

	private @Nullable Hold await(WaitQueue queue, Attempts attempts, @Nullable LockReply first, long firstHoldOff,
			long firstMessagesBefore, boolean interruptible, Function<LockReply.Granted, Hold> grants)
			throws InterruptedException {
		// joining does not give way to an interrupt (it would leave a half-made
		// subscription); one that came meanwhile ends the wait here. A waiter for a pass
		// joins too: the holder may free the lock in Redis instead, and say so there.
		Acquisition acquisition = attempts.acquisition;
		ReleaseSubscriptions.Membership membership = this.waiting.subscriptions()
			.joinNow(acquisition.keys, acquisition.budget());
		// counted as waiting once subscribed: from then on no release is missed
		queue.startWaiting();
		boolean interrupted = false;
		SleepingThread sleeper = new SleepingThread(queue, acquisition.owner, acquisition.lease.watchdog());
		sleeper.messagesBefore = firstMessagesBefore;
		try {
			if (interruptible && Thread.interrupted()) {
				throw new InterruptedException();
			}
			LockReply result = first;
			long holdOff = firstHoldOff;
			boolean tryNow = membership.subscribedSinceJoining();
			for (;;) {
				if (!interruptible && Thread.interrupted()) {
					interrupted = true;
				}
				if (tryNow) {
					holdOff = acquisition.holdOffNanos(queue, false);
					if (holdOff == 0) {
						sleeper.messagesBefore = queue.messages();
						result = attempts.next(true);
						if (result instanceof LockReply.Granted granted) {
							return grants.apply(granted);
						}
					}
				}
				tryNow = true;
				if (acquisition.remainingNanos() <= 0) {
					if (acquisition.endedRefused(result, holdOff)) {
						throw acquisition.refusedThroughout();
					}
					return null;
				}
				try {
					sleeper.sleep(acquisition.sleepNanos(result, holdOff));
				}
				catch (InterruptedException ex) {
					if (interruptible) {
						throw ex;
					}
					interrupted = true;
				}
				Hold passed = sleeper.passed();
				if (passed != null) {
					return passed;
				}
			}
		}
		finally {
			queue.stopWaiting();
			this.waiting.subscriptions().leave(membership);
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * A thread asleep in a wait queue until woken, passed the lock, or its time is up.
	 *
	 * <p>
	 * It parks on a count of wake-ups of its own rather than on a
	 * {@link java.util.concurrent.Semaphore}: the same semantics, but every step (a
	 * wake-up counted, the thread unparked, its interrupt seen) is a step of its own that
	 * a model checker schedules, where it takes a JDK semaphore for one step and never
	 * tries a wake-up and an interrupt that both come while the thread is parked. Nothing
	 * is allocated per sleep.
	 */
	private static final class SleepingThread implements WaitQueue.Waiter {

		private static final VarHandle WAKE_UPS;

		static {
			try {
				WAKE_UPS = MethodHandles.lookup().findVarHandle(SleepingThread.class, "wakeUps", int.class);
			}
			catch (ReflectiveOperationException ex) {
				throw new ExceptionInInitializerError(ex);
			}
		}

		private final WaitQueue queue;

		private final Owner owner;

		// whether the lock may be passed to it (it waits with a watchdog lease)
		private final boolean passable;

		// the thread that sleeps: the one that waits for the lock
		private final Thread thread = Thread.currentThread();

		// wake-ups and passes delivered and not yet taken
		private volatile int wakeUps;

		@Nullable private volatile Hold passed;

		// the queue's release messages when its last attempt began
		long messagesBefore = -1;

		SleepingThread(WaitQueue queue, Owner owner, boolean passable) {
			this.queue = queue;
			this.owner = owner;
			this.passable = passable;
		}

		@Override
		public Owner owner() {
			return this.owner;
		}

		@Override
		public void wake() {
			WAKE_UPS.getAndAdd(this, 1);
			LockSupport.unpark(this.thread);
		}

		@Override
		public @Nullable Owner passableOwner() {
			return this.passable ? this.owner : null;
		}

		@Override
		public void pass(Hold hold) {
			this.passed = hold;
			wake();
		}

		@Nullable Hold passed() {
			return this.passed;
		}

		void sleep(long nanos) throws InterruptedException {
			// a wake-up that raced the end of the last sleep: spent by the attempt since
			WAKE_UPS.getAndSet(this, 0);
			this.queue.sleep(this, this.messagesBefore);
			boolean wokenUp = false;
			try {
				wokenUp = awaitWakeUp(nanos);
			}
			catch (InterruptedException ex) {
				if (!this.queue.remove(this)) {
					// chosen by a release: a wake-up or the lock itself is on its way (a
					// pass takes at most one command), and the lock wins over the
					// interrupt
					awaitWakeUpUninterruptibly();
					if (this.passed != null) {
						Thread.currentThread().interrupt();
						return;
					}
					// a wake-up it will not try for: the next waiter tries instead
					this.queue.wakeOne();
				}
				throw ex;
			}
			if (!wokenUp && !this.queue.remove(this)) {
				// timed out just as it was chosen: wait for what it was chosen for
				awaitWakeUpUninterruptibly();
			}
		}

		/**
		 * Takes a wake-up, waiting for one at most so long; as
		 * {@link java.util.concurrent.Semaphore#tryAcquire(long, TimeUnit)}, an interrupt
		 * (before or while it parks) ends the wait, also with a wake-up there: the caller
		 * then finds whether one is on its way, and hands it on.
		 * @return whether it took one; {@code false} when its time is up
		 */
		private boolean awaitWakeUp(long nanos) throws InterruptedException {
			long deadline = System.nanoTime() + nanos;
			for (;;) {
				int wakeUps = this.wakeUps;
				// looked at after the count: a wake-up and an interrupt that both came
				// while it was parked end its wait as the interrupt
				if (Thread.interrupted()) {
					throw new InterruptedException();
				}
				if (wakeUps > 0) {
					if (WAKE_UPS.compareAndSet(this, wakeUps, wakeUps - 1)) {
						return true;
					}
					// another wake-up came meanwhile
					continue;
				}
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					return false;
				}
				// returns when unparked, interrupted, at the deadline or for no reason
				LockSupport.parkNanos(this, left);
			}
		}

		/**
		 * Takes a wake-up, waiting for one however long it takes; an interrupt meanwhile
		 * is kept as the thread's interrupt status.
		 */
		private void awaitWakeUpUninterruptibly() {
			boolean interrupted = false;
			while (!takeWakeUp()) {
				LockSupport.park(this);
				if (Thread.interrupted()) {
					interrupted = true;
				}
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}

		private boolean takeWakeUp() {
			for (;;) {
				int wakeUps = this.wakeUps;
				if (wakeUps == 0) {
					return false;
				}
				if (WAKE_UPS.compareAndSet(this, wakeUps, wakeUps - 1)) {
					return true;
				}
			}
		}

	}

	/** The acquire script runs of one acquisition by a waiting thread. */
	private final class Attempts {

		final Acquisition acquisition;

		@Nullable private final WaitQueue queue;

		Attempts(Acquisition acquisition, @Nullable WaitQueue queue) {
			this.acquisition = acquisition;
			this.queue = queue;
		}

		/**
		 * Runs the acquire script once.
		 * @param mayRetry whether the caller will try again, so that a refusal for now is
		 * reported as {@code null} instead of thrown
		 * @return the reply, or {@code null} when Redis refused the attempt for now
		 */
		@Nullable LockReply next(boolean mayRetry) {
			Acquisition acquisition = this.acquisition;
			Hold hold = LockAcquirer.this.holds.get(acquisition.keys, acquisition.owner);
			// a re-entry speaks as the owner Redis knows; a first acquisition with other
			// callers of this client waiting reserves tokens for passing the lock to them
			Owner redisOwner = (hold != null) ? hold.redisOwner() : acquisition.owner;
			try {
				return LockAcquirer.this.waiting.commands()
					.acquire(acquisition.keys, redisOwner, acquisition.lease, (hold != null) ? hold.count() : 0,
							acquisition.tokens(this.queue), !acquisition.wait.isNone(), acquisition.budget());
			}
			catch (RedisLockException ex) {
				if (mayRetry && acquisition.refusedForNow(ex)) {
					logger.debug("Redis refused lock '" + acquisition.keys.name() + "' for now; trying again shortly: "
							+ ex.getMessage());
					return null;
				}
				throw ex;
			}
		}

	}

}
