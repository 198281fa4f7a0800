package io.github.redislock.internal;

import java.util.List;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

/**
 * One kind of lock: its scripts and how their replies read. The engine runs the kind's
 * commands through {@link LockCommands} (timeouts, replica acknowledgement), keeps the
 * holds, renews leases and makes waiters wait; a kind only says what acquiring, releasing
 * and extending one owner's hold mean in Redis. Every key a kind touches is one of its
 * {@link LockKeys}, in one cluster slot.
 */
interface LockKind {

	/**
	 * Sends the acquire command.
	 * @param holdsBefore the owner's holds before this acquisition, 0 for a first one
	 * @param tokens how many fencing tokens a first acquisition reserves, at least 1
	 * @param waits whether the owner waits if the lock is taken: then it tells the
	 * holder's client that another client waits
	 * @return {@link LockReply.Granted} or {@link LockReply.Busy}
	 */
	CompletionStage<LockReply> acquire(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys, Owner owner,
			Lease lease, int holdsBefore, int tokens, boolean waits);

	/**
	 * Sends the command that lets this client go on passing a lock it holds among its own
	 * owners without freeing it in Redis (see {@link LocalRun}), or gives the lock up
	 * when another client waits for it.
	 * @param holder the owner Redis knows as the holder
	 * @param tokens how many fencing tokens to reserve
	 * @param yieldMillis how long a lock given up stays reserved for other clients
	 * @param giveUp whether to give the lock up when another client waits; if not, the
	 * reply only says so (asked ahead of time, while an owner of this client still holds
	 * the lock)
	 * @return {@link LockReply.Granted} with the first reserved token to go on;
	 * {@link LockReply.Released} when another client waits (the lock was given up if
	 * {@code giveUp}); {@link LockReply#NOT_HELD} when the holder no longer holds it
	 */
	CompletionStage<LockReply> continueRun(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys, Owner holder,
			int tokens, Lease lease, long yieldMillis, boolean giveUp);

	/**
	 * Sends the release command for one hold; the last one frees the lock and tells its
	 * waiters.
	 * @param holdsBefore the owner's holds before this release
	 * @param keepMillis after the last hold, how long the lock stays taken for nobody
	 * (what is left of a {@code holdAtLeast}); 0 frees it at once
	 * @param yieldMillis when another client waits, how long the freed lock stays
	 * reserved for the other clients; 0 frees it for anybody
	 * @param othersOnly whether this client wakes its own waiters itself, so that the
	 * release needs telling only when another client's waiter waits; only ever true for a
	 * kind that {@link #passesLocally() passes locally} (its holds are the ones a wait
	 * queue tracks), so the others tell always and may ignore it
	 * @return {@link LockReply.Released} or {@link LockReply#NOT_HELD}
	 */
	CompletionStage<LockReply> release(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys, Owner owner,
			int holdsBefore, long keepMillis, long yieldMillis, boolean othersOnly);

	/**
	 * Sends the command that sets what is left of the owner's lease.
	 * @return whether the owner held the lock, so that the lease was set
	 */
	CompletionStage<Boolean> extend(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys, Owner owner,
			long leaseMillis);

	/**
	 * Sends the command that frees the lock whoever holds it.
	 * @return whether it was taken
	 */
	CompletionStage<Boolean> forceRelease(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys);

	/**
	 * Sends the plain reads that tell whether anybody holds the lock.
	 */
	CompletionStage<Boolean> isLocked(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys);

	/**
	 * The kind as meters, traces and the {@code locks} endpoint name it:
	 * {@code exclusive}, {@code read}, {@code write} or {@code fair}.
	 */
	String mode();

	/**
	 * The owner's field in the lock's hash, its hold count; {@code renew.lua} tells the
	 * kinds apart by it.
	 */
	default String field(Owner owner) {
		return owner.id();
	}

	/** Adds the keys {@code renew.lua} is given for one hold of this kind. */
	default void addRenewKeys(LockKeys keys, List<String> into) {
		into.add(keys.lockKey());
	}

	/**
	 * Whether the client may pass a lock of this kind among its owners without freeing it
	 * in Redis (see {@link LocalRun}).
	 */
	default boolean passesLocally() {
		return false;
	}

	/**
	 * Whether a waiter of this kind leaves a mark in Redis that it must withdraw when it
	 * stops waiting without the lock (see {@link #withdraw}).
	 */
	default boolean marksWaiters() {
		return false;
	}

	/**
	 * Sends the command that withdraws a waiter's mark, when {@link #marksWaiters()}.
	 */
	default CompletionStage<?> withdraw(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys, Owner owner) {
		throw new UnsupportedOperationException("Waiters of this kind leave no mark");
	}

	/**
	 * Whether a release message names the one waiter whose turn it is (a fair lock), so
	 * that only that waiter is woken.
	 */
	default boolean namesNextWaiter() {
		return false;
	}

	/**
	 * Whether the client renews the places of its waiting owners in Redis (see
	 * {@link WaiterHeartbeats}).
	 */
	default boolean keepsWaitersAlive() {
		return false;
	}

	/**
	 * Sends the command that renews the places of the given waiting owners, when
	 * {@link #keepsWaitersAlive()}.
	 * @return the owners no longer waiting in Redis
	 */
	default CompletionStage<List<Object>> keepAlive(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			List<String> owners) {
		throw new UnsupportedOperationException("Waiters of this kind have no place to keep");
	}

	/** Whether a release may keep the lock taken for nobody ({@code holdAtLeast}). */
	default boolean supportsHoldAtLeast() {
		return false;
	}

	/**
	 * Whether a release lets every waiter in (a shared lock), so that a release message
	 * wakes them all rather than the one asleep longest.
	 */
	default boolean wakesAllWaiters() {
		return false;
	}

}
