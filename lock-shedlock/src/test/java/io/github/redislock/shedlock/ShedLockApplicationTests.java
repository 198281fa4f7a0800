package io.github.redislock.shedlock;

import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.shedlock.autoconfigure.RedisLockShedLockAutoConfiguration;
import io.github.redislock.testsupport.RedisServerExtension;
import net.javacrumbs.shedlock.core.LockProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * Applications with ShedLock and this library: the provider is there without code, and
 * backs off for the application's own ({@link TwoApplicationsScheduledJobTests} runs a
 * job on two).
 */
class ShedLockApplicationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner application = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class,
				RedisLockShedLockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + redis.server().host(),
				"spring.data.redis.port=" + redis.server().port(), "spring.data.redis.timeout=10s",
				"redis-lock.command-timeout=10s");

	@Test
	void aShedLockApplicationGetsTheProviderWithoutCode() {
		this.application
			.run((context) -> assertThat(context).getBean(LockProvider.class).isInstanceOf(RedisLockProvider.class));
	}

	@Test
	void theApplicationsOwnProviderWins() {
		this.application.withUserConfiguration(OwnProvider.class)
			.run((context) -> assertThat(context).getBean(LockProvider.class)
				.isSameAs(context.getBean(OwnProvider.class).provider));
	}

	@Test
	void withoutShedLockThereIsNoProvider() {
		this.application.withClassLoader(new FilteredClassLoader(LockProvider.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockProvider.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnProvider {

		final LockProvider provider = mock(LockProvider.class);

		@Bean
		LockProvider lockProvider() {
			return this.provider;
		}

	}

}
