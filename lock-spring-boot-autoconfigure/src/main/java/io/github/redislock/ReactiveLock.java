package io.github.redislock;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One lock of a name for Reactor pipelines: the read or write lock of its read/write
 * lock, or its fair lock, from {@link ReactiveRedisLockClient#readLock},
 * {@link ReactiveRedisLockClient#writeLock} or {@link ReactiveRedisLockClient#fairLock}.
 * Its methods behave as the client's methods of the same names do for the exclusive lock.
 * Within one pipeline, a nested {@code withLock} of the same lock re-enters; under a
 * write lock, a nested read lock of the same name runs under the write hold; under a read
 * lock, a nested write lock of the same name fails at once with
 * {@link IllegalMonitorStateException} (it would wait for its own pipeline).
 *
 * @since 0.1.0
 */
public interface ReactiveLock {

	/** The lock's name. */
	String getName();

	/**
	 * Acquires the lock for a new {@link LockHandle} on subscription; see
	 * {@link ReactiveRedisLockClient#acquire}.
	 */
	Mono<LockHandle> acquire(Duration waitTime, @Nullable Duration leaseTime);

	/**
	 * Runs the action under the lock; see
	 * {@link ReactiveRedisLockClient#withLock(String, Duration, Duration, Mono)}.
	 */
	<T> Mono<T> withLock(Duration waitTime, @Nullable Duration leaseTime, Mono<T> action);

	/**
	 * Runs the action under the lock; see
	 * {@link ReactiveRedisLockClient#withLock(String, Duration, Duration, Flux)}.
	 */
	<T> Flux<T> withLock(Duration waitTime, @Nullable Duration leaseTime, Flux<T> action);

}
