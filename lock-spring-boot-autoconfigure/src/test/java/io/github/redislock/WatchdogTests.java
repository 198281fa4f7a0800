package io.github.redislock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.internal.LockInspector;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class WatchdogTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final Duration TIMEOUT = LockTestClients.TEST_WATCHDOG_TIMEOUT;

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	private RedisLockClient client;

	private StringRedisTemplate redisTemplate;

	@BeforeEach
	void createClient() {
		this.client = this.clients.newClient(TIMEOUT);
		this.redisTemplate = this.clients.newTemplate();
	}

	@Test
	void watchdogKeepsTheLockHeldForManyTimesItsTimeoutAndStopsAfterUnlock() {
		RedisLock lock = this.client.getLock(LockTestClients.uniqueName());
		lock.lock();
		assertThat(lock.remainingLease()).isLessThanOrEqualTo(TIMEOUT);
		await().pollInSameThread()
			.during(TIMEOUT.multipliedBy(5))
			.atMost(TIMEOUT.multipliedBy(7))
			.until(lock::isHeldByCurrentThread);
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
		assertThat(inspector().watchdogCount()).isZero();
		assertThat(inspector().heldCount()).isZero();
	}

	@Test
	void lockOfAThreadThatDiedWithoutUnlockingExpires() throws Exception {
		RedisLock lock = this.client.getLock(LockTestClients.uniqueName());
		Thread thread = new Thread(lock::lock);
		thread.start();
		thread.join();
		assertThat(lock.isLocked()).isTrue();
		await().atMost(TIMEOUT.multipliedBy(4)).until(() -> !lock.isLocked());
		assertThat(inspector().watchdogCount()).isZero();
		assertThat(inspector().heldCount()).isZero();
	}

	@Test
	void lockDeletedBehindTheHoldersBackIsNoLongerRenewedAndUnlockReportsIt() {
		RedisLock lock = this.client.getLock(LockTestClients.uniqueName());
		lock.lock();
		this.redisTemplate.delete("lock:{" + lock.getName() + "}");
		inspector().renewNow();
		assertThat(inspector().watchdogCount()).isZero();
		assertThat(lock.isLocked()).isFalse();
		assertThatThrownBy(lock::unlock).isInstanceOf(LeaseExpiredException.class)
			.hasMessageContaining("watchdog lease of 1.5s was not renewed");
	}

	@Test
	void theLeaseLostListenerHearsWhenTheWatchdogFindsTheLockGone() {
		List<LeaseLostEvent> events = new CopyOnWriteArrayList<>();
		RedisLockClient listened = RedisLockClient.builder(this.clients.newConnectionFactory())
			.watchdogTimeout(TIMEOUT)
			.leaseLostListener(events::add)
			.build();
		try {
			RedisLock lock = listened.getLock(LockTestClients.uniqueName());
			lock.lock();
			this.redisTemplate.delete("lock:{" + lock.getName() + "}");
			LockTestClients.inspector(listened).renewNow();
			assertThat(events).singleElement().satisfies((event) -> {
				assertThat(event.lockName()).isEqualTo(lock.getName());
				assertThat(event.lockKey()).isEqualTo("lock:{" + lock.getName() + "}");
				assertThat(event.threadName()).isEqualTo(Thread.currentThread().getName());
				assertThat(event.watchdog()).isTrue();
				assertThat(event.lease()).isEqualTo(TIMEOUT);
				assertThat(event.detectedBy()).isEqualTo(LeaseLostEvent.DetectedBy.WATCHDOG);
			});
			assertThatThrownBy(lock::unlock).isInstanceOf(LeaseExpiredException.class);
		}
		finally {
			listened.close();
		}
	}

	@Test
	void oneRenewalRoundRenewsManyLocksInFewScriptCalls() throws Exception {
		LettuceConnectionFactory factory = this.clients.newConnectionFactory();
		List<String> commands = LockTestClients.recordCommands(factory);
		try (RedisLockClient counted = RedisLockClient.builder(factory)
			.watchdogTimeout(Duration.ofMinutes(10))
			.build()) {
			List<RedisLock> locks = new java.util.ArrayList<>();
			for (int i = 0; i < 300; i++) {
				RedisLock lock = counted.getLock(LockTestClients.uniqueName());
				lock.lock();
				locks.add(lock);
			}
			commands.clear();
			LockTestClients.inspector(counted).renewNow();
			// 300 locks, at most 256 per call on a standalone Redis
			assertThat(commands).containsExactly("EVALSHA", "EVALSHA");
			for (RedisLock lock : locks) {
				lock.unlock();
			}
			assertThat(LockTestClients.inspector(counted).watchdogCount()).isZero();
		}
	}

	@Test
	void oneRenewalRoundRenewsEveryKindWithItsOwnScript() throws Exception {
		LettuceConnectionFactory factory = this.clients.newConnectionFactory();
		List<String> commands = LockTestClients.recordCommands(factory);
		try (RedisLockClient counted = RedisLockClient.builder(factory)
			.watchdogTimeout(Duration.ofMinutes(10))
			.build()) {
			String name = LockTestClients.uniqueName();
			RedisLock exclusive = counted.getLock(name);
			RedisLock read = counted.getReadWriteLock(name).readLock();
			RedisLock write = counted.getReadWriteLock(name + ":w").writeLock();
			RedisLock fair = counted.getFairLock(name);
			List<RedisLock> locks = List.of(exclusive, read, write, fair);
			List<String> keys = List.of("lock:{" + name + "}", "lock:{" + name + "}:rw", "lock:{" + name + ":w}:rw",
					"lock:{" + name + "}:fair");
			for (RedisLock lock : locks) {
				lock.lock();
			}
			// once first, so that Redis has every renewal script below
			LockTestClients.inspector(counted).renewNow();
			for (String key : keys) {
				this.redisTemplate.expire(key, Duration.ofSeconds(60));
			}
			// a minute left of every lease: a renewal sets it to the watchdog's ten
			this.redisTemplate.expire("lock:{" + name + "}:rw:readers", Duration.ofSeconds(60));
			commands.clear();
			LockTestClients.inspector(counted).renewNow();
			// exclusive and fair locks share a script; the read and the write side each
			// have theirs (standalone: every lock in one batch)
			assertThat(commands).containsExactly("EVALSHA", "EVALSHA", "EVALSHA");
			for (String key : keys) {
				assertThat(this.redisTemplate.getExpire(key)).as(key).isGreaterThan(60);
			}
			assertThat(this.redisTemplate.getExpire("lock:{" + name + "}:rw:readers")).isGreaterThan(60);
			for (RedisLock lock : locks) {
				assertThat(lock.isHeldByCurrentThread()).isTrue();
				lock.unlock();
			}
			assertThat(LockTestClients.inspector(counted).watchdogCount()).isZero();
		}
	}

	private LockInspector inspector() {
		return LockTestClients.inspector(this.client);
	}

}
