package io.github.redislock.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Asks every master of a Redis Cluster, once, whether it takes {@code SPUBLISH}: an empty
 * message on a probe channel of one of its slots, which nobody subscribes to. A master of
 * Redis 6 answers "unknown command"; one whose ACL user lacks {@code +spublish} answers
 * {@code NOPERM}. Either way the client keeps classic pub/sub, the second with a warning
 * naming the ACL. It needs no permission that sharded pub/sub does not need anyway
 * ({@code COMMAND INFO} or {@code INFO} would).
 */
final class ShardedPubSubProbe {

	private static final Log logger = LogFactory.getLog(ShardedPubSubProbe.class);

	private static final byte[] EMPTY = new byte[0];

	private ShardedPubSubProbe() {
	}

	/**
	 * Completes with {@link PublishMode#SHARDED} when every master answered,
	 * {@link PublishMode#CLASSIC} when one refused (logged); fails when the Cluster could
	 * not be reached, to be asked again.
	 * @param keyPrefix what the probe channels start with, so that the ACL rule for the
	 * lock channels covers them
	 */
	static CompletableFuture<PublishMode> probe(RedisCalls calls, String keyPrefix) {
		return calls.callAsync(() -> "ask the Cluster's masters whether they take SPUBLISH", 0, RedisCalls.NO_LIMIT,
				(redis) -> askEveryMaster(redis, keyPrefix));
	}

	private static CompletionStage<PublishMode> askEveryMaster(RedisClusterAsyncCommands<byte[], byte[]> redis,
			String keyPrefix) {
		if (!(redis instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster)) {
			return CompletableFuture.completedFuture(PublishMode.CLASSIC);
		}
		List<CompletableFuture<String>> refusals = new ArrayList<>();
		for (RedisClusterNode node : cluster.getStatefulConnection().getPartitions()) {
			if (!node.is(RedisClusterNode.NodeFlag.UPSTREAM) || node.getSlots().isEmpty()) {
				continue;
			}
			// routed by the channel's slot to this master
			byte[] channel = ScriptCalls.bytes(keyPrefix + "probe:{" + SlotTags.tagFor(node.getSlots().get(0)) + "}");
			String address = node.getUri().getHost() + ":" + node.getUri().getPort();
			refusals.add(redis.spublish(channel, EMPTY)
				.toCompletableFuture()
				.handle((answer, failure) -> (failure == null) ? null
						: address + " answered \"" + RedisFailures.unwrap(failure).getMessage() + "\""));
		}
		return CompletableFuture.allOf(refusals.toArray(CompletableFuture[]::new)).thenApply((done) -> {
			List<String> refused = refusals.stream().map(CompletableFuture::join).filter((r) -> r != null).toList();
			if (refused.isEmpty()) {
				logger.debug("Every master of the Redis Cluster takes SPUBLISH: releases use sharded pub/sub");
				return PublishMode.SHARDED;
			}
			boolean denied = refused.stream().anyMatch((refusal) -> refusal.contains("NOPERM"));
			LockLogs.pubsub
				.warn("Releases use classic pub/sub (PUBLISH, sent to every node of the Redis Cluster), since not "
						+ "every master takes SPUBLISH: " + String.join("; ", refused) + ". "
						+ (denied ? "Grant the Redis user +spublish +ssubscribe +sunsubscribe (its ACL rule) "
								: "Sharded pub/sub needs Redis 7 on every master ")
						+ "to notify only the lock's shard, or set redis-lock.sharded-pub-sub=never to silence this");
			return PublishMode.CLASSIC;
		});
	}

}
