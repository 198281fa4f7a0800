package io.github.redislock.internal;

/**
 * How a release script announces a release on its channel: the last argument of every
 * script that publishes. {@link #CLASSIC} is {@code PUBLISH}, which a Redis Cluster sends
 * to every node; {@link #SHARDED} is {@code SPUBLISH} (Redis 7), which stays within the
 * shard that owns the channel's slot and reaches only {@code SSUBSCRIBE}rs. Every channel
 * carries its lock's hash tag, so it is in the slot the script runs in.
 */
enum PublishMode {

	/** {@code PUBLISH}: standalone, Sentinel, and a Cluster without sharded pub/sub. */
	CLASSIC,

	/** {@code SPUBLISH}: a Cluster whose every master runs Redis 7 or later. */
	SHARDED;

	/** The scripts' flag: 1 for {@code SPUBLISH}, 0 for {@code PUBLISH}. */
	byte[] argument() {
		return ScriptCalls.number((this == SHARDED) ? 1 : 0);
	}

}
