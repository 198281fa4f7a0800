package io.github.redislock.internal;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.RedisLockException;

/**
 * The connection factory's connections, which {@link RedisCalls} goes over only where the
 * factory's client cannot open one of its own (a static master/replica setup): the
 * factory's shared connection (or a pooled one), which reconnects on Lettuce's schedule.
 * Hands them out as futures, for the calls to wait for within their deadlines, and
 * remembers the shared one once had.
 */
final class FactoryConnections {

	// the calls' category: the client's own connection's attempt ahead of the first
	// call logs there too (see RedisCalls#connectAhead)
	private static final Log logger = LogFactory.getLog(RedisCalls.class);

	private final RedisConnectionFactory connectionFactory;

	private volatile boolean connected;

	/** Whether the factory hands every caller the same native connection. */
	private final boolean sharesConnection;

	/**
	 * The factory's shared connection, once had: every call would otherwise build a
	 * {@code LettuceConnection} around it (two loggers looked up, a few objects) only to
	 * reach the same native commands.
	 */
	private volatile @Nullable SharedConnection shared;

	FactoryConnections(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		this.sharesConnection = connectionFactory instanceof LettuceConnectionFactory lettuce
				&& lettuce.getShareNativeConnection();
	}

	// The shared connection stays the same until the factory is reset or stopped, which
	// closes it: then the factory is asked again (and says why it cannot serve, if so).
	// A connection cut by the network is not closed: Lettuce reconnects it.
	@Nullable RedisClusterAsyncCommands<byte[], byte[]> sharedCommands() {
		SharedConnection shared = this.shared;
		return (shared != null && shared.connection().isOpen()) ? shared.commands() : null;
	}

	// Once the factory has connected, getConnection() hands out a view of its shared
	// connection without any I/O. The first time, it connects, and Spring Data Redis
	// waits for that with the connection's own timeouts (Lettuce's handshake waits up
	// to its 60 s default on a frozen Redis): so until one has succeeded, connecting is
	// done on a thread of its own and waited for within the deadline.
	CompletableFuture<RedisConnection> connecting(Supplier<String> what) {
		if (this.connected) {
			try {
				return CompletableFuture.completedFuture(this.connectionFactory.getConnection());
			}
			catch (RuntimeException ex) {
				return CompletableFuture.failedFuture(
						new RedisLockException("Could not " + what.get() + ": " + RedisFailures.message(ex), ex));
			}
		}
		CompletableFuture<RedisConnection> connecting = new CompletableFuture<>();
		Thread connector = new Thread(() -> {
			try {
				connecting.complete(this.connectionFactory.getConnection());
				this.connected = true;
			}
			catch (Throwable ex) {
				connecting.completeExceptionally(ex);
			}
		}, "redis-lock-connect");
		connector.setDaemon(true);
		connector.start();
		return connecting;
	}

	/**
	 * Connects in the background, as {@link RedisCalls#connectAhead()} does, where the
	 * client cannot open a connection of its own.
	 */
	void connectAhead() {
		if (this.connected) {
			return;
		}
		connecting(() -> "connect to Redis ahead of the first lock call").whenComplete((connection, failure) -> {
			if (connection != null) {
				try {
					nativeCommands(connection);
				}
				catch (RuntimeException ex) {
					// not a Lettuce connection: the calls will say so
				}
				finally {
					connection.close();
				}
			}
			else if (failure != null && logger.isDebugEnabled()) {
				logger.debug(
						"Could not connect to Redis ahead of the first lock call: " + RedisFailures.message(failure));
			}
		});
	}

	@SuppressWarnings("unchecked")
	RedisClusterAsyncCommands<byte[], byte[]> nativeCommands(RedisConnection connection) {
		// LettuceConnection and LettuceClusterConnection: the shared (or pooled)
		// connection's asynchronous API; for a cluster, Lettuce's routing one
		return remembered((RedisClusterAsyncCommands<byte[], byte[]>) connection.getNativeConnection());
	}

	private RedisClusterAsyncCommands<byte[], byte[]> remembered(RedisClusterAsyncCommands<byte[], byte[]> commands) {
		if (this.sharesConnection) {
			StatefulConnection<byte[], byte[]> connection = (commands instanceof RedisAsyncCommands<byte[], byte[]> single)
					? single.getStatefulConnection()
					: (commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster)
							? cluster.getStatefulConnection() : null;
			if (connection != null) {
				this.shared = new SharedConnection(commands, connection);
			}
		}
		return commands;
	}

	private record SharedConnection(RedisClusterAsyncCommands<byte[], byte[]> commands,
			StatefulConnection<byte[], byte[]> connection) {
	}

}
