package io.github.redislock.shedlock;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledExecutorService;

import io.github.redislock.RedisLockClient;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * ShedLock's own contract for lock providers ({@code shedlock-test-support}), run against
 * {@link RedisLockProvider} on a real Redis, unchanged (its fuzz test included), plus
 * what ShedLock needs of a lock that a thread-owned one could not do: unlock from another
 * thread, and be kept alive by ShedLock's {@code KeepAliveLockProvider} from its
 * scheduler thread.
 */
class RedisLockProviderContractTests extends AbstractExtensibleLockProviderIntegrationTest {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private LettuceConnectionFactory connection;

	private RedisLockClient client;

	private RedisLockClient observer;

	private RedisLockProvider provider;

	@BeforeEach
	void connect() {
		this.connection = redis.newConnectionFactory();
		this.client = RedisLockClient.builder(this.connection).build();
		this.observer = RedisLockClient.builder(this.connection).build();
		this.provider = new RedisLockProvider(this.client);
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
		assertThat(this.observer.getLock(RedisLockProvider.NAME_PREFIX + lockName).isLocked())
			.as("lock '%s' is free", lockName)
			.isFalse();
	}

	@Override
	protected void assertLocked(String lockName) {
		assertThat(this.observer.getLock(RedisLockProvider.NAME_PREFIX + lockName).isLocked())
			.as("lock '%s' is held", lockName)
			.isTrue();
	}

	@Test
	void aLockTakenOnOneThreadIsUnlockedOnAnother() throws InterruptedException {
		SimpleLock lock = getLockProvider().lock(lockConfig(LOCK_NAME1)).orElseThrow();
		Thread unlocking = new Thread(lock::unlock);
		unlocking.start();
		unlocking.join();
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

	// on a thread of its own: the contract's tests leave locks of the main thread taken
	@Test
	void aJobReadsTheFencingTokenOfItsLockAndTokensIncrease() throws Exception {
		FutureTask<Void> job = new FutureTask<>(this::readTokens, null);
		new Thread(job).start();
		job.get();
	}

	private void readTokens() {
		assertThat(RedisLockProvider.fencingToken()).isEmpty();
		SimpleLock first = getLockProvider().lock(lockConfig(LOCK_NAME1)).orElseThrow();
		long token = RedisLockProvider.fencingToken().orElseThrow();
		first.unlock();
		assertThat(RedisLockProvider.fencingToken()).isEmpty();
		SimpleLock second = getLockProvider().lock(lockConfig(LOCK_NAME1)).orElseThrow();
		assertThat(RedisLockProvider.fencingToken().orElseThrow()).isGreaterThan(token);
		second.unlock();
	}

	// ShedLock reads the application's clock through ClockProvider: for a lock's
	// createdAt
	// and, in its own Redis providers, again at unlock, to turn createdAt +
	// lockAtLeastFor into an expiry. Here one instance's clock is off by seconds,
	// steadily
	// or stepped while the job runs; the other's is right. The provider reads neither:
	// the
	// hold ends lockAtLeastFor after the acquisition in Redis' time, so the other
	// instance
	// gets the lock after about 1 s, neither at once nor 5 s later.
	@ParameterizedTest(name = "clock {0} s off at the lock, {1} s at the unlock")
	@CsvSource({ "5, 5", "-5, -5", "5, 0", "0, 5" })
	void lockAtLeastForEndsWhenRedisSaysWhateverTheInstancesClockSays(long skewAtLock, long skewAtUnlock) {
		Duration lockAtLeastFor = Duration.ofSeconds(1);
		RedisLockProvider otherInstance = new RedisLockProvider(this.observer);
		long acquired;
		try {
			ClockProvider.setClock(Clock.offset(Clock.systemUTC(), Duration.ofSeconds(skewAtLock)));
			// before the call: Redis grants it after this, and the minimum hold counts
			// from
			// the grant (on a loaded machine the reply may come long after it)
			acquired = System.nanoTime();
			SimpleLock lock = getLockProvider()
				.lock(new LockConfiguration(ClockProvider.now(), LOCK_NAME1, Duration.ofSeconds(10), lockAtLeastFor))
				.orElseThrow();
			ClockProvider.setClock(Clock.offset(Clock.systemUTC(), Duration.ofSeconds(skewAtUnlock)));
			lock.unlock();
		}
		finally {
			ClockProvider.setClock(Clock.systemUTC());
		}
		LockConfiguration other = new LockConfiguration(ClockProvider.now(), LOCK_NAME1, Duration.ofSeconds(10),
				Duration.ZERO);
		assertThat(otherInstance.lock(other)).as("right after the short run").isEmpty();
		// 4 s: wide of the 1 s it takes, short of the 6 s a clock 5 s behind would give
		SimpleLock taken = await().atMost(Duration.ofSeconds(4))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> otherInstance.lock(other), Optional::isPresent)
			.orElseThrow();
		assertThat(Duration.ofNanos(System.nanoTime() - acquired)).isGreaterThan(lockAtLeastFor.minusMillis(100));
		taken.unlock();
	}

	// names ShedLock accepts that a Redis Cluster hash tag cannot hold as they are
	@Test
	void everyNameShedLockAcceptsLocks() {
		for (String name : List.of("report{tenant-7}", "a}b", "x".repeat(1100))) {
			SimpleLock lock = getLockProvider().lock(lockConfig(name)).orElseThrow();
			assertLocked(name);
			assertThat(getLockProvider().lock(lockConfig(name))).as("'%s' taken again", name).isEmpty();
			lock.unlock();
			assertUnlocked(name);
		}
	}

}
