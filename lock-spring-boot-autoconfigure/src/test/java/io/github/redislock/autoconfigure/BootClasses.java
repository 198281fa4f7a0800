package io.github.redislock.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.util.ClassUtils;

/**
 * Spring Boot's Redis auto-configuration moved between 3.5 and 4.0; tests name it by
 * either class so that the same tests run against both.
 */
final class BootClasses {

	private static final String[] REDIS_AUTO_CONFIGURATIONS = {
			"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
			"org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration" };

	private BootClasses() {
	}

	static AutoConfigurations redisAndLock() {
		return AutoConfigurations.of(redisAutoConfiguration(), RedisLockAutoConfiguration.class);
	}

	static Class<?> redisAutoConfiguration() {
		for (String name : REDIS_AUTO_CONFIGURATIONS) {
			if (ClassUtils.isPresent(name, BootClasses.class.getClassLoader())) {
				return ClassUtils.resolveClassName(name, BootClasses.class.getClassLoader());
			}
		}
		throw new IllegalStateException("No Spring Boot Redis auto-configuration on the classpath");
	}

}
