package io.github.redislock.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

import org.springframework.util.Assert;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.LeaseLostEvent;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.ReactiveLock;
import io.github.redislock.ReactiveRedisLockClient;
import io.github.redislock.RedisLockClient;
import io.github.redislock.RedisLockException;

/**
 * Locks for Reactor pipelines, built on {@link RedisLockClient#acquireAsync} and
 * {@link LockHandle#releaseAsync}: one handle per lock and subscription, held from the
 * acquisition until the action terminates or is cancelled ({@code usingWhen}). The names
 * a pipeline holds travel in its Reactor context, so that a nested acquisition of one of
 * them re-enters instead of waiting for its own pipeline.
 *
 * <p>
 * Every signal that follows an acquisition or a release is moved to the given scheduler:
 * those complete on the client's own threads, which must never run a user's work.
 */
public final class ReactiveLocks implements ReactiveRedisLockClient {

	/** Context key of the {@link HeldName}s of a pipeline. */
	private static final Object HELD = new Object() {

		@Override
		public String toString() {
			return "redis-lock holds";
		}

	};

	// a lock of the reactive client's own: any failed release fails the run
	static final ReleasePolicy CLIENT_POLICY = new ReleasePolicy(Duration.ZERO, true, true);

	private final RedisLockClient client;

	// what the library's own client handed over, or null for any other client
	@Nullable private final HandleAcquisitions own;

	private final Scheduler scheduler;

	public ReactiveLocks(RedisLockClient client, Scheduler scheduler) {
		Assert.notNull(client, "client must not be null");
		Assert.notNull(scheduler, "scheduler must not be null");
		this.client = client;
		this.own = OwnClients.acquisitions(client);
		this.scheduler = scheduler;
	}

	@Override
	public Mono<LockHandle> acquire(String name, Duration waitTime, @Nullable Duration leaseTime) {
		return new ReactiveTypedLock(this, LockSpec.of(LockType.EXCLUSIVE), name).acquire(waitTime, leaseTime);
	}

	@Override
	public <T> Mono<T> withLock(String name, Duration waitTime, @Nullable Duration leaseTime, Mono<T> action) {
		return new ReactiveTypedLock(this, LockSpec.of(LockType.EXCLUSIVE), name).withLock(waitTime, leaseTime, action);
	}

	@Override
	public <T> Flux<T> withLock(String name, Duration waitTime, @Nullable Duration leaseTime, Flux<T> action) {
		return new ReactiveTypedLock(this, LockSpec.of(LockType.EXCLUSIVE), name).withLock(waitTime, leaseTime, action);
	}

	@Override
	public ReactiveLock readLock(String name) {
		return new ReactiveTypedLock(this, LockSpec.of(LockType.READ), name);
	}

	@Override
	public ReactiveLock writeLock(String name) {
		return new ReactiveTypedLock(this, LockSpec.of(LockType.WRITE), name);
	}

	@Override
	public ReactiveLock fairLock(String name) {
		return new ReactiveTypedLock(this, LockSpec.of(LockType.FAIR), name);
	}

	@Override
	public ReactiveLock semaphore(String name, int permits) {
		return new ReactiveTypedLock(this, LockSpec.of(LockType.SEMAPHORE, permits), name);
	}

	/**
	 * Runs the action, once per subscription, under every requested lock that the
	 * subscribing pipeline does not hold yet: taken all or none in the given order within
	 * one shared wait (the first request's), released in reverse order once the action
	 * terminated or was cancelled.
	 * @param requests the locks, in the order to take them, each with its kind
	 * @param policy how the locks are released, and what a failed release means
	 * @param action supplies the work, called once the locks are held
	 * @param ifNotAcquired what to emit instead when a lock stayed taken for the whole
	 * wait; the locks taken until then are released first
	 */
	public <T> Flux<T> withLocks(List<LockRequest> requests, ReleasePolicy policy,
			Supplier<? extends Publisher<T>> action,
			Function<LockNotAcquiredException, ? extends Publisher<T>> ifNotAcquired) {
		return Flux.deferContextual((context) -> {
			Set<HeldName> held = context.<Set<HeldName>>getOrEmpty(HELD).orElse(Set.of());
			List<LockRequest> toTake = new ArrayList<>(requests.size());
			Set<HeldName> holding = new HashSet<>(held);
			for (LockRequest request : requests) {
				LockType type = request.spec().type();
				String name = request.name();
				if (holdsCovering(held, type, name)) {
					// the pipeline holds a lock of the name that covers this one (it
					// writes, so it may read): nothing more to take
					continue;
				}
				LockType blocking = heldBlocking(held, type, name);
				if (blocking != null) {
					return Flux.error(new IllegalMonitorStateException("This pipeline holds the "
							+ blocking.name().toLowerCase(Locale.ROOT) + " lock of '" + name + "' and cannot take its "
							+ type.name().toLowerCase(Locale.ROOT) + " lock: it would wait for its own "
							+ blocking.name().toLowerCase(Locale.ROOT) + " lock. Take the "
							+ type.name().toLowerCase(Locale.ROOT) + " lock from the start"));
				}
				if (holding.add(new HeldName(this.client, type, name))) {
					toTake.add(request);
				}
			}
			if (toTake.isEmpty()) {
				// every lock is held by this pipeline already: re-entry
				return Flux.defer(action);
			}
			Flux<T> run = Flux.<T>defer(action).contextWrite((inner) -> inner.put(HELD, Set.copyOf(holding)));
			long start = System.nanoTime();
			return underLocks(toTake, 0, start, policy, run).onErrorResume(NotAcquired.class,
					(notAcquired) -> ifNotAcquired.apply(notAcquired.exception));
		});
	}

