package io.github.redislock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * A fair lock: granted in the order its waiters first asked, across all clients; see
 * {@link RedisLockClient#getFairLock(String)} for how it differs from
 * {@link RedisLockClient#getLock(String)}. As a {@link RedisLock} it is owned by the
 * thread that acquired it; {@link #tryAcquire} and {@link #acquireAsync} give a
 * {@link LockHandle} instead, owned by the acquisition and released from any thread.
 *
 * @since 0.1.0
 */
public interface RedisFairLock extends RedisLock {

	/**
	 * Acquires the lock in turn for a new {@link LockHandle}, as
	 * {@link RedisLockClient#tryAcquire} does for an exclusive lock.
	 * @param waitTime how long to wait; zero means do not wait (the lock is then taken
	 * when nobody holds it, whoever is queued)
	 * @param leaseTime how long it stays held at most, or {@code null} for the watchdog's
	 * lease
	 * @return the handle, or empty when the lock was not acquired in time
	 * @throws LockNotAcquiredException if the wait was interrupted
	 * @throws RedisLockException if Redis cannot be reached
	 */
	Optional<LockHandle> tryAcquire(Duration waitTime, @Nullable Duration leaseTime);

	/**
	 * Acquires the lock in turn for a new {@link LockHandle} without blocking a thread,
	 * as {@link RedisLockClient#acquireAsync} does for an exclusive lock; cancelling the
	 * future takes the acquisition out of the queue.
	 * @return completes with the handle; or exceptionally with
	 * {@link LockNotAcquiredException} when the wait ended, or {@link RedisLockException}
	 */
	CompletableFuture<LockHandle> acquireAsync(Duration waitTime, @Nullable Duration leaseTime);

}
