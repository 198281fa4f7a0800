package io.github.redislock.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockOutcomeUnknownException;
import io.github.redislock.RedisLockException;

/**
 * One acquisition that no thread waits for: the asynchronous way of waiting of the
 * algorithm {@link Acquisition} describes, whose decisions it shares with a waiting
 * thread's ({@link LockAcquirer}). Each attempt is an asynchronous command, and between
 * attempts the acquisition sleeps in the lock's wait queue until a release message or a
 * timer (the holder's lease end, the wait's end) wakes it.
 *
 * <p>
 * Its {@link #result() result} may be cancelled at any time: the acquisition then leaves
 * the queue and the subscription, a grant that was on its way is released in the
 * background, and its waiter's mark is withdrawn once no attempt of it is on its way
 * ({@link #afterLastAttempt}). Everything that may send a command runs on the client's
 * async thread. A grant completes the result on the given continuations executor: the
 * client's async thread, so that what a caller chains to the result never runs on
 * Lettuce's event loop; or, for a caller that moves its results elsewhere itself (the
 * reactive client), directly where the grant arrived, which saves a thread hop. Nothing
 * here blocks.
 *
 * <p>
 * With a watchdog lease it also takes a lock another owner of this client passes on (see
 * {@link LocalRun}): the passed hold completes the result on the same executor.
 *
 * <p>
 * Its one job is driving the attempts; its place among the lock's waiters (queue,
 * subscription, sleep) is its {@link AsyncWaitPlace}.
 */
final class AsyncAcquisition implements WaitQueue.Waiter {

	private final Acquisition acquisition;

	private final LockKeys keys;

	private final Owner owner;

	// the queue's release messages when the last attempt began, -1 before it has a queue
	private volatile long messagesBefore = -1;

	// whether attempt() ran before: only the first may wait in line (afterwards this
	// acquisition is one of the waiters the line counts)
	private volatile boolean attempted;

	private final LockCommands commands;

	private final WaitQueues queues;

	private final ReleaseSubscriptions subscriptions;

	private final AsyncWaitPlace place;

	private final Settlements settlements;

	// its timers, wake-ups, and replies other than a grant
	private final ScheduledExecutorService executor;

	// where a grant is handled
	private final Executor continuations;

	// a grant of Redis to the owner's hold
	private final Function<LockReply.Granted, Hold> grants;

	// a hold nobody wants any more (the result was cancelled as it came)
	private final Consumer<Hold> givesBack;

	private final CompletableFuture<@Nullable Hold> result = new CompletableFuture<>();

	// guarded by itself: the attempts sent and not answered yet, and what waits for them
	// (see afterLastAttempt)
	private final Object attempts = new Object();

	private int attemptsOut;

	@Nullable private Runnable afterAttempts;

	/**
	 * @param acquisition what is acquired, for how long, and the decisions between
	 * attempts; its tokens reserve what LocalRun passes on while other callers of this
	 * client wait
	 */
	AsyncAcquisition(Acquisition acquisition, Waiting waiting, Settlements settlements,
			ScheduledExecutorService executor, Executor continuations, Function<LockReply.Granted, Hold> grants,
			Consumer<Hold> givesBack) {
		this.acquisition = acquisition;
		this.keys = acquisition.keys;
		this.owner = acquisition.owner;
		this.commands = waiting.commands();
		this.queues = waiting.queues();
		this.subscriptions = waiting.subscriptions();
		this.settlements = settlements;
		this.executor = executor;
		this.continuations = continuations;
		this.grants = grants;
		this.givesBack = givesBack;
		this.place = new AsyncWaitPlace(this.keys, this.queues, this.subscriptions);
	}

	/**
	 * Completes with the owner's hold, with {@code null} when the wait ended without the
	 * lock, or with the failure; cancelling it withdraws the acquisition.
	 */
	CompletableFuture<@Nullable Hold> result() {
		return this.result;
	}

