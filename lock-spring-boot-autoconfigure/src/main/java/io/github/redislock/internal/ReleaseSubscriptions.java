package io.github.redislock.internal;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.Subscription;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockOutcomeUnknownException;
import io.github.redislock.RedisLockException;

/**
 * Tells the engine when a lock it waits for may have been released: one subscription per
 * lock's release channel, made when the first caller of this client starts waiting for
 * the lock and dropped after the last one stops. Each release message goes to the
 * {@link Listener} (the engine's wait queues), which decides whom to wake; this class
 * knows channels, not waiters.
 *
 * <p>
 * All subscriptions share one pub/sub connection, opened at the first wait and kept open
 * by a channel of the client's own, so that a burst of contention does not open and close
 * connections. Lettuce confirms each SUBSCRIBE and re-subscribes by itself after a
 * reconnect. Joining never blocks: it answers a future that completes once the channel is
 * subscribed, so that a release after that cannot be missed; a thread that must wait
 * waits for it within its own time.
 *
 * <p>
 * A release published while the pub/sub connection is down (cut, killed, partitioned) is
 * lost. So when Lettuce re-subscribes a channel after reconnecting, its listener hears
 * {@link Listener#missedReleases()}: a waiter learns of a release it missed once the
 * connection is back, not when the holder's lease ends.
 *
 * <p>
 * A lock's subscription is dropped by a background thread once nobody has waited for it
 * for a short grace period: the last waiter does not pay for an UNSUBSCRIBE round trip
 * (which would stretch its wait when Redis is slow), and a lock that is contended again
 * soon keeps its subscription.
 */
final class ReleaseSubscriptions implements MessageListener, SubscriptionListener {

	private static final Log logger = LogFactory.getLog(ReleaseSubscriptions.class);

	private static final AtomicInteger threadCount = new AtomicInteger();

	private final RedisConnectionFactory connectionFactory;

	private final RedisCalls calls;

	private final byte[] clientChannel;

	private final Map<String, Channel> channels = new ConcurrentHashMap<>();

	private final ScheduledExecutorService janitor;

	private final long gracePeriodMillis;

	private final Listener listener;

	@Nullable private RedisConnection connection;

	// the connection being opened on the janitor thread, which callers wait for within
	// their own time
	@Nullable private CompletableFuture<RedisPubSubAsyncCommands<byte[], byte[]>> opening;

	private boolean closed;

	ReleaseSubscriptions(RedisConnectionFactory connectionFactory, RedisCalls calls, String clientChannel,
			long gracePeriodMillis, Listener listener) {
		this.listener = listener;
		this.connectionFactory = connectionFactory;
		this.calls = calls;
		this.clientChannel = clientChannel.getBytes(StandardCharsets.UTF_8);
		this.gracePeriodMillis = gracePeriodMillis;
		this.janitor = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "redis-lock-unsubscribe-" + threadCount.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
	}

	/**
	 * Hears what happens on one lock's release channel. Called on Lettuce's event loop:
	 * must not block.
	 */
	interface Listener {

		/**
		 * A release of the lock was announced.
		 * @param message what the script published: {@code released}, or
		 * {@code yielded:<client id>:} when a client gave the lock up for the others
		 */
		void released(LockKeys keys, byte[] message);

		/**
		 * The lock's channel was subscribed again after a reconnect: releases may have
		 * been missed meanwhile.
		 */
		void missedReleases(LockKeys keys);

	}

	/**
	 * Joins the waiters of a lock: subscribes to its release channel unless this client
	 * already is. Pair with {@link #leave(Membership)} once the future completed
	 * normally; a failed join needs no leave.
	 * @param budgetNanos the longest the subscription may take: what is left of the
	 * caller's wait and command timeout, or {@link RedisCalls#NO_LIMIT}; it never takes
	 * longer than the command timeout
	 * @return the membership once the channel is subscribed; or a failure, a
	 * {@link RedisLockException}, when it could not be made in time, for every caller
	 * that waited for that subscription
	 */
	CompletableFuture<Membership> join(LockKeys keys, long budgetNanos) {
		long deadline = this.calls.deadline(budgetNanos);
		for (;;) {
			Channel channel = this.channels.computeIfAbsent(keys.channel(), (name) -> new Channel(keys));
			CompletableFuture<Void> subscribed;
			boolean beforeSubscribed;
			synchronized (channel) {
				if (channel.removed) {
					continue;
				}
				channel.members++;
				subscribed = channel.subscription;
				// The caller that subscribes tries once more in any case: its SUBSCRIBE
				// may be confirmed before it gets here (a loaded machine, a descheduled
				// thread), and a release published after its first attempt but before
				// the confirmation reached nobody. If it took the answer for a
				// subscription it found, no waiter would try again: each would sleep
				// until the old holder's lease ran out.
				if (subscribed == null || subscribed.isCompletedExceptionally()) {
					subscribed = subscribe(keys, channel, deadline);
					channel.subscription = subscribed;
					beforeSubscribed = true;
				}
				else {
					beforeSubscribed = !subscribed.isDone();
				}
			}
			String what = describe(keys);
			return this.calls.within(what, subscribed, deadline).handle((done, failure) -> {
				if (failure != null) {
					leave(new Membership(channel, false));
					throw (failure instanceof RedisLockException ex) ? ex
							: new RedisLockException("Could not " + what + ": " + failure.getMessage(), failure);
				}
				return new Membership(channel, beforeSubscribed);
			});
		}
	}

