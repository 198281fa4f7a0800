package io.github.redislock.autoconfigure.metrics;

import io.github.redislock.RedisLockClient;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockClientBuilderCustomizer;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Registers the auto-configured {@link RedisLockClient}'s meters
 * ({@code redis.lock.held}, {@code redis.lock.waiting}, {@code redis.lock.lease.lost}) in
 * the application's {@link MeterRegistry}, when Micrometer is on the class path and there
 * is one registry (Actuator makes one). Turn them off like any meter:
 * {@code management.metrics.enable.redis.lock=false}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(before = RedisLockAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "redis-lock.enabled", matchIfMissing = true)
public final class RedisLockMetricsAutoConfiguration {

	@Bean
	RedisLockClientBuilderCustomizer redisLockMetricsCustomizer(ObjectProvider<MeterRegistry> meterRegistry) {
		return (builder) -> meterRegistry.ifUnique(builder::meterRegistry);
	}

}
