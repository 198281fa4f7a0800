package io.github.redislock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.jspecify.annotations.Nullable;
import org.springframework.util.Assert;

/**
 * Entry point to distributed locks on one Redis (standalone, Sentinel or Cluster). Each
 * lock is one Redis hash named {@code <key-prefix>{<name>}}; the braces form a cluster
 * hash tag so that everything belonging to one lock lives in one slot. A name with
 * {@code '{'} or {@code '}'}, or over 1,024 characters, is hashed in the key
 * ({@code <key-prefix>{{<SHA-256 of the name>}}}) and shown as it is everywhere else: in
 * exceptions, meters, traces and the {@code locks} endpoint.
 *
 * <p>
 * Build one without Spring Boot from a {@link StringRedisTemplate}:
 *
 * <pre class="code">
 * RedisLockClient locks = RedisLockClient.builder(redisTemplate).keyPrefix("orders:lock:").build();
 * String receipt = locks.withLock("order:42", Duration.ofSeconds(3), null, () -&gt; ship(42));
 * </pre>
 *
 * With the starter, Spring Boot creates one from {@code spring.data.redis.*} and
 * {@code redis-lock.*}.
 *
 * <p>
 * A client owns a background thread (the watchdog that renews leases), a command
 * connection and, once a thread has had to wait, one pub/sub connection. Both connections
 * are its own, opened on the connection factory's Lettuce client (so with the
 * application's settings), not shared with the application: a lock call that finds one
 * down reconnects it at once rather than on Lettuce's reconnect schedule, which after a
 * long outage waits up to 30 s between attempts; the application's connections keep that
 * schedule. {@link #close()} stops the thread and closes the connections; locks still
 * held then expire with their leases.
 *
 * @since 0.1.0
 */
public interface RedisLockClient extends AutoCloseable {

	/**
	 * Returns the lock of the given name. Cheap: nothing is sent to Redis and nothing is
	 * kept per name.
	 * @param name the lock's name; not blank (any other name works, see the class
	 * description)
	 * @throws IllegalArgumentException if the name is not usable
	 */
	RedisLock getLock(String name);

	/**
	 * Returns the read/write lock of the given name: many readers or one writer; see
	 * {@link RedisReadWriteLock}. Cheap, as {@link #getLock(String)} is. Its keys are
	 * {@code <key-prefix>{<name>}:rw} and two sorted sets beside it, in the same cluster
	 * slot; a read/write lock and {@link #getLock(String)} of one name are independent.
	 * @param name the lock's name; not blank
	 * @throws IllegalArgumentException if the name is not usable
	 * @since 0.1.0
	 */
	RedisReadWriteLock getReadWriteLock(String name);

	/**
	 * Returns the semaphore of the given name with the given limit: at most
	 * {@code permits} holders at once across all clients, each holding a permit as a
	 * {@link LockHandle}; see {@link RedisSemaphore} for its guarantees. Cheap: nothing
	 * is sent to Redis and nothing is kept per name. Its key is one sorted set,
	 * {@code <key-prefix>{<name>}:sem}, in the name's cluster slot; a semaphore and the
	 * other locks of one name are independent. The limit is not stored in Redis: every
	 * acquisition brings this one (see {@link RedisSemaphore} for callers that pass
	 * different limits for one name).
	 * @param name the semaphore's name; not blank
	 * @param permits the limit, at least 1
	 * @throws IllegalArgumentException if the name is not usable or {@code permits} is
	 * below 1
	 * @since 0.1.0
	 */
	RedisSemaphore getSemaphore(String name, int permits);

