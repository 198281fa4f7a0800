package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.LeaseLostEvent;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * With Spring Boot, a lost lease reaches the application as an event: found by the
 * holder's unlock when its lease ran out, or by the watchdog when the lock was deleted
 * behind the holder's back.
 */
class LeaseLostEventTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void aLostLeaseIsPublishedAsAnApplicationEvent() {
		new ApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withPropertyValues(RedisLockTestContexts.redisProperties(redis))
			.withUserConfiguration(Listener.class)
			.run((context) -> {
				RedisLock lock = context.getBean(RedisLockClient.class).getLock("published");
				lock.lock(Duration.ofMillis(100));
				await().atMost(Duration.ofSeconds(5)).until(() -> !lock.isLocked());
				assertThatThrownBy(lock::unlock).isInstanceOf(LeaseExpiredException.class);
				assertThat(context.getBean(Listener.class).events).singleElement()
					.satisfies((event) -> assertThat(event.lockName()).isEqualTo("published"));
			});
	}

	@Test
	void aLockDeletedBehindItsHoldersBackIsPublishedWhenTheWatchdogFindsIt() {
		new ApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withPropertyValues(RedisLockTestContexts.redisProperties(redis))
			.withPropertyValues("redis-lock.watchdog-timeout=300ms")
			.withUserConfiguration(Listener.class)
			.run((context) -> {
				RedisLock lock = context.getBean(RedisLockClient.class).getLock("deleted");
				lock.lock();
				assertThat(redis.command("DEL", "lock:{deleted}")).isEqualTo("1");
				Listener listener = context.getBean(Listener.class);
				await().atMost(Duration.ofSeconds(5)).until(() -> !listener.events.isEmpty());
				assertThat(listener.events).singleElement().satisfies((event) -> {
					assertThat(event.lockName()).isEqualTo("deleted");
					assertThat(event.detectedBy()).isEqualTo(LeaseLostEvent.DetectedBy.WATCHDOG);
					assertThat(event.watchdog()).isTrue();
					assertThat(event.threadName()).isEqualTo(Thread.currentThread().getName());
				});
				assertThatThrownBy(lock::unlock).isInstanceOf(LeaseExpiredException.class);
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class Listener {

		final List<LeaseLostEvent> events = new CopyOnWriteArrayList<>();

		@EventListener
		void on(LeaseLostEvent event) {
			this.events.add(event);
		}

	}

}
