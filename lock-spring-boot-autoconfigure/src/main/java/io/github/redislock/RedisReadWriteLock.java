package io.github.redislock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReadWriteLock;

import org.jspecify.annotations.Nullable;

/**
 * A read/write lock shared by every process that uses the same Redis and lock name: many
 * owners may hold its {@link #readLock() read lock} at once, or one owner its
 * {@link #writeLock() write lock}, never both. Both are {@link RedisLock}s, owned by the
 * thread that acquired them and re-entrant per thread, with the same leases, watchdog,
 * waiting and failure behaviour; the read and write locks of a name are a lock of their
 * own, apart from {@link RedisLockClient#getLock(String)} of the same name.
 *
 * <p>
 * <b>Writers are not starved.</b> Once a writer waits, readers that do not read already
 * wait behind it, so a steady stream of readers cannot keep it out: it gets the lock when
 * the readers inside leave. A writer whose wait ends or is interrupted or cancelled keeps
 * nobody out once its call returns; one whose process died keeps new readers out for at
 * most 3 more seconds. A thread that reads already re-enters the read lock at once, and a
 * {@code tryLock()} without waiting reads whenever nobody writes, as
 * {@link java.util.concurrent.locks.ReentrantReadWriteLock}'s does: the writers'
 * precedence is for callers that wait.
 *
 * <p>
 * <b>Downgrade, not upgrade.</b> The thread that holds the write lock may take the read
 * lock too, and keep reading after releasing the write lock. A thread that holds only the
 * read lock cannot take the write lock: it would wait for itself, so that acquisition
 * throws {@link IllegalMonitorStateException} at once. Release the read lock first (and
 * check again what was read), or take the write lock from the start.
 *
 * <p>
 * <b>Handles.</b> {@link #tryAcquireRead}, {@link #acquireReadAsync} and their write
 * counterparts give a {@link LockHandle} instead: owned by the acquisition, released from
 * any thread, never re-entered.
 *
 * <p>
 * <b>Leases.</b> Each reader's lease is its own: a reader whose process died is dropped
 * when its lease ends, even while other readers keep the lock, so it delays a writer by
 * at most that lease.
 *
 * <p>
 * <b>Fencing tokens.</b> A write lock's {@link RedisLock#fencingToken()} is a fresh one,
 * greater than every token granted before it. A read lock's token is its read phase's:
 * the readers that overlap in time share it, every write granted before the phase has a
 * token no greater, and every write granted after it a greater one. A store can so refuse
 * a read that started before the last write it has seen.
 *
 * <p>
 * <b>Minimum hold.</b> {@link RedisLock#unlock(java.time.Duration)} with a
 * {@code holdAtLeast}: a write released sooner keeps the lock for nobody until then, so
 * that no other owner reads or writes (an owner that downgraded reads on, and may still
 * re-enter its read); a read released sooner keeps writers out until then, while other
 * readers may come in. The waiters are told when the minimum ends and get the lock then,
 * without waiting for a lease. A write's minimum ends on Redis' clock at its grant plus
 * the minimum; what is left of a read's, counted by the client from the grant's reply,
 * runs from the release (a read's token is its phase's and tells nothing of when this
 * reader was granted).
 *
 * <p>
 * Not supported yet: the passing of a lock between threads of one client without freeing
 * it in Redis (every release goes to Redis). {@link RedisLock#forceUnlock()} on either
 * lock frees the whole read/write lock.
 *
 * <p>
 * Instances hold no state: obtain one from {@link RedisLockClient#getReadWriteLock}
 * whenever needed.
 *
 * @since 0.1.0
 */
public interface RedisReadWriteLock extends ReadWriteLock {

	/** The name given to {@link RedisLockClient#getReadWriteLock(String)}. */
	String getName();

	/** The lock many readers may hold at once, while nobody writes. */
	@Override
	RedisLock readLock();

	/** The lock one writer holds, while nobody else reads or writes. */
	@Override
	RedisLock writeLock();

	/**
	 * Acquires the read lock for a new {@link LockHandle}, as
	 * {@link RedisLockClient#tryAcquire} does for an exclusive lock: the handle, not a
	 * thread, owns it, and whoever has it releases it. A handle is an owner of its own: a
	 * write handle waits for every read handle, also those the same code holds.
	 * @param waitTime how long to wait; zero means do not wait
	 * @param leaseTime how long it stays held at most, or {@code null} for the watchdog's
	 * lease
	 * @return the handle, or empty when the read lock was not acquired in time
	 * @throws LockNotAcquiredException if the wait was interrupted
	 * @throws RedisLockException if Redis cannot be reached
	 * @since 0.1.0
	 */
	Optional<LockHandle> tryAcquireRead(Duration waitTime, @Nullable Duration leaseTime);

	/**
	 * Acquires the write lock for a new {@link LockHandle}; see
	 * {@link #tryAcquireRead(Duration, Duration)}.
	 * @since 0.1.0
	 */
	Optional<LockHandle> tryAcquireWrite(Duration waitTime, @Nullable Duration leaseTime);

	/**
	 * Acquires the read lock for a new {@link LockHandle} without blocking a thread, as
	 * {@link RedisLockClient#acquireAsync} does for an exclusive lock; cancelling the
	 * future withdraws the acquisition.
	 * @return completes with the handle; or exceptionally with
	 * {@link LockNotAcquiredException} when the wait ended, or {@link RedisLockException}
	 * @since 0.1.0
	 */
	CompletableFuture<LockHandle> acquireReadAsync(Duration waitTime, @Nullable Duration leaseTime);

	/**
	 * Acquires the write lock for a new {@link LockHandle} without blocking a thread; see
	 * {@link #acquireReadAsync(Duration, Duration)}.
	 * @since 0.1.0
	 */
	CompletableFuture<LockHandle> acquireWriteAsync(Duration waitTime, @Nullable Duration leaseTime);

}
