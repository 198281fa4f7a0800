package io.github.redislock.shedlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import io.github.redislock.RedisLockClient;
import io.github.redislock.TestThreads;
import io.github.redislock.testsupport.RedisServerExtension;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.KeepAliveLockProviders;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * ShedLock's own contract for lock providers ({@code shedlock-test-support}), run against
 * {@link HandleLockProvider} on a real Redis, plus the two things a thread-owned lock
 * cannot do for ShedLock: unlock from another thread, and be kept alive by ShedLock's
 * {@code KeepAliveLockProvider} from its scheduler thread.
 */
class HandleLockProviderContractTests extends AbstractExtensibleLockProviderIntegrationTest {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private LettuceConnectionFactory connection;

	private RedisLockClient client;

	private RedisLockClient observer;

	private HandleLockProvider provider;

	@BeforeEach
	void connect() {
		this.connection = redis.newConnectionFactory();
		this.client = RedisLockClient.builder(this.connection).build();
		this.observer = RedisLockClient.builder(this.connection).build();
		this.provider = new HandleLockProvider(this.client);
	}

	@AfterEach
	void disconnect() {
		this.client.close();
		this.observer.close();
		this.connection.destroy();
	}

	@Override
	protected ExtensibleLockProvider getLockProvider() {
		return this.provider;
	}

	@Override
	protected void assertUnlocked(String lockName) {
		assertThat(this.observer.getLock(HandleLockProvider.lockName(lockName)).isLocked())
			.as("lock '%s' is free", lockName)
			.isFalse();
	}

	@Override
	protected void assertLocked(String lockName) {
		assertThat(this.observer.getLock(HandleLockProvider.lockName(lockName)).isLocked())
			.as("lock '%s' is held", lockName)
			.isTrue();
	}

	@Test
	void aLockTakenOnOneThreadIsUnlockedOnAnother() {
		SimpleLock lock = getLockProvider().lock(lockConfig(LOCK_NAME1)).orElseThrow();
		CompletableFuture.runAsync(lock::unlock, TestThreads.perTask()).join();
		assertUnlocked(LOCK_NAME1);
		Optional<SimpleLock> again = getLockProvider().lock(lockConfig(LOCK_NAME1));
		assertThat(again).isPresent();
		again.get().unlock();
	}

	@Test
	void keepAliveExtendsTheLockFromItsSchedulerThread() {
		ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
		try {
			LockProvider keepingAlive = KeepAliveLockProviders.keepingAlive(this.provider, scheduler,
					Duration.ofMillis(300));
			SimpleLock lock = keepingAlive
				.lock(new LockConfiguration(ClockProvider.now(), LOCK_NAME1, Duration.ofMillis(600), Duration.ZERO))
				.orElseThrow();
			// four times its lockAtMostFor, renewed only by the scheduler's extensions
			await().during(Duration.ofMillis(2400))
				.atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertLocked(LOCK_NAME1));
			lock.unlock();
			assertUnlocked(LOCK_NAME1);
		}
		finally {
			scheduler.shutdownNow();
		}
	}

}