	/**
	 * Joins as {@link #join} does, waiting for the subscription on the calling thread,
	 * uninterruptibly (an interrupt must not leave it unknown whether the channel is
	 * subscribed); the interrupt status is kept.
	 */
	Membership joinNow(LockKeys keys, long budgetNanos) {
		try {
			return join(keys, budgetNanos).join();
		}
		catch (CompletionException ex) {
			throw (ex.getCause() instanceof RuntimeException failure) ? failure : ex;
		}
	}

	/**
	 * A caller's place among the waiters of a lock.
	 *
	 * @param channel the lock's channel
	 * @param subscribedSinceJoining whether the channel was subscribed only after this
	 * caller joined: a release may have come before, and the caller must try the lock
	 * once more before it sleeps
	 */
	record Membership(Channel channel, boolean subscribedSinceJoining) {
	}

	/**
	 * Leaves a lock's waiters; after the last one, the subscription goes once the grace
	 * period passes idle.
	 */
	void leave(Membership membership) {
		Channel channel = membership.channel();
		synchronized (channel) {
			if (--channel.members > 0) {
				return;
			}
			long idleSince = ++channel.idleGeneration;
			try {
				this.janitor.schedule(() -> dropIfStillIdle(channel, idleSince), this.gracePeriodMillis,
						TimeUnit.MILLISECONDS);
			}
			catch (RejectedExecutionException closed) {
				dropIfStillIdle(channel, idleSince);
			}
		}
	}

	private void dropIfStillIdle(Channel channel, long idleSince) {
		synchronized (channel) {
			if (channel.members > 0 || channel.removed || channel.idleGeneration != idleSince) {
				return;
			}
			// UNSUBSCRIBE goes out before the entry leaves the map: a caller that starts
			// waiting after that subscribes anew, and its SUBSCRIBE cannot be overtaken
			// by this UNSUBSCRIBE
			channel.removed = true;
			unsubscribe(channel);
			this.channels.remove(channel.name, channel);
		}
	}

	@Override
	public void onMessage(Message message, byte @Nullable [] pattern) {
		Channel channel = this.channels.get(new String(message.getChannel(), StandardCharsets.UTF_8));
		if (channel != null) {
			this.listener.released(channel.keys, message.getBody());
		}
	}

	/**
	 * Called on Lettuce's event loop for every SUBSCRIBE Redis confirms: this client's
	 * own, and Lettuce's re-subscriptions after a reconnect. Before a channel's first
	 * subscription has completed, nobody is told; after that, a confirmation is a
	 * re-subscription. Takes no lock.
	 */
	@Override
	public void onChannelSubscribed(byte[] name, long count) {
		Channel channel = this.channels.get(new String(name, StandardCharsets.UTF_8));
		if (channel == null || channel.confirmsOwnSubscribe()) {
			return;
		}
		CompletableFuture<Void> subscription = channel.subscription;
		if (subscription != null && subscription.isDone() && !subscription.isCompletedExceptionally()) {
			if (logger.isDebugEnabled()) {
				logger.debug("Re-subscribed to " + channel.name + "; waking its waiters in case a release was missed");
			}
			this.listener.missedReleases(channel.keys);
		}
	}

	/**
	 * How many locks this client has subscribed to, for waiters now or within the grace
	 * period.
	 */
	int channelCount() {
		return this.channels.size();
	}

	synchronized void close() {
		this.closed = true;
		this.janitor.shutdownNow();
		if (this.opening != null) {
			this.opening.completeExceptionally(new IllegalStateException("The lock client is closed"));
		}
		if (this.connection != null) {
			closeQuietly(this.connection);
			this.connection = null;
		}
	}