	// A pipeline that holds nothing, the usual case, has nothing to look up (each look-up
	// makes a key per kind).
	private boolean holdsCovering(Set<HeldName> held, LockType type, String name) {
		if (held.isEmpty()) {
			return false;
		}
		for (LockType other : LockType.values()) {
			if (type.isCoveredBy(other) && held.contains(new HeldName(this.client, other, name))) {
				return true;
			}
		}
		return false;
	}

	private @Nullable LockType heldBlocking(Set<HeldName> held, LockType type, String name) {
		if (held.isEmpty()) {
			return null;
		}
		for (LockType other : LockType.values()) {
			if (type.waitsForItselfHolding(other) && held.contains(new HeldName(this.client, other, name))) {
				return other;
			}
		}
		return null;
	}

	private <T> Flux<T> underLocks(List<LockRequest> requests, int index, long start, ReleasePolicy policy,
			Flux<T> run) {
		if (index == requests.size()) {
			return run;
		}
		LockRequest request = requests.get(index);
		Mono<LockHandle> acquisition = Mono
			.defer(() -> acquireChecked(request.withWaitTime(remaining(request.waitTime(), start))))
			// the configured wait in the message, not what was left of it for this lock
			.onErrorMap(LockNotAcquiredException.class,
					(ex) -> new NotAcquired(new LockNotAcquiredException(request.name(), request.waitTime())));
		// a release that fails a successful run does so once the run completed: an error
		// signalled by usingWhen's clean-up would reach the subscriber wrapped
		AtomicReference<Throwable> failedRelease = new AtomicReference<>();
		return Flux
			.usingWhen(acquisition,
					(handle) -> stoppedOnLoss(handle, policy, underLocks(requests, index + 1, start, policy, run)),
					(handle) -> release(handle, null, policy, failedRelease),
					(handle, failure) -> release(handle, failure, policy, failedRelease),
					(handle) -> release(handle, new CancelledWhileHeld(), policy, failedRelease))
			.concatWith(Mono.defer(() -> {
				Throwable failure = failedRelease.get();
				return (failure != null) ? Mono.error(failure) : Mono.empty();
			}));
	}

	// With a stop on lost leases: the run is cancelled (its subscription, so a suspending
	// function's coroutine too) when the handle's lease is found lost, and fails with the
	// policy's error once it is, before its locks are released
	private static <T> Flux<T> stoppedOnLoss(LockHandle handle, ReleasePolicy policy, Flux<T> run) {
		Function<LeaseLostEvent, ? extends Throwable> stop = policy.stopOnLostLease();
		if (stop == null) {
			return run;
		}
		AtomicReference<@Nullable LeaseLostEvent> lost = new AtomicReference<>();
		// suppressCancel: the run's end cancels the watch, never the loss's stage
		Mono<LeaseLostEvent> loss = Mono.fromFuture(handle.leaseLost().toCompletableFuture(), true).doOnNext(lost::set);
		return run.takeUntilOther(loss).concatWith(Mono.defer(() -> {
			LeaseLostEvent event = lost.get();
			return (event != null) ? Mono.error(stop.apply(event)) : Mono.empty();
		}));
	}

	// The sink, not publishOn, moves the result to the scheduler, and a handle goes back
	// in the sink's cancel callback, which Reactor calls only when the cancel came before
	// the handle reached the subscriber (it never will then). Discarding cannot decide
	// that: a sink that sees a cancel half done drops the value without discarding it,
	// and publishOn drops one silently.
	// The library's own client continues where Redis answers, and the result moves to
	// the scheduler (see acquireChecked): one thread hop per acquisition instead of two.
	// Its acquisitions were handed over when it was made (see OwnClients); any other
	// client is asked through its public API, whose futures complete on its own threads.
	private CompletableFuture<LockHandle> acquireAsync(LockRequest request) {
		HandleAcquisitions own = this.own;
		if (own != null) {
			return own.acquireAsync(own.keys(request.spec(), request.name()), request.waitTime(), request.leaseTime(),
					Runnable::run);
		}
		return request.acquireAsync(this.client);
	}

