package io.github.redislock.internal;

import java.util.concurrent.TimeUnit;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.util.ClassUtils;

/**
 * Makes an acquisition wait until replicas have it ({@code WAIT}), so that a failover
 * right after cannot lose it and let a second client take the same lock. {@code WAIT}
 * counts the writes of its own connection, so the script and the {@code WAIT} run on one
 * connection, bound for the two commands. An acquisition that not enough replicas
 * acknowledge in time is released again and fails.
 *
 * @param replicas how many replicas must acknowledge
 * @param timeoutMillis how long to wait for them
 */
public record ReplicaAcknowledgement(int replicas, long timeoutMillis) {

	private static final boolean lettucePresent = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			ReplicaAcknowledgement.class.getClassLoader());

	SessionCallback<Long> acquire(LockKeys keys, String owner, long leaseMillis) {
		return new SessionCallback<>() {

			@Override
			@SuppressWarnings("unchecked")
			public <K, V> Long execute(RedisOperations<K, V> operations) throws DataAccessException {
				RedisOperations<String, String> redis = (RedisOperations<String, String>) operations;
				Long result = redis.execute(LockScripts.LOCK, keys.lockAndFence(), Long.toString(leaseMillis), owner,
						"0");
				if (result == null || result <= 0) {
					return result;
				}
				long acknowledged = redis.execute((RedisCallback<Long>) (connection) -> waitFor(connection, keys));
				if (acknowledged < ReplicaAcknowledgement.this.replicas) {
					redis.execute(LockScripts.UNLOCK, keys.lockOnly(), owner, keys.channel(), "1");
					throw new NotAcknowledgedException(acknowledged + " of " + ReplicaAcknowledgement.this.replicas
							+ " replicas acknowledged the acquisition within "
							+ Durations.formatMillis(ReplicaAcknowledgement.this.timeoutMillis)
							+ ", so a failover could lose it; it was released again "
							+ "(see redis-lock.replica-acknowledgement)");
				}
				return result;
			}

		};
	}

	private long waitFor(RedisConnection connection, LockKeys keys) {
		Object nativeConnection = connection.getNativeConnection();
		if (!lettucePresent || !(nativeConnection instanceof RedisClusterAsyncCommands<?, ?>)) {
			throw new IllegalStateException("Replica acknowledgement needs Lettuce, but the connection is "
					+ nativeConnection.getClass().getName());
		}
		return LettuceWait.waitFor(nativeConnection, keys.lockKey(), this.replicas, this.timeoutMillis);
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

	/** Too few replicas acknowledged an acquisition. */
	static final class NotAcknowledgedException extends IllegalStateException {

		NotAcknowledgedException(String message) {
			super(message);
		}

	}

}
