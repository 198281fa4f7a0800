package io.github.redislock.autoconfigure.fencing;

import io.github.redislock.autoconfigure.RedisLockProperties;
import io.github.redislock.fencing.FencingGuard;
import io.github.redislock.fencing.JdbcFencingGuard;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcOperations;

/**
 * Offers a {@link JdbcFencingGuard} on the application's {@code JdbcTemplate} when there
 * is exactly one and the application defines no {@link FencingGuard} of its own. Its
 * table is {@code redis-lock.fencing.table} ({@code redis_lock_fence} by default), which
 * the application creates (see {@link JdbcFencingGuard#schemaSql()}); nothing is created
 * or checked at start-up. {@code redis-lock.enabled=false} turns it off with the rest.
 *
 * @since 0.1.0
 */
@AutoConfiguration(afterName = { "org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration",
		"org.springframework.boot.autoconfigure.jdbc.JdbcTemplateAutoConfiguration" })
@ConditionalOnClass(JdbcOperations.class)
@ConditionalOnSingleCandidate(JdbcOperations.class)
@ConditionalOnBooleanProperty(name = "redis-lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedisLockProperties.class)
public final class JdbcFencingGuardAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(FencingGuard.class)
	JdbcFencingGuard jdbcFencingGuard(JdbcOperations jdbc, RedisLockProperties properties) {
		return new JdbcFencingGuard(jdbc, properties.getFencing().getTable());
	}

}
