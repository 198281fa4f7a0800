package io.github.redislock.internal;

import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;

import io.micrometer.observation.Observation;

import org.jspecify.annotations.Nullable;

/**
 * Starts the acquisitions of one client that no thread waits for (see
 * {@link AsyncAcquisition}, which does the waiting): each observed from start to end, its
 * waiter's mark withdrawn when it ends without the lock, and a grant that comes as the
 * caller cancels given back.
 */
final class AsyncAcquisitions {

	private final Waiting waiting;

	private final Settlements settlements;

	private final LockObservations observations;

	private final HoldLedger ledger;

	private final WaiterWithdrawals withdrawals;

	private final LockReleases releases;

	// replies, wake-ups and timers of asynchronous acquisitions
	private final AsyncThread asyncThread;

	// The acquisitions not ended yet: the close stops the async thread, and with it the
	// timers and wake-ups they wait for, so it fails them instead of leaving their
	// callers'
	// futures for ever incomplete.
	private final Set<CompletableFuture<@Nullable Hold>> pending = ConcurrentHashMap.newKeySet();

	private volatile boolean closed;

	AsyncAcquisitions(Waiting waiting, Settlements settlements, LockObservations observations, HoldLedger ledger,
			WaiterWithdrawals withdrawals, LockReleases releases, AsyncThread asyncThread) {
		this.waiting = waiting;
		this.settlements = settlements;
		this.observations = observations;
		this.ledger = ledger;
		this.withdrawals = withdrawals;
		this.releases = releases;
		this.asyncThread = asyncThread;
	}

	/**
	 * Acquires the lock for a handle owner without any thread waiting. Cancelling the
	 * future withdraws the acquisition.
	 * @param continuations where a grant completes the future (a direct executor: where
	 * Redis' answer arrived), or {@code null} for the client's async thread
	 * @return completes with the owner's hold, or {@code null} when the wait ended
	 * without the lock
	 */
	CompletableFuture<@Nullable Hold> acquire(LockKeys keys, Owner owner, Wait wait, Lease lease,
			@Nullable Executor continuations) {
		long start = System.nanoTime();
		Observation observation = this.observations.startAcquire(keys);
		ScheduledExecutorService asyncExecutor = this.asyncThread.executor();
		Executor completions = (continuations != null) ? continuations : asyncExecutor;
		AsyncAcquisition acquisition = new AsyncAcquisition(this.waiting.acquisition(keys, owner, lease, wait, start),
				this.waiting, this.settlements, asyncExecutor, completions,
				(grant) -> this.ledger.granted(keys, owner, grant, lease, start), this.releases::giveBack);
		CompletableFuture<@Nullable Hold> result = acquisition.start();
		this.pending.add(result);
		if (this.closed) {
			result.completeExceptionally(new ClientClosedException());
		}
		// the caller's future completes after the observation ended, and a cancel of it
		// withdraws the acquisition
		CompletableFuture<@Nullable Hold> hold = new CompletableFuture<>();
		result.whenComplete((acquired, failure) -> {
			this.pending.remove(result);
			if (failure != null) {
				// in the background (a cancel completes the caller's future itself),
				// once an attempt on its way is answered: it would mark the lock again
				acquisition.afterLastAttempt(() -> this.withdrawals.withdraw(keys, owner, wait));
				LockObservations.endAcquire(observation,
						(failure instanceof CancellationException) ? "cancelled" : "error", failure);
				hold.completeExceptionally(failure);
				return;
			}
			if (acquired == null) {
				// a caller that gave up leaves nothing that could refuse anyone once it
				// is told (its last attempt was answered: the withdrawal goes at once)
				acquisition.afterLastAttempt(() -> this.withdrawals.withdraw(keys, owner, wait)
					.whenComplete((ignored, alwaysNull) -> completeOn(completions, () -> {
						LockObservations.endAcquire(observation, "timed-out", null);
						hold.complete(null);
					})));
				return;
			}
			LockObservations.endAcquire(observation, "acquired", null);
			if (!hold.complete(acquired)) {
				// cancelled just now: give it back
				this.releases.giveBack(acquired);
			}
		});
		hold.whenComplete((acquired, failure) -> {
			if (hold.isCancelled()) {
				result.cancel(false);
			}
		});
		return hold;
	}

	// where the acquisition's result completes; on the calling thread once the client's
	// async thread has stopped, so that no caller is left without an answer
	private static void completeOn(Executor executor, Runnable completion) {
		try {
			executor.execute(completion);
		}
		catch (RejectedExecutionException ex) {
			completion.run();
		}
	}

	/**
	 * Fails the acquisitions not ended yet, once the client's async thread has stopped. A
	 * grant whose reply comes after is given back as for a cancel while the client's
	 * settlements still run; once they have stopped, it expires with its lease, as every
	 * lock a closed client held does.
	 */
	void close() {
		this.closed = true;
		for (CompletableFuture<@Nullable Hold> result : this.pending) {
			result.completeExceptionally(new ClientClosedException());
		}
	}

}
