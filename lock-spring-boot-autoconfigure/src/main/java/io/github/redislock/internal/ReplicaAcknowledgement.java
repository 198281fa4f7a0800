package io.github.redislock.internal;

import java.util.concurrent.CompletionStage;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.jspecify.annotations.Nullable;

/**
 * How many replicas must have an acquisition ({@code WAIT}) before it counts, so that a
 * failover right after cannot lose it and let a second client take the same lock; used by
 * {@link RedisLockCommands}.
 *
 * @param replicas how many replicas must acknowledge
 * @param timeoutMillis how long to wait for them
 */
public record ReplicaAcknowledgement(int replicas, long timeoutMillis) {

	/**
	 * Waits until the replicas have the writes of the connection that ran the script, or
	 * the timeout passes; completes with how many replicas acknowledged. On a Cluster,
	 * {@code WAIT} must go to the master that ran the script, over the very connection
	 * the routing used for its slot (a command without a key goes to any node).
	 */
	// Lettuce deprecates reaching the stateful connection from the commands, but offers
	// no other way to the partition table and the node connections the routing uses
	@SuppressWarnings("deprecation")
	CompletionStage<Long> waitFor(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys) {
		if (redis instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
			RedisURI master = cluster.getStatefulConnection()
				.getPartitions()
				.getPartitionBySlot(SlotHash.getSlot(keys.lockKey()))
				.getUri();
			return cluster.getStatefulConnection()
				.getConnectionAsync(master.getHost(), master.getPort())
				.thenCompose((node) -> node.async().waitForReplication(this.replicas, this.timeoutMillis));
		}
		return redis.waitForReplication(this.replicas, this.timeoutMillis);
	}

	boolean isEnough(@Nullable Long acknowledged) {
		return acknowledged != null && acknowledged >= this.replicas;
	}

	/** Why an acquisition too few replicas acknowledged was refused. */
	RedisFailures.Refused refusal(@Nullable Long acknowledged) {
		long count = (acknowledged != null) ? acknowledged : 0;
		return new RedisFailures.Refused(count + " of " + this.replicas
				+ " replicas acknowledged the acquisition within " + Durations.formatMillis(this.timeoutMillis)
				+ ", so a failover could lose it; it was released again (see redis-lock.replica-acknowledgement)",
				null);
	}

}
