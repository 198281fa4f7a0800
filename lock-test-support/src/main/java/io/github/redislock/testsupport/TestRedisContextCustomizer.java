package io.github.redislock.testsupport;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Adds to a test's context, before it is refreshed: Spring Boot's Redis connection
 * details naming the JVM's test Redis ({@link SharedTestRedis}), the {@link LockRecorder}
 * with what feeds it, and {@link TestLocks}. Every instance is equal to every other, so
 * that the contexts of all annotated test classes with the same configuration share one
 * cache entry, apart from those without the annotation.
 */
final class TestRedisContextCustomizer implements ContextCustomizer {

	static final String DEFAULT_KEY_PREFIX = "lock:";

	@Override
	public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
		if (!(context.getBeanFactory() instanceof BeanDefinitionRegistry registry)) {
			throw new IllegalStateException("@AutoConfigureTestRedis needs a context that takes bean definitions, not "
					+ context.getClass().getName());
		}
		Class<?> detailsType = TestRedisConnectionDetails.type(context.getClassLoader());
		if (detailsType == null) {
			throw new IllegalStateException("@AutoConfigureTestRedis connects Spring Boot's Redis auto-configuration "
					+ "to the test Redis, but it is not on the class path: add "
					+ "io.github.redislock:lock-spring-boot-starter (or spring-boot-starter-data-redis)");
		}
		RedisServer server = SharedTestRedis.get();
		register(registry, "redisLockTestRedisConnectionDetails", detailsType, connectionDetails(detailsType, server),
				false);
		register(registry, "redisLockTestLockRecorder", LockRecorder.class, LockRecorder::new, false);
		register(registry, "redisLockTestLockRecorderRegistration", LockRecorderRegistration.class,
				LockRecorderRegistration::new, true);
		register(registry, "redisLockTestLocks", TestLocks.class,
				() -> new TestLocks(
						() -> new StringRedisTemplate(context.getBeanFactory().getBean(RedisConnectionFactory.class)),
						() -> context.getEnvironment().getProperty("redis-lock.key-prefix", DEFAULT_KEY_PREFIX)),
				false);
	}

	private static Supplier<Object> connectionDetails(Class<?> type, RedisServer server) {
		return () -> TestRedisConnectionDetails.of(type, server);
	}

	@SuppressWarnings("unchecked")
	private static <T> void register(BeanDefinitionRegistry registry, String name, Class<T> type, Supplier<?> supplier,
			boolean infrastructure) {
		RootBeanDefinition definition = new RootBeanDefinition(type, (Supplier<T>) supplier);
		if (infrastructure) {
			definition.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
		}
		registry.registerBeanDefinition(name, definition);
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return other != null && other.getClass() == getClass();
	}

	@Override
	public int hashCode() {
		return getClass().hashCode();
	}

}
