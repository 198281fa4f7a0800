package io.github.redislock.benchmark;

/**
 * A library's read/write lock, for the read-mostly scenario. Both sides wait without a
 * timeout, as {@code Lock.lock()} does.
 */
interface ReadWriteLockLibrary {

	void readLock(String name);

	void readUnlock(String name);

	void writeLock(String name);

	void writeUnlock(String name);

}
