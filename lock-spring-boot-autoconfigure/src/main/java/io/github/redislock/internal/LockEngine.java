package io.github.redislock.internal;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;

import io.micrometer.observation.Observation;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.jspecify.annotations.Nullable;
import org.springframework.util.Assert;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.LeaseLostEvent;
import io.github.redislock.LockOutcomeUnknownException;
import io.github.redislock.RedisLockException;

/**
 * Acquires and releases locks for the owners of one client (its threads and handles, see
 * {@link Owner}), and keeps their holds: renewed by the watchdog when the lease is the
 * watchdog's, observed from first acquisition to last release. Uncontended, an acquire
 * and a release are one round trip each and nothing else; {@link LockAcquirer} does the
 * waiting. The owner is chosen by the caller, at the API's entry point.
 */
final class LockEngine implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LockEngine.class);

	private final LockCommands commands;

	private final LockReads reads;

	private final Holds holds;

	private final Owners owners;

	private final WaitQueues queues;

	private final ReleaseSubscriptions subscriptions;

	private final LeaseWatchdog watchdog;

	private final LeaseLostNotifier notifier;

	private final LockObservations observations;

	private final LockAcquirer acquirer;

	private final Settlements settlements;

	// in-JVM passing of a released lock to this client's next waiter
	private final LocalPasses passes;

	// consecutive local passes while other clients wait; 0 for none
	private final int maxLocalPasses;

	// replies, wake-ups and timers of asynchronous acquisitions
	private final AsyncThread asyncThread = new AsyncThread();

	private volatile boolean closed;

	LockEngine(Owners owners, LockCommands commands, LockReads reads, Holds holds, WaitQueues queues,
			ReleaseSubscriptions subscriptions, LeaseWatchdog watchdog, Settlements settlements,
			LeaseLostNotifier notifier, LockObservations observations, int maxLocalPasses) {
		this.maxLocalPasses = maxLocalPasses;
		this.queues = queues;
		this.notifier = notifier;
		this.observations = observations;
		this.owners = owners;
		this.commands = commands;
		this.reads = reads;
		this.holds = holds;
		this.subscriptions = subscriptions;
		this.watchdog = watchdog;
		this.acquirer = new LockAcquirer(commands, holds, queues, subscriptions, maxLocalPasses);
		this.settlements = settlements;
		this.passes = new LocalPasses(commands, holds, observations, maxLocalPasses, new LocalPasses.Releases() {

			@Override
			public RuntimeException failed(Hold hold, RuntimeException ex) {
				return releaseFailed(hold, ex);
			}

			@Override
			public void released(Hold hold, LockReply reply) {
				LockEngine.this.released(hold, reply);
			}

		});
	}

	/**
	 * Acquires the lock for the owner.
	 * @param interruptible whether an interrupt ends the wait with InterruptedException;
	 * if not, the interrupt status is restored once the method returns
	 * @return the owner's hold, or {@code null} when the wait ended without the lock
	 */
	@Nullable Hold acquire(LockKeys keys, Owner owner, Wait wait, Lease lease, boolean interruptible)
			throws InterruptedException {
		if (this.closed) {
			// its watchdog is stopped: a lock taken now would silently lose its lease
			throw new IllegalStateException("The lock client is closed; cannot acquire lock '" + keys.name() + "'");
		}
		Observation observation = this.observations.startAcquire(keys);
		Hold hold;
		try {
			hold = acquireObserved(keys, owner, wait, lease, interruptible);
		}
		catch (InterruptedException ex) {
			LockObservations.endAcquire(observation, "interrupted", null);
			throw ex;
		}
		catch (RuntimeException | Error ex) {
			LockObservations.endAcquire(observation, "error", ex);
			throw ex;
		}
		LockObservations.endAcquire(observation, (hold != null) ? "acquired" : "timed-out", null);
		return hold;
	}

	@Nullable private Hold acquireObserved(LockKeys keys, Owner owner, Wait wait, Lease lease, boolean interruptible)
			throws InterruptedException {
		long start = System.nanoTime();
		Hold held = this.holds.get(keys, owner);
		if (held != null && reentersLocally(held, lease)) {
			held.count(held.count() + 1);
			return held;
		}
		boolean firstHold = held == null;
		boolean claimed = firstHold && this.settlements.claim(keys, owner);
		try {
			Hold hold = this.acquirer.acquire(keys, owner, lease, start, wait, interruptible,
					(granted) -> onAcquired(keys, owner, granted, lease, start));
			if (hold == null) {
				withdraw(keys, owner, wait);
			}
			return hold;
		}
		catch (RuntimeException | InterruptedException ex) {
			withdraw(keys, owner, wait);
			// Redis may grant it later: a lock held for a whole lease by an owner that
			// was told it failed. Or this acquisition took over a settlement it could not
			// finish in its place. A nested acquisition adds nothing the owner's own
			// count does not already undo at its last release.
			if (claimed || (firstHold && ex instanceof LockOutcomeUnknownException)) {
				this.settlements.settle(keys, owner, Settlements.Reason.ACQUIRE);
			}
			throw ex;
		}
	}

	/**
	 * Acquires the lock for a handle owner without any thread waiting; see
	 * {@link AsyncAcquisition}. Cancelling the future withdraws the acquisition.
	 * @return completes with the owner's hold, or {@code null} when the wait ended
	 * without the lock
	 */
	CompletableFuture<@Nullable Hold> acquireAsync(LockKeys keys, Owner owner, Wait wait, Lease lease) {
		return acquireAsync(keys, owner, wait, lease, null);
	}

	/**
	 * Acquires as {@link #acquireAsync(LockKeys, Owner, Wait, Lease)} does, completing
	 * with a grant on the given executor instead of the client's async thread.
	 * @param continuations where a grant completes the future (a direct executor: where
	 * Redis' answer arrived), or {@code null} for the client's async thread
	 */
	CompletableFuture<@Nullable Hold> acquireAsync(LockKeys keys, Owner owner, Wait wait, Lease lease,
			@Nullable Executor continuations) {
		if (this.closed) {
			return CompletableFuture.failedFuture(
					new IllegalStateException("The lock client is closed; cannot acquire lock '" + keys.name() + "'"));
		}
		long start = System.nanoTime();
		Observation observation = this.observations.startAcquire(keys);
		ScheduledExecutorService asyncExecutor = this.asyncThread.executor();
		AsyncAcquisition acquisition = new AsyncAcquisition(
				new Acquisition(keys, owner, lease, wait, start, this.commands.timeoutMillis(), this.maxLocalPasses),
				this.commands, this.queues, this.subscriptions, this.settlements, asyncExecutor,
				(continuations != null) ? continuations : asyncExecutor,
				(grant) -> onAcquired(keys, owner, grant, lease, start), this::giveBack);
		CompletableFuture<@Nullable Hold> result = acquisition.start();
		// the caller's future completes after the observation ended, and a cancel of it
		// withdraws the acquisition
		CompletableFuture<@Nullable Hold> hold = new CompletableFuture<>();
		result.whenComplete((acquired, failure) -> {
			if (failure != null || acquired == null) {
				withdraw(keys, owner, wait);
			}
			if (failure != null) {
				LockObservations.endAcquire(observation,
						(failure instanceof java.util.concurrent.CancellationException) ? "cancelled" : "error",
						failure);
				hold.completeExceptionally(failure);
				return;
			}
			LockObservations.endAcquire(observation, (acquired != null) ? "acquired" : "timed-out", null);
			if (!hold.complete(acquired) && acquired != null) {
				// cancelled just now: give it back
				giveBack(acquired);
			}
		});
		hold.whenComplete((acquired, failure) -> {
			if (hold.isCancelled()) {
				result.cancel(false);
			}
		});
		return hold;
	}

	/**
	 * Releases one hold of the owner.
	 * @throws IllegalMonitorStateException when the owner holds no hold here
	 * @throws io.github.redislock.LeaseExpiredException when it did, but its lease was
	 * lost
	 */
	void release(LockKeys keys, Owner owner) {
		release(keys, owner, 0);
	}

	/**
	 * Releases one hold of the owner; the last one leaves the lock taken for nobody until
	 * it has been held {@code holdAtLeastMillis} in all, when it was held for less.
	 */
	void release(LockKeys keys, Owner owner, long holdAtLeastMillis) {
		Hold hold = this.holds.get(keys, owner);
		if (hold == null) {
			throw new IllegalMonitorStateException("Lock '" + keys.name() + "' (key '" + keys.lockKey()
					+ "') is not held by " + (owner.isHandle() ? "this handle: it was released already"
							: "the current thread '" + owner.thread().getName() + "'"));
		}
		release(hold, holdAtLeastMillis);
	}

	private void release(Hold hold, long holdAtLeastMillis) {
		if (hold.count() > 1 && !hold.isLost()) {
			// the nested holds are this client's own count: Redis keeps the lock for the
			// outermost one, and the last release sends the count it still has (1)
			hold.count(hold.count() - 1);
			return;
		}
		if (hold.count() == 1) {
			hold.releasing();
			if (holdAtLeastMillis == 0 && this.passes.passOn(hold, true)) {
				return;
			}
		}
		LockReply reply;
		try {
			reply = this.commands.release(hold.keys(), hold.redisOwner(), hold.count(),
					keepMillis(hold, holdAtLeastMillis), wakesOwnWaiters(hold));
		}
		catch (RuntimeException ex) {
			throw releaseFailed(hold, ex);
		}
		released(hold, reply);
	}

	/**
	 * Releases the handle owner's hold without waiting, as
	 * {@link #release(LockKeys, Owner)} does: the future fails as that method throws.
	 */
	CompletableFuture<Void> releaseAsync(Hold hold, long holdAtLeastMillis) {
		hold.releasing();
		// passed on only when that needs no command: nothing here may wait for Redis
		if (holdAtLeastMillis == 0 && hold.count() == 1 && this.passes.passOn(hold, false)) {
			return CompletableFuture.completedFuture(null);
		}
		return this.commands
			.releaseAsync(hold.keys(), hold.redisOwner(), hold.count(), keepMillis(hold, holdAtLeastMillis),
					wakesOwnWaiters(hold))
			.handle((reply, failure) -> {
				if (failure != null) {
					Throwable cause = (failure instanceof CompletionException && failure.getCause() != null)
							? failure.getCause() : failure;
					// an Error may have no message: its class then says what it was
					throw releaseFailed(hold, (cause instanceof RuntimeException ex) ? ex : new RedisLockException(
							Objects.toString(cause.getMessage(), cause.getClass().getSimpleName()), cause));
				}
				released(hold, reply);
				return null;
			});
	}

	/**
	 * Whether this client's own waiters for the lock are woken here when the hold ends
	 * (its wait queue tracks it: {@link WaitQueue#notHeld}), so that Redis needs to
	 * announce the release only to other clients' waiters.
	 */
	private static boolean wakesOwnWaiters(Hold hold) {
		return hold.queue() != null;
	}

	/**
	 * Releases a hold nobody wants any more (its acquisition was cancelled as it was
	 * granted) on the client's async thread; a failure is left to the settlements.
	 */
	void giveBack(Hold hold) {
		try {
			this.asyncThread.executor().execute(() -> releaseAsync(hold, 0).exceptionally((ex) -> null));
		}
		catch (RejectedExecutionException closed) {
			forget(hold, null);
			this.settlements.settle(hold.keys(), hold.redisOwner(), Settlements.Reason.RELEASE);
		}
	}

	// A waiter that leaves without the lock takes back the mark it left in Redis (a
	// waiting writer's keeps new readers out); without an answer, the mark expires
	private void withdraw(LockKeys keys, Owner owner, Wait wait) {
		if (wait.isNone() || !(keys.kind() instanceof LockKind.MarksWaiters kind)) {
			return;
		}
		try {
			this.commands.withdrawAsync(kind, keys, owner).exceptionally((ex) -> {
				withdrawFailed(keys, ex);
				return null;
			});
		}
		catch (RuntimeException ex) {
			withdrawFailed(keys, ex);
		}
	}

	private static void withdrawFailed(LockKeys keys, Throwable ex) {
		Throwable cause = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
		logger.warn(cause.getMessage() + "; what this waiter, which stopped waiting, left in Redis stays until it "
				+ "expires (a waiting writer's mark, a fair lock's place in the queue: at most a few seconds; an exclusive "
				+ "lock's count of waiters: until the lock is freed, when its release keeps it 20 ms for nobody)");
	}

	/**
	 * Checks a {@code holdAtLeast} argument, before anything is sent: a minimum the
	 * lock's kind cannot keep is refused, so that the caller still holds the lock rather
	 * than finding it freed at once without a word.
	 * @param release the call, for the message: {@code "unlock"} or {@code "release"}
	 * @param holder who holds the lock, for the message: {@code "thread"} or
	 * {@code "handle"}
	 */
	static long holdAtLeastMillis(Duration holdAtLeast, LockKeys keys, String release, String holder) {
		Assert.notNull(holdAtLeast, () -> "holdAtLeast of lock '" + keys.name() + "' must not be null");
		Assert.isTrue(!holdAtLeast.isNegative(),
				() -> "holdAtLeast of lock '" + keys.name() + "' must not be negative, was " + holdAtLeast);
		long millis = holdAtLeast.toMillis();
		if (millis > 0 && !(keys.kind() instanceof LockKind.KeepsForNobody)) {
			throw new UnsupportedOperationException(release + "(holdAtLeast) is not supported by the "
					+ keys.kind().mode() + " lock '" + keys.name() + "' yet; the " + holder + " still holds it: call "
					+ release + "() and keep it held longer before");
		}
		return millis;
	}

	// what is left of a holdAtLeast when the last hold goes
	private static long keepMillis(Hold hold, long holdAtLeastMillis) {
		return (hold.count() == 1 && holdAtLeastMillis > 0) ? Math.max(0, holdAtLeastMillis - hold.heldForMillis()) : 0;
	}

	// Redis did not run it (refused it for now, LOADING say), or it is unknown whether
	// it did. Keep the hold while nested holds remain; after the last one stop renewing
	// it, and release it once Redis answers rather than leave it held for the rest of
	// its lease.
	private RuntimeException releaseFailed(Hold hold, RuntimeException ex) {
		if (hold.count() > 1) {
			return ex;
		}
		forget(hold, ex);
		this.settlements.settle(hold.keys(), hold.redisOwner(), Settlements.Reason.RELEASE);
		return new RedisLockException(ex.getMessage() + "; the client releases the lock in the background "
				+ "once Redis answers (or its lease ends first)", ex);
	}

	private void released(Hold hold, LockReply reply) {
		LockKeys keys = hold.keys();
		if (reply instanceof LockReply.Released released && released.holdsLeft() > 0) {
			hold.count(released.holdsLeft());
			return;
		}
		if (reply == LockReply.NOT_HELD) {
			LeaseExpiredException expired = new LeaseExpiredException(keys.name(), hold.describeLoss());
			forget(hold, expired);
			reportLost(hold, LeaseLostEvent.DetectedBy.UNLOCK);
			throw expired;
		}
		forget(hold, null);
		if (logger.isDebugEnabled()) {
			logger.debug("Released lock '" + keys.name() + "' after " + Durations.formatMillis(hold.heldForMillis()));
		}
	}

	/**
	 * Sets what is left of the hold's lease; from then on the watchdog no longer renews
	 * it.
	 * @return whether the owner still held the lock
	 */
	boolean extend(Hold hold, long leaseMillis) {
		if (!this.holds.contains(hold)) {
			return false;
		}
		// a fixed lease first, which stops the renewals: a renewal after the new lease
		// was set would undo it
		Lease before = hold.lease();
		hold.lease(Lease.fixed(leaseMillis));
		boolean held;
		try {
			held = this.commands.extend(hold.keys(), hold.redisOwner(), leaseMillis);
		}
		catch (RuntimeException ex) {
			restore(hold, before);
			throw ex;
		}
		if (!held) {
			// the watchdog, or the release, finds and reports the loss
			restore(hold, before);
		}
		return held;
	}

	/**
	 * Sets what is left of the owner's lease as {@link #extend(Hold, long)} does.
	 * @return whether the owner still held the lock; false if this client counts no hold
	 */
	boolean extend(LockKeys keys, Owner owner, long leaseMillis) {
		Hold hold = this.holds.get(keys, owner);
		return (hold != null) && extend(hold, leaseMillis);
	}

	private void restore(Hold hold, Lease before) {
		hold.lease(before);
	}

	/**
	 * A handle became unreachable while holding: its lease is no longer renewed.
	 */
	void abandoned(Hold hold) {
		this.watchdog.abandoned(hold, "A handle on lock '" + hold.keys().name() + "' acquired on thread '"
				+ hold.owner().thread().getName() + "' became unreachable without being released");
	}

	boolean forceRelease(LockKeys keys) {
		return this.commands.forceRelease(keys);
	}

	boolean isLocked(LockKeys keys) {
		return this.reads.exists(keys);
	}

	/**
	 * The owner's holds: what this client counts, provided Redis still has the owner as
	 * the lock's owner. A grant this client does not account for (an acquisition that
	 * failed, settled in the background) is not one.
	 */
	int holdCount(LockKeys keys, Owner owner) {
		Hold hold = this.holds.get(keys, owner);
		if (hold == null) {
			return 0;
		}
		return (this.reads.holdCount(keys, hold.redisOwner()) > 0) ? hold.count() : 0;
	}

	/** What Redis says is left of the hold's lease; 0 once the owner no longer holds. */
	long remainingLeaseMillis(Hold hold) {
		if (!this.holds.contains(hold)) {
			return 0;
		}
		return Math.max(0, this.reads.remainingLeaseMillis(hold.keys(), hold.redisOwner()));
	}

	/** Whether the hold is still the owner's, here and in Redis. */
	boolean isHeld(Hold hold) {
		return this.holds.contains(hold)
				&& this.reads.remainingLeaseMillis(hold.keys(), hold.redisOwner()) != LockReads.NO_KEY;
	}

	long remainingLeaseMillis(LockKeys keys) {
		return this.reads.remainingLeaseMillis(keys);
	}

	long fencingToken(LockKeys keys, Owner owner) {
		Hold hold = this.holds.get(keys, owner);
		if (hold == null) {
			throw new IllegalMonitorStateException("Lock '" + keys.name() + "' is not held by the current thread " + "'"
					+ owner.thread().getName() + "', so it has no fencing token");
		}
		return hold.token();
	}

	/**
	 * Whether this client counts a hold of the owner on the lock (asks Redis nothing).
	 */
	boolean holdsLocally(LockKeys keys, Owner owner) {
		return this.holds.get(keys, owner) != null;
	}

	@Override
	public void close() {
		this.closed = true;
		this.asyncThread.close();
		this.settlements.close();
		this.watchdog.close();
		this.subscriptions.close();
	}

	// Re-entry under the watchdog asks Redis nothing: the watchdog keeps the lease, and a
	// release sends the owner's own count, which Redis takes over (see unlock.lua), so
	// nested holds need no trace there. A fixed lease goes to Redis, which may lengthen
	// the lock's expiry; a hold found lost goes there too, to be taken anew or reported.
	// Under the watchdog there is nothing to lengthen; with a lease, nothing either when
	// Redis surely keeps the lock longer than that already (lock.lua never shortens it)
	private static boolean reentersLocally(Hold held, Lease lease) {
		if (held.isLost() || held.isReleasing()) {
			return false;
		}
		return (lease.watchdog() && held.lease().watchdog()) || held.leaseOutlasts(lease.millis());
	}

	private Hold onAcquired(LockKeys keys, Owner owner, LockReply.Granted grant, Lease lease, long start) {
		long token = grant.fencingToken();
		Hold hold = this.holds.get(keys, owner);
		// a re-entry in Redis answers with the token of the run's acquisition
		if (hold != null && (hold.token() == token || hold.run().firstToken() == token)) {
			hold.count(hold.count() + 1);
		}
		else {
			if (hold != null) {
				// the earlier hold was lost (lease ran out) and this is a fresh
				// acquisition
				forget(hold, new LeaseExpiredException(keys.name(), hold.describeLoss()));
				reportLost(hold, LeaseLostEvent.DetectedBy.ACQUIRE);
			}
			hold = new Hold(keys, owner, token, lease, this.observations, new LocalRun(owner, grant, start));
			this.holds.add(hold);
		}
		// the acquisition (a nested one too) left the lock's expiry at least this far out
		hold.leaseSet(start, lease.millis());
		if (logger.isDebugEnabled()) {
			logger.debug("Acquired lock '" + keys.name() + "' (hold " + hold.count() + ", token " + token + ") in "
					+ Durations.formatMillis((System.nanoTime() - start) / 1_000_000));
		}
		return hold;
	}

	// the watchdog may have reported this loss already
	private void reportLost(Hold hold, LeaseLostEvent.DetectedBy detectedBy) {
		if (hold.markLost()) {
			this.notifier.notify(hold.lostEvent(detectedBy));
		}
	}

	private void forget(Hold hold, @Nullable Throwable failure) {
		this.holds.remove(hold);
		hold.ended(failure);
	}

	/** The client's owners: its threads and handles. */
	Owners owners() {
		return this.owners;
	}

}
