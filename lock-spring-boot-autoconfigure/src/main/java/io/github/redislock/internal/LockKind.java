package io.github.redislock.internal;

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
	 * @return {@link LockReply.Granted} or {@link LockReply.Busy}
	 */
	CompletionStage<LockReply> acquire(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys, Owner owner,
			Lease lease, int holdsBefore);

	/**
	 * Sends the release command for one hold; the last one frees the lock and tells its
	 * waiters.
	 * @param holdsBefore the owner's holds before this release
	 * @param keepMillis after the last hold, how long the lock stays taken for nobody
	 * (what is left of a {@code holdAtLeast}); 0 frees it at once
	 * @return {@link LockReply.Released} or {@link LockReply#NOT_HELD}
	 */
	CompletionStage<LockReply> release(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys, Owner owner,
			int holdsBefore, long keepMillis);

	/**
	 * Sends the command that sets what is left of the owner's lease.
	 * @return whether the owner held the lock, so that the lease was set
	 */
	CompletionStage<Boolean> extend(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys, Owner owner,
			long leaseMillis);

}