	/**
	 * Returns the fair lock of the given name: granted in the order its waiters first
	 * asked, across all clients. It is a {@link RedisLock} like
	 * {@link #getLock(String)}'s (re-entrant per thread, the same leases, watchdog and
	 * failure behaviour), with these differences:
	 * <ul>
	 * <li>A waiter queues in Redis at its first attempt and gets the lock when all who
	 * asked before it had their turn. {@code tryLock()} without waiting takes the lock
	 * when nobody holds it, whoever is queued, as a fair
	 * {@link java.util.concurrent.locks.ReentrantLock#tryLock()} does.</li>
	 * <li>A waiter whose wait ends, is interrupted or cancelled leaves the queue at once;
	 * one whose process died leaves it within 10 s (it keeps its place while it asks
	 * again, every 2 s at least).</li>
	 * <li>Each release goes through Redis (no passing between threads of one client), and
	 * wakes only the waiter whose turn it is.</li>
	 * <li>{@code unlock(holdAtLeast)} keeps it taken for nobody until the minimum has
	 * passed; the waiter whose turn is next sleeps until then and takes it.</li>
	 * </ul>
	 * Its {@link RedisFairLock#tryAcquire} and {@link RedisFairLock#acquireAsync} give
	 * {@link LockHandle}s. Its keys are {@code <key-prefix>{<name>}:fair} and two sorted
	 * sets beside it (the queue and the waiters' heartbeats), in the same cluster slot,
	 * every one expiring; it is independent of {@link #getLock(String)} of the same name.
	 * @param name the lock's name; not blank
	 * @throws IllegalArgumentException if the name is not usable
	 * @since 0.1.0
	 */
	RedisFairLock getFairLock(String name);

	/**
	 * Acquires the named lock for a new {@link LockHandle}, waiting up to
	 * {@code waitTime}. The handle, not the calling thread, owns the lock: any thread may
	 * release it, and it never re-enters (a second acquisition of the same name waits,
	 * also on the same thread).
	 * @param name the lock's name; not blank
	 * @param waitTime how long to wait for the lock; zero means do not wait
	 * @param leaseTime how long the lock stays held at most, or {@code null} to have the
	 * watchdog renew it until the handle is released
	 * @return the handle; release it, ideally with try-with-resources
	 * @throws LockNotAcquiredException if the lock was not acquired within
	 * {@code waitTime}, or the wait was interrupted (the interrupt status is then set
	 * again)
	 * @throws RedisLockException if Redis cannot be reached
	 * @since 0.1.0
	 */
	default LockHandle acquire(String name, Duration waitTime, @Nullable Duration leaseTime) {
		return tryAcquire(name, waitTime, leaseTime).orElseThrow(() -> new LockNotAcquiredException(name, waitTime));
	}

	/**
	 * Acquires the named lock for a new {@link LockHandle} as
	 * {@link #acquire(String, Duration, Duration)} does, but answers an empty optional
	 * when another holder kept the lock for the whole wait.
	 * @param name the lock's name; not blank
	 * @param waitTime how long to wait for the lock; zero means do not wait
	 * @param leaseTime how long the lock stays held at most, or {@code null} for the
	 * watchdog's lease
	 * @return the handle, or empty when the lock was not acquired in time
	 * @throws LockNotAcquiredException if the wait was interrupted (the interrupt status
	 * is then set again)
	 * @throws RedisLockException if Redis cannot be reached
	 * @since 0.1.0
	 */
	Optional<LockHandle> tryAcquire(String name, Duration waitTime, @Nullable Duration leaseTime);

	/**
	 * Acquires the named lock for a new {@link LockHandle} without blocking a thread:
	 * while the lock is taken, the acquisition sleeps until a release message or the
	 * holder's lease end, and no thread waits for it. Cancelling the future withdraws the
	 * acquisition: nothing is left held, queued or subscribed for it, also when the lock
	 * was granted at the same moment (it is then released).
	 * <p>
	 * The future completes on a thread of the client; continue with the {@code ...Async}
	 * variants of {@link CompletableFuture} for anything that blocks.
	 * @param name the lock's name; not blank
	 * @param waitTime how long to wait for the lock; zero means do not wait
	 * @param leaseTime how long the lock stays held at most, or {@code null} to have the
	 * watchdog renew it until the handle is released
	 * @return completes with the handle; or exceptionally with
	 * {@link LockNotAcquiredException} when the lock was not acquired within
	 * {@code waitTime}, or {@link RedisLockException} when Redis cannot be reached
	 * @throws IllegalArgumentException if the name, wait or lease is not usable
	 * @since 0.1.0
	 */
	CompletableFuture<LockHandle> acquireAsync(String name, Duration waitTime, @Nullable Duration leaseTime);

