package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import org.jspecify.annotations.Nullable;

/**
 * A reentrant lock shared by every process that uses the same Redis and lock name. It is
 * owned by the thread that acquired it: only that thread may unlock it, and it may
 * acquire it again (each {@code lock} needs its own {@code unlock}).
 *
 * <p>
 * <b>Leases.</b> Every hold has a lease after which Redis frees the lock on its own, so a
 * crashed process cannot keep it forever. Methods that take no lease use the watchdog:
 * the lease is the client's watchdog timeout (30 s by default) and is renewed every third
 * of it for as long as the owning thread lives and has not unlocked. With an explicit
 * lease nothing renews it: a holder that overruns it loses the lock, and its
 * {@link #unlock()} then throws {@link LeaseExpiredException}. A nested acquisition may
 * lengthen the current lease but never shortens it, and keeps the mode of the outermost
 * acquisition.
 *
 * <p>
 * <b>Waiting.</b> A thread that has to wait sleeps until the holder releases (Redis
 * pub/sub), or until the holder's lease would have run out, or until its own wait time is
 * over, whichever comes first; it never polls. When the pub/sub connection comes back
 * after a cut, waiting threads try again at once, in case a release was published
 * meanwhile. While another thread of the same client holds the lock, a waiting thread
 * asks Redis nothing: the holder's release hands the lock to it directly, without freeing
 * it in Redis, at most {@link RedisLockClient.Builder#maxLocalPasses} times in a row
 * while threads of other clients wait too. Waiting is not first come, first served across
 * processes, but another process gets its turn within that many acquisitions.
 *
 * <p>
 * <b>Failures.</b> When Redis cannot be reached or does not answer, acquiring throws
 * {@link RedisLockException} after at most the wait time plus the lock command timeout
 * ({@link RedisLockClient.Builder#commandTimeout}, {@code redis-lock.command-timeout}),
 * and releasing after at most the command timeout. If Redis grants an acquisition after
 * its caller gave up, the client releases that grant in the background once Redis answers
 * again. A lock is only as safe as its lease: a holder paused longer than the lease (a GC
 * pause, a frozen VM) can find another holder in its place. Use {@link #fencingToken()}
 * to make a store reject writes from such a stale holder.
 *
 * <p>
 * Instances are cheap and hold no state of their own: obtain one from
 * {@link RedisLockClient#getLock(String)} whenever needed.
 *
 * @since 0.1.0
 */
public interface RedisLock extends Lock {

	/** The lock's name, as given to {@link RedisLockClient#getLock(String)}. */
	String getName();

	/**
	 * Acquires the lock, waiting as long as it takes, with a watchdog-renewed lease. An
	 * interrupt does not stop the wait; the thread's interrupt status is set again once
	 * the lock is held.
	 * @throws RedisLockException if Redis cannot be reached
	 */
	@Override
	void lock();

	/**
	 * Acquires the lock, waiting as long as it takes, with the given lease and no
	 * renewal.
	 * @param leaseTime how long the lock stays held unless unlocked first; must be
	 * positive
	 * @throws RedisLockException if Redis cannot be reached
	 */
	void lock(Duration leaseTime);

	/**
	 * Acquires the lock with a watchdog-renewed lease, waiting until it is free or the
	 * thread is interrupted.
	 * @throws InterruptedException if interrupted before or while waiting; nothing is
	 * then held
	 * @throws RedisLockException if Redis cannot be reached
	 */
	@Override
	void lockInterruptibly() throws InterruptedException;

	/**
	 * Acquires the lock only if it is free now (or already held by this thread), with a
	 * watchdog-renewed lease. Costs one round trip to Redis.
	 * <p>
	 * A lock nobody holds is always taken, whoever waits for it, as
	 * {@link java.util.concurrent.locks.ReentrantLock#tryLock()} does even in fair mode:
	 * turns between clients, a fair lock's queue and a waiting writer's precedence are
	 * for callers that wait. Nor does a caller whose wait ended keep anyone out: its call
	 * returns once what it left in Redis is taken back.
	 * @return whether the lock is now held; {@code false} only when another owner held it
	 * (or it was kept taken by {@link #unlock(Duration)} with a minimum hold)
	 * @throws RedisLockException if Redis cannot be reached
	 */
	@Override
	boolean tryLock();

	/**
	 * Acquires the lock with a watchdog-renewed lease, waiting at most the given time. A
	 * caller that gives up takes back what its wait left in Redis before it returns, so
	 * that it keeps nobody out afterwards.
	 * @return whether the lock is now held; {@code false} no earlier than the wait time
	 * @throws InterruptedException if interrupted before or while waiting; nothing is
	 * then held
	 * @throws RedisLockException if Redis cannot be reached
	 */
	@Override
	boolean tryLock(long time, TimeUnit unit) throws InterruptedException;

	/**
	 * Acquires the lock, waiting at most {@code waitTime}.
	 * @param waitTime how long to wait for the lock; zero means do not wait
	 * @param leaseTime how long the lock stays held unless unlocked first, or
	 * {@code null} for a lease the watchdog renews until {@link #unlock()}
	 * @return whether the lock is now held; {@code false} no earlier than the wait time
	 * @throws InterruptedException if interrupted before or while waiting; nothing is
	 * then held
	 * @throws RedisLockException if Redis cannot be reached
	 */
	boolean tryLock(Duration waitTime, @Nullable Duration leaseTime) throws InterruptedException;

