package io.github.redislock.autoconfigure;

import java.time.Duration;

import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.RedisLockException;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The client uses the connection Spring Boot configured from {@code spring.data.redis.*},
 * credentials included; the starter adds no connection settings of its own.
 */
class AuthenticatedRedisTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension("--requirepass", "default-secret", "--user",
			"locker", "on", ">locker-secret", "~*", "&*", "+@all", "--user", "noscripts", "on", ">noscripts-secret",
			"~*", "&*", "+@all", "-@scripting");

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(RedisLockTestContexts.redisAndLock())
		.withPropertyValues("spring.data.redis.host=" + redis.server().host(),
				"spring.data.redis.port=" + redis.server().port(), "spring.data.redis.timeout=2s");

	@Test
	void locksWorkWithAPassword() {
		this.contextRunner.withPropertyValues("spring.data.redis.password=default-secret")
			.run((context) -> assertLockWorks(context.getBean(RedisLockClient.class)));
	}

	@Test
	void locksWorkWithAnAclUser() {
		this.contextRunner
			.withPropertyValues("spring.data.redis.username=locker", "spring.data.redis.password=locker-secret")
			.run((context) -> assertLockWorks(context.getBean(RedisLockClient.class)));
	}

	@Test
	void anAclThatDeniesScriptsGivesAClearError() {
		this.contextRunner
			.withPropertyValues("spring.data.redis.username=noscripts", "spring.data.redis.password=noscripts-secret")
			.run((context) -> {
				RedisLock lock = context.getBean(RedisLockClient.class).getLock("denied");
				assertThatThrownBy(() -> lock.tryLock(Duration.ZERO, null)).isInstanceOf(RedisLockException.class)
					.hasMessageContaining("Could not acquire lock 'denied' (key 'lock:{denied}')")
					.hasMessageContaining("NOPERM");
			});
	}

	private static void assertLockWorks(RedisLockClient client) throws InterruptedException {
		RedisLock lock = client.getLock("authenticated");
		assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
	}

}
