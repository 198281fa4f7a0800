package io.github.redislock;

import java.time.Duration;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.jspecify.annotations.Nullable;

/**
 * Distributed locks for Reactor pipelines: the lock is taken when the pipeline is
 * subscribed and released when it completes, fails or is cancelled, and no thread waits
 * meanwhile (a waiting subscription sleeps until a release is published, as
 * {@link RedisLockClient#acquireAsync} does). It shares its {@link RedisLockClient}'s
 * engine: reactive and blocking callers of one application exclude each other, and appear
 * together in metrics and in the {@code locks} endpoint.
 *
 * <pre class="code">
 * Mono&lt;Receipt&gt; receipt = locks.withLock("order:" + id, Duration.ofSeconds(3), null, ship(id));
 * </pre>
 *
 * <p>
 * <b>Threads.</b> Signals that follow an acquisition or a release arrive on Reactor's
 * {@link Schedulers#parallel() parallel} scheduler, never on the Redis client's threads;
 * move blocking work elsewhere with {@code publishOn(Schedulers.boundedElastic())}.
 *
 * <p>
 * <b>Re-entry.</b> A {@code withLock} nested inside the action of another
 * {@code withLock} of the same name and client, within one subscription, runs under the
 * outer hold instead of waiting for it: the holds of a pipeline travel in its Reactor
 * context, never with a thread, so two pipelines that happen to run on one event-loop
 * thread never share a hold. {@link #acquire} never re-enters: each handle is an owner of
 * its own.
 *
 * <p>
 * With the starter, Spring Boot creates one next to the {@link RedisLockClient};
 * otherwise use {@link #create(RedisLockClient)}.
 *
 * @since 0.1.0
 */
public interface ReactiveRedisLockClient {

	/**
	 * Acquires the named lock for a new {@link LockHandle} on subscription, waiting up to
	 * {@code waitTime} without blocking a thread. Cancelling the subscription while it
	 * waits withdraws it, also when the lock was being granted at that moment. Release
	 * the handle with {@code Mono.fromFuture(handle::releaseAsync)}, or let
	 * {@link #withLock(String, Duration, Duration, Mono)} do it.
	 * @param name the lock's name; not blank
	 * @param waitTime how long to wait for the lock; zero means do not wait
	 * @param leaseTime how long the lock stays held at most, or {@code null} to have the
	 * watchdog renew it until the handle is released
	 * @return emits the handle; fails with {@link LockNotAcquiredException} when the lock
	 * stayed taken for the whole wait, with {@link RedisLockException} when Redis cannot
	 * be reached
	 * @throws IllegalArgumentException at once if the name or a duration is not usable
	 */
	Mono<LockHandle> acquire(String name, Duration waitTime, @Nullable Duration leaseTime);

	/**
	 * Runs {@code action} under the named lock: subscribes to it once the lock is
	 * acquired, and releases the lock when it completes, fails or is cancelled. Each
	 * subscription acquires anew.
	 * @param name the lock's name; not blank
	 * @param waitTime how long to wait for the lock; zero means do not wait
	 * @param leaseTime how long the lock stays held at most, or {@code null} to have the
	 * watchdog renew it until the action ends
	 * @param action the work to do under the lock
	 * @return emits what the action emits, completing once the lock is released. Fails
	 * with {@link LockNotAcquiredException} (the action is not subscribed to), with the
	 * action's own error, or with {@link LeaseExpiredException} when the action succeeded
	 * but the lease ran out before the release
	 * @throws IllegalArgumentException at once if the name or a duration is not usable
	 */
	<T> Mono<T> withLock(String name, Duration waitTime, @Nullable Duration leaseTime, Mono<T> action);

	/**
	 * Runs {@code action} under the named lock, as
	 * {@link #withLock(String, Duration, Duration, Mono)} does, for as long as the
	 * {@code Flux} runs.
	 * @param name the lock's name; not blank
	 * @param waitTime how long to wait for the lock; zero means do not wait
	 * @param leaseTime how long the lock stays held at most, or {@code null} to have the
	 * watchdog renew it until the action ends
	 * @param action the work to do under the lock
	 * @return emits what the action emits, completing once the lock is released
	 * @throws IllegalArgumentException at once if the name or a duration is not usable
	 */
	<T> Flux<T> withLock(String name, Duration waitTime, @Nullable Duration leaseTime, Flux<T> action);

	/**
	 * The read lock of the name's read/write lock (see
	 * {@link RedisLockClient#getReadWriteLock}), for pipelines.
	 * @throws IllegalArgumentException if the name is not usable
	 * @since 0.1.0
	 */
	ReactiveLock readLock(String name);

	/**
	 * The write lock of the name's read/write lock, for pipelines; see
	 * {@link #readLock(String)}.
	 * @since 0.1.0
	 */
	ReactiveLock writeLock(String name);

	/**
	 * A permit of the name's semaphore (see {@link RedisLockClient#getSemaphore} and
	 * {@link RedisSemaphore}), for pipelines: at most {@code permits} holders at once
	 * across all clients, each holding a permit as a {@link LockHandle}. A pipeline that
	 * holds a permit of the name and runs {@code withLock} of it again shares that
	 * permit.
	 * @param name the semaphore's name; not blank
	 * @param permits the limit, at least 1; not stored in Redis, so give every caller of
	 * one name the same one
	 * @throws IllegalArgumentException if the name is not usable or {@code permits} is
	 * below 1
	 * @since 0.1.0
	 */
	ReactiveLock semaphore(String name, int permits);

	/**
	 * The fair lock of the name (see {@link RedisLockClient#getFairLock}), for pipelines:
	 * taken in the order the pipelines asked.
	 * @since 0.1.0
	 */
	ReactiveLock fairLock(String name);

	/**
	 * Creates a reactive client on the engine of the given client: same Redis, same key
	 * prefix, same watchdog, metrics and endpoint. It owns nothing of its own; close the
	 * given client when done.
	 * @param client the client whose locks to take
	 * @return the reactive client
	 */
	static ReactiveRedisLockClient create(RedisLockClient client) {
		return ClientProviders.provider().reactive(client);
	}

}
