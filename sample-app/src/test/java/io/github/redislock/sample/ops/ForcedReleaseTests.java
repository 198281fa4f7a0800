package io.github.redislock.sample.ops;

import java.util.UUID;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.sample.SampleAppTest;
import io.github.redislock.sample.TestRedis;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.web.servlet.assertj.MockMvcTester;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * With {@code management.endpoint.locks.force-release=true}, an operator can force a
 * stuck lock open over HTTP; the holder finds out when it unlocks.
 */
@SampleAppTest
@TestPropertySource(properties = "management.endpoint.locks.force-release=true")
class ForcedReleaseTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedis.register(redis, registry);
	}

	@Autowired
	private MockMvcTester mvc;

	@Autowired
	private RedisLockClient locks;

	@Test
	void deleteForcesTheLockOpen() {
		String name = "stock:sku-" + UUID.randomUUID();
		RedisLock lock = this.locks.getLock(name);
		lock.lock();
		assertThat(this.mvc.delete().uri("/actuator/locks/{name}", name)).hasStatusOk()
			.bodyJson()
			.isLenientlyEqualTo("{\"name\": \"" + name + "\", \"released\": true}");
		assertThat(lock.isLocked()).isFalse();
		assertThatThrownBy(lock::unlock).isInstanceOf(LeaseExpiredException.class);
		assertThat(this.mvc.delete().uri("/actuator/locks/{name}", name)).bodyJson()
			.extractingPath("$.released")
			.isEqualTo(false);
	}

}
