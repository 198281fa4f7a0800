package io.github.redislock.testsupport;

import java.time.Duration;
import java.util.Locale;

import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Chooses how a test gets its Redis: a Testcontainers container when Testcontainers is on
 * the class path and a Docker engine answers, otherwise a {@code redis-server} child
 * process on a free loopback port. Set the environment variable
 * {@code REDIS_LOCK_TEST_REDIS} to {@code process} or {@code container} to force one.
 * Without a Docker engine nothing is logged: Testcontainers is not asked then.
 *
 * <p>
 * When neither can be had the test fails with a message that says what to install; it
 * never skips.
 */
public final class RedisServers {

	private static final String TESTCONTAINERS = "org.testcontainers.DockerClientFactory";

	private RedisServers() {
	}

	/**
	 * Starts a new server owned by the caller.
	 * @param extraArguments extra {@code redis-server} arguments such as
	 * {@code "--requirepass", "secret"}
	 * @return a running server
	 */
	public static RedisServer start(String... extraArguments) {
		String forced = forced();
		if (forced.equals("process")) {
			return RedisProcess.start(extraArguments);
		}
		if (forced.equals("container") || containers()) {
			return RedisContainer.start(extraArguments);
		}
		if (RedisProcess.isInstalled()) {
			return RedisProcess.start(extraArguments);
		}
		throw noRedis();
	}

	/**
	 * Starts the server a whole test JVM shares: a container (which Testcontainers
	 * removes once the JVM has exited) or a process that stops once the JVM has exited,
	 * however it exits; so it outlives every application context that uses it.
	 */
	static RedisServer startUntilJvmExit() {
		String forced = forced();
		if (!forced.equals("process") && (forced.equals("container") || containers())) {
			return RedisContainer.start(new String[0]);
		}
		if (forced.equals("process") || RedisProcess.isInstalled()) {
			return RedisProcess.startUntilJvmExit();
		}
		throw noRedis();
	}

	private static String forced() {
		return System.getenv().getOrDefault("REDIS_LOCK_TEST_REDIS", "").toLowerCase(Locale.ROOT);
	}

	// RedisContainer is not touched without Testcontainers, an optional dependency
	private static boolean containers() {
		return isPresent(TESTCONTAINERS) && RedisContainer.isDockerAvailable();
	}

	private static boolean isPresent(String className) {
		try {
			Class.forName(className, false, RedisServers.class.getClassLoader());
			return true;
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

	private static IllegalStateException noRedis() {
		String docker = isPresent(TESTCONTAINERS) ? "or start a Docker engine (Testcontainers is on the class path)."
				: "or start a Docker engine and add org.testcontainers:testcontainers to the test dependencies.";
		return new IllegalStateException("""
				These tests need a real Redis, but neither a 'redis-server' executable nor a Docker engine was found.
				Install Redis (Debian/Ubuntu: 'sudo apt-get install -y redis-server', macOS: 'brew install redis',
				Fedora: 'sudo dnf install redis'), or put redis-server on the PATH, or set REDIS_SERVER to its path,
				""" + docker);
	}

	/**
	 * A new, started Lettuce connection factory for any topology (standalone, Cluster,
	 * Sentinel). The caller destroys it.
	 * @param configuration where Redis is
	 * @param commandTimeout how long a command may take before it fails
	 */
	public static LettuceConnectionFactory connectionFactory(RedisConfiguration configuration,
			Duration commandTimeout) {
		return start(LettuceClientConfiguration.builder().commandTimeout(commandTimeout), configuration);
	}

	/**
	 * A new, started Lettuce connection factory whose connections name themselves to
	 * Redis ({@code CLIENT SETNAME}), so that {@code CLIENT LIST} tells whose they are.
	 * The caller destroys it.
	 * @param configuration where Redis is
	 * @param commandTimeout how long a command may take before it fails
	 * @param clientName the name the connections give themselves
	 */
	public static LettuceConnectionFactory connectionFactory(RedisConfiguration configuration, Duration commandTimeout,
			String clientName) {
		return start(LettuceClientConfiguration.builder().commandTimeout(commandTimeout).clientName(clientName),
				configuration);
	}

	private static LettuceConnectionFactory start(LettuceClientConfiguration.LettuceClientConfigurationBuilder client,
			RedisConfiguration configuration) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration, client.build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
