package io.github.redislock.testsupport;

import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.annotation.DirtiesContext.HierarchyMode;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestContextManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The test Redis outlives the contexts that use it: closing one, as the test framework's
 * context cache does when it evicts a context or the JVM exits, leaves the Redis running
 * for the next, and Lettuce logs no reconnection.
 */
@ExtendWith(OutputCaptureExtension.class)
class ClosingTheContextTests {

	@Test
	void closingAContextLogsNoReconnectionAndTheNextContextGetsTheSameRedis(CapturedOutput output) {
		TestContext first = load(FirstApplicationTest.class);
		write(first.getApplicationContext());
		first.markApplicationContextDirty(HierarchyMode.EXHAUSTIVE);
		assertThat(SharedTestRedis.get().isRunning()).isTrue();
		TestContext second = load(SecondApplicationTest.class);
		write(second.getApplicationContext());
		second.markApplicationContextDirty(HierarchyMode.EXHAUSTIVE);
		await().during(Duration.ofSeconds(2))
			.atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(output.getAll().toLowerCase()).doesNotContain("reconnect"));
		assertThat(output).doesNotContain("ERROR");
	}

	private static TestContext load(Class<?> testClass) {
		return new TestContextManager(testClass).getTestContext();
	}

	private static void write(ApplicationContext context) {
		String key = "closing:" + UUID.randomUUID();
		StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
		redis.opsForValue().set(key, "v");
		assertThat(redis.opsForValue().get(key)).isEqualTo("v");
	}

	@SpringBootTest(properties = "spring.application.name=first")
	@AutoConfigureTestRedis
	static class FirstApplicationTest {

		@SpringBootConfiguration
		@EnableAutoConfiguration
		static class Application {

		}

	}

	@SpringBootTest(properties = "spring.application.name=second")
	@AutoConfigureTestRedis
	static class SecondApplicationTest {

		@SpringBootConfiguration
		@EnableAutoConfiguration
		static class Application {

		}

	}

}