	/**
	 * Acquires the named lock without blocking a thread, runs the action, and holds the
	 * lock until the stage the action returned completes, normally, exceptionally or by
	 * cancellation; then releases it.
	 * @param name the lock's name
	 * @param waitTime how long to wait for the lock; zero means do not wait
	 * @param leaseTime how long the lock stays held at most, or {@code null} to have the
	 * watchdog renew it until the stage completes
	 * @param action starts the work and returns its stage; called on a thread of the
	 * client once the lock is held, so it should not block
	 * @return completes as the action's stage did, once the lock is released; or
	 * exceptionally with {@link LockNotAcquiredException} (the action did not run),
	 * {@link LeaseExpiredException} (the work outlasted its lease) or
	 * {@link RedisLockException}
	 * @since 0.1.0
	 */
	default <T extends @Nullable Object> CompletableFuture<T> withLockAsync(String name, Duration waitTime,
			@Nullable Duration leaseTime, Supplier<? extends CompletionStage<T>> action) {
		Assert.notNull(action, "action must not be null");
		// the client built by builder() releases without blocking; this fallback releases
		// on the common pool, never on the thread that completed the action's stage
		return acquireAsync(name, waitTime, leaseTime).thenCompose((handle) -> {
			CompletionStage<T> stage;
			try {
				stage = action.get();
			}
			catch (RuntimeException | Error ex) {
				unlockAfterFailure(handle::release, ex);
				throw ex;
			}
			return stage.handleAsync((value, failure) -> {
				if (failure != null) {
					unlockAfterFailure(handle::release, failure);
					throw (failure instanceof CompletionException completion) ? completion
							: new CompletionException(failure);
				}
				handle.release();
				return value;
			});
		});
	}

	/**
	 * Runs the action while holding the named lock, and releases the lock afterwards,
	 * also when the action throws.
	 * @param name the lock's name
	 * @param waitTime how long to wait for the lock; zero means do not wait
	 * @param leaseTime how long the lock stays held at most, or {@code null} to have the
	 * watchdog renew it until the action returns
	 * @param action what to run while holding the lock
	 * @return what the action returned
	 * @throws LockNotAcquiredException if the lock was not acquired within
	 * {@code waitTime}, or the wait was interrupted (the interrupt status is then set
	 * again)
	 * @throws LeaseExpiredException if the action outlasted its lease, after the action
	 * completed
	 * @throws RedisLockException if Redis cannot be reached
	 */
	default <T extends @Nullable Object> T withLock(String name, Duration waitTime, @Nullable Duration leaseTime,
			Supplier<T> action) {
		Assert.notNull(action, "action must not be null");
		RedisLock lock = getLock(name);
		boolean acquired;
		try {
			acquired = lock.tryLock(waitTime, leaseTime);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockNotAcquiredException(name, waitTime, ex);
		}
		if (!acquired) {
			throw new LockNotAcquiredException(name, waitTime);
		}
		T result;
		try {
			result = action.get();
		}
		catch (RuntimeException | Error ex) {
			unlockAfterFailure(lock::unlock, ex);
			throw ex;
		}
		lock.unlock();
		return result;
	}

	/**
	 * Runs the action while holding the named lock; see
	 * {@link #withLock(String, Duration, Duration, Supplier)}.
	 */
	default void withLock(String name, Duration waitTime, @Nullable Duration leaseTime, Runnable action) {
		Assert.notNull(action, "action must not be null");
		withLock(name, waitTime, leaseTime, () -> {
			action.run();
			return null;
		});
	}

	/**
	 * Stops lease renewal and closes the client's connections. Locks still held expire
	 * with their leases. Asynchronous acquisitions still waiting fail with an
	 * {@link IllegalStateException} saying the client is closed, and later acquisitions
	 * are refused the same way.
	 */
	@Override
	void close();

