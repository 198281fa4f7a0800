package io.github.redislock.interceptor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.LeaseLostEvent;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.RedisLockException;
import io.github.redislock.annotation.IfLeaseLost;
import io.github.redislock.internal.LockRequest;
import io.github.redislock.internal.LockSpec;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.jspecify.annotations.Nullable;

/**
 * The locks of one call, taken all or none in the order given (sorted, so that two calls
 * needing the same locks cannot deadlock), within one shared wait, and released in
 * reverse order. A synchronous call's locks are owned by its thread (re-entrant); an
 * asynchronous call's by one {@link LockHandle} each ({@link OfHandles}), released from
 * whichever thread completes its result.
 */
sealed class AcquiredLocks permits AcquiredLocks.OfHandles {

	// the categories users tune (docs/monitoring.md), as the client's own
	private static final Log leaseLogger = LogFactory.getLog("io.github.redislock.lease");

	private static final Log releaseLogger = LogFactory.getLog("io.github.redislock.release");

	private final List<? extends Held> held;

	private AcquiredLocks(List<? extends Held> held) {
		this.held = held;
	}

	/**
	 * Acquires every requested lock for the calling thread, or none; a kind no thread can
	 * own (a permit) is held by a new handle instead.
	 * @param requests the locks, in the order to take them, sharing the first one's wait
	 * @throws LockNotAcquiredException if a lock was not acquired within the wait, or the
	 * wait was interrupted (the interrupt status is then set again)
	 */
	static AcquiredLocks forThread(RedisLockClient client, List<LockRequest> requests) {
		return new AcquiredLocks(AcquiredLocks.<Held>acquire(requests, (request) -> {
			if (request.spec() instanceof LockSpec.ThreadOwned owned) {
				RedisLock lock = owned.lock(client, request.name());
				return lock.tryLock(request.waitTime(), request.leaseTime()) ? new ThreadHeld(lock) : null;
			}
			return handle(client, request);
		}));
	}

	/**
	 * Acquires every requested lock for a new handle each, or none.
	 * @param requests the locks, in the order to take them, sharing the first one's wait
	 * @throws LockNotAcquiredException if a lock was not acquired within the wait, or the
	 * wait was interrupted (the interrupt status is then set again)
	 */
	static OfHandles forHandles(RedisLockClient client, List<LockRequest> requests) {
		return new OfHandles(AcquiredLocks.<HandleHeld>acquire(requests, (request) -> handle(client, request)));
	}

	@Nullable private static HandleHeld handle(RedisLockClient client, LockRequest request) {
		return request.tryAcquire(client).map(HandleHeld::new).orElse(null);
	}

