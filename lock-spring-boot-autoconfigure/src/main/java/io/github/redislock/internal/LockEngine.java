package io.github.redislock.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

import io.micrometer.observation.Observation;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LeaseLostEvent;
import io.github.redislock.LockOutcomeUnknownException;

/**
 * Acquires and releases locks for the owners of one client (its threads and handles, see
 * {@link Owner}), and keeps their holds: renewed by the watchdog when the lease is the
 * watchdog's, observed from first acquisition to last release. Uncontended, an acquire
 * and a release are one round trip each and nothing else. The owner is chosen by the
 * caller, at the API's entry point.
 * <p>
 * The engine decides what an acquisition is (a re-entry here, or one in Redis that an
 * unknown outcome leaves to the settlements) and owns the client's threads; the parts do
 * the rest: {@link LockAcquirer} waits on a thread, {@link AsyncAcquisitions} without
 * one, {@link LockReleases} releases (passing in the JVM through {@link LocalPasses}),
 * {@link HoldLedger} keeps the books, and {@link LockQueries} answers what the API asks
 * without acquiring.
 */
final class LockEngine implements AutoCloseable {

	private final Owners owners;

	private final LockCommands commands;

	private final Holds holds;

	private final ReleaseSubscriptions subscriptions;

	private final LeaseWatchdog watchdog;

	private final LeaseDeadlines deadlines;

	private final Settlements settlements;

	private final LockObservations observations;

	private final HoldLedger ledger;

	private final WaiterWithdrawals withdrawals;

	private final LockAcquirer acquirer;

	private final AsyncAcquisitions asyncAcquisitions;

	private final LockReleases releases;

	// replies, wake-ups and timers of asynchronous acquisitions, and given back holds
	private final AsyncThread asyncThread = new AsyncThread();

	private volatile boolean closed;

	LockEngine(Owners owners, Waiting waiting, Holds holds, LeaseWatchdog watchdog, Settlements settlements,
			LeaseLostNotifier notifier, LockObservations observations) {
		LockCommands commands = waiting.commands();
		int maxLocalPasses = waiting.maxLocalPasses();
		this.owners = owners;
		this.commands = commands;
		this.holds = holds;
		this.subscriptions = waiting.subscriptions();
		this.watchdog = watchdog;
		this.deadlines = new LeaseDeadlines(holds, notifier, watchdog.leaseMillis());
		this.settlements = settlements;
		this.observations = observations;
		this.ledger = new HoldLedger(holds, observations, notifier);
		this.withdrawals = new WaiterWithdrawals(commands);
		this.acquirer = new LockAcquirer(waiting, holds);
		this.releases = new LockReleases(commands, holds, this.ledger, settlements, observations, this.asyncThread,
				maxLocalPasses);
		this.asyncAcquisitions = new AsyncAcquisitions(waiting, settlements, observations, this.ledger,
				this.withdrawals, this.releases, this.asyncThread);
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
			throw closed(keys);
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
					(granted) -> this.ledger.granted(keys, owner, granted, lease, start));
			if (hold == null) {
				// a caller that gave up leaves nothing that could refuse anyone once it
				// returns
				this.withdrawals.withdrawAndAwait(keys, owner, wait, start);
			}
			return hold;
		}
		catch (RuntimeException | InterruptedException ex) {
			if (ex instanceof InterruptedException) {
				this.withdrawals.withdrawAndAwait(keys, owner, wait, start);
			}
			else {
				// Redis failed it: no answer to wait for, most likely
				this.withdrawals.withdraw(keys, owner, wait);
			}
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
	 * {@link AsyncAcquisitions}. Cancelling the future withdraws the acquisition.
	 * @param continuations where a grant completes the future (a direct executor: where
	 * Redis' answer arrived), or {@code null} for the client's async thread
	 * @return completes with the owner's hold, or {@code null} when the wait ended
	 * without the lock
	 */
	CompletableFuture<@Nullable Hold> acquireAsync(LockKeys keys, Owner owner, Wait wait, Lease lease,
			@Nullable Executor continuations) {
		if (this.closed) {
			return CompletableFuture.failedFuture(closed(keys));
		}
		return this.asyncAcquisitions.acquire(keys, owner, wait, lease, continuations);
	}

	/**
	 * Releases one hold of the owner; see {@link LockReleases#release}.
	 * @throws IllegalMonitorStateException when the owner holds no hold here
	 * @throws io.github.redislock.LeaseExpiredException when it did, but its lease was
	 * lost
	 */
	void release(LockKeys keys, Owner owner) {
		this.releases.release(keys, owner, 0);
	}

	/**
	 * Releases one hold of the owner; the last one leaves the lock taken for nobody until
	 * it has been held {@code holdAtLeastMillis} in all, when it was held for less.
	 */
	void release(LockKeys keys, Owner owner, long holdAtLeastMillis) {
		this.releases.release(keys, owner, holdAtLeastMillis);
	}

	/**
	 * Releases the handle owner's hold without waiting; see
	 * {@link LockReleases#releaseAsync}.
	 */
	CompletableFuture<Void> releaseAsync(Hold hold, long holdAtLeastMillis) {
		return this.releases.releaseAsync(hold, holdAtLeastMillis);
	}

	/**
	 * Releases a hold nobody wants any more (its acquisition was cancelled as it was
	 * granted) on the client's async thread; a failure is left to the settlements.
	 */
	void giveBack(Hold hold) {
		this.releases.giveBack(hold);
	}

	/**
	 * Completes when the hold is found lost, by Redis or by this client's clock (see
	 * {@link LeaseDeadlines}); never after its release.
	 */
	CompletionStage<LeaseLostEvent> leaseLost(Hold hold) {
		CompletionStage<LeaseLostEvent> lost = hold.leaseLost();
		this.deadlines.watch(hold);
		return lost;
	}

	/** Frees the lock in Redis whoever holds it; whether it was held. */
	boolean forceRelease(LockKeys keys) {
		return this.commands.forceRelease(keys);
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
		long sentAt = System.nanoTime();
		boolean held;
		try {
			held = this.commands.extend(hold.keys(), hold.redisOwner(), leaseMillis);
		}
		catch (RuntimeException ex) {
			hold.lease(before);
			throw ex;
		}
		if (!held) {
			// the watchdog, or the release, finds and reports the loss
			hold.lease(before);
		}
		else {
			hold.leaseReset(sentAt, leaseMillis);
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

	/**
	 * A handle became unreachable while holding: its lease is no longer renewed.
	 */
	void abandoned(Hold hold) {
		this.watchdog.abandoned(hold, "A handle on lock '" + hold.keys().name() + "' acquired on thread '"
				+ hold.owner().thread().getName() + "' became unreachable without being released");
	}

	/** The client's owners: its threads and handles. */
	Owners owners() {
		return this.owners;
	}

	@Override
	public void close() {
		this.closed = true;
		this.asyncThread.close();
		this.asyncAcquisitions.close();
		this.settlements.close();
		this.watchdog.close();
		this.deadlines.close();
		this.subscriptions.close();
	}

	private static IllegalStateException closed(LockKeys keys) {
		return new ClientClosedException(keys.name());
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

}
