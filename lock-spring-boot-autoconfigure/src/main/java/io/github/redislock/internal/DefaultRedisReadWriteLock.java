package io.github.redislock.internal;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisReadWriteLock;

/**
 * A read/write lock name bound to its client's engine: its two sides are
 * {@link DefaultRedisLock}s of the {@link ReadWriteLocks} kinds. Holds no state.
 */
final class DefaultRedisReadWriteLock implements RedisReadWriteLock {

	private final DefaultRedisLock readLock;

	private final DefaultRedisLock writeLock;

	private final LockKeys readKeys;

	private final LockKeys writeKeys;

	// makes the handles, as it does for exclusive locks
	private final HandleAcquisitions handles;

	DefaultRedisReadWriteLock(LockKeys readKeys, LockKeys writeKeys, LockEngine engine, LockQueries queries,
			Lease watchdogLease, HandleAcquisitions handles) {
		this.readKeys = readKeys;
		this.writeKeys = writeKeys;
		this.handles = handles;
		this.readLock = new DefaultRedisLock(readKeys, engine, queries, watchdogLease, null);
		// the write side refuses an owner that reads: it would wait for itself
		this.writeLock = new DefaultRedisLock(writeKeys, engine, queries, watchdogLease, readKeys);
	}

	@Override
	public String getName() {
		return this.readLock.getName();
	}

	@Override
	public RedisLock readLock() {
		return this.readLock;
	}

	@Override
	public RedisLock writeLock() {
		return this.writeLock;
	}

	@Override
	public Optional<LockHandle> tryAcquireRead(Duration waitTime, @Nullable Duration leaseTime) {
		return this.handles.tryAcquire(this.readKeys, waitTime, leaseTime);
	}

	@Override
	public Optional<LockHandle> tryAcquireWrite(Duration waitTime, @Nullable Duration leaseTime) {
		return this.handles.tryAcquire(this.writeKeys, waitTime, leaseTime);
	}

	@Override
	public CompletableFuture<LockHandle> acquireReadAsync(Duration waitTime, @Nullable Duration leaseTime) {
		return this.handles.acquireAsync(this.readKeys, waitTime, leaseTime, null);
	}

	@Override
	public CompletableFuture<LockHandle> acquireWriteAsync(Duration waitTime, @Nullable Duration leaseTime) {
		return this.handles.acquireAsync(this.writeKeys, waitTime, leaseTime, null);
	}

	@Override
	public String toString() {
		return "RedisReadWriteLock[" + getName() + "]";
	}

}
