package io.github.redislock.internal;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisFairLock;

/**
 * A fair lock name bound to its client: a {@link DefaultRedisLock} of the
 * {@link FairLock} kind whose handles are made as the client makes them for exclusive
 * locks. Holds no state.
 */
final class DefaultRedisFairLock extends DefaultRedisLock implements RedisFairLock {

	private final HandleAcquisitions handles;

	DefaultRedisFairLock(LockKeys keys, LockEngine engine, LockQueries queries, Lease watchdogLease,
			HandleAcquisitions handles) {
		super(keys, engine, queries, watchdogLease);
		this.handles = handles;
	}

	@Override
	public Optional<LockHandle> tryAcquire(Duration waitTime, @Nullable Duration leaseTime) {
		return this.handles.tryAcquire(keys(), waitTime, leaseTime);
	}

	@Override
	public CompletableFuture<LockHandle> acquireAsync(Duration waitTime, @Nullable Duration leaseTime) {
		return this.handles.acquireAsync(keys(), waitTime, leaseTime, null);
	}

}
