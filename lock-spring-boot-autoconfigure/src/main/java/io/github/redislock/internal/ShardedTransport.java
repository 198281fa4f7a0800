package io.github.redislock.internal;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.event.Event;
import io.lettuce.core.event.connection.DisconnectedEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

import io.github.redislock.LockOutcomeUnknownException;

/**
 * Sharded pub/sub on a Redis Cluster ({@code SSUBSCRIBE}): releases announced with
 * {@code SPUBLISH} stay within the shard of the lock's slot. The transport has its own
 * Lettuce cluster pub/sub connection, which routes each {@code SSUBSCRIBE} to the slot's
 * master and follows {@code MOVED}; one channel per command, never several (channels of
 * two slots in one command fail with {@code CROSSSLOT}).
 * <p>
 * Lettuce does not subscribe a shard channel again when Redis drops it: a slot migrated
 * to another master, or a master demoted by a failover, ends its subscriptions with an
 * unsolicited {@code sunsubscribe}; a master that crashed just goes away. So this
 * transport does: a channel it lost (that message, or the connection to its node
 * dropping) is subscribed again every {@value #RETRY_MILLIS} ms until Redis confirms,
 * with the Cluster's topology refreshed every {@value #UNHEARD_MILLIS} ms meanwhile. Its
 * waiters are told once it is back, as after any re-subscription, so that they ask for
 * their lock rather than wait for a message that went by meanwhile. When Redis dropped
 * it, its node answers, and they are told at once and every {@value #UNHEARD_MILLIS} ms
 * while it stays lost too. When the connection to its node dropped, they are not: the
 * node may have crashed, and until the Cluster promotes its replica and the topology is
 * read again an ask would go to the dead node, wait there for the whole command timeout
 * and fail the waiter's wait; nobody can release the lock on a dead node anyway.
 * <p>
 * A channel subscribed again after Redis dropped it may not hear the shard at first:
 * after a failover, Lettuce may send the {@code SSUBSCRIBE} to the demoted master, now a
 * replica, and the new master passes the shard's messages only to the replicas it knows
 * of, which it learns by gossip, a moment to seconds later. So for
 * {@value #SETTLING_MILLIS} ms after such a re-subscription its waiters are still told
 * every {@value #UNHEARD_MILLIS} ms to ask for their lock: a release in that time wakes
 * them within about a second, not at the end of the holder's lease.
 */
final class ShardedTransport extends RedisClusterPubSubAdapter<byte[], byte[]> implements ReleaseTransport {

	private static final Log logger = LogFactory.getLog(ShardedTransport.class);

	/** How often a lost channel is subscribed again until Redis confirms it. */
	static final long RETRY_MILLIS = 250;

	/**
	 * How often the waiters of a channel Redis dropped are told to ask for their lock,
	 * and the topology of a Cluster with a lost channel refreshed, until the channel is
	 * back: the bound on how late a waiter learns of a release it did not hear while the
	 * lock's node answers.
	 */
	static final long UNHEARD_MILLIS = 1000;

	/**
	 * How long after a channel Redis dropped is subscribed again its waiters keep being
	 * told to ask every {@link #UNHEARD_MILLIS}: until the Cluster's nodes all know the
	 * new roles (a replica is told the shard's messages once its master knows of it).
	 */
	static final long SETTLING_MILLIS = 10_000;

	private final RedisClusterClient client;

	private final RedisCalls calls;

	private final Events events;

	private final Map<String, Wanted> wanted = new ConcurrentHashMap<>();

	// opened at the first wait, and again when opening it failed
	@Nullable private volatile CompletableFuture<StatefulRedisClusterPubSubConnection<byte[], byte[]>> connection;

	private volatile boolean closed;

	private final Disposable connectionEvents;

	private long lastRefresh;

	ShardedTransport(RedisClusterClient client, RedisCalls calls, ScheduledExecutorService scheduler, Events events) {
		this.client = client;
		this.calls = calls;
		this.events = events;
		// first, so that a closed client's scheduler refuses it before anything is opened
		scheduler.scheduleWithFixedDelay(this::recoverLost, RETRY_MILLIS, RETRY_MILLIS, TimeUnit.MILLISECONDS);
		this.connectionEvents = client.getResources().eventBus().get().subscribe(this::connectionEvent);
	}

	private CompletableFuture<StatefulRedisClusterPubSubConnection<byte[], byte[]>> connect() {
		return this.client.connectPubSubAsync(ByteArrayCodec.INSTANCE).thenApply((connection) -> {
			// messages and confirmations come on the connections to the slots' nodes
			connection.setNodeMessagePropagation(true);
			connection.addListener(this);
			return connection;
		});
	}

	// the connection, opened again if opening it failed (the Cluster was unreachable)
	private synchronized CompletableFuture<StatefulRedisClusterPubSubConnection<byte[], byte[]>> connection() {
		CompletableFuture<StatefulRedisClusterPubSubConnection<byte[], byte[]>> connection = this.connection;
		if (this.closed) {
			return CompletableFuture.failedFuture(new ClientClosedException());
		}
		if (connection == null || connection.isCompletedExceptionally()) {
			connection = connect();
			this.connection = connection;
		}
		return connection;
	}

