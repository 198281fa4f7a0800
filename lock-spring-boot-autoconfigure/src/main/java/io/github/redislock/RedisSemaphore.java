package io.github.redislock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * A distributed semaphore: at most {@link #permits()} holders of a name at once, across
 * all clients. Each acquisition takes one permit as a {@link LockHandle}, owned by the
 * handle rather than a thread and never re-entered: release it from any thread,
 * {@link LockHandle#extend extend} its lease, or keep the permit taken for nobody a while
 * with {@link LockHandle#release(Duration)}. Get one from
 * {@link RedisLockClient#getSemaphore(String, int)}.
 * <p>
 * Guarantees and failure behaviour:
 * <ul>
 * <li>Never more holders than the limit, for callers that pass the same limit: each
 * acquisition is one atomic step in Redis that counts the live holders.</li>
 * <li>A holder that dies (its process killed, its connection lost) gives its permit back
 * when its lease ends: with a {@code null} lease, within the watchdog timeout after its
 * last renewal; with a fixed lease, at its end. A permit whose lease ended is lost to its
 * handle ({@link LockHandle#isHeld()} answers {@code false}; a watchdog-renewed one
 * publishes a {@link LeaseLostEvent}).</li>
 * <li>Waiters are woken by releases (pub/sub), not by polling; a waiter that misses the
 * message asks again at the earliest lease end of the holders.</li>
 * <li>An acquisition that does not wait takes a permit whenever fewer than the limit hold
 * one, whoever waits, as {@link java.util.concurrent.Semaphore#tryAcquire()} does;
 * callers of one client that wait take permits in the order they came.</li>
 * <li>The limit is not stored: each call brings its own and is granted while fewer than
 * its own limit hold the name. Callers that pass different limits for one name each count
 * the same holders against their own limit: one with limit 5 may be granted while 3 hold
 * the name, one with limit 2 then waits until fewer than 2 hold it. Use one limit per
 * name (a constant next to the name) unless that is what you want.</li>
 * <li>When Redis cannot be reached, calls fail with {@link RedisLockException} after the
 * client's command timeout.</li>
 * </ul>
 * Holds no state: cheap to create, safe to share between threads.
 *
 * @since 0.1.0
 */
public interface RedisSemaphore {

	/** The semaphore's name. */
	String getName();

	/** The limit this instance's acquisitions bring: at most this many holders. */
	int permits();

	/**
	 * Asks Redis how many permits are free for this instance's limit: {@link #permits()}
	 * minus the live holders (and permits kept for nobody), never below 0. Exact when no
	 * acquisition or release is in flight; a dead holder's permit counts as taken until
	 * its lease ends.
	 * @throws RedisLockException if Redis cannot be reached
	 */
	int availablePermits();

	/**
	 * Acquires a permit for a new {@link LockHandle}, waiting up to {@code waitTime}.
	 * @param waitTime how long to wait for a permit; zero means do not wait
	 * @param leaseTime how long the permit stays held at most, or {@code null} to have
	 * the watchdog renew it until the handle is released
	 * @return the handle, holding one permit
	 * @throws LockNotAcquiredException if no permit was free within {@code waitTime}, or
	 * the wait was interrupted (the interrupt status is then set again)
	 * @throws RedisLockException if Redis cannot be reached
	 */
	default LockHandle acquire(Duration waitTime, @Nullable Duration leaseTime) {
		return tryAcquire(waitTime, leaseTime).orElseThrow(() -> new LockNotAcquiredException(getName(), waitTime));
	}

	/**
	 * Acquires a permit for a new {@link LockHandle} as {@link #acquire} does, but
	 * answers an empty optional when no permit was free for the whole wait.
	 * @param waitTime how long to wait for a permit; zero means do not wait
	 * @param leaseTime how long the permit stays held at most, or {@code null} for the
	 * watchdog's lease
	 * @return the handle, or empty when no permit was acquired in time
	 * @throws LockNotAcquiredException if the wait was interrupted
	 * @throws RedisLockException if Redis cannot be reached
	 */
	Optional<LockHandle> tryAcquire(Duration waitTime, @Nullable Duration leaseTime);

	/**
	 * Acquires a permit for a new {@link LockHandle} without blocking a thread: while no
	 * permit is free, the acquisition sleeps until a release message or the earliest
	 * lease end. Cancelling the future withdraws it: nothing is left held or subscribed
	 * for it, also when a permit was granted at the same moment (it is given back).
	 * @param waitTime how long to wait for a permit; zero means do not wait
	 * @param leaseTime how long the permit stays held at most, or {@code null} for the
	 * watchdog's lease
	 * @return completes with the handle on a thread of the client; or exceptionally with
	 * {@link LockNotAcquiredException} when no permit was acquired within
	 * {@code waitTime}, or {@link RedisLockException} when Redis cannot be reached
	 */
	CompletableFuture<LockHandle> acquireAsync(Duration waitTime, @Nullable Duration leaseTime);

}
