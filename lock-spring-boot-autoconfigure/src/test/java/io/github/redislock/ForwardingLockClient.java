package io.github.redislock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * A client that hands every call to another, as an application's wrapper of the library's
 * client would: tests extend it and override the one call they want to see or change.
 * {@link #close()} does nothing; the wrapped client's owner closes it.
 */
class ForwardingLockClient implements RedisLockClient {

	private final RedisLockClient client;

	ForwardingLockClient(RedisLockClient client) {
		this.client = client;
	}

	final RedisLockClient delegate() {
		return this.client;
	}

	@Override
	public RedisLock getLock(String name) {
		return this.client.getLock(name);
	}

	@Override
	public RedisReadWriteLock getReadWriteLock(String name) {
		return this.client.getReadWriteLock(name);
	}

	@Override
	public RedisSemaphore getSemaphore(String name, int permits) {
		return this.client.getSemaphore(name, permits);
	}

	@Override
	public RedisFairLock getFairLock(String name) {
		return this.client.getFairLock(name);
	}

	@Override
	public Optional<LockHandle> tryAcquire(String name, Duration waitTime, @Nullable Duration leaseTime) {
		return this.client.tryAcquire(name, waitTime, leaseTime);
	}

	@Override
	public CompletableFuture<LockHandle> acquireAsync(String name, Duration waitTime, @Nullable Duration leaseTime) {
		return this.client.acquireAsync(name, waitTime, leaseTime);
	}

	@Override
	public void close() {
	}

}
