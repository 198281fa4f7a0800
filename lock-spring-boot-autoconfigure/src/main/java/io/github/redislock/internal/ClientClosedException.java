package io.github.redislock.internal;

/**
 * What a call the closed client can no longer make fails with: the lock client was
 * closed, which is no outage of Redis. A type rather than a message, so that the client
 * tells the two apart by what failed ({@link RedisFailures}), never by its text. Users
 * see an {@link IllegalStateException}, as for any use of a closed object.
 */
final class ClientClosedException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	ClientClosedException() {
		super("The lock client is closed");
	}

	/** For an acquisition asked of the closed client, naming the lock. */
	ClientClosedException(String lockName) {
		super("The lock client is closed; cannot acquire lock '" + lockName + "'");
	}

}
