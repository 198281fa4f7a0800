package io.github.redislock.shedlock.autoconfigure;

import io.github.redislock.RedisLockClient;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.shedlock.RedisLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * A ShedLock {@link LockProvider} on the auto-configured {@link RedisLockClient}, when
 * ShedLock is on the class path and the application defines no {@code LockProvider}: an
 * application with {@code @EnableSchedulerLock} and {@code @SchedulerLock} methods needs
 * no other code.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
@ConditionalOnClass(LockProvider.class)
@ConditionalOnBean(RedisLockClient.class)
public final class RedisLockShedLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockProvider.class)
	RedisLockProvider redisLockShedLockProvider(RedisLockClient redisLockClient) {
		return new RedisLockProvider(redisLockClient);
	}

}
