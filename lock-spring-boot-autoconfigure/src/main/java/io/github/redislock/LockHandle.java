package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One acquisition of a lock, owned by this handle rather than by a thread: any thread
 * that has the handle may extend or release it, and nothing is tied to the thread that
 * acquired it. Unlike {@link RedisLock}, a handle never re-enters: every acquisition is a
 * new owner, so a second {@code acquire} of a name this flow already holds waits like any
 * other caller.
 *
 * <pre class="code">
 * try (LockHandle lock = locks.acquire("order:42", Duration.ofSeconds(3), null)) {
 *     ship(42, lock.fencingToken());
 * }
 * </pre>
 *
 * <p>
 * A handle acquired with a {@code null} lease has its lease renewed by the client's
 * watchdog until it is released. A handle that becomes unreachable without being released
 * is treated as abandoned: the watchdog stops renewing it, a warning is logged and a
 * {@link LeaseLostEvent} with {@link LeaseLostEvent.DetectedBy#ABANDONED} is published,
 * and the lock is free for others once its lease ends. Release handles explicitly,
 * ideally with try-with-resources.
 *
 * @since 0.1.0
 * @see RedisLockClient#acquire(String, Duration, Duration)
 */
public interface LockHandle extends AutoCloseable {

	/** The lock's name. */
	String name();

	/**
	 * The fencing token of this acquisition: greater than that of every earlier
	 * acquisition of a lock of the same Redis Cluster slot (so of the same name).
	 * Answered locally, without a round trip.
	 */
	long fencingToken();

	/**
	 * Completes when this client learns that the handle's lease is lost, so that work
	 * done under the lock can stop before another holder's starts:
	 * <ul>
	 * <li>a renewal finds the lock gone or someone else's (within one renewal interval, a
	 * third of {@code redis-lock.watchdog-timeout});</li>
	 * <li>no renewal was confirmed by Redis for nine tenths of the lease (Redis stalled
	 * or unreachable, the network parted, this JVM paused), or a fixed lease is nine
	 * tenths gone: declared lost a tenth of the lease before Redis could give the lock to
	 * anyone else ({@link LeaseLostEvent.DetectedBy#CLIENT_CLOCK}).</li>
	 * </ul>
	 * Never completes after a normal release; at once when the loss was found before.
	 * Callbacks run on the client's watchdog or lease-watch thread: keep them short
	 * (cancel a task, interrupt a thread, flip a flag), and use the {@code *Async}
	 * variants for anything longer. <pre class="code">
	 * try (LockHandle lock = locks.acquire("report", Duration.ofSeconds(3), null)) {
	 *     Future&lt;?&gt; work = executor.submit(this::buildReport);
	 *     lock.leaseLost().thenRun(() -&gt; work.cancel(true));
	 *     work.get();
	 * }
	 * </pre>
	 * @return a stage that completes with the loss; it cannot be completed from outside
	 * @since 0.1.0
	 */
	CompletionStage<LeaseLostEvent> leaseLost();

	/**
	 * Whether this handle still holds the lock, as Redis has it: false once released, or
	 * once its lease ended or the lock was force-unlocked.
	 * @throws RedisLockException if Redis cannot be reached
	 */
	boolean isHeld();

	/**
	 * What Redis says is left of this handle's lease; zero once it no longer holds the
	 * lock.
	 * @throws RedisLockException if Redis cannot be reached
	 */
	Duration remainingLease();

	/**
	 * Sets what is left of the lease to exactly {@code leaseTime}, shorter or longer,
	 * provided this handle still holds the lock. A lease set this way is fixed: the
	 * watchdog no longer renews it.
	 * @param leaseTime the new remaining lease, at least 1 ms
	 * @return whether the lease was set; false when this handle no longer holds the lock
	 * (released, or its lease was lost)
	 * @throws RedisLockException if Redis cannot be reached
	 */
	boolean extend(Duration leaseTime);

	/**
	 * Releases the lock, from any thread, and wakes a waiter.
	 * @throws IllegalMonitorStateException if this handle was released already
	 * @throws LeaseExpiredException if it held the lock but no longer does: its lease ran
	 * out or the lock was force-unlocked
	 * @throws RedisLockException if Redis did not answer; the client then releases the
	 * lock in the background once Redis answers
	 */
	void release();

	/**
	 * Releases the lock as {@link #release()} does; when it was held for less than
	 * {@code holdAtLeast}, it stays taken, for nobody, until that much time has passed
	 * since it was acquired (see {@link RedisLock#unlock(Duration)}). Never extends a
	 * lock this handle no longer holds.
	 * @param holdAtLeast how long the lock stays taken in all, from its acquisition
	 * @throws IllegalMonitorStateException as {@link #release()} does
	 * @throws LeaseExpiredException as {@link #release()} does
	 * @throws RedisLockException as {@link #release()} does
	 * @since 0.1.0
	 */
	void release(Duration holdAtLeast);

	/**
	 * Releases the lock as {@link #release(Duration)} does, without blocking the calling
	 * thread. The default implementation releases on the common pool.
	 * @param holdAtLeast how long the lock stays taken in all, from its acquisition
	 * @return completes once Redis released the lock; or exceptionally as
	 * {@link #release()} throws
	 * @throws UnsupportedOperationException as {@link #release(Duration)} does, before
	 * anything is sent
	 * @since 0.1.0
	 */
	default CompletableFuture<Void> releaseAsync(Duration holdAtLeast) {
		return CompletableFuture.runAsync(() -> release(holdAtLeast));
	}

	/**
	 * Releases the lock as {@link #release()} does, without blocking the calling thread:
	 * safe to call from a thread that must not wait for Redis, such as the one completing
	 * an asynchronous result.
	 * <p>
	 * The default implementation releases on the common pool; the client built by
	 * {@link RedisLockClient#builder} sends the release without parking a thread.
	 * @return completes once Redis released the lock; or exceptionally as
	 * {@link #release()} throws
	 * @since 0.1.0
	 */
	default CompletableFuture<Void> releaseAsync() {
		return CompletableFuture.runAsync(this::release);
	}

	/**
	 * Releases the lock as {@link #release()} does, but does nothing when the handle was
	 * released already, so that try-with-resources can follow an explicit release.
	 */
	@Override
	void close();

}
