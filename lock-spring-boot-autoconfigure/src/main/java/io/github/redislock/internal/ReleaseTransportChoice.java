package io.github.redislock.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.lettuce.core.cluster.RedisClusterClient;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.ShardedPubSub;

/**
 * Chooses the {@link ReleaseTransport} a client's release subscriptions go through:
 * classic pub/sub ({@link ClassicTransport}), or on a Redis Cluster whose masters take
 * it, sharded pub/sub ({@link ShardedTransport}), which the release scripts then use too
 * ({@link PublishMode}). With {@link ShardedPubSub#AUTO} on a Cluster that takes asking
 * Redis ({@link ShardedPubSubProbe}), so the choice is a future; split from
 * {@link ReleaseSubscriptions}, which only waits for it, so that the probing and its
 * retries are apart from the channels.
 */
final class ReleaseTransportChoice {

	private static final Log logger = LogFactory.getLog(ReleaseTransportChoice.class);

	/** How often a client asks again whether its Cluster takes sharded pub/sub. */
	private static final long PROBE_RETRY_MILLIS = 1000;

	private final ScheduledExecutorService retries;

	private final ReleaseTransport.Events events;

	// completes once the client knows whether its Cluster takes sharded pub/sub: at once
	// on other topologies and settings
	private final CompletableFuture<ReleaseTransport> transport;

	/**
	 * @param keyPrefix what every lock key starts with
	 * @param clientChannel the channel that keeps the classic pub/sub connection open
	 * @param janitor where transports schedule their work, and the probe its retries
	 * @param subscribedChannels the channels a new classic connection subscribes again
	 * @param events told what happens on the channels
	 * @param sharded whether a Cluster's releases go through sharded pub/sub
	 * @param publishing told how releases are to be announced, once known
	 */
	ReleaseTransportChoice(RedisConnectionFactory connectionFactory, RedisCalls calls, String keyPrefix,
			String clientChannel, ScheduledExecutorService janitor, Supplier<List<String>> subscribedChannels,
			ReleaseTransport.Events events, ShardedPubSub sharded, Consumer<PublishMode> publishing) {
		this.retries = janitor;
		this.events = events;
		ReleaseTransport classic = new ClassicTransport(connectionFactory, calls, clientChannel, janitor,
				subscribedChannels, events);
		RedisClusterClient cluster = clusterClient(connectionFactory);
		if (cluster == null || sharded == ShardedPubSub.NEVER) {
			publishing.accept(PublishMode.CLASSIC);
			this.transport = CompletableFuture.completedFuture(classic);
		}
		else if (sharded == ShardedPubSub.ALWAYS) {
			publishing.accept(PublishMode.SHARDED);
			this.transport = CompletableFuture.completedFuture(new ShardedTransport(cluster, calls, janitor, events));
		}
		else {
			// asked when the client starts, not at the first wait: releases wait for
			// the answer
			this.transport = new CompletableFuture<>();
			probe(calls, cluster, classic, keyPrefix, publishing);
		}
	}

	/** A transport chosen already: for tests that answer in memory. */
	ReleaseTransportChoice(ReleaseTransport transport, ScheduledExecutorService janitor,
			ReleaseTransport.Events events) {
		this.retries = janitor;
		this.events = events;
		this.transport = CompletableFuture.completedFuture(transport);
	}

	/** Completes with the transport once chosen; fails once the client closed first. */
	CompletableFuture<ReleaseTransport> transport() {
		return this.transport;
	}

	/** The transport once chosen; null before, or when the client closed first. */
	@Nullable ReleaseTransport chosen() {
		CompletableFuture<ReleaseTransport> transport = this.transport;
		return (transport.isDone() && !transport.isCompletedExceptionally()) ? transport.join() : null;
	}

	/** Closes the chosen transport; one chosen after this is closed at once. */
	void close() {
		ReleaseTransport transport = chosen();
		this.transport.cancel(false);
		if (transport != null) {
			transport.close();
		}
	}

	// asked again every PROBE_RETRY_MILLIS while the Cluster cannot be reached; waiters
	// meanwhile wait for the answer within their own time
	private void probe(RedisCalls calls, RedisClusterClient cluster, ReleaseTransport classic, String keyPrefix,
			Consumer<PublishMode> publishing) {
		ShardedPubSubProbe.probe(calls, keyPrefix).whenComplete((mode, failure) -> {
			if (failure == null) {
				publishing.accept(mode);
				ReleaseTransport chosen = classic;
				try {
					if (mode == PublishMode.SHARDED) {
						chosen = new ShardedTransport(cluster, calls, this.retries, this.events);
					}
				}
				catch (RejectedExecutionException closed) {
					this.transport.completeExceptionally(new ClientClosedException());
					return;
				}
				if (!this.transport.complete(chosen)) {
					// closed meanwhile
					chosen.close();
				}
				return;
			}
			logger.debug("Could not ask the Redis Cluster whether it takes sharded pub/sub; asking again", failure);
			try {
				this.retries.schedule(() -> probe(calls, cluster, classic, keyPrefix, publishing), PROBE_RETRY_MILLIS,
						TimeUnit.MILLISECONDS);
			}
			catch (RejectedExecutionException closed) {
				this.transport.completeExceptionally(new ClientClosedException());
			}
		});
	}

	@Nullable private static RedisClusterClient clusterClient(RedisConnectionFactory connectionFactory) {
		return (connectionFactory instanceof LettuceConnectionFactory lettuce && lettuce.isClusterAware()
				&& lettuce.getNativeClient() instanceof RedisClusterClient client) ? client : null;
	}

}
