package io.github.redislock.internal;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The lock client's own command connection, opened on the connection factory's Lettuce
 * client: so with the application's settings (standalone, Sentinel or Cluster, TLS, ACL
 * user, database, client name, client resources), but not shared with the application.
 *
 * <p>
 * Why its own: Lettuce reconnects a lost connection after a delay that doubles with each
 * failed attempt, up to 30 s by default, so after a long outage a connection can come
 * back up to 30 s after Redis does. That schedule belongs to the application's client
 * resources and stays as it is for the application's connections. This one is not left to
 * it: a call that finds it down opens a new one at once, and again every
 * {@link #RETRY_MILLIS} while some call still wants it, and closes the old one (whose
 * unsent commands then fail, so nothing of it runs after what the new one sends). Locks
 * therefore work again as soon as Redis accepts connections, and a call while Redis is
 * down fails at its own deadline with the reason the last attempt gave.
 *
 * <p>
 * Attempts run on a short-lived thread of their own: Lettuce's connect blocks (up to its
 * connect timeout, 10 s by default, on an address that does not answer), and callers wait
 * for it within their own time only. With no call waiting, nothing is attempted.
 */
final class CommandConnection {

	private static final Log logger = LogFactory.getLog(CommandConnection.class);

	// No expiry of Lettuce's own on this connection: RedisCalls waits for every answer
	// within a deadline of its own (the lock command timeout, or less), so a second timer
	// per command would only cost each call a schedule and a cancel on Lettuce's timer
	// thread. (The factory's spring.data.redis timeout, the default, could also be
	// shorter than the lock command timeout and fail a call the client still waits for.)
	private static final Duration NO_EXPIRY = Duration.ZERO;

	/** The pause between two attempts while calls wait: Redis is not hammered. */
	static final long RETRY_MILLIS = 100;

	private final LettuceConnectionFactory connectionFactory;

	private volatile @Nullable Open current;

	// the attempts under way, if any; every caller waiting for a connection shares them
	private @Nullable CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> connecting;

	// the factory's client those attempts use: a factory stopped and started again (a
	// restarted context) has a new one, and an attempt on the old may hang until its
	// connect timeout
	private @Nullable AbstractRedisClient connectingClient;

	// until when (System.nanoTime()) some caller waits for the attempts under way
	private long wantedUntil;

	private volatile @Nullable RuntimeException lastFailure;

	// when the connection last went down (System.nanoTime()), and why if Lettuce said so
	private volatile long lostAt;

	private volatile @Nullable Throwable lostBecause;

	// the server instance each connection, and each of Lettuce's reconnects, reached:
	// whether a command Lettuce sent again went to the server that may have run it
	// already (see #resentToTheSameServer)
	private final ReachedServers reached = new ReachedServers(this::commandsIfOpen);

	private static final CompletableFuture<Boolean> NOT_RESENT = CompletableFuture.completedFuture(false);

	private final RedisConnectionStateListener states = new RedisConnectionStateListener() {

		@Override
		public void onRedisExceptionCaught(RedisChannelHandler<?, ?> connection, Throwable cause) {
			CommandConnection.this.lostBecause = cause;
		}

		@Override
		public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
			CommandConnection.this.lostAt = System.nanoTime();
		}

