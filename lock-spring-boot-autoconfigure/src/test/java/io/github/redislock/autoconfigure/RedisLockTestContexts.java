package io.github.redislock.autoconfigure;

import io.github.redislock.TestTimeouts;
import io.github.redislock.autoconfigure.actuate.LocksEndpointAutoConfiguration;
import io.github.redislock.autoconfigure.metrics.RedisLockMetricsAutoConfiguration;
import io.github.redislock.testsupport.RedisServerExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;

/**
 * What tests of other packages need to build a context with the lock auto-configuration
 * on a test's Redis.
 */
public final class RedisLockTestContexts {

	private RedisLockTestContexts() {
	}

	/** Spring Boot's Redis auto-configuration (3.5 or 4.x) followed by this library's. */
	public static AutoConfigurations redisAndLock() {
		return BootClasses.redisAndLock();
	}

	/**
	 * Spring Boot's Redis auto-configuration followed by this library's, its metrics and
	 * its Actuator endpoint.
	 */
	public static AutoConfigurations redisLockAndObservability() {
		return AutoConfigurations.of(BootClasses.redisAutoConfiguration(), RedisLockAutoConfiguration.class,
				RedisLockMetricsAutoConfiguration.class, LocksEndpointAutoConfiguration.class);
	}

	/**
	 * Connection properties for the test's own Redis, with {@link TestTimeouts}' command
	 * timeout: these contexts test annotations, events, metrics and the endpoint, not
	 * that bound, and a cold context's first pub/sub connection took over the 2 s default
	 * on a machine with every core busy.
	 */
	public static String[] redisProperties(RedisServerExtension redis) {
		String[] timeouts = TestTimeouts.commandTimeoutProperties();
		return new String[] { "spring.data.redis.host=" + redis.server().host(),
				"spring.data.redis.port=" + redis.server().port(), timeouts[0], timeouts[1] };
	}

}
