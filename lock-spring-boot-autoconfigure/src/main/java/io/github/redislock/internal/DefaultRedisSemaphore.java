package io.github.redislock.internal;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisSemaphore;

/**
 * A semaphore name and limit bound to its client: acquisitions of the
 * {@link SemaphoreLock} kind of that limit, for handles made as the client makes them for
 * every kind. Holds no state but its keys.
 */
final class DefaultRedisSemaphore implements RedisSemaphore {

	private final LockKeys keys;

	private final int permits;

	private final HandleAcquisitions handles;

	private final LockReads reads;

	DefaultRedisSemaphore(LockKeys keys, int permits, HandleAcquisitions handles, LockReads reads) {
		this.keys = keys;
		this.permits = permits;
		this.handles = handles;
		this.reads = reads;
	}

	@Override
	public String getName() {
		return this.keys.name();
	}

	@Override
	public int permits() {
		return this.permits;
	}

	@Override
	public int availablePermits() {
		Object taken = this.reads.state(this.keys).details().get("taken");
		int holders = (taken instanceof Number number) ? number.intValue() : 0;
		return Math.max(0, this.permits - holders);
	}

	@Override
	public Optional<LockHandle> tryAcquire(Duration waitTime, @Nullable Duration leaseTime) {
		return this.handles.tryAcquire(this.keys, waitTime, leaseTime);
	}

	@Override
	public CompletableFuture<LockHandle> acquireAsync(Duration waitTime, @Nullable Duration leaseTime) {
		return this.handles.acquireAsync(this.keys, waitTime, leaseTime, null);
	}

	@Override
	public String toString() {
		return "RedisSemaphore[name=" + getName() + ", permits=" + this.permits + "]";
	}

}
