package io.github.redislock.compat;

import java.time.Duration;
import java.util.List;

import io.github.redislock.RedisLockClient;
import io.github.redislock.testsupport.AutoConfigureTestRedis;
import io.github.redislock.testsupport.LockRecorder;
import io.github.redislock.testsupport.TestLocks;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @AutoConfigureTestRedis} on Spring Boot 3.5, whose Redis connection details type
 * is {@code org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails}
 * (Boot 4 renamed and moved it): the application's client and the lock client use the
 * test Redis whatever {@code spring.data.redis.*} says, and the recorder and the release
 * of locks work.
 */
@SpringBootTest(properties = { "spring.data.redis.host=redis.invalid", "spring.data.redis.port=1" })
@AutoConfigureTestRedis
class AutoConfigureTestRedisTests {

	@Autowired
	private RedisConnectionDetails connectionDetails;

	@Autowired
	private StringRedisTemplate redis;

	@Autowired
	private RedisLockClient lockClient;

	@Autowired
	private LockRecorder locks;

	@Autowired
	private TestLocks testLocks;

	@Test
	void boot35ConnectionDetailsNameTheTestRedis() {
		assertThat(this.connectionDetails.getStandalone().getPort()).isNotEqualTo(1);
		this.redis.opsForValue().set("boot35", "written");
		assertThat(this.redis.opsForValue().get("boot35")).isEqualTo("written");
	}

	@Test
	void recorderSeesTheLockClientAndTestLocksReleasesWhatItKeeps() {
		this.locks.assertHeldDuring("boot35-job",
				() -> this.lockClient.acquire("boot35-job", Duration.ZERO, null).release(Duration.ofMinutes(1)));
		assertThat(this.lockClient.getLock("boot35-job").isLocked()).isTrue();
		assertThat(this.testLocks.releaseAll()).isPositive();
		assertThat(this.lockClient.getLock("boot35-job").isLocked()).isFalse();
	}

	@Test
	void recorderKnowsLocksByTheirNamesAlsoThoseRedisKeepsOnlyAsAHash() {
		for (String name : List.of("stock:{eu}", "export:" + "x".repeat(1100))) {
			this.locks.assertHeldDuring(name, () -> this.lockClient.acquire(name, Duration.ZERO, null).release());
			assertThat(this.locks.isHeld(name)).isFalse();
		}
		assertThat(this.locks.acquired()).contains("stock:{eu}");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

	}

}
