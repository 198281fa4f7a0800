package io.github.redislock.benchmark;

/**
 * One lock implementation under test, connected to the benchmark's Redis. Implementations
 * wait without a timeout in {@link #lock(String)}, as {@code Lock.lock()} does.
 */
interface LockLibrary extends AutoCloseable {

	/** Acquires the named lock for the calling thread, waiting as long as it takes. */
	void lock(String name);

	/** Releases the named lock held by the calling thread. */
	void unlock(String name);

	@Override
	void close();

}
