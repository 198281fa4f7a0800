package io.github.redislock.internal;

/**
 * Which lock of a name a caller wants: the exclusive lock, the read or write side of the
 * name's read/write lock, or its fair lock. What the annotation's modes and the reactive
 * client ask the engine for. Not API.
 */
public enum LockType {

	EXCLUSIVE, READ, WRITE, FAIR;

	LockKeys keys(String keyPrefix, String name) {
		return switch (this) {
			case EXCLUSIVE -> LockKeys.of(keyPrefix, name);
			case READ -> LockKeys.read(keyPrefix, name);
			case WRITE -> LockKeys.write(keyPrefix, name);
			case FAIR -> LockKeys.fair(keyPrefix, name);
		};
	}

	/**
	 * Acquires this lock of the name for a new handle through the public API, for a
	 * client of another implementation.
	 */
	java.util.concurrent.CompletableFuture<io.github.redislock.LockHandle> acquireAsync(
			io.github.redislock.RedisLockClient client, String name, java.time.Duration waitTime,
			java.time.@org.jspecify.annotations.Nullable Duration leaseTime) {
		return switch (this) {
			case EXCLUSIVE -> client.acquireAsync(name, waitTime, leaseTime);
			case READ -> client.getReadWriteLock(name).acquireReadAsync(waitTime, leaseTime);
			case WRITE -> client.getReadWriteLock(name).acquireWriteAsync(waitTime, leaseTime);
			case FAIR -> client.getFairLock(name).acquireAsync(waitTime, leaseTime);
		};
	}

}