	/**
	 * Starts building a client that talks to Redis through the given template.
	 * @param redisTemplate a template whose connection factory is initialized
	 */
	static Builder builder(StringRedisTemplate redisTemplate) {
		return new DefaultRedisLockClientBuilder(redisTemplate);
	}

	/**
	 * Starts building a client that talks to Redis through the given connection factory.
	 * @param connectionFactory an initialized connection factory
	 */
	static Builder builder(RedisConnectionFactory connectionFactory) {
		Assert.notNull(connectionFactory, "connectionFactory must not be null");
		return new DefaultRedisLockClientBuilder(new StringRedisTemplate(connectionFactory));
	}

	private static void unlockAfterFailure(Runnable unlock, Throwable failure) {
		try {
			unlock.run();
		}
		catch (RuntimeException unlockFailure) {
			failure.addSuppressed(unlockFailure);
		}
	}

	/**
	 * Options of a {@link RedisLockClient}. Every option has a default; each setter
	 * checks its value at once and throws {@link IllegalArgumentException} naming the
	 * option. With Spring Boot, a {@code RedisLockClientBuilderCustomizer} bean adjusts
	 * the one the auto-configuration uses.
	 *
	 * @since 0.1.0
	 */
	interface Builder {

		/**
		 * The most {@link #maxLocalPasses(int)} accepts: a grant reserves that many
		 * fencing tokens, and a slot's tokens follow the Redis server's clock in
		 * microseconds only while it issues fewer than a million a second. At 64 a Redis
		 * node granting 100,000 blocks a second for one slot would run its tokens ahead
		 * of its clock by at most 5.4 seconds per second of such load (see
		 * docs/fencing.md).
		 * @since 0.1.0
		 */
		int MAX_LOCAL_PASSES_LIMIT = 64;

		/**
		 * What every lock key starts with (default {@code lock:}); the key of lock
		 * {@code order:42} is then {@code lock:{order:42}}. Must not contain '{' or '}'.
		 */
		Builder keyPrefix(String keyPrefix);

		/**
		 * The lease of locks taken without an explicit lease (default 30 s); the watchdog
		 * renews such leases every third of it. At least 300 ms.
		 */
		Builder watchdogTimeout(Duration watchdogTimeout);

		/**
		 * The longest a single lock command (an acquire attempt, a release, a renewal, a
		 * status read) waits for Redis' answer (default 2 s), independent of the
		 * connection factory's own command timeout (Lettuce's default is 60 s). An
		 * acquisition therefore returns within its wait time plus this, and a release
		 * within this; either then throws {@link RedisLockException}. An acquisition
		 * whose answer did not arrive in time may still be granted by Redis later: the
		 * client releases such a grant in the background as soon as Redis answers again,
		 * so that it does not block others for a whole lease. A call that finds Redis
		 * unreachable tries to reconnect the client's own connection for this long, then
		 * throws a {@link RedisLockException} naming the cause (refused, timed out,
		 * reset) and the address; a failure after the command was sent is a
		 * {@link LockOutcomeUnknownException}. Needs Lettuce; with another client library
		 * only the library's own timeout applies. At least 10 ms.
		 * @since 0.1.0
		 */
		Builder commandTimeout(Duration commandTimeout);

		/**
		 * Who to tell when a thread of this client turns out to have lost a lock it held
		 * (see {@link LeaseLostEvent}); called on the watchdog's thread or the unlocking
		 * thread, so keep it short. Spring Boot's auto-configuration publishes the event
		 * to the application context. Default: nobody (the loss is still logged as a
		 * warning).
		 */
		Builder leaseLostListener(Consumer<LeaseLostEvent> leaseLostListener);