	// the connection if it is open, without waiting
	@Nullable private StatefulRedisClusterPubSubConnection<byte[], byte[]> openConnection() {
		CompletableFuture<StatefulRedisClusterPubSubConnection<byte[], byte[]>> connection = this.connection;
		return (connection != null && connection.isDone() && !connection.isCompletedExceptionally()) ? connection.join()
				: null;
	}

	@Override
	public CompletableFuture<Void> subscribe(String what, String channel, long deadline, Runnable sending) {
		Wanted wanted = this.wanted.computeIfAbsent(channel, Wanted::new);
		return this.calls.within(what + " (opening the sharded pub/sub connection)", connection(), deadline)
			.thenCompose((connection) -> {
				sending.run();
				if (deadline - System.nanoTime() <= TimeUnit.MILLISECONDS.toNanos(2 * UNHEARD_MILLIS)) {
					return this.calls.within(what, connection.async().ssubscribe(wanted.bytes), deadline);
				}
				// An SSUBSCRIBE for a node whose connection Lettuce reconnects on its
				// own schedule (up to 30 s apart after a long outage) would wait there:
				// unanswered within a second, the connection is replaced and the
				// subscription sent again on the new one, within the caller's time
				return connection.async()
					.ssubscribe(wanted.bytes)
					.toCompletableFuture()
					.orTimeout(UNHEARD_MILLIS, TimeUnit.MILLISECONDS)
					.handle((confirmed, failure) -> {
						if (failure == null) {
							return CompletableFuture.<Void>completedFuture(null);
						}
						if (RedisFailures.unwrap(failure) instanceof TimeoutException) {
							replace(connection);
							return subscribe(what, channel, deadline, () -> {
							});
						}
						return this.calls.within(what, CompletableFuture.<Void>failedFuture(failure), deadline);
					})
					.thenCompose((next) -> next);
			});
	}

	/**
	 * Replaces a connection that does not deliver: a new one connects at once, to the
	 * nodes the topology names now, and every channel wanted is subscribed again on it.
	 */
	private void replace(StatefulRedisClusterPubSubConnection<byte[], byte[]> stale) {
		synchronized (this) {
			if (this.closed || openConnection() != stale) {
				// replaced already
				return;
			}
			logger.debug("The sharded pub/sub connection did not answer within " + UNHEARD_MILLIS
					+ " ms; opening a new one");
			this.connection = connect();
		}
		stale.closeAsync();
		// an unanswered connection may be one to a dead node
		this.wanted.values().forEach((wanted) -> lost(wanted, false));
	}

	@Override
	public void unsubscribe(String channel) {
		Wanted wanted = this.wanted.remove(channel);
		StatefulRedisClusterPubSubConnection<byte[], byte[]> connection = openConnection();
		if (wanted == null || connection == null || !connection.isOpen()) {
			return;
		}
		try {
			this.calls.await("unsubscribe from '" + channel + "'", connection.async().sunsubscribe(wanted.bytes),
					this.calls.deadline(RedisCalls.NO_LIMIT));
		}
		catch (LockOutcomeUnknownException ex) {
			logger.debug("Could not unsubscribe from " + channel, ex);
		}
		catch (RuntimeException ex) {
			LockLogs.pubsub.warn(ex.getMessage() + "; the subscription stays until the pub/sub connection closes");
		}
	}

	@Override
	public void smessage(RedisClusterNode node, byte[] channel, byte[] message) {
		this.events.message(name(channel), message);
	}

	@Override
	public void ssubscribed(RedisClusterNode node, byte[] channel, long count) {
		String name = name(channel);
		Wanted wanted = this.wanted.get(name);
		if (wanted != null) {
			wanted.node = address(node.getUri());
			if (wanted.lost && wanted.nodeAnswers) {
				// dropped by Redis, as a failover and a migration do: its waiters go on
				// asking until the nodes know the new roles (see the class comment)
				wanted.settlingSince = System.nanoTime();
			}
			wanted.lost = false;
		}
		this.events.subscribed(name);
	}

	// Our own SUNSUBSCRIBE removed the channel from the wanted ones first: any other is
	// Redis dropping it (slot migrated, master demoted)
	@Override
	public void sunsubscribed(RedisClusterNode node, byte[] channel, long count) {
		Wanted wanted = this.wanted.get(name(channel));
		if (wanted != null) {
			if (logger.isDebugEnabled()) {
				logger.debug("Redis dropped the subscription to " + wanted.name + " on " + address(node.getUri())
						+ "; subscribing again");
			}
			lost(wanted, true);
		}
	}

	private void connectionEvent(Event event) {
		if (event instanceof DisconnectedEvent disconnected
				&& disconnected.remoteAddress() instanceof InetSocketAddress remote) {
			String address = remote.getHostString() + ":" + remote.getPort();
			this.wanted.values()
				.stream()
				.filter((wanted) -> address.equals(wanted.node))
				.forEach((wanted) -> lost(wanted, false));
		}
	}

