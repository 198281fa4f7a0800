package io.github.redislock.testsupport;

import java.time.Duration;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Gives a test class its own real Redis (see {@link RedisServers}). Register it in a
 * static field to share one server across the class, or in an instance field for a fresh
 * server per test:
 *
 * <pre class="code">
 * &#64;RegisterExtension
 * static final RedisServerExtension redis = new RedisServerExtension();
 * </pre>
 *
 * After every test the server is brought back to running if the test stopped or paused
 * it, so one fault test cannot break the next.
 *
 * <p>
 * For the application context of a Spring Boot test, use {@link AutoConfigureTestRedis}
 * instead: a server stopped after the test class, as this one is, is gone while the test
 * framework still keeps the context cached, whose connections then try to reconnect.
 */
public final class RedisServerExtension extends TestTopologyExtension<RedisServer> {

	/**
	 * Creates an extension whose server is started with the given extra arguments.
	 * @param extraArguments extra {@code redis-server} arguments, e.g.
	 * {@code "--requirepass", "secret"}
	 */
	public RedisServerExtension(String... extraArguments) {
		super(() -> RedisServers.start(extraArguments));
	}

	@Override
	void restore(RedisServer server) {
		server.resume();
		server.start();
	}

	/** The running server. */
	public RedisServer server() {
		return running();
	}

	/**
	 * A new, started Lettuce connection factory for this server, with a short command
	 * timeout so that a test against a stopped server fails quickly. The caller destroys
	 * it.
	 */
	public LettuceConnectionFactory newConnectionFactory() {
		return newConnectionFactory(Duration.ofSeconds(2));
	}

	/**
	 * A new, started Lettuce connection factory for this server. The caller destroys it.
	 * @param commandTimeout how long a command may take before it fails
	 */
	public LettuceConnectionFactory newConnectionFactory(Duration commandTimeout) {
		return RedisServers.connectionFactory(new RedisStandaloneConfiguration(server().host(), server().port()),
				commandTimeout);
	}

	/**
	 * Sends one command to the server and returns the raw reply (arrays one element per
	 * line).
	 */
	public String command(String... args) {
		return server().command(args);
	}

}
