package io.github.redislock.benchmark;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's {@code RLock} and {@code RReadWriteLock} with their defaults (watchdog
 * lease, its own connection pool).
 */
final class RedissonLibrary implements LockLibrary, ReadWriteLockLibrary, FairLockLibrary {

	private final RedissonClient redisson;

	RedissonLibrary(String host, int port) {
		Config config = new Config();
		config.useSingleServer().setAddress("redis://" + host + ":" + port);
		this.redisson = Redisson.create(config);
	}

	@Override
	public void lock(String name) {
		this.redisson.getLock(name).lock();
	}

	@Override
	public void unlock(String name) {
		this.redisson.getLock(name).unlock();
	}

	@Override
	public void readLock(String name) {
		this.redisson.getReadWriteLock(name).readLock().lock();
	}

	@Override
	public void readUnlock(String name) {
		this.redisson.getReadWriteLock(name).readLock().unlock();
	}

	@Override
	public void writeLock(String name) {
		this.redisson.getReadWriteLock(name).writeLock().lock();
	}

	@Override
	public void writeUnlock(String name) {
		this.redisson.getReadWriteLock(name).writeLock().unlock();
	}

	@Override
	public void fairLock(String name) {
		this.redisson.getFairLock(name).lock();
	}

	@Override
	public void fairUnlock(String name) {
		this.redisson.getFairLock(name).unlock();
	}

	@Override
	public void close() {
		this.redisson.shutdown();
	}

}
