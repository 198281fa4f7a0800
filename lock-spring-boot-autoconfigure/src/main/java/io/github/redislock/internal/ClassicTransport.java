package io.github.redislock.internal;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.Subscription;
import org.springframework.data.redis.connection.SubscriptionListener;

import io.github.redislock.LockOutcomeUnknownException;

/**
 * Classic pub/sub ({@code SUBSCRIBE}): every release channel on one pub/sub connection,
 * opened at the first wait and kept open by a channel of the client's own, so that a
 * burst of contention does not open and close connections. Lettuce confirms each
 * SUBSCRIBE and re-subscribes by itself after a reconnect; a connection found down is
 * replaced at once, its channels subscribed again on the new one.
 */
final class ClassicTransport implements ReleaseTransport, MessageListener, SubscriptionListener {

	private static final Log logger = LogFactory.getLog(ClassicTransport.class);

	private final RedisConnectionFactory connectionFactory;

	private final RedisCalls calls;

	private final byte[] clientChannel;

	private final Executor opener;

	private final Events events;

	// the channels to subscribe again on a connection that replaces one
	private final Supplier<List<String>> subscribedChannels;

	@Nullable private RedisConnection connection;

	// the connection being opened on the opener thread, which callers wait for within
	// their own time
	@Nullable private CompletableFuture<RedisPubSubAsyncCommands<byte[], byte[]>> opening;

	private boolean closed;

	/**
	 * @param opener where the connection is opened (it blocks)
	 * @param subscribedChannels the channels subscribed so far
	 */
	ClassicTransport(RedisConnectionFactory connectionFactory, RedisCalls calls, String clientChannel, Executor opener,
			Supplier<List<String>> subscribedChannels, Events events) {
		this.connectionFactory = connectionFactory;
		this.calls = calls;
		this.clientChannel = ScriptCalls.bytes(clientChannel);
		this.opener = opener;
		this.subscribedChannels = subscribedChannels;
		this.events = events;
	}

	@Override
	public CompletableFuture<Void> subscribe(String what, String channel, long deadline, Runnable sending) {
		return pubSubCommands(what, deadline).thenCompose((pubSub) -> {
			sending.run();
			return this.calls.within(what, pubSub.subscribe(ScriptCalls.bytes(channel)), deadline);
		});
	}

	@Override
	public void unsubscribe(String channel) {
		RedisPubSubAsyncCommands<byte[], byte[]> pubSub = currentPubSubCommands();
		if (pubSub == null) {
			return;
		}
		try {
			this.calls.await("unsubscribe from '" + channel + "'", pubSub.unsubscribe(ScriptCalls.bytes(channel)),
					this.calls.deadline(RedisCalls.NO_LIMIT));
		}
		catch (LockOutcomeUnknownException ex) {
			// The connection is broken; Lettuce would re-subscribe this channel on
			// reconnect, which costs a little traffic until the connection is replaced,
			// but no correctness.
			logger.debug("Could not unsubscribe from " + channel, ex);
		}
		catch (RuntimeException ex) {
			// Redis refused it (an ACL without UNSUBSCRIBE): subscriptions would pile up
			LockLogs.pubsub.warn(ex.getMessage() + "; the subscription stays until the pub/sub connection closes");
		}
	}

	@Override
	public void onMessage(Message message, byte @Nullable [] pattern) {
		this.events.message(new String(message.getChannel(), StandardCharsets.UTF_8), message.getBody());
	}

	@Override
	public void onChannelSubscribed(byte[] name, long count) {
		this.events.subscribed(new String(name, StandardCharsets.UTF_8));
	}

	// Completes and closes outside the monitor: failing the opening runs its callers'
	// continuations, which take a channel's monitor (see ReleaseSubscriptions), and a
	// thread that holds a channel's monitor while it unsubscribes waits for this one.
	@Override
	public void close() {
		CompletableFuture<RedisPubSubAsyncCommands<byte[], byte[]>> opening;
		RedisConnection connection;
		synchronized (this) {
			this.closed = true;
			opening = this.opening;
			connection = this.connection;
			this.connection = null;
		}
		if (opening != null) {
			opening.completeExceptionally(new ClientClosedException());
		}
		if (connection != null) {
			closeQuietly(connection);
		}
	}

