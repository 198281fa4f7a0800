package io.github.redislock;

import java.time.Duration;

/**
 * Bounds for tests that are not about them.
 * <p>
 * A lock client waits for Redis no longer than its command timeout (2 s by default), and
 * that includes opening a connection. On a machine whose cores are all busy, a cold JVM
 * took longer than 2 s to open its first connection, its first pub/sub connection (at a
 * waiter's first subscription), a TLS handshake or a Cluster's topology: a test of
 * exclusion, of TLS or of a topology then failed for a reason it does not test. Those
 * tests take these bounds; the tests of the bounds themselves
 * ({@code CommandTimeoutTests}, {@code UnknownOutcomeTests},
 * {@code CommandTimeoutAnnotationTests}) set their own.
 */
public final class TestTimeouts {

	/** A lock command timeout that a busy machine does not reach by accident. */
	public static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

	private TestTimeouts() {
	}

	/**
	 * The properties that give an auto-configured lock client, and Spring Data's own
	 * connection, {@link #COMMAND_TIMEOUT}.
	 */
	public static String[] commandTimeoutProperties() {
		String timeout = COMMAND_TIMEOUT.toSeconds() + "s";
		return new String[] { "spring.data.redis.timeout=" + timeout, "redis-lock.command-timeout=" + timeout };
	}

}
