package io.github.redislock.autoconfigure;

import io.github.redislock.RedisLockClient;

/**
 * Adjusts the auto-configured {@link RedisLockClient} before it is built, for options
 * that have no property, such as a lease-lost listener of one's own. Every bean of this
 * type is applied, in {@link org.springframework.core.annotation.Order @Order}.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface RedisLockClientBuilderCustomizer {

	/**
	 * Customizes the builder.
	 * @param builder the builder, with the {@code redis-lock.*} properties and the
	 * application-event publisher already applied
	 */
	void customize(RedisLockClient.Builder builder);

}