	Mono<LockHandle> acquireChecked(LockRequest request) {
		return Mono.<LockHandle>create((sink) -> {
			CompletableFuture<LockHandle> acquiring = acquireAsync(request);
			AtomicBoolean cancelled = new AtomicBoolean();
			sink.onCancel(() -> {
				cancelled.set(true);
				// a wait cancelled in time withdraws (a grant racing it is settled by the
				// client); one that got the lock first gives its handle back
				if (!acquiring.cancel(false) && !acquiring.isCompletedExceptionally()) {
					releaseUnwanted(acquiring.join());
				}
			});
			acquiring.whenComplete((handle, failure) -> {
				if (handle != null) {
					onScheduler(() -> sink.success(handle));
				}
				else if (!cancelled.get()) {
					onScheduler(() -> sink.error(unwrap(failure)));
				}
				// else a wait that ended as it was withdrawn: nobody listens any more,
				// and Reactor would log what it drops as an error
			});
		});
	}

	private void onScheduler(Runnable signal) {
		try {
			this.scheduler.schedule(signal);
		}
		catch (RejectedExecutionException disposed) {
			signal.run();
		}
	}

	// Never fails for a failed or cancelled action: what went wrong with the release is
	// logged (and added to the action's failure); the action's outcome stands.
	private Mono<Void> release(LockHandle handle, @Nullable Throwable failure, ReleasePolicy policy,
			AtomicReference<Throwable> failedRelease) {
		return Mono.fromFuture(() -> handle.releaseAsync(policy.holdAtLeast())).onErrorResume((releaseFailure) -> {
			Throwable cause = unwrap(releaseFailure);
			boolean fail = (failure == null) && ((cause instanceof LeaseExpiredException) ? policy.failOnLostLease()
					: policy.failOnReleaseError());
			if (fail) {
				failedRelease.set(cause);
				return Mono.empty();
			}
			failedRelease(cause);
			if (failure != null && !(failure instanceof CancelledWhileHeld) && failure != cause) {
				failure.addSuppressed(cause);
			}
			return Mono.empty();
		}).publishOn(this.scheduler);
	}

	private static void releaseUnwanted(LockHandle handle) {
		handle.releaseAsync().exceptionally((ex) -> {
			failedRelease(unwrap(ex));
			return null;
		});
	}

	// The engine's messages name the lock and say what happened. A lost lease is news
	// for the user; Redis lost or refusing is told once by the client, not per release.
	static void failedRelease(Throwable cause) {
		if (cause instanceof LeaseExpiredException) {
			LockLogs.lease.warn(cause.getMessage());
		}
		else if (!(cause instanceof RedisLockException)) {
			LockLogs.release.warn(cause.getMessage());
		}
		else if (LockLogs.release.isDebugEnabled()) {
			LockLogs.release.debug(cause.getMessage());
		}
	}

	// what is left of one wait shared by several locks; a wait of centuries stays one
	private static Duration remaining(Duration waitTime, long start) {
		Duration remaining = waitTime.minusNanos(System.nanoTime() - start);
		return remaining.isNegative() ? Duration.ZERO : remaining;
	}

	private static Throwable unwrap(Throwable failure) {
		return RedisFailures.unwrap(failure);
	}

	@Override
	public String toString() {
		return "ReactiveRedisLockClient[" + this.client + "]";
	}

	/**
	 * How the locks of a run are released.
	 *
	 * @param holdAtLeast how long each lock stays taken in all, from its acquisition
	 * @param failOnLostLease whether a lease found lost at the release fails a run that
	 * succeeded (otherwise it is logged)
	 * @param failOnReleaseError whether any other failed release fails a run that
	 * succeeded (otherwise it is logged)
	 * @param stopOnLostLease when not {@code null}, a lease found lost while the run goes
	 * on cancels the run, which then fails with what this makes of the loss
	 */
	public record ReleasePolicy(Duration holdAtLeast, boolean failOnLostLease, boolean failOnReleaseError,
			@Nullable Function<LeaseLostEvent, ? extends Throwable> stopOnLostLease) {

		public ReleasePolicy(Duration holdAtLeast, boolean failOnLostLease, boolean failOnReleaseError) {
			this(holdAtLeast, failOnLostLease, failOnReleaseError, null);
		}

	}

	/**
	 * A lock held by a pipeline, for re-entry: the same lock of a name on the same
	 * client.
	 */
	private record HeldName(RedisLockClient client, LockType type, String name) {

	}

	/** Carries a lock that was not acquired past the release of the ones that were. */
	private static final class NotAcquired extends RuntimeException {

		private final LockNotAcquiredException exception;

		NotAcquired(LockNotAcquiredException exception) {
			super(exception.getMessage(), null, false, false);
			this.exception = exception;
		}

	}

	/** Stands for a cancellation, which has no exception of its own. */
	private static final class CancelledWhileHeld extends RuntimeException {

		CancelledWhileHeld() {
			super("cancelled", null, false, false);
		}

	}

}