		@Override
		public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress socketAddress) {
			Open open = CommandConnection.this.current;
			if (open != null && open.connection() == connection) {
				CommandConnection.this.reached.reached(open.commands());
			}
			reconnected(connection);
		}

	};

	private volatile boolean supported = true;

	private boolean closed;

	CommandConnection(LettuceConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/**
	 * Whether the factory's client can open connections of its own: not a Lettuce client
	 * made without an address (Spring Data Redis' static master/replica setup), whose
	 * calls then use the factory's shared connection.
	 */
	boolean isSupported() {
		return this.supported;
	}

	/** The connection's commands if it is up, without any I/O. */
	@Nullable RedisClusterAsyncCommands<byte[], byte[]> commandsIfOpen() {
		Open open = this.current;
		return (open != null && open.connection().isOpen()) ? open.commands() : null;
	}

	/**
	 * Completes with the commands of an open connection: the current one if it is up
	 * again, otherwise a new one, attempted until the deadline. Fails with the last
	 * attempt's failure once no caller waits any more; callers fail at their own deadline
	 * with {@link #lastFailure()}.
	 * @param deadline until when ({@link System#nanoTime()}) the caller waits
	 */
	synchronized CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> open(long deadline) {
		if (this.closed) {
			return CompletableFuture.failedFuture(new ClientClosedException());
		}
		AbstractRedisClient client = currentClient();
		if (this.connecting == null || this.connecting.isDone() || client != this.connectingClient) {
			this.connectingClient = client;
			this.wantedUntil = deadline;
			CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> connecting = new CompletableFuture<>();
			Thread connector = new Thread(() -> connect(connecting), "redis-lock-connect");
			connector.setDaemon(true);
			connector.start();
			this.connecting = connecting;
		}
		else if (deadline - this.wantedUntil > 0) {
			this.wantedUntil = deadline;
		}
		return this.connecting;
	}

	/**
	 * Why the connection went down, if it did since the given time: a command sent before
	 * then got no answer on it.
	 * @param since a {@link System#nanoTime()}
	 * @return "connection reset", "connection closed", or {@code null}
	 */
	@Nullable String lostSince(long since) {
		long lostAt = this.lostAt;
		if (lostAt == 0 || lostAt - since < 0) {
			return null;
		}
		Throwable cause = this.lostBecause;
		return (cause != null) ? ConnectionFailures.reason(cause) : "connection closed";
	}

	/**
	 * Whether a command sent at the given time, whose connection went down before its
	 * answer came, was answered by the same server instance it was first sent to. Lettuce
	 * sends such a command again once it has reconnected, and Redis may have run it the
	 * first time: a release then finds its own lock gone. Over the same instance (same
	 * {@code run_id}) that is its own doing; over another (a restart, a failover) the
	 * lock went with the data. Completes {@code false} when the connection stayed up,
	 * when the instance changed, and when it cannot be told (no {@code INFO} allowed by
	 * the user's ACL, no answer before or after, a Cluster connection, more reconnects
	 * than are kept).
	 * @param sentAt a {@link System#nanoTime()} from before the command was sent
	 */
	CompletableFuture<Boolean> resentToTheSameServer(long sentAt) {
		if (lostSince(sentAt) == null) {
			return NOT_RESENT;
		}
		return this.reached.resentToTheSameServer(sentAt);
	}

	// Lettuce reconnected the current connection on its own (a short outage: its first
	// attempts come quickly) while a new one is being opened, which may take longer on a
	// busy machine: the callers waiting need not wait for that
	private void reconnected(RedisChannelHandler<?, ?> connection) {
		Open open = this.current;
		CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> pending;
		synchronized (this) {
			pending = this.connecting;
		}
		if (open != null && open.connection() == connection && pending != null) {
			pending.complete(open.commands());
		}
	}

	/** Why the last attempt failed, if the last one did. */
	@Nullable RuntimeException lastFailure() {
		return this.lastFailure;
	}

	private void connect(CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> connecting) {
		for (;;) {
			Open reopened = this.current;
			if (connecting.isDone()) {
				// Lettuce's own reconnect won meanwhile
				return;
			}
			if (reopened != null && reopened.connection().isOpen()) {
				connecting.complete(reopened.commands());
				return;
			}
			try {
				Open open = adopt(openOnce());
				if (open == null) {
					connecting.completeExceptionally(new ClientClosedException());
					return;
				}
				this.lastFailure = null;
				connecting.complete(open.commands());
				return;
			}
			catch (RuntimeException ex) {
				this.lastFailure = ex;
				if (isUnsupported(ex)) {
					this.supported = false;
					connecting.completeExceptionally(ex);
					return;
				}
				long wantedNanos = wantedNanos();
				if (wantedNanos <= 0) {
					connecting.completeExceptionally(ex);
					return;
				}
				logger.debug("Could not connect to Redis; trying again in " + RETRY_MILLIS + " ms: " + ex);
				// the last attempt at the last caller's deadline
				LockSupport.parkNanos(Math.min(wantedNanos, TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS)));
			}
		}
	}

	// the factory's client now, or null while the factory is stopped
	private @Nullable AbstractRedisClient currentClient() {
		try {
			return this.connectionFactory.getNativeClient();
		}
		catch (IllegalStateException stopped) {
			return null;
		}
	}

	// how much longer some caller waits
	private synchronized long wantedNanos() {
		return this.closed ? 0 : this.wantedUntil - System.nanoTime();
	}

	// The new connection replaces the old, which is closed: Lettuce stops reconnecting
	// it, and fails what it still buffered. Unless Lettuce reconnected the old one
	// meanwhile: callers may have commands on their way on it, so it stays, and the new
	// one goes.
	private @Nullable Open adopt(Open open) {
		Open previous;
		synchronized (this) {
			previous = this.current;
			if (this.closed || (previous != null && previous.connection().isOpen())) {
				closeQuietly(open.connection());
				return this.closed ? null : previous;
			}
			this.current = open;
		}
		if (previous != null) {
			closeQuietly(previous.connection());
		}
		return open;
	}

	private Open openOnce() {
		AbstractRedisClient client = this.connectionFactory.getNativeClient();
		if (client instanceof RedisClusterClient cluster) {
			StatefulRedisClusterConnection<byte[], byte[]> connection = cluster.connect(ByteArrayCodec.INSTANCE);
			connection.setTimeout(NO_EXPIRY);
			return new Open(connection, connection.async());
		}
		if (client instanceof RedisClient standalone) {
			StatefulRedisConnection<byte[], byte[]> connection = standalone.connect(ByteArrayCodec.INSTANCE);
			connection.setTimeout(NO_EXPIRY);
			Open open = new Open(connection, connection.async());
			if (connection instanceof RedisChannelHandler<?, ?> handler) {
				this.lostBecause = null;
				handler.addListener(this.states);
				this.reached.reached(open.commands());
			}
			return open;
		}
		throw new UnsupportedClientException("Not a Lettuce RedisClient or RedisClusterClient: " + client);
	}

	// Lettuce says so before any I/O when its client has no address of its own
	private static boolean isUnsupported(RuntimeException ex) {
		return ex instanceof UnsupportedClientException || (ex instanceof IllegalStateException
				&& ex.getMessage() != null && ex.getMessage().startsWith("RedisURI is not available"));
	}

	// Lettuce's close waits for the connection's event loop, which may be completing a
	// call whose continuation asks for a connection (open() takes this monitor): so the
	// monitor is not held while closing, or the two would wait for each other
	void close() {
		Open open;
		synchronized (this) {
			this.closed = true;
			open = this.current;
			this.current = null;
		}
		if (open != null && !isClosed(open.connection())) {
			// at once: the factory, closed next, would otherwise close it a second time
			// (which Lettuce warns of)
			open.connection().close();
		}
	}

	private static boolean isClosed(StatefulConnection<byte[], byte[]> connection) {
		return connection instanceof RedisChannelHandler<?, ?> handler && handler.isClosed();
	}

	// closed already when the factory stopped (Lettuce warns of a second close)
	private static void closeQuietly(StatefulConnection<byte[], byte[]> connection) {
		if (!isClosed(connection)) {
			connection.closeAsync();
		}
	}

	private record Open(StatefulConnection<byte[], byte[]> connection,
			RedisClusterAsyncCommands<byte[], byte[]> commands) {
	}

	private static final class UnsupportedClientException extends IllegalStateException {

		UnsupportedClientException(String message) {
			super(message);
		}

	}

}
