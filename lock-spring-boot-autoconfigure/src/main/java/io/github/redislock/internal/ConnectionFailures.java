package io.github.redislock.internal;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.util.Locale;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.lettuce.core.RedisConnectionException;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.RedisLockException;

/**
 * Says why Redis could not be reached, in words a reader acts on: refused (nothing
 * listens there), timed out (nothing answers), reset (the connection was cut), with the
 * address Lettuce tried and the property to change. Lettuce's own exceptions say "Unable
 * to connect to host:port" around the socket's "Connection refused", which a log shows
 * only with the whole stack trace.
 */
final class ConnectionFailures {

	private static final String TIMED_OUT = "connecting timed out";

	private static final Pattern UNABLE_TO_CONNECT = Pattern.compile("Unable to connect to (\\S+)");

	private ConnectionFailures() {
	}

	/** Where the factory says Redis is, for messages. */
	static String where(RedisConnectionFactory connectionFactory) {
		if (!(connectionFactory instanceof LettuceConnectionFactory lettuce)) {
			return "Redis";
		}
		try {
			var cluster = lettuce.getClusterConfiguration();
			if (lettuce.isClusterAware() && cluster != null) {
				return "Cluster nodes " + nodes(cluster.getClusterNodes());
			}
			var sentinel = lettuce.getSentinelConfiguration();
			if (lettuce.isRedisSentinelAware() && sentinel != null) {
				var master = sentinel.getMaster();
				return "master '" + ((master != null) ? master.getName() : "?") + "' of Sentinels "
						+ nodes(sentinel.getSentinels());
			}
			return lettuce.getHostName() + ":" + lettuce.getPort();
		}
		catch (RuntimeException ex) {
			// a configuration that does not say: the failures' own messages will
			return "Redis";
		}
	}

	private static String nodes(Iterable<RedisNode> nodes) {
		return java.util.stream.StreamSupport.stream(nodes.spliterator(), false)
			.map((node) -> node.getHost() + ":" + node.getPort())
			.collect(Collectors.joining(","));
	}

	/**
	 * A call that got no connection by its deadline: nothing was sent, the lock's state
	 * did not change.
	 * @param failure why the last attempt failed, or {@code null} when it had not ended
	 */
	static RedisLockException notConnected(String prefix, String where, long timeoutMillis,
			@Nullable Throwable failure) {
		String address = address(failure, where);
		String reason = (failure != null) ? reason(failure) : TIMED_OUT;
		String message = prefix + ": no connection to Redis at " + address + " within "
				+ Durations.formatMillis(timeoutMillis) + ": " + reason
				+ "; spring.data.redis.* says where Redis is, redis-lock.command-timeout how long a call tries";
		return new RedisLockException(message,
				(failure != null) ? failure : new TimeoutException("No connection within " + timeoutMillis + " ms"));
	}

	/**
	 * What to say of a connection lost while a command was on its way.
	 * @param detail the failure's own message
	 */
	static String lost(String where, Throwable failure, String detail) {
		String reason = reason(failure);
		if (reason.equals(TIMED_OUT)) {
			reason = "no answer";
		}
		String said = reason.equalsIgnoreCase(detail) ? "" : " (" + detail + ")";
		return "lost the connection to Redis at " + address(failure, where) + ": " + reason + said
				+ "; Redis may or may not have run the command";
	}

	/** The cause in a few words: "connection refused", "connecting timed out", ... */
	static String reason(Throwable failure) {
		String last = null;
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			String message = (cause.getMessage() != null) ? cause.getMessage().toLowerCase(Locale.ROOT) : "";
			if (cause instanceof SocketTimeoutException || cause instanceof TimeoutException
					|| cause.getClass().getSimpleName().equals("ConnectTimeoutException")
					|| message.contains("timed out")) {
				return TIMED_OUT;
			}
			if (cause instanceof ConnectException && message.contains("refused")) {
				return "connection refused, nothing listens there";
			}
			if (cause instanceof IOException && message.contains("reset")) {
				return "connection reset";
			}
			if (message.contains("connection closed")) {
				return "connection closed";
			}
			if (cause.getMessage() != null) {
				last = cause.getMessage();
			}
		}
		return (last != null) ? last : failure.getClass().getSimpleName();
	}

	// the address Lettuce tried, which is more precise than the configuration's (a
	// Cluster's node, a Sentinel's master)
	private static String address(@Nullable Throwable failure, String where) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof RedisConnectionException && cause.getMessage() != null) {
				Matcher matcher = UNABLE_TO_CONNECT.matcher(cause.getMessage());
				if (matcher.find()) {
					return matcher.group(1).replace("/<unresolved>", "");
				}
			}
		}
		return where;
	}

}