	/**
	 * Releases one hold of the current thread; the lock is free once every hold is
	 * released.
	 * @throws LeaseExpiredException if this thread held the lock but its lease ran out
	 * (or it was {@link #forceUnlock() force-unlocked}) before this call; another holder
	 * may have had it since
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 * @throws RedisLockException if Redis cannot be reached or does not answer within the
	 * command timeout; the hold is then forgotten, and the client releases it in the
	 * background once Redis answers again (or its lease ends first)
	 */
	@Override
	void unlock();

	/**
	 * Releases one hold of the current thread as {@link #unlock()} does; when it is the
	 * last and the lock was held for less than {@code holdAtLeast} (counted from the
	 * first acquisition), the lock stays taken, for nobody, until that much time has
	 * passed. Meant for jobs that several instances start on their own clocks: a short
	 * run keeps the others from running the same slot again. The lock is only kept if
	 * this thread still held it; a lock someone else holds is never extended. The write
	 * lock of a {@link RedisReadWriteLock} is kept from readers and writers, its read
	 * lock from writers only (see there).
	 * @param holdAtLeast how long the lock stays taken in all, from its acquisition
	 * @throws LeaseExpiredException as {@link #unlock()} does
	 * @throws IllegalMonitorStateException as {@link #unlock()} does
	 * @throws RedisLockException as {@link #unlock()} does
	 * @since 0.1.0
	 */
	void unlock(Duration holdAtLeast);

	/**
	 * Sets what is left of the current thread's lease to exactly {@code leaseTime} from
	 * now, shorter or longer, provided the thread still holds the lock. The lease is one
	 * for all the thread's holds, and is fixed from then on: the watchdog no longer
	 * renews it, so a holder that outlives it loses the lock. One round trip.
	 * @param leaseTime the new remaining lease, at least 1 ms
	 * @return whether the lease was set; false when the current thread does not hold the
	 * lock (never took it, released it, or its lease ran out or it was force-unlocked)
	 * @throws RedisLockException if Redis cannot be reached; the lease is then as it was
	 * or as asked
	 * @since 0.1.0
	 * @see LockHandle#extend(Duration)
	 */
	boolean extend(Duration leaseTime);

	/** Whether any thread of any process holds the lock now. One round trip. */
	boolean isLocked();

	/**
	 * Whether the current thread holds the lock now: it acquired it and Redis still has
	 * it as the holder (its lease has not run out). One round trip, none when the thread
	 * never acquired it. An acquisition that failed is never reported as held, even if
	 * Redis granted it after the caller gave up (such a grant is released in the
	 * background). Answers with the interrupt status set, and keeps it set.
	 * @throws RedisLockException if Redis does not answer within
	 * {@code redis-lock.command-timeout}
	 */
	boolean isHeldByCurrentThread();

	/**
	 * How many holds the current thread has on the lock (acquisitions not yet released),
	 * or 0 when it has none or its lease has run out; as
	 * {@link #isHeldByCurrentThread()}.
	 * @throws RedisLockException if Redis does not answer within
	 * {@code redis-lock.command-timeout}
	 */
	int getHoldCount();

	/**
	 * How long the current holder's lease still runs, whoever holds it;
	 * {@link Duration#ZERO} when the lock is free.
	 */
	Duration remainingLease();

	/**
	 * The fencing token of the current thread's hold: a number that Redis made strictly
	 * greater than the token of every earlier holder of this lock name, also when the
	 * lock was passed to this thread by another thread of the client (tokens then come
	 * from a block reserved in Redis, so they increase, but not always by one), and that
	 * stays the same across nested acquisitions. Pass it to the store you protect and
	 * have the store reject writes carrying a token lower than the highest it has seen; a
	 * holder that lost the lock through a long pause is then stopped. Tokens can go
	 * backwards only if Redis loses data (a restart without persistence, a failover
	 * before replication).
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 */
	long fencingToken();

	/**
	 * Completes when this client learns that the current thread's hold on this lock is
	 * lost, as {@link LockHandle#leaseLost()} does for a handle: a renewal finds the lock
	 * gone or someone else's, or no renewal was confirmed for nine tenths of the lease
	 * (or a fixed lease is nine tenths gone). Never completes after the thread's last
	 * {@link #unlock()}. Callbacks run on the client's watchdog or lease-watch thread:
	 * keep them short. To have the holding thread interrupted, and its interrupt cleared
	 * again once it is done, annotate the method with
	 * {@code @DistributedLock(ifLeaseLost = IfLeaseLost.INTERRUPT)}. <pre class="code">
	 * lock.lock();
	 * try {
	 *     AtomicBoolean lost = new AtomicBoolean();
	 *     lock.leaseLost().thenRun(() -&gt; lost.set(true));
	 *     while (!lost.get() &amp;&amp; batch.hasNext()) {
	 *         write(batch.next(), lock.fencingToken());
	 *     }
	 * }
	 * finally {
	 *     lock.unlock();
	 * }
	 * </pre>
	 * @return a stage that completes with the loss; it cannot be completed from outside
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 * @since 0.1.0
	 */
	CompletionStage<LeaseLostEvent> leaseLost();

	/**
	 * Frees the lock whoever holds it and wakes a waiter. For administration and recovery
	 * only: the holder is not told until its {@link #unlock()} throws
	 * {@link LeaseExpiredException}.
	 * @return whether the lock was held
	 */
	boolean forceUnlock();

	/**
	 * Not supported: a condition would need a distributed wait set that survives the
	 * holder's process.
	 * @throws UnsupportedOperationException always
	 */
	@Override
	default Condition newCondition() {
		throw new UnsupportedOperationException("RedisLock '" + getName() + "' does not support conditions: "
				+ "waiting on one would need a wait set in Redis that outlives the waiting process. "
				+ "Use a Redis list or stream, or poll your own state under the lock.");
	}

}
