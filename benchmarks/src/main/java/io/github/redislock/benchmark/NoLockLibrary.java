package io.github.redislock.benchmark;

/**
 * No lock at all: with one thread, the critical section alone sets the ceiling a lock
 * handed over at no cost would reach.
 */
final class NoLockLibrary implements LockLibrary {

	NoLockLibrary(String host, int port) {
	}

	@Override
	public void lock(String name) {
	}

	@Override
	public void unlock(String name) {
	}

	@Override
	public void close() {
	}

}
