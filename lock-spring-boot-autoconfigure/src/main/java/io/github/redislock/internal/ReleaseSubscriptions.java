package io.github.redislock.internal;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.redislock.RedisLockException;
import io.github.redislock.ShardedPubSub;

/**
 * Tells the engine when a lock it waits for may have been released: one subscription per
 * lock's release channel, made when the first caller of this client starts waiting for
 * the lock and dropped after the last one stops. Each release message goes to the
 * {@link Listener} (the engine's wait queues), which decides whom to wake; this class
 * knows channels, not waiters.
 *
 * <p>
 * The subscriptions go through a {@link ReleaseTransport}, classic or sharded pub/sub
 * (see {@link ReleaseTransportChoice}). Joining never blocks: it answers a future that
 * completes once the channel is subscribed, so that a release after that cannot be
 * missed; a thread that must wait waits for it within its own time.
 *
 * <p>
 * A release published while the pub/sub connection is down (cut, killed, partitioned) is
 * lost. So when a transport subscribes a channel again after reconnecting (or a slot
 * migration, or a failover), its listener hears {@link Listener#missedReleases}: a waiter
 * learns of a release it missed once the connection is back, not when the holder's lease
 * ends.
 *
 * <p>
 * Its one job is the channels: which are subscribed and who is on them. Choosing the
 * transport is {@link ReleaseTransportChoice}'s, dropping a channel once idle
 * {@link IdleChannelJanitor}'s (on a background thread, after a grace period).
 */
final class ReleaseSubscriptions implements ReleaseTransport.Events {

	private static final Log logger = LogFactory.getLog(ReleaseSubscriptions.class);

	private static final AtomicInteger threadCount = new AtomicInteger();

	private final CallDeadlines deadlines;

	private final Map<String, ReleaseChannel> channels = new ConcurrentHashMap<>();

	private final ScheduledExecutorService janitor;

	private final IdleChannelJanitor idle;

	private final Listener listener;

	private final ReleaseTransportChoice transport;

	/**
	 * @param keyPrefix what every lock key starts with
	 * @param clientChannel the channel that keeps the classic pub/sub connection open
	 * @param sharded whether a Cluster's releases go through sharded pub/sub
	 * @param publishing told how releases are to be announced, once known
	 */
	ReleaseSubscriptions(RedisConnectionFactory connectionFactory, RedisCalls calls, String keyPrefix,
			String clientChannel, long gracePeriodMillis, Listener listener, ShardedPubSub sharded,
			Consumer<PublishMode> publishing) {
		this.listener = listener;
		this.deadlines = calls;
		this.janitor = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "redis-lock-unsubscribe-" + threadCount.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
		this.idle = new IdleChannelJanitor(this.channels, this.janitor, gracePeriodMillis, this::unsubscribe);
		this.transport = new ReleaseTransportChoice(connectionFactory, calls, keyPrefix, clientChannel, this.janitor,
				this::subscribedChannels, this, sharded, publishing);
	}

	/**
	 * Subscribes through the given transport, and drops idle subscriptions on the given
	 * janitor: for tests of this class and its users that answer in memory.
	 * @param transport makes the transport, which tells this class what happens on its
	 * channels
	 */
	ReleaseSubscriptions(CallDeadlines deadlines, long gracePeriodMillis, Listener listener,
			ScheduledExecutorService janitor, Function<ReleaseTransport.Events, ReleaseTransport> transport) {
		this.listener = listener;
		this.deadlines = deadlines;
		this.janitor = janitor;
		this.idle = new IdleChannelJanitor(this.channels, janitor, gracePeriodMillis, this::unsubscribe);
		this.transport = new ReleaseTransportChoice(transport.apply(this), janitor, this);
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
		 * The lock's channel was subscribed again after a reconnect, or is not subscribed
		 * for now (see {@link ShardedTransport}): releases may have been missed.
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
		long deadline = this.deadlines.deadline(budgetNanos);
		for (;;) {
			ReleaseChannel channel = this.channels.computeIfAbsent(keys.channel(), (name) -> new ReleaseChannel(keys));
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
			return this.deadlines.within(what, subscribed, deadline).handle((done, failure) -> {
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
	record Membership(ReleaseChannel channel, boolean subscribedSinceJoining) {
	}

	/**
	 * Leaves a lock's waiters; after the last one, the subscription goes once the grace
	 * period passes idle.
	 */
	void leave(Membership membership) {
		this.idle.left(membership.channel());
	}

	@Override
	public void message(String name, byte[] body) {
		ReleaseChannel channel = this.channels.get(name);
		if (channel != null) {
			this.listener.released(channel.keys, body);
		}
	}

	/**
	 * Called for every subscription Redis confirms: this client's own, and
	 * re-subscriptions after a reconnect, a slot migration or a failover. Before a
	 * channel's first subscription has completed, nobody is told; after that, a
	 * confirmation is a re-subscription. Takes no lock.
	 */
	@Override
	public void subscribed(String name) {
		ReleaseChannel channel = this.channels.get(name);
		if (channel == null || channel.confirmsOwnSubscribe()) {
			return;
		}
		if (channel.isSubscribed()) {
			if (logger.isDebugEnabled()) {
				logger.debug("Re-subscribed to " + channel.name + "; waking its waiters in case a release was missed");
			}
			this.listener.missedReleases(channel.keys);
		}
	}

	@Override
	public void unheard(String name) {
		ReleaseChannel channel = this.channels.get(name);
		if (channel != null && channel.isSubscribed()) {
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
		this.janitor.shutdownNow();
		this.transport.close();
	}

	// A SUBSCRIBE that failed or timed out may still take effect: the janitor
	// unsubscribes the channel once it is idle.
	private CompletableFuture<Void> subscribe(LockKeys keys, ReleaseChannel channel, long deadline) {
		String what = describe(keys);
		CompletableFuture<Void> subscribed = this.deadlines
			.within(what + " (choosing classic or sharded pub/sub)", this.transport.transport(), deadline)
			.thenCompose((transport) -> transport.subscribe(what, channel.name, deadline,
					channel.ownSubscribes::incrementAndGet))
			.handle((done, failure) -> {
				if (failure != null) {
					channel.ownSubscribes.set(0);
					throw (failure instanceof RedisLockException ex) ? ex
							: new RedisLockException("Could not " + what + ": " + failure.getMessage(), failure);
				}
				return null;
			});
		subscribed.whenComplete((done, failure) -> {
			if (failure != null) {
				this.idle.subscribeFailed(channel);
			}
		});
		return subscribed;
	}

	private void unsubscribe(String channel) {
		ReleaseTransport transport = this.transport.chosen();
		if (transport != null) {
			transport.unsubscribe(channel);
		}
	}

	// the channels whose first subscription has completed: a transport's new connection
	// subscribes them again
	private List<String> subscribedChannels() {
		return this.channels.values()
			.stream()
			.filter(ReleaseChannel::isSubscribed)
			.map((channel) -> channel.name)
			.toList();
	}

	private static String describe(LockKeys keys) {
		return "wait for lock '" + keys.name() + "' (key '" + keys.lockKey() + "'): subscribing to '" + keys.channel()
				+ "'";
	}

}
