package io.github.redislock.integration;

import java.time.Duration;

import io.github.redislock.RedisLockClient;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.integration.autoconfigure.RedisLockIntegrationAutoConfiguration;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.LockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Applications with Spring Integration and this library: the registry is there without
 * code, backs off for the application's own, and leader election runs on it.
 */
class IntegrationApplicationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner application = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class,
				RedisLockIntegrationAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + redis.server().host(),
				"spring.data.redis.port=" + redis.server().port(), "spring.data.redis.timeout=10s",
				"redis-lock.command-timeout=10s");

	@Test
	void aSpringIntegrationApplicationGetsTheRegistryWithoutCode() {
		this.application.run((context) -> {
			assertThat(context).getBean(LockRegistry.class).isInstanceOf(RedisLockClientLockRegistry.class);
			LockRegistry<?> registry = context.getBean(LockRegistry.class);
			registry.executeLocked("report", () -> assertThat(
					context.getBean(RedisLockClient.class).getLock("integration:report").isHeldByCurrentThread())
				.isTrue());
		});
	}

	@Test
	void theApplicationsOwnRegistryWins() {
		this.application.withUserConfiguration(OwnRegistry.class)
			.run((context) -> assertThat(context).getBean(LockRegistry.class).isInstanceOf(DefaultLockRegistry.class));
	}

	@Test
	void withoutSpringIntegrationThereIsNoRegistry() {
		this.application.withClassLoader(new FilteredClassLoader(LockRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockClientLockRegistry.class));
	}

	@Test
	void withSpringIntegration6ThereIsNoRegistry() {
		// Spring Integration 6 has LockRegistry but not DistributedLock
		this.application.withClassLoader(new FilteredClassLoader(DistributedLock.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockRegistry.class));
	}

	@Test
	void withoutALockClientThereIsNoRegistry() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RedisLockIntegrationAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockRegistry.class));
	}

	@Test
	void leaderElectionRunsOnTheAutoConfiguredRegistry() {
		this.application.withUserConfiguration(Leadership.class).run((context) -> {
			LockRegistryLeaderInitiator initiator = context.getBean(LockRegistryLeaderInitiator.class);
			await().atMost(Duration.ofSeconds(20)).until(() -> initiator.getContext().isLeader());
			assertThat(context.getBean(RedisLockClient.class).getLock("integration:leader").isLocked()).isTrue();
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnRegistry {

		@Bean
		DefaultLockRegistry lockRegistry() {
			return new DefaultLockRegistry();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Leadership {

		@Bean
		LockRegistryLeaderInitiator leaderInitiator(LockRegistry<?> lockRegistry) {
			return new LockRegistryLeaderInitiator(lockRegistry);
		}

	}

}
