package io.github.redislock.integration.autoconfigure;

import io.github.redislock.RedisLockClient;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.integration.RedisLockClientLockRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * A Spring Integration {@link LockRegistry}, a {@link RedisLockClientLockRegistry} on the
 * auto-configured {@link RedisLockClient} with lock names prefixed
 * {@value RedisLockClientLockRegistry#DEFAULT_NAME_PREFIX}, when Spring Integration is on
 * the class path and the application defines no {@code LockRegistry}: a
 * {@code LockRegistryLeaderInitiator} or an aggregator can take it as it is. Define your
 * own {@code RedisLockClientLockRegistry} bean for another prefix or a default TTL. With
 * Spring Integration 6 (Spring Boot 3.5) it backs off: the registry needs version 7.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
@ConditionalOnClass({ LockRegistry.class, DistributedLock.class })
@ConditionalOnBean(RedisLockClient.class)
public final class RedisLockIntegrationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockRegistry.class)
	RedisLockClientLockRegistry redisLockClientLockRegistry(RedisLockClient redisLockClient) {
		return new RedisLockClientLockRegistry(redisLockClient);
	}

}