	/**
	 * Runs the action once no attempt of this acquisition, which has ended, can reach
	 * Redis any more: at once, or on the async thread when the attempt sent last is
	 * answered. The withdrawal of a waiter's mark goes so: sent while an attempt is on
	 * its way, it would reach Redis before the attempt whenever the attempt's command
	 * left after it (a cancel just after the attempt found the acquisition going on), and
	 * the attempt would mark the lock again for a waiter that is gone. Sent after it, it
	 * also tells that the acquisition is over in Redis: once its mark is gone, no attempt
	 * of it takes the lock later.
	 */
	void afterLastAttempt(Runnable action) {
		synchronized (this.attempts) {
			if (this.attemptsOut > 0) {
				Runnable earlier = this.afterAttempts;
				this.afterAttempts = (earlier != null) ? () -> {
					earlier.run();
					action.run();
				} : action;
				return;
			}
		}
		action.run();
	}

	// an attempt is about to be sent, unless the acquisition has ended
	private boolean sending() {
		synchronized (this.attempts) {
			if (this.result.isDone()) {
				return false;
			}
			this.attemptsOut++;
			return true;
		}
	}

	// an attempt was answered (or failed); what waited for it runs on the async thread,
	// never where the answer arrived (it sends a command)
	private void answered() {
		Runnable waited;
		synchronized (this.attempts) {
			this.attemptsOut--;
			if (this.attemptsOut > 0 || this.afterAttempts == null) {
				return;
			}
			waited = this.afterAttempts;
			this.afterAttempts = null;
		}
		try {
			this.executor.execute(waited);
		}
		catch (RejectedExecutionException closed) {
			waited.run();
		}
	}

	CompletableFuture<@Nullable Hold> start() {
		this.result.whenComplete((granted, failure) -> cleanUp());
		if (!this.acquisition.wait.isNone()) {
			this.place.enter();
		}
		attempt();
		return this.result;
	}

	// false when it made no attempt because the acquisition had ended
	private boolean attempt() {
		if (this.result.isDone()) {
			return false;
		}
		WaitQueue queue = this.place.queue();
		boolean first = !this.attempted;
		this.attempted = true;
		long holdOff = (queue != null) ? this.acquisition.holdOffNanos(queue, first)
				: (this.queues.isHeldHereByOtherThan(this.keys, this.owner) ? LockAcquirer.PASS_RECHECK_NANOS : 0);
		if (holdOff > 0) {
			// another owner of this client holds the lock and will pass it on, this
			// client just gave it up for others, or its callers already wait in line:
			// it is not worth asking Redis meanwhile
			afterAttempt(null, holdOff);
			return true;
		}
		Acquisition acquisition = this.acquisition;
		this.messagesBefore = (queue != null) ? queue.messages() : -1;
		if (!sending()) {
			// ended since the check above: a withdrawal may be on its way already
			return false;
		}
		CompletableFuture<LockReply> sent;
		try {
			sent = this.commands.acquireAsync(this.keys, this.owner, acquisition.lease, acquisition.tokens(queue),
					!acquisition.wait.isNone(), acquisition.budget());
		}
		catch (RuntimeException ex) {
			answered();
			throw ex;
		}
		sent.whenComplete((reply, failure) -> {
			answered();
			// A grant sends nothing more: it may be handled where it arrived. Any other
			// reply may lead to a command (a SUBSCRIBE, the next attempt), which must not
			// be sent from Lettuce's event loop: Lettuce may wait there for its writer
			// lock.
			Executor next = (reply instanceof LockReply.Granted) ? this.continuations : this.executor;
			try {
				next.execute(() -> onReply(reply, failure));
			}
			catch (RejectedExecutionException closed) {
				this.result.completeExceptionally(new ClientClosedException());
			}
		});
		return true;
	}

	private void onReply(@Nullable LockReply reply, @Nullable Throwable failure) {
		if (reply instanceof LockReply.Granted granted) {
			if (this.result.isDone()) {
				// cancelled while the grant was on its way: give it back
				this.settlements.settle(this.keys, this.owner, Settlements.Reason.ACQUIRE);
				return;
			}
			complete(this.grants.apply(granted));
			return;
		}
		if (failure != null) {
			failed(failure);
			return;
		}
		if (this.result.isDone()) {
			return;
		}
		afterAttempt(reply, 0);
	}

