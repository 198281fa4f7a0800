package io.github.redislock.autoconfigure;

import java.time.Duration;

import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The auto-configured client lives as long as its context: a context stopped and started
 * again keeps a working client (watchdog included); a closing context closes it.
 */
class ClientLifecycleTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void aStoppedAndRestartedContextKeepsAWorkingClientAndClosingItClosesTheClient() {
		new ApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withPropertyValues(RedisLockTestContexts.redisProperties(redis))
			// a watchdog of 1.5 s: at 300 ms, a busy machine can miss a renewal
			.withPropertyValues("redis-lock.watchdog-timeout=1500ms")
			.run((context) -> {
				RedisLockClient client = context.getBean(RedisLockClient.class);
				context.stop();
				context.start();
				RedisLock lock = client.getLock("restarted");
				lock.lock();
				await().pollInSameThread()
					.during(Duration.ofMillis(3500))
					.atMost(Duration.ofSeconds(7))
					.until(lock::isHeldByCurrentThread);
				lock.unlock();
				context.close();
				assertThatIllegalStateException().isThrownBy(() -> client.getLock("restarted").lock())
					.withMessageContaining("The lock client is closed");
			});
	}

}
