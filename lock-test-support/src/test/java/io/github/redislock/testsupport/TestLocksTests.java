package io.github.redislock.testsupport;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TestLocks} deletes every key under the application's key prefix and nothing
 * else, also when the prefix has characters a SCAN pattern would read as wildcards; and
 * after each test method the locks a test left are gone.
 */
@SpringBootTest(properties = "redis-lock.key-prefix=test*locks:")
@AutoConfigureTestRedis
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TestLocksTests {

	@Autowired
	private TestLocks testLocks;

	@Autowired
	private StringRedisTemplate redis;

	@Test
	@Order(1)
	void releaseAllDeletesTheKeysUnderThePrefixOnly() {
		this.redis.opsForHash().put("test*locks:{order:42}", "owner", "1");
		this.redis.opsForZSet().add("test*locks:{export}:sem", "permit", 1);
		this.redis.opsForValue().set("test-locks:{order:42}", "another prefix");
		this.redis.opsForValue().set("application:data", "not a lock");
		assertThat(this.testLocks.releaseAll()).isEqualTo(2);
		assertThat(this.redis.hasKey("test*locks:{order:42}")).isFalse();
		assertThat(this.redis.hasKey("test*locks:{export}:sem")).isFalse();
		assertThat(this.redis.hasKey("test-locks:{order:42}")).isTrue();
		assertThat(this.redis.hasKey("application:data")).isTrue();
	}

	@Test
	@Order(2)
	void testLeavesALockHeld() {
		this.redis.opsForHash().put("test*locks:{left-held}", "owner", "1");
	}

	@Test
	@Order(3)
	void nextTestFindsItReleased() {
		assertThat(this.redis.hasKey("test*locks:{left-held}")).isFalse();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

	}

}
