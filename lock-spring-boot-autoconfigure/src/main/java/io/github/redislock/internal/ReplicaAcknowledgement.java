package io.github.redislock.internal;

import java.util.concurrent.TimeUnit;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.lang.Nullable;

/**
 * How many replicas must have an acquisition ({@code WAIT}) before it counts, so that a
 * failover right after cannot lose it and let a second client take the same lock; used by
 * {@link LockCommands}. Needs Lettuce, checked when the client is built.
 *
 * @param replicas how many replicas must acknowledge
 * @param timeoutMillis how long to wait for them
 */
public record ReplicaAcknowledgement(int replicas, long timeoutMillis) {

	/**
	 * Waits until the replicas have this connection's writes, or the timeout passes.
	 * @return how many replicas acknowledged
	 */
	long waitFor(RedisConnection connection, LockKeys keys) {
		return LettuceWait.waitFor(connection.getNativeConnection(), keys.lockKey(), this.replicas, this.timeoutMillis);
	}

	/**
	 * Fails when fewer replicas than required acknowledged.
	 * @throws IllegalStateException saying how many did
	 */
	void require(@Nullable Long acknowledged) {
		long count = (acknowledged != null) ? acknowledged : 0;
		if (count < this.replicas) {
			throw new IllegalStateException(count + " of " + this.replicas
					+ " replicas acknowledged the acquisition within " + Durations.formatMillis(this.timeoutMillis)
					+ ", so a failover could lose it; it was released again (see redis-lock.replica-acknowledgement)");
		}
	}

	/**
	 * {@code WAIT} through Lettuce itself: Spring Data Redis sends a custom command to
	 * any node of a cluster, and {@code WAIT} must go to the master that ran the script,
	 * over the very connection that did.
	 */
	private static final class LettuceWait {

		@SuppressWarnings("unchecked")
		static long waitFor(Object nativeConnection, String key, int replicas, long timeoutMillis) {
			if (nativeConnection instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
				StatefulRedisClusterConnection<byte[], byte[]> stateful = ((RedisAdvancedClusterAsyncCommands<byte[], byte[]>) cluster)
					.getStatefulConnection();
				RedisURI master = stateful.getPartitions().getPartitionBySlot(SlotHash.getSlot(key)).getUri();
				// the connection the cluster routing writes this slot through
				return stateful.getConnection(master.getHost(), master.getPort())
					.sync()
					.waitForReplication(replicas, timeoutMillis);
			}
			return LettuceFutures.awaitOrCancel(((RedisClusterAsyncCommands<byte[], byte[]>) nativeConnection)
				.waitForReplication(replicas, timeoutMillis), timeoutMillis + 1000, TimeUnit.MILLISECONDS);
		}

	}

}