		/**
		 * Where to report acquisitions and holds as Micrometer observations, so that
		 * traces show them and, with Micrometer's meter handler registered (as Spring
		 * Boot's Actuator does), timers measure them: {@code redis.lock.acquire} (tags
		 * {@code name}, {@code outcome}: {@code acquired}, {@code timed-out},
		 * {@code interrupted} or {@code error}) and {@code redis.lock.hold} (tags
		 * {@code name}, {@code lease}: {@code watchdog} or {@code fixed}). The
		 * {@code name} tag is the lock's name up to its first {@code ':'}, so that
		 * {@code order:42} and {@code order:43} share meters. Default: none.
		 * @since 0.1.0
		 */
		Builder observationRegistry(ObservationRegistry observationRegistry);

		/**
		 * Where to register this client's meters: gauges {@code redis.lock.held} (locks
		 * its threads hold) and {@code redis.lock.waiting} (its threads waiting for a
		 * lock), and the counter {@code redis.lock.lease.lost} (tags {@code name},
		 * {@code detected.by}). Without an {@link #observationRegistry observation
		 * registry}, the acquire and hold timers go here too. Needs
		 * {@code io.micrometer:micrometer-core}. Default: none.
		 * @since 0.1.0
		 */
		Builder meterRegistry(MeterRegistry meterRegistry);

		/**
		 * Makes every acquisition wait until this many replicas of the lock's master have
		 * it (Redis' {@code WAIT}), so that a failover right after cannot lose it and let
		 * a second client take the same lock. An acquisition not acknowledged within the
		 * timeout is released again and fails with {@link RedisLockException}: with too
		 * few replicas up, no lock can be taken. Costs one more round trip per
		 * acquisition (re-entries excepted), during which the connection, shared with
		 * other commands, waits for the replicas. It narrows, but does not close, the
		 * window asynchronous replication leaves (a replica may have it and still not be
		 * the one promoted); fencing tokens remain the defence. Default: off.
		 * @param replicas how many replicas must acknowledge, at least 1
		 * @param timeout how long to wait for them, at least 1 ms
		 * @since 0.1.0
		 */
		Builder replicaAcknowledgement(int replicas, Duration timeout);

		/**
		 * How many times in a row a lock may pass from one thread (or handle) of this
		 * client to another that waits for it, without being freed in Redis, while
		 * threads of other clients wait for it too (default 8). A release that finds a
		 * thread or an asynchronous acquisition of the same client waiting hands it the
		 * lock directly: no release, no message, no acquisition in Redis, usually no
		 * round trip at all, so that a contended lock passes at the speed of the critical
		 * section. Other clients' waiters mark the lock in Redis; after this many passes
		 * the client sees the mark and frees the lock for them, and its own threads wait
		 * their turn. With nobody else waiting, passing goes on. Fencing tokens still
		 * increase with every holder, passes included (they are reserved in blocks of
		 * this size, so they increase by more than one). Only locks with a watchdog lease
		 * pass; a lock with a fixed lease, or released with {@code holdAtLeast}, is freed
		 * in Redis. A semaphore permit passes too, with one short script per pass for its
		 * fencing token (other clients' holders take theirs meanwhile), and, since other
		 * clients' waiters leave it no mark, it goes back to Redis after this many passes
		 * in a row whoever waits. 0 turns passing off: every release frees the lock in
		 * Redis, and every waiter competes there.
		 * @param maxLocalPasses at least 0, at most {@link #MAX_LOCAL_PASSES_LIMIT} (64)
		 * @since 0.1.0
		 */
		Builder maxLocalPasses(int maxLocalPasses);

		/**
		 * Whether releases on a Redis Cluster are announced with sharded pub/sub
		 * ({@code SPUBLISH}), which reaches the nodes of the lock's shard only, rather
		 * than with {@code PUBLISH}, which reaches every node. Standalone Redis and
		 * Sentinel always use classic pub/sub. Every client that locks the same names
		 * must announce the same way (see {@link ShardedPubSub}).
		 * @param shardedPubSub {@link ShardedPubSub#AUTO} by default
		 * @since 0.1.0
		 */
		Builder shardedPubSub(ShardedPubSub shardedPubSub);

		/** Creates the client; it starts its watchdog thread. */
		RedisLockClient build();

	}

}
