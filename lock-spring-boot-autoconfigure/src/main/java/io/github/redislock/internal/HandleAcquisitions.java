package io.github.redislock.internal;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;

/**
 * One client's acquisitions for new {@link LockHandle handles}, of any kind of lock, by
 * name: what its locks, semaphores and reactive side share. The client hands them over to
 * its reactive side through {@link OwnClients}.
 */
final class HandleAcquisitions {

	private final LockKeysCache keys;

	private final LockEngine engine;

	private final LockQueries queries;

	private final Owners owners;

	private final Lease watchdogLease;

	HandleAcquisitions(LockKeysCache keys, LockEngine engine, LockQueries queries, Owners owners, Lease watchdogLease) {
		this.keys = keys;
		this.engine = engine;
		this.queries = queries;
		this.owners = owners;
		this.watchdogLease = watchdogLease;
	}

	/**
	 * The keys of the lock of that name a request asks for.
	 * @throws IllegalArgumentException when the name is not a valid lock name
	 */
	LockKeys keys(LockSpec spec, String name) {
		return this.keys.get(spec, name);
	}

	/**
	 * Acquires the lock for a new handle, waiting on the calling thread; see
	 * {@link io.github.redislock.RedisLockClient#tryAcquire}.
	 */
	Optional<LockHandle> tryAcquire(LockKeys keys, Duration waitTime, @Nullable Duration leaseTime) {
		String name = keys.name();
		Wait wait = wait(name, waitTime);
		Lease lease = lease(name, leaseTime);
		Hold hold;
		try {
			hold = this.engine.acquire(keys, this.owners.newHandle(), wait, lease, true);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockNotAcquiredException(name, waitTime, ex);
		}
		return (hold != null) ? Optional.of(new DefaultLockHandle(this.engine, this.queries, hold)) : Optional.empty();
	}

	/**
	 * Acquires the lock for a new handle without any thread waiting; see
	 * {@link io.github.redislock.RedisLockClient#acquireAsync}.
	 * @param continuations where the future completes with a handle (a direct executor:
	 * where Redis answered, Lettuce's event loop), or {@code null} for the client's async
	 * thread, where a caller's own work may run
	 */
	CompletableFuture<LockHandle> acquireAsync(LockKeys keys, Duration waitTime, @Nullable Duration leaseTime,
			@Nullable Executor continuations) {
		String name = keys.name();
		Wait wait = wait(name, waitTime);
		Lease lease = lease(name, leaseTime);
		CompletableFuture<@Nullable Hold> acquiring = this.engine.acquireAsync(keys, this.owners.newHandle(), wait,
				lease, continuations);
		CompletableFuture<LockHandle> handle = new CompletableFuture<>();
		acquiring.whenComplete((hold, failure) -> {
			if (failure != null) {
				handle.completeExceptionally(failure);
			}
			else if (hold == null) {
				handle.completeExceptionally(new LockNotAcquiredException(name, waitTime));
			}
			else if (!handle.complete(new DefaultLockHandle(this.engine, this.queries, hold))) {
				// cancelled just now: give it back, from the client's own thread (a
				// grant may arrive on Lettuce's event loop)
				this.engine.giveBack(hold);
			}
		});
		handle.whenComplete((acquired, failure) -> {
			if (handle.isCancelled()) {
				acquiring.cancel(false);
			}
		});
		return handle;
	}

	private static Wait wait(String name, Duration waitTime) {
		LockArguments.checkWaitTime(name, waitTime);
		return Wait.of(waitTime);
	}

	private Lease lease(String name, @Nullable Duration leaseTime) {
		LockArguments.checkLeaseTime(name, leaseTime);
		return (leaseTime != null) ? Lease.fixed(leaseTime.toMillis()) : this.watchdogLease;
	}

}
