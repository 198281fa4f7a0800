package io.github.redislock.sample.redis;

import java.time.Duration;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.boot.context.event.SpringApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Gives the sample a Redis on a machine that has none running. Once the environment is
 * prepared, before any bean exists, it sends a PING to
 * {@code spring.data.redis.host}:{@code spring.data.redis.port} (default
 * {@code localhost:6379}). When a Redis answers, it is used. When none does, an
 * {@link EmbeddedRedis} is started on a free port and {@code spring.data.redis.host} and
 * {@code spring.data.redis.port} are pointed at it, so Spring Boot's Redis
 * auto-configuration connects there. It is stopped after every bean, the Redis connection
 * factory included, has been destroyed.
 *
 * <p>
 * Only {@code SampleApplication.main} registers this listener: tests bring their own
 * Redis. A Redis described by {@code spring.data.redis.url}, Sentinel, Cluster or TLS is
 * never replaced, and {@code sample.embedded-redis.enabled=false} turns this off.
 */
public class EmbeddedRedisStarter implements ApplicationListener<SpringApplicationEvent> {

	private static final String ENABLED_PROPERTY = "sample.embedded-redis.enabled";

	private static final Log logger = LogFactory.getLog(EmbeddedRedisStarter.class);

	private static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);

	private static final String[] EXPLICIT_SETUPS = { "spring.data.redis.url", "spring.data.redis.sentinel.master",
			"spring.data.redis.cluster.nodes" };

	private EmbeddedRedis server;

	@Override
	public void onApplicationEvent(SpringApplicationEvent event) {
		if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
			ensureRedis(prepared.getEnvironment());
		}
		else if (event instanceof ApplicationPreparedEvent prepared) {
			stopAfterBeans(prepared.getApplicationContext());
		}
		else if (event instanceof ApplicationFailedEvent) {
			stop();
		}
	}

	private void ensureRedis(ConfigurableEnvironment environment) {
		if (!environment.getProperty(ENABLED_PROPERTY, Boolean.class, true) || isExplicitSetup(environment)) {
			return;
		}
		String host = environment.getProperty("spring.data.redis.host", "localhost");
		int port = environment.getProperty("spring.data.redis.port", Integer.class, 6379);
		if (RedisProbe.answers(host, port, PROBE_TIMEOUT)) {
			logger.info("Using the Redis at " + host + ":" + port + " (spring.data.redis.host/port): it answered PING");
			return;
		}
		this.server = EmbeddedRedis.start();
		environment.getPropertySources()
			.addFirst(new MapPropertySource("embeddedRedis", Map.of("spring.data.redis.host", this.server.host(),
					"spring.data.redis.port", this.server.port())));
		logger.warn("No Redis answers at " + host + ":" + port + " (spring.data.redis.host/port), so the sample "
				+ "started one for this run on " + this.server.host() + ":" + this.server.port() + ", without "
				+ "persistence, and stops it when the application stops: " + this.server.executable() + ". Set "
				+ ENABLED_PROPERTY + "=false to use only an existing Redis.");
	}

	private boolean isExplicitSetup(ConfigurableEnvironment environment) {
		for (String property : EXPLICIT_SETUPS) {
			if (environment.containsProperty(property)) {
				logger.info(property + " is set; the sample uses that Redis as configured");
				return true;
			}
		}
		if (environment.getProperty("spring.data.redis.ssl.enabled", Boolean.class, false)) {
			logger.info("spring.data.redis.ssl.enabled is set; the sample uses that Redis as configured");
			return true;
		}
		return false;
	}

	private void stopAfterBeans(ConfigurableApplicationContext context) {
		if (this.server != null && context.getBeanFactory() instanceof DefaultSingletonBeanRegistry registry) {
			// Disposable beans are destroyed in reverse order of registration; registered
			// before any bean exists, the server outlives the Redis connection factory
			// and the lock client, which can therefore close cleanly.
			registry.registerDisposableBean("embeddedRedis", this::stop);
		}
	}

	private void stop() {
		if (this.server != null) {
			this.server.stop();
		}
	}

}
