package io.github.redislock.docs.migration;

import java.time.Duration;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

import io.github.redislock.RedisLockClient;
import io.github.redislock.integration.RedisLockClientLockRegistry;

/** The code of docs/migration/spring-integration.md's "Keep your code" section. */
class KeepRedisLockRegistryCode {

	@Configuration(proxyBeanMethods = false)
	static class Leadership {

		// tag::leader[]
		@Bean
		LockRegistryLeaderInitiator leaderInitiator(LockRegistry<?> lockRegistry) {
			// the auto-configured registry
			return new LockRegistryLeaderInitiator(lockRegistry);
		}
		// end::leader[]

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnRegistry {

		// tag::registry[]
		@Bean
		RedisLockClientLockRegistry lockRegistry(RedisLockClient locks) {
			// lock names "orders:<key>", as with RedisLockRegistry's "orders"
			RedisLockClientLockRegistry registry = new RedisLockClientLockRegistry(locks, "orders:");
			// a fixed lease instead of the watchdog
			registry.setDefaultTtl(Duration.ofSeconds(60));
			return registry;
		}
		// end::registry[]

	}

}