	// A SUBSCRIBE that failed or timed out may still take effect: the janitor
	// unsubscribes the channel once it is idle.
	private CompletableFuture<Void> subscribe(LockKeys keys, Channel channel, long deadline) {
		String what = describe(keys);
		CompletableFuture<Void> subscribed = pubSubCommands(what, deadline).thenCompose((pubSub) -> {
			channel.ownSubscribes.incrementAndGet();
			return this.calls.within(what, pubSub.subscribe(channel.bytes), deadline);
		}).handle((done, failure) -> {
			if (failure != null) {
				channel.ownSubscribes.set(0);
				throw (failure instanceof RedisLockException ex) ? ex
						: new RedisLockException("Could not " + what + ": " + failure.getMessage(), failure);
			}
			return null;
		});
		subscribed.whenComplete((done, failure) -> {
			if (failure != null) {
				scheduleDrop(channel);
			}
		});
		return subscribed;
	}

	private void scheduleDrop(Channel channel) {
		long idleSince;
		synchronized (channel) {
			idleSince = ++channel.idleGeneration;
		}
		try {
			this.janitor.execute(() -> dropIfStillIdle(channel, idleSince));
		}
		catch (RejectedExecutionException closed) {
			synchronized (channel) {
				channel.removed = true;
				this.channels.remove(channel.name, channel);
			}
		}
	}

	private void unsubscribe(Channel channel) {
		RedisPubSubAsyncCommands<byte[], byte[]> pubSub = currentPubSubCommands();
		if (pubSub == null) {
			return;
		}
		try {
			this.calls.await("unsubscribe from '" + channel.name + "'", pubSub.unsubscribe(channel.bytes),
					this.calls.deadline(RedisCalls.NO_LIMIT));
		}
		catch (LockOutcomeUnknownException ex) {
			// The connection is broken; Lettuce would re-subscribe this channel on
			// reconnect, which costs a little traffic until the connection is replaced,
			// but no correctness.
			logger.debug("Could not unsubscribe from " + channel.name, ex);
		}
		catch (RuntimeException ex) {
			// Redis refused it (an ACL without UNSUBSCRIBE): subscriptions would pile up
			logger.warn(ex.getMessage() + "; the subscription stays until the pub/sub connection closes");
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
	// janitor thread, and callers wait for it within their deadline. The lock channels
	// are then subscribed on Lettuce's asynchronous API of the same connection.
	private CompletableFuture<RedisPubSubAsyncCommands<byte[], byte[]>> pubSubCommands(String what, long deadline) {
		CompletableFuture<RedisPubSubAsyncCommands<byte[], byte[]>> open;
		synchronized (this) {
			if (this.closed) {
				return CompletableFuture.failedFuture(new IllegalStateException("The lock client is closed"));
			}
			RedisPubSubAsyncCommands<byte[], byte[]> current = currentPubSubCommands();
			if (current != null) {
				return CompletableFuture.completedFuture(current);
			}
			if (this.opening == null || this.opening.isDone()) {
				CompletableFuture<RedisPubSubAsyncCommands<byte[], byte[]>> opening = new CompletableFuture<>();
				try {
					this.janitor.execute(() -> open(opening));
				}
				catch (RejectedExecutionException ex) {
					return CompletableFuture.failedFuture(new IllegalStateException("The lock client is closed"));
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
			synchronized (this) {
				if (!this.closed) {
					this.connection = connection;
					RedisPubSubAsyncCommands<byte[], byte[]> pubSub = nativePubSub(connection);
					// none on the first connection; on a later one, all those of the
					// connections before
					subscribeAgain(pubSub);
					opening.complete(pubSub);
					return;
				}
			}
			closeQuietly(connection);
			opening.completeExceptionally(new IllegalStateException("The lock client is closed"));
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
		byte[][] subscribed = this.channels.values().stream().filter((channel) -> {
			CompletableFuture<Void> subscription = channel.subscription;
			return subscription != null && subscription.isDone() && !subscription.isCompletedExceptionally();
		}).map((channel) -> channel.bytes).toArray(byte[][]::new);
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

	private static String describe(LockKeys keys) {
		return "wait for lock '" + keys.name() + "' (key '" + keys.lockKey() + "'): subscribing to '" + keys.channel()
				+ "'";
	}

	/** One lock's release channel, and who listens to it. */
	static final class Channel {

		private final LockKeys keys;

		private final String name;

		private final byte[] bytes;

		// completes once the channel is subscribed; null before the first try
		@Nullable private volatile CompletableFuture<Void> subscription;

		private int members;

		// SUBSCRIBEs sent by this client whose confirmation has not come yet: those
		// confirmations are not re-subscriptions
		private final AtomicInteger ownSubscribes = new AtomicInteger();

		private boolean removed;

		// changes each time the last member leaves, so a drop scheduled then is void
		// once a member came back
		private long idleGeneration;

		private Channel(LockKeys keys) {
			this.keys = keys;
			this.name = keys.channel();
			this.bytes = this.name.getBytes(StandardCharsets.UTF_8);
		}

		private boolean confirmsOwnSubscribe() {
			return this.ownSubscribes.getAndUpdate((pending) -> Math.max(0, pending - 1)) > 0;
		}

	}

}