	// A connection that is down counts as none: a new one is opened at once, rather than
	// waiting for Lettuce to reconnect it on its own schedule (up to 30 s apart after a
	// long outage)
	@Nullable private synchronized RedisPubSubAsyncCommands<byte[], byte[]> currentPubSubCommands() {
		RedisConnection connection = this.connection;
		Subscription subscription = (connection != null) ? connection.getSubscription() : null;
		if (connection == null || subscription == null || !subscription.isAlive()) {
			return null;
		}
		RedisPubSubAsyncCommands<byte[], byte[]> pubSub = nativePubSub(connection);
		return pubSub.getStatefulConnection().isOpen() ? pubSub : null;
	}

	// The connection is opened (and its first channel subscribed) through Spring Data
	// Redis, which registers this listener with Lettuce, and which waits with the
	// connection's own timeout (Lettuce's default is 60 s): so it is opened on the
	// opener thread, and callers wait for it within their deadline. The lock channels
	// are then subscribed on Lettuce's asynchronous API of the same connection.
	private CompletableFuture<RedisPubSubAsyncCommands<byte[], byte[]>> pubSubCommands(String what, long deadline) {
		CompletableFuture<RedisPubSubAsyncCommands<byte[], byte[]>> open;
		synchronized (this) {
			if (this.closed) {
				return CompletableFuture.failedFuture(new ClientClosedException());
			}
			RedisPubSubAsyncCommands<byte[], byte[]> current = currentPubSubCommands();
			if (current != null) {
				return CompletableFuture.completedFuture(current);
			}
			if (this.opening == null || this.opening.isDone()) {
				CompletableFuture<RedisPubSubAsyncCommands<byte[], byte[]>> opening = new CompletableFuture<>();
				try {
					this.opener.execute(() -> open(opening));
				}
				catch (RejectedExecutionException ex) {
					return CompletableFuture.failedFuture(new ClientClosedException());
				}
				this.opening = opening;
			}
			open = this.opening;
		}
		return this.calls.within(what + " (opening the pub/sub connection)", open, deadline);
	}

	private void open(CompletableFuture<RedisPubSubAsyncCommands<byte[], byte[]>> opening) {
		RedisConnection connection = null;
		try {
			RedisConnection previous;
			synchronized (this) {
				previous = this.connection;
				this.connection = null;
			}
			if (previous != null) {
				closeQuietly(previous);
			}
			connection = this.connectionFactory.getConnection();
			connection.subscribe(this, this.clientChannel);
			RedisPubSubAsyncCommands<byte[], byte[]> pubSub = null;
			synchronized (this) {
				if (!this.closed) {
					this.connection = connection;
					pubSub = nativePubSub(connection);
					// none on the first connection; on a later one, all those of the
					// connections before
					subscribeAgain(pubSub);
				}
			}
			if (pubSub != null) {
				// outside the monitor, as in close()
				opening.complete(pubSub);
				return;
			}
			closeQuietly(connection);
			opening.completeExceptionally(new ClientClosedException());
		}
		catch (RuntimeException ex) {
			if (connection != null) {
				closeQuietly(connection);
			}
			opening.completeExceptionally(ex);
		}
	}

	// The channels subscribed on the connections this one replaces: their confirmations
	// come as re-subscriptions, which wake their waiters (a release may have been missed
	// while the old connection was down).
	private void subscribeAgain(RedisPubSubAsyncCommands<byte[], byte[]> pubSub) {
		byte[][] subscribed = this.subscribedChannels.get().stream().map(ScriptCalls::bytes).toArray(byte[][]::new);
		if (subscribed.length > 0) {
			pubSub.subscribe(subscribed);
		}
	}

	private static void closeQuietly(RedisConnection connection) {
		try {
			connection.close();
		}
		catch (RuntimeException ex) {
			logger.debug("Could not close the pub/sub connection cleanly", ex);
		}
	}

	// With an open subscription, a Lettuce connection's native connection is its pub/sub
	// connection's asynchronous API
	@SuppressWarnings("unchecked")
	private static RedisPubSubAsyncCommands<byte[], byte[]> nativePubSub(RedisConnection connection) {
		return (RedisPubSubAsyncCommands<byte[], byte[]>) connection.getNativeConnection();
	}

}
