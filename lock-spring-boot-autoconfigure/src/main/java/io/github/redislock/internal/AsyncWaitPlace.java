package io.github.redislock.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * An {@link AsyncAcquisition}'s place among the waiters of its lock: the wait queue it
 * entered, its membership of the release channel, whether it counts as waiting, and
 * whether it sleeps and on which timer. Split from the acquisition, which drives the
 * attempts, so that what a cancel, a wake-up and a timer race for is in one small class
 * under one monitor: each step here is atomic, and none sends a command.
 */
final class AsyncWaitPlace {

	private final LockKeys keys;

	private final WaitQueues queues;

	private final ReleaseSubscriptions subscriptions;

	// guarded by this
	@Nullable private WaitQueue queue;

	private ReleaseSubscriptions.@Nullable Membership membership;

	@Nullable private ScheduledFuture<?> timer;

	private boolean joined;

	private boolean waiting;

	private boolean asleep;

	AsyncWaitPlace(LockKeys keys, WaitQueues queues, ReleaseSubscriptions subscriptions) {
		this.keys = keys;
		this.queues = queues;
		this.subscriptions = subscriptions;
	}

	/** Enters the lock's wait queue, before the first attempt. */
	synchronized void enter() {
		this.queue = this.queues.enter(this.keys);
	}

	/** The queue entered, or null when the acquisition has none, or left it. */
	synchronized @Nullable WaitQueue queue() {
		return this.queue;
	}

	/** What the acquisition is to do about the release channel before it sleeps. */
	enum Joining {

		/** Nothing: it left the queue (it ended). */
		ENDED,

		/** Subscribe to it: this is its first sleep. */
		SUBSCRIBE,

		/** Nothing: it subscribed before. */
		SUBSCRIBED

	}

	synchronized Joining joining() {
		if (this.queue == null) {
			return Joining.ENDED;
		}
		Joining joining = this.joined ? Joining.SUBSCRIBED : Joining.SUBSCRIBE;
		this.joined = true;
		return joining;
	}

	/**
	 * The subscription is made; from then on no release is missed, so the acquisition
	 * counts as waiting.
	 */
	synchronized void joined(ReleaseSubscriptions.Membership membership) {
		this.membership = membership;
		if (this.queue != null) {
			this.waiting = true;
			this.queue.startWaiting();
		}
	}

	/**
	 * Falls asleep until the timer, unless it ended.
	 * @param ended whether the acquisition's result is done
	 * @return the queue to sleep in, or null when it ended
	 * @throws RejectedExecutionException when the client closed: no timer is set
	 */
	synchronized @Nullable WaitQueue fallAsleep(CompletableFuture<?> ended, ScheduledExecutorService executor,
			Runnable timeUp, long nanos) {
		WaitQueue queue = this.queue;
		if (queue == null || ended.isDone()) {
			return null;
		}
		this.asleep = true;
		this.timer = executor.schedule(timeUp, Math.max(0, nanos), TimeUnit.NANOSECONDS);
		return queue;
	}

	/**
	 * The queue whose wake-up the acquisition takes, or null when it is not asleep (woken
	 * already, or ended: the clean-up handed the wake-up on).
	 */
	synchronized @Nullable WaitQueue takeWakeUp() {
		WaitQueue queue = this.queue;
		return stopSleeping() ? queue : null;
	}

	/** Ends the sleep and its timer; false when it was not asleep. */
	synchronized boolean stopSleeping() {
		if (!this.asleep) {
			return false;
		}
		this.asleep = false;
		if (this.timer != null) {
			this.timer.cancel(false);
			this.timer = null;
		}
		return true;
	}

	/**
	 * Leaves the channel and the queue once the acquisition ended; a wake-up chosen for
	 * it, which it will not use, goes to the next waiter.
	 */
	void leave(WaitQueue.Waiter waiter) {
		WaitQueue queue;
		boolean wasAsleep;
		boolean wasWaiting;
		synchronized (this) {
			queue = this.queue;
			this.queue = null;
			wasAsleep = stopSleeping();
			wasWaiting = this.waiting;
		}
		leaveSubscription();
		if (queue == null) {
			return;
		}
		if (wasAsleep && !queue.remove(waiter)) {
			queue.wakeOne();
		}
		if (wasWaiting) {
			queue.stopWaiting();
		}
		this.queues.exit(queue);
	}

	/** Leaves the release channel, if it joined it. */
	void leaveSubscription() {
		ReleaseSubscriptions.Membership membership;
		synchronized (this) {
			membership = this.membership;
			this.membership = null;
		}
		if (membership != null) {
			this.subscriptions.leave(membership);
		}
	}

}