	private static <H extends Held> List<H> acquire(List<LockRequest> requests, Taker<H> taker) {
		if (requests.isEmpty()) {
			return List.of();
		}
		Duration waitTime = requests.get(0).waitTime();
		long deadline = System.nanoTime() + waitTime.toNanos();
		List<H> acquired = new ArrayList<>(requests.size());
		for (LockRequest request : requests) {
			String name = request.name();
			H held;
			try {
				held = taker.take(request.withWaitTime(Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))));
			}
			catch (InterruptedException ex) {
				new AcquiredLocks(acquired).release(ex);
				Thread.currentThread().interrupt();
				throw new LockNotAcquiredException(name, waitTime, ex);
			}
			catch (RuntimeException ex) {
				new AcquiredLocks(acquired).release(ex);
				throw ex;
			}
			if (held == null) {
				LockNotAcquiredException notAcquired = new LockNotAcquiredException(name, waitTime);
				new AcquiredLocks(acquired).release(notAcquired);
				throw notAcquired;
			}
			acquired.add(held);
		}
		return acquired;
	}

	/**
	 * The fencing token of the first lock taken (the same lock for every call of the
	 * operation: names are taken in order), or {@link MinimumHold#UNKNOWN_GRANT} when
	 * none was or it is no longer known (the lock was released or lost during the call).
	 */
	long fencingToken() {
		if (this.held.isEmpty()) {
			return MinimumHold.UNKNOWN_GRANT;
		}
		try {
			return this.held.get(0).fencingToken();
		}
		catch (IllegalMonitorStateException ex) {
			// the release that follows says what happened to the lock
			return MinimumHold.UNKNOWN_GRANT;
		}
	}

	/**
	 * What completes when a lease of this call is found lost, one stage per lock; called
	 * by the thread that took them.
	 */
	List<CompletionStage<LeaseLostEvent>> leaseLosses() {
		List<CompletionStage<LeaseLostEvent>> losses = new ArrayList<>(this.held.size());
		for (Held held : this.held) {
			losses.add(held.leaseLost());
		}
		return losses;
	}

	/**
	 * Releases every lock, last acquired first. A failure to release (a lease that ran
	 * out, Redis unreachable) is logged, and added to {@code failure} when the call
	 * itself failed; it never replaces the call's own outcome.
	 * @param failure what the call threw, or {@code null} when it returned
	 */
	void release(@Nullable Throwable failure) {
		releaseAll(failure, Duration.ZERO);
	}

	/**
	 * Releases every lock as {@link #release(Throwable)} does, each kept for nobody until
	 * it has been held {@code holdAtLeast} in all.
	 */
	void release(@Nullable Throwable failure, Duration holdAtLeast) {
		releaseAll(failure, holdAtLeast);
	}

	@Nullable private LeaseExpiredException releaseAll(@Nullable Throwable failure, Duration holdAtLeast) {
		LeaseExpiredException lost = null;
		for (int i = this.held.size() - 1; i >= 0; i--) {
			Held held = this.held.get(i);
			try {
				held.release(holdAtLeast);
			}
			catch (RuntimeException ex) {
				lost = failedToRelease(ex, failure, lost);
			}
		}
		return lost;
	}

	/**
	 * Releases every lock after the call returned; throws the first lost lease if the
	 * operation asks for it, after every lock is released.
	 * @throws LeaseExpiredException if a lease was lost and {@code ifLeaseLost} is
	 * {@link IfLeaseLost#THROW} or {@link IfLeaseLost#INTERRUPT}
	 */
	void releaseAfterReturn(IfLeaseLost ifLeaseLost, Duration holdAtLeast) {
		LeaseExpiredException lost = releaseAll(null, holdAtLeast);
		if (lost != null && ifLeaseLost != IfLeaseLost.LOG) {
			throw lost;
		}
	}

	@Nullable private static LeaseExpiredException failedToRelease(Throwable ex, @Nullable Throwable failure,
			@Nullable LeaseExpiredException lostSoFar) {
		// The engine's messages name the lock and say what happened. A lost lease is news
		// for the user; Redis lost or refusing is told once by the client (logger
		// io.github.redislock.connection), not per call.
		if (ex instanceof LeaseExpiredException) {
			leaseLogger.warn(ex.getMessage());
		}
		else if (!(ex instanceof RedisLockException)) {
			releaseLogger.warn(ex.getMessage());
		}
		else if (releaseLogger.isDebugEnabled()) {
			releaseLogger.debug(ex.getMessage());
		}
		if (failure != null) {
			failure.addSuppressed(ex);
		}
		if (ex instanceof LeaseExpiredException expired) {
			if (lostSoFar == null) {
				return expired;
			}
			lostSoFar.addSuppressed(expired);
		}
		return lostSoFar;
	}

	private static Throwable unwrap(Throwable failure) {
		return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
	}

	/**
	 * The locks of an asynchronous call: handles, which any thread may release, so that
	 * they can also be released without blocking once the call's result completes.
	 */
	static final class OfHandles extends AcquiredLocks {

		private final List<HandleHeld> handles;

		private OfHandles(List<HandleHeld> handles) {
			super(handles);
			this.handles = handles;
		}

		/**
		 * Releases every lock without blocking, all at once. Never fails: what went wrong
		 * is logged and added to {@code failure} as {@link #release(Throwable)} does.
		 * @param failure how the call's result completed, or {@code null} when it
		 * succeeded
		 * @return completes once every release is answered, with the first lost lease
		 * (the others suppressed in it) or {@code null}
		 */
		private CompletableFuture<@Nullable LeaseExpiredException> releaseAsync(@Nullable Throwable failure,
				Duration holdAtLeast) {
			List<CompletableFuture<@Nullable LeaseExpiredException>> releases = new ArrayList<>(this.handles.size());
			for (HandleHeld held : this.handles) {
				releases.add(held.handle()
					.releaseAsync(holdAtLeast)
					.handle((released, releaseFailure) -> (releaseFailure != null)
							? failedToRelease(unwrap(releaseFailure), failure, null) : null));
			}
			return CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new)).thenApply((all) -> {
				LeaseExpiredException lost = null;
				for (CompletableFuture<@Nullable LeaseExpiredException> release : releases) {
					LeaseExpiredException expired = release.join();
					if (expired != null) {
						if (lost == null) {
							lost = expired;
						}
						else {
							lost.addSuppressed(expired);
						}
					}
				}
				return lost;
			});
		}

		/**
		 * Holds every lock until the call's result and the {@code nested} stages (calls
		 * that share these locks) completed, however they completed, then releases them
		 * without blocking.
		 * @return completes as {@code result} did, once the locks are released: on a
		 * thread of {@link CompletableFuture#defaultExecutor()}, never on one of the
		 * Redis client's threads, since whoever continues from it may block; with a lost
		 * lease when {@code ifLeaseLost} is {@link IfLeaseLost#THROW} and the result
		 * succeeded. Cancelling it cancels {@code result}, and so releases the locks
		 */
		CompletableFuture<Object> releaseOnCompletion(CompletionStage<?> result, CompletableFuture<Void> nested,
				IfLeaseLost ifLeaseLost, Duration holdAtLeast, String method) {
			CompletableFuture<Object> completion = new CompletableFuture<>();
			// INTERRUPT: a lost lease cancels the call's stage, which then ends as below
			LeaseLossWatch watch = (ifLeaseLost != IfLeaseLost.INTERRUPT) ? null
					: LeaseLossWatch.start(leaseLosses(), (event) -> cancel(result));
			result.whenComplete((value, resultFailure) -> {
				Throwable failure = (resultFailure != null) ? unwrap(resultFailure) : null;
				LeaseLostEvent stoppedBy = (watch != null) ? watch.end() : null;
				nested.thenCompose((ignored) -> releaseAsync(failure, holdAtLeast)).thenAcceptAsync((lost) -> {
					if (stoppedBy != null) {
						completion.completeExceptionally(LeaseLossWatch.stopped(stoppedBy, method, failure));
					}
					else if (failure != null) {
						completion.completeExceptionally(failure);
					}
					else if (lost != null && ifLeaseLost != IfLeaseLost.LOG) {
						completion.completeExceptionally(lost);
					}
					else {
						completion.complete(value);
					}
				}, completion.defaultExecutor());
			});
			completion.whenComplete((value, failure) -> {
				if (completion.isCancelled()) {
					cancel(result);
				}
			});
			return completion;
		}

		private static void cancel(CompletionStage<?> result) {
			try {
				result.toCompletableFuture().cancel(false);
			}
			catch (UnsupportedOperationException ex) {
				// a stage that cannot be cancelled from outside keeps the locks until it
				// ends
			}
		}

	}

	@FunctionalInterface
	private interface Taker<H extends Held> {

		@Nullable H take(LockRequest request) throws InterruptedException;

	}

	/** One lock this call took, however it is owned. */
	private sealed interface Held permits ThreadHeld, HandleHeld {

		long fencingToken();

		CompletionStage<LeaseLostEvent> leaseLost();

		void release(Duration holdAtLeast);

	}

	private record ThreadHeld(RedisLock lock) implements Held {

		@Override
		public long fencingToken() {
			return this.lock.fencingToken();
		}

		@Override
		public CompletionStage<LeaseLostEvent> leaseLost() {
			return this.lock.leaseLost();
		}

		@Override
		public void release(Duration holdAtLeast) {
			if (holdAtLeast.isZero()) {
				this.lock.unlock();
			}
			else {
				this.lock.unlock(holdAtLeast);
			}
		}

	}

	private record HandleHeld(LockHandle handle) implements Held {

		@Override
		public long fencingToken() {
			return this.handle.fencingToken();
		}

		@Override
		public CompletionStage<LeaseLostEvent> leaseLost() {
			return this.handle.leaseLost();
		}

		@Override
		public void release(Duration holdAtLeast) {
			this.handle.release(holdAtLeast);
		}

	}

}
