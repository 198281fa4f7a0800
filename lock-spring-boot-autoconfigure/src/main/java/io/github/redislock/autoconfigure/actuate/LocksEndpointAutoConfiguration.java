package io.github.redislock.autoconfigure.actuate;

import io.github.redislock.RedisLockClient;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configures the {@code locks} endpoint when Actuator is on the class path and the
 * endpoint is exposed ({@code management.endpoints.web.exposure.include=locks}). It is
 * read-only unless {@code management.endpoint.locks.force-release=true}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(RedisLockClient.class)
@ConditionalOnAvailableEndpoint(LocksEndpoint.class)
public final class LocksEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LocksEndpoint.class)
	@ConditionalOnBooleanProperty(name = "management.endpoint.locks.force-release", havingValue = false,
			matchIfMissing = true)
	LocksEndpoint locksEndpoint(RedisLockClient redisLockClient) {
		return new LocksEndpoint(redisLockClient);
	}

	@Bean
	@ConditionalOnMissingBean(LocksEndpoint.class)
	@ConditionalOnBooleanProperty(name = "management.endpoint.locks.force-release")
	ReleasingLocksEndpoint releasingLocksEndpoint(RedisLockClient redisLockClient) {
		return new ReleasingLocksEndpoint(redisLockClient);
	}

}
