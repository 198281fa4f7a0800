package io.github.redislock;

/**
 * Whether a lock client on a Redis Cluster announces releases with sharded pub/sub
 * ({@code SPUBLISH} and {@code SSUBSCRIBE}, Redis 7): a release then reaches the nodes of
 * the lock's shard only, instead of every node of the Cluster as {@code PUBLISH} does.
 * Standalone Redis and Sentinel always use classic pub/sub.
 * <p>
 * Every client that locks the same names must announce the same way: a waiter of a
 * sharded client does not hear a classic release, and the other way round; it then learns
 * of the release only when it tries again (at the holder's lease end at the latest).
 * During a rolling upgrade from a version without sharded pub/sub, use {@link #NEVER}
 * until every client runs this version.
 *
 * @since 0.1.0
 */
public enum ShardedPubSub {

	/**
	 * Sharded on a Cluster whose every master answers {@code SPUBLISH} (asked once per
	 * master when the client starts); classic when one does not (Redis 6, or an ACL user
	 * without {@code +spublish}, which is logged as a warning).
	 */
	AUTO,

	/** Sharded on a Cluster, without asking: every master must run Redis 7 or later. */
	ALWAYS,

	/** Classic pub/sub on every topology. */
	NEVER

}
