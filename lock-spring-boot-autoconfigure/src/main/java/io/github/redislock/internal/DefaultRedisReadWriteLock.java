package io.github.redislock.internal;

import io.github.redislock.RedisLock;
import io.github.redislock.RedisReadWriteLock;

/**
 * A read/write lock name bound to its client's engine: its two sides are
 * {@link DefaultRedisLock}s of the {@link ReadWriteLocks} kinds. Holds no state.
 */
final class DefaultRedisReadWriteLock implements RedisReadWriteLock {

	private final DefaultRedisLock readLock;

	private final DefaultRedisLock writeLock;

	DefaultRedisReadWriteLock(LockKeys readKeys, LockKeys writeKeys, LockEngine engine, Lease watchdogLease) {
		this.readLock = new DefaultRedisLock(readKeys, engine, watchdogLease, null);
		// the write side refuses an owner that reads: it would wait for itself
		this.writeLock = new DefaultRedisLock(writeKeys, engine, watchdogLease, readKeys);
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
	public String toString() {
		return "RedisReadWriteLock[" + getName() + "]";
	}

}
