package io.github.redislock.benchmark;

/**
 * A library's fair (first come, first served) lock, for the fair scenario. Waits without
 * a timeout, as {@code Lock.lock()} does.
 */
interface FairLockLibrary {

	void fairLock(String name);

	void fairUnlock(String name);

}