	/**
	 * Subscribes a channel again, with the topology read again first.
	 * @param nodeAnswers whether the channel's node is known to answer (it dropped the
	 * subscription itself), so that its waiters may ask for their lock until the channel
	 * is back
	 */
	private void lost(Wanted wanted, boolean nodeAnswers) {
		synchronized (wanted) {
			if (wanted.lost) {
				return;
			}
			wanted.lost = true;
			wanted.nodeAnswers = nodeAnswers;
			wanted.toldUnheard = System.nanoTime();
		}
		if (nodeAnswers) {
			this.events.unheard(wanted.name);
		}
		// with the topology read again first: after a failover, Lettuce's old view sends
		// it
		// to the demoted master, which takes it as a replica but may not hear the shard
		this.client.refreshPartitionsAsync().whenComplete((refreshed, failure) -> resubscribe(wanted));
	}

	// every RETRY_MILLIS on the scheduler: the lost channels are subscribed again
	private void recoverLost() {
		try {
			long now = System.nanoTime();
			boolean anyLost = false;
			for (Wanted wanted : this.wanted.values()) {
				if (!wanted.lost) {
					tellWhileSettling(wanted, now);
					continue;
				}
				anyLost = true;
				if (wanted.nodeAnswers && now - wanted.toldUnheard >= TimeUnit.MILLISECONDS.toNanos(UNHEARD_MILLIS)) {
					wanted.toldUnheard = now;
					this.events.unheard(wanted.name);
				}
				resubscribe(wanted);
			}
			// after a crash, the slot's new master is known only once the topology is
			// read again
			if (anyLost && now - this.lastRefresh >= TimeUnit.MILLISECONDS.toNanos(UNHEARD_MILLIS)) {
				this.lastRefresh = now;
				this.client.refreshPartitionsAsync();
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Could not subscribe lost channels again", ex);
		}
	}

	// a channel subscribed again a moment ago, maybe on a node that does not hear the
	// shard yet: its waiters ask every UNHEARD_MILLIS until SETTLING_MILLIS have passed
	private void tellWhileSettling(Wanted wanted, long now) {
		long since = wanted.settlingSince;
		if (since == 0) {
			return;
		}
		if (now - since >= TimeUnit.MILLISECONDS.toNanos(SETTLING_MILLIS)) {
			wanted.settlingSince = 0;
			return;
		}
		if (now - wanted.toldUnheard >= TimeUnit.MILLISECONDS.toNanos(UNHEARD_MILLIS)) {
			wanted.toldUnheard = now;
			this.events.unheard(wanted.name);
		}
	}

	private void resubscribe(Wanted wanted) {
		StatefulRedisClusterPubSubConnection<byte[], byte[]> connection = openConnection();
		CompletableFuture<Void> pending = wanted.resubscribing;
		if (connection == null || (pending != null && !pending.isDone())) {
			return;
		}
		CompletableFuture<Void> sent = connection.async().ssubscribe(wanted.bytes).toCompletableFuture();
		// a command queued for a node that is gone would otherwise hold the next ones
		// back; unanswered, the connection is replaced (see subscribe)
		wanted.resubscribing = sent.orTimeout(UNHEARD_MILLIS, TimeUnit.MILLISECONDS)
			.whenComplete((confirmed, failure) -> {
				if (failure != null && RedisFailures.unwrap(failure) instanceof TimeoutException) {
					replace(connection);
				}
			});
	}

	// Cancels outside the monitor: cancelling the connection runs its callers'
	// continuations, which take a channel's monitor (see ClassicTransport#close).
	@Override
	public void close() {
		CompletableFuture<StatefulRedisClusterPubSubConnection<byte[], byte[]>> connection;
		synchronized (this) {
			this.closed = true;
			connection = this.connection;
		}
		this.connectionEvents.dispose();
		if (connection != null) {
			connection.thenAccept(StatefulRedisClusterPubSubConnection::closeAsync);
			connection.cancel(false);
		}
	}

	private static String name(byte[] channel) {
		return new String(channel, StandardCharsets.UTF_8);
	}

	private static String address(RedisURI uri) {
		return uri.getHost() + ":" + uri.getPort();
	}

	/** A channel some waiter of this client wants. */
	private static final class Wanted {

		private final String name;

		private final byte[] bytes;

		// the node that confirmed it last
		@Nullable private volatile String node;

		// dropped by Redis, or its node's connection was; until it is confirmed again
		private volatile boolean lost;

		// lost while its node answered: its waiters are told to ask until it is back
		private volatile boolean nodeAnswers;

		private volatile long toldUnheard;

		// when it was subscribed again after Redis dropped it, 0 once settled
		private volatile long settlingSince;

		@Nullable private volatile CompletableFuture<Void> resubscribing;

		private Wanted(String name) {
			this.name = name;
			this.bytes = ScriptCalls.bytes(name);
		}

	}

}