	private void failed(Throwable failure) {
		Throwable cause = (failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null)
				? failure.getCause() : failure;
		if (cause instanceof LockOutcomeUnknownException) {
			// Redis may grant it still: release it once Redis answers
			this.settlements.settle(this.keys, this.owner, Settlements.Reason.ACQUIRE);
		}
		else if (cause instanceof RedisLockException ex && !this.acquisition.wait.isNone()
				&& this.acquisition.refusedForNow(ex)) {
			// tried again, or, when the wait is over, reported as the blocking way
			// reports it
			afterAttempt(null, 0);
			return;
		}
		this.result.completeExceptionally(cause);
	}

	// the attempt found the lock taken (or Redis refused it for now), or it was not made
	// and the acquisition holds off for holdOffNanos (see WaitQueue#holdOffNanos)
	private void afterAttempt(@Nullable LockReply reply, long holdOffNanos) {
		Acquisition acquisition = this.acquisition;
		if (acquisition.wait.isNone() || acquisition.remainingNanos() <= 0) {
			if (acquisition.endedRefused(reply, holdOffNanos)) {
				this.result.completeExceptionally(acquisition.refusedThroughout());
			}
			else {
				this.result.complete(null);
			}
			return;
		}
		long sleep = acquisition.sleepNanos(reply, holdOffNanos);
		AsyncWaitPlace.Joining joining = this.place.joining();
		if (joining == AsyncWaitPlace.Joining.ENDED) {
			return;
		}
		if (joining == AsyncWaitPlace.Joining.SUBSCRIBED) {
			sleep(sleep);
			return;
		}
		this.subscriptions.join(this.keys, acquisition.budget()).whenCompleteAsync((membership, failure) -> {
			if (failure != null) {
				this.result.completeExceptionally(failure);
				return;
			}
			this.place.joined(membership);
			if (this.result.isDone()) {
				// cancelled meanwhile: the clean-up may have run before the membership
				// was known
				this.place.leaveSubscription();
			}
			else if (membership.subscribedSinceJoining()) {
				attempt();
			}
			else {
				sleep(Math.min(acquisition.remainingNanos(), sleep));
			}
		}, this.executor);
	}

	private void sleep(long nanos) {
		WaitQueue queue;
		try {
			queue = this.place.fallAsleep(this.result, this.executor, this::timeUp, nanos);
		}
		catch (RejectedExecutionException closed) {
			// outside the place's monitor: failing the result runs the caller's
			// continuations
			this.result.completeExceptionally(new ClientClosedException());
			return;
		}
		if (queue != null) {
			queue.sleep(this, this.messagesBefore);
		}
	}

	private void complete(Hold hold) {
		if (!this.result.complete(hold)) {
			// cancelled just now
			this.givesBack.accept(hold);
		}
	}

	@Override
	public Owner owner() {
		return this.owner;
	}

	@Override
	public @Nullable Owner passableOwner() {
		return this.acquisition.lease.watchdog() ? this.owner : null;
	}

	// called by the holder's release, which took this acquisition out of the queue: no
	// wake-up and no timer attempts any more; a cancel meanwhile gets the hold given back
	@Override
	public void pass(Hold hold) {
		this.place.stopSleeping();
		try {
			this.continuations.execute(() -> complete(hold));
		}
		catch (RejectedExecutionException closed) {
			this.result.completeExceptionally(new ClientClosedException());
			this.givesBack.accept(hold);
		}
	}

	// called by a release, on whatever thread delivered it
	@Override
	public void wake() {
		try {
			// never directly on the thread delivering the release (Lettuce's event loop):
			// an attempt may need a connection, and making one there would wait for
			// itself
			this.executor.execute(() -> {
				WaitQueue queue = this.place.takeWakeUp();
				if (queue != null && !attempt()) {
					// cancelled after this took the wake-up and before it tried: the
					// clean-up found it awake, so the next waiter tries instead here
					queue.wakeOne();
				}
			});
		}
		catch (RejectedExecutionException closed) {
			this.result.completeExceptionally(new ClientClosedException());
		}
	}

	private void timeUp() {
		WaitQueue queue = this.place.queue();
		// still in the queue: nobody woke it. Not in it: a wake-up is on its way and
		// will try instead.
		if (queue != null && queue.remove(this) && this.place.stopSleeping()) {
			attempt();
		}
	}

	// runs once the result is done, however: nothing of the acquisition stays behind
	private void cleanUp() {
		this.place.leave(this);
	}

}
