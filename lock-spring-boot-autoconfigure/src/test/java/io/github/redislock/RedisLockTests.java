package io.github.redislock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.internal.LockNames;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

class RedisLockTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	private RedisLockClient client;

	private StringRedisTemplate redisTemplate;

	@BeforeEach
	void createClient() {
		this.client = this.clients.newClient();
		this.redisTemplate = this.clients.newTemplate();
	}

	@Test
	void lockAndUnlockLeaveNoKeyBehind() {
		RedisLock lock = this.client.getLock(LockTestClients.uniqueName());
		lock.lock();
		assertThat(this.redisTemplate.hasKey("lock:{" + lock.getName() + "}")).isTrue();
		assertThat(lock.isLocked()).isTrue();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		lock.unlock();
		assertThat(this.redisTemplate.hasKey("lock:{" + lock.getName() + "}")).isFalse();
		assertThat(lock.isLocked()).isFalse();
		assertThat(LockTestClients.inspector(this.client).heldCount()).isZero();
		assertThat(LockTestClients.inspector(this.client).watchdogCount()).isZero();
	}

	@Test
	void lockIsAHashOfOwnerToHoldCountWithAMillisecondLease() {
		RedisLock lock = this.client.getLock(LockTestClients.uniqueName());
		lock.lock(Duration.ofMillis(12_345));
		String key = "lock:{" + lock.getName() + "}";
		assertThat(this.redisTemplate.type(key).code()).isEqualTo("hash");
		java.util.Map<String, String> fields = this.redisTemplate.<String, String>opsForHash().entries(key);
		assertThat(fields).hasSize(3).containsEntry("token", Long.toString(lock.fencingToken()));
		fields.remove("token");
		// the holder's client, so that another client's waiter can mark the lock
		// contended
		assertThat(fields.remove("client")).matches("[0-9a-f-]{36}:");
		assertThat(fields.keySet().iterator().next()).matches("[0-9a-f-]{36}:" + Thread.currentThread().getId());
		assertThat(fields.values()).containsExactly("1");
		assertThat(this.redisTemplate.getExpire(key, TimeUnit.MILLISECONDS)).isBetween(10_000L, 12_345L);
		lock.unlock();
	}

	@Test
	void reentrantHoldsAreCountedAndTheKeyGoesOnlyAfterTheLastUnlock() {
		RedisLock lock = this.client.getLock(LockTestClients.uniqueName());
		lock.lock();
		assertThat(lock.tryLock()).isTrue();
		lock.lock(Duration.ofSeconds(5));
		assertThat(lock.getHoldCount()).isEqualTo(3);
		lock.unlock();
		lock.unlock();
		assertThat(lock.getHoldCount()).isEqualTo(1);
		assertThat(lock.isLocked()).isTrue();
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
		assertThat(lock.getHoldCount()).isZero();
	}

	@Test
	void uncontendedAcquireAndReleaseAreOneRoundTripEach() {
		LettuceConnectionFactory factory = this.clients.newConnectionFactory();
		List<String> commands = LockTestClients.recordCommands(factory);
		RedisLockClient counted = RedisLockClient.builder(factory).build();
		try {
			RedisLock lock = counted.getLock(LockTestClients.uniqueName());
			lock.lock();
			lock.unlock();
			commands.clear();
			lock.lock();
			assertThat(commands).containsExactly("EVALSHA");
			commands.clear();
			lock.unlock();
			assertThat(commands).containsExactly("EVALSHA");
		}
		finally {
			counted.close();
		}
	}

	@Test
	void aNestedAcquisitionWithALeaseAsksRedisOnlyWhenItLengthensTheLease() throws Exception {
		LettuceConnectionFactory factory = this.clients.newConnectionFactory();
		List<String> commands = LockTestClients.recordCommands(factory);
		RedisLockClient counted = RedisLockClient.builder(factory).build();
		try {
			RedisLock lock = counted.getLock(LockTestClients.uniqueName());
			lock.lock(Duration.ofMinutes(2));
			commands.clear();
			// shorter than what is left: Redis would keep its expiry, so it is not asked
			lock.lock(Duration.ofSeconds(30));
			assertThat(lock.tryLock(Duration.ZERO, Duration.ofMinutes(1))).isTrue();
			// under the watchdog (30 s by default) inside a longer lease: nothing to do
			lock.lock();
			assertThat(commands).as("nested acquisitions within the lease").isEmpty();
			// (the hold count is checked against Redis)
			assertThat(lock.getHoldCount()).isEqualTo(4);
			commands.clear();
			// longer: Redis lengthens the expiry
			lock.lock(Duration.ofMinutes(5));
			assertThat(commands).containsExactly("EVALSHA");
			assertThat(lock.remainingLease()).isGreaterThan(Duration.ofMinutes(4));
			// within the lengthened lease now: not asked again
			commands.clear();
			lock.lock(Duration.ofMinutes(3));
			assertThat(commands).isEmpty();
			for (int i = 0; i < 5; i++) {
				lock.unlock();
			}
			assertThat(commands).as("nested releases").isEmpty();
			lock.unlock();
			assertThat(commands).as("the last release").containsExactly("EVALSHA");
			assertThat(lock.isLocked()).isFalse();
			// and under an outer watchdog lease, a nested lease shorter than the
			// watchdog's is not asked for either
			lock.lock();
			commands.clear();
			lock.lock(Duration.ofSeconds(5));
			assertThat(commands).isEmpty();
			lock.unlock();
			lock.unlock();
			assertThat(lock.isLocked()).isFalse();
		}
		finally {
			counted.close();
		}
	}

	@Test
	void reentryUnderTheWatchdogSendsNothingToRedisAndAFixedLeaseDoes() {
		LettuceConnectionFactory factory = this.clients.newConnectionFactory();
		List<String> commands = LockTestClients.recordCommands(factory);
		RedisLockClient counted = RedisLockClient.builder(factory).build();
		try {
			RedisLock lock = counted.getLock(LockTestClients.uniqueName());
			lock.lock();
			commands.clear();
			lock.lock();
			assertThat(lock.tryLock()).isTrue();
			lock.unlock();
			lock.unlock();
			assertThat(commands).as("nested holds under the watchdog").isEmpty();
			// a fixed lease may lengthen the lock's expiry: Redis is asked
			lock.lock(Duration.ofMinutes(5));
			assertThat(commands).containsExactly("EVALSHA");
			assertThat(lock.remainingLease()).isGreaterThan(Duration.ofMinutes(4));
			lock.unlock();
			commands.clear();
			assertThat(lock.getHoldCount()).isOne();
			lock.unlock();
			assertThat(commands).as("the last release").contains("EVALSHA");
			assertThat(lock.isLocked()).isFalse();
		}
		finally {
			counted.close();
		}
	}

	@Test
	void aLeaseLostUnderLocalNestedHoldsIsReportedAtTheLastUnlock() {
		RedisLock lock = this.client.getLock(LockTestClients.uniqueName());
		lock.lock();
		lock.lock();
		assertThat(this.clients.newClient().getLock(lock.getName()).forceUnlock()).isTrue();
		// the nested release is this client's own count; the outermost one asks Redis
		lock.unlock();
		assertThatExceptionOfType(LeaseExpiredException.class).isThrownBy(lock::unlock);
		assertThat(lock.getHoldCount()).isZero();
		assertThat(LockTestClients.inspector(this.client).heldCount()).isZero();
	}

	@Test
	void reentryAfterTheWatchdogFoundTheLeaseLostTakesTheLockAnew() {
		RedisLockClient shortLeases = this.clients.newClient(LockTestClients.TEST_WATCHDOG_TIMEOUT);
		RedisLock lock = shortLeases.getLock(LockTestClients.uniqueName());
		lock.lock();
		String key = "lock:{" + lock.getName() + "}";
		long firstToken = lock.fencingToken();
		// taken away behind the client's back: the watchdog's next renewal finds it gone
		this.redisTemplate.delete(key);
		await().atMost(Duration.ofSeconds(10)).until(() -> LockTestClients.inspector(shortLeases).watchdogCount() == 0);
		lock.lock();
		assertThat(lock.fencingToken()).as("a new acquisition, not a nested hold").isGreaterThan(firstToken);
		assertThat(this.redisTemplate.hasKey(key)).isTrue();
		lock.unlock();
		assertThat(this.redisTemplate.hasKey(key)).isFalse();
	}

	@Test
	void tryLockGivesUpNoEarlierThanTheWaitTimeAndNotMuchLater() throws Exception {
		String name = LockTestClients.uniqueName();
		this.client.getLock(name).lock();
		RedisLock contender = this.clients.newClient().getLock(name);
		Duration waitTime = Duration.ofMillis(400);
		long start = System.nanoTime();
		boolean acquired = contender.tryLock(waitTime, null);
		Duration waited = Duration.ofNanos(System.nanoTime() - start);
		assertThat(acquired).isFalse();
		assertThat(waited).isGreaterThanOrEqualTo(waitTime).isLessThan(waitTime.plusMillis(300));
		assertThat(contender.isHeldByCurrentThread()).isFalse();
	}

	@Test
	void tryLockWithoutWaitFailsAtOnceWhenAnotherClientHoldsTheLock() {
		String name = LockTestClients.uniqueName();
		this.client.getLock(name).lock();
		RedisLock contender = this.clients.newClient().getLock(name);
		assertThat(contender.tryLock()).isFalse();
		assertThat(LockTestClients.inspector(this.client).subscribedCount()).isZero();
	}

	@Test
	void waiterAcquiresPromptlyAfterReleaseLongBeforeTheLeaseEnds() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.client.getLock(name);
		holder.lock(Duration.ofSeconds(30));
		RedisLockClient other = this.clients.newClient();
		assertThat(LockTestClients.handOffTime(holder, other)).isLessThan(Duration.ofSeconds(1));
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(other).subscribedCount() == 0);
	}

	@Test
	void expiredLeaseLetsAnotherClientInAndTheFirstHoldersUnlockReportsTheExpiry() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock first = this.client.getLock(name);
		first.lock(Duration.ofMillis(200));
		RedisLock second = this.clients.newClient().getLock(name);
		assertThat(second.tryLock(Duration.ofSeconds(5), Duration.ofSeconds(5))).isTrue();
		assertThat(first.isHeldByCurrentThread()).isFalse();
		assertThatThrownBy(first::unlock).isInstanceOf(LeaseExpiredException.class)
			.hasMessageContaining("'" + name + "'")
			.hasMessageContaining("its lease of 200ms ran out")
			.hasMessageContaining("acquired by this thread");
		assertThat(second.isHeldByCurrentThread()).isTrue();
		second.unlock();
	}

	@Test
	void theLeaseLostListenerHearsWhenAnUnlockFindsTheLeaseExpired() throws Exception {
		List<LeaseLostEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
		RedisLockClient listened = RedisLockClient.builder(this.clients.newConnectionFactory())
			.leaseLostListener(events::add)
			.build();
		try {
			RedisLock lock = listened.getLock(LockTestClients.uniqueName());
			lock.lock(Duration.ofMillis(100));
			await().atMost(Duration.ofSeconds(5)).until(() -> !lock.isLocked());
			assertThatThrownBy(lock::unlock).isInstanceOf(LeaseExpiredException.class);
			assertThat(events).singleElement().satisfies((event) -> {
				assertThat(event.lockName()).isEqualTo(lock.getName());
				assertThat(event.watchdog()).isFalse();
				assertThat(event.lease()).isEqualTo(Duration.ofMillis(100));
				assertThat(event.heldFor()).isGreaterThanOrEqualTo(Duration.ofMillis(100));
				assertThat(event.detectedBy()).isEqualTo(LeaseLostEvent.DetectedBy.UNLOCK);
			});
		}
		finally {
			listened.close();
		}
	}

	@Test
	void unlockByAThreadThatDoesNotHoldTheLockIsRejected() throws Exception {
		RedisLock lock = this.client.getLock(LockTestClients.uniqueName());
		assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class)
			.isNotInstanceOf(LeaseExpiredException.class)
			.hasMessageContaining(lock.getName());
		lock.lock();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		Thread other = new Thread(() -> {
			try {
				lock.unlock();
			}
			catch (Throwable ex) {
				failure.set(ex);
			}
		});
		other.start();
		other.join();
		assertThat(failure.get()).isInstanceOf(IllegalMonitorStateException.class);
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		lock.unlock();
		assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
	}

	@Test
	void forceUnlockFreesTheLockAndWakesAWaiter() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.client.getLock(name);
		holder.lock();
		RedisLockClient other = this.clients.newClient();
		CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
			RedisLock lock = other.getLock(name);
			try {
				boolean acquired = lock.tryLock(Duration.ofSeconds(20), null);
				lock.unlock();
				return acquired;
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.perTask());
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(other).waitingCount() == 1);
		assertThat(this.clients.newClient().getLock(name).forceUnlock()).isTrue();
		assertThat(waiter.get(2, TimeUnit.SECONDS)).isTrue();
		assertThatThrownBy(holder::unlock).isInstanceOf(LeaseExpiredException.class)
			.hasMessageContaining("force-unlocked");
		assertThat(holder.forceUnlock()).isFalse();
	}

	@Test
	void interruptWhileWaitingLeavesNothingHeldSubscribedOrQueued() throws Exception {
		String name = LockTestClients.uniqueName();
		this.client.getLock(name).lock();
		RedisLockClient other = this.clients.newClient();
		AtomicReference<Throwable> outcome = new AtomicReference<>();
		CountDownLatch done = new CountDownLatch(1);
		Thread waiter = new Thread(() -> {
			try {
				other.getLock(name).lockInterruptibly();
				outcome.set(new AssertionError("acquired"));
			}
			catch (Throwable ex) {
				outcome.set(ex);
			}
			done.countDown();
		});
		waiter.start();
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(other).waitingCount() == 1);
		waiter.interrupt();
		assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
		assertThat(LockTestClients.inspector(other).waitingCount()).isZero();
		assertThat(LockTestClients.inspector(other).heldCount()).isZero();
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(other).subscribedCount() == 0);
		assertThat(redis.command("PUBSUB", "NUMSUB", "lock:{" + name + "}:released")).endsWith("\n0");
	}

	@Test
	void alreadyInterruptedThreadIsRefusedByLockInterruptiblyButNotByLock() throws Exception {
		RedisLock lock = this.client.getLock(LockTestClients.uniqueName());
		Thread.currentThread().interrupt();
		assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(InterruptedException.class);
		assertThat(lock.isLocked()).isFalse();
		Thread.currentThread().interrupt();
		lock.lock();
		assertThat(Thread.interrupted()).isTrue();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		lock.unlock();
	}

	@Test
	void fencingTokenIsRefusedToAThreadThatDoesNotHoldTheLock() {
		// that tokens increase from hold to hold and stay across re-entry:
		// LockKindContract
		assertThatThrownBy(this.client.getLock(LockTestClients.uniqueName())::fencingToken)
			.isInstanceOf(IllegalMonitorStateException.class)
			.hasMessageContaining("not held");
	}

	@Test
	void remainingLeaseIsZeroWhenFreeAndTheHoldersLeaseOtherwise() {
		RedisLock lock = this.client.getLock(LockTestClients.uniqueName());
		assertThat(lock.remainingLease()).isZero();
		lock.lock(Duration.ofSeconds(10));
		assertThat(lock.remainingLease()).isBetween(Duration.ofSeconds(8), Duration.ofSeconds(10));
		lock.unlock();
	}

	@Test
	void withLockRunsTheActionUnderTheLockAndReleasesItAlsoOnFailure() {
		String name = LockTestClients.uniqueName();
		String result = this.client.withLock(name, Duration.ZERO, null,
				() -> this.client.getLock(name).isHeldByCurrentThread() ? "held" : "not held");
		assertThat(result).isEqualTo("held");
		assertThat(this.client.getLock(name).isLocked()).isFalse();
		assertThatThrownBy(() -> this.client.withLock(name, Duration.ZERO, Duration.ofSeconds(5), () -> {
			throw new IllegalStateException("boom");
		})).hasMessage("boom");
		assertThat(this.client.getLock(name).isLocked()).isFalse();
	}

	@Test
	void withLockThrowsLockNotAcquiredExceptionNamingTheLockAndTheWait() {
		String name = LockTestClients.uniqueName();
		this.clients.newClient().getLock(name).lock();
		assertThatThrownBy(() -> this.client.withLock(name, Duration.ofMillis(50), null, () -> {
		})).isInstanceOfSatisfying(LockNotAcquiredException.class, (ex) -> {
			assertThat(ex.getLockName()).isEqualTo(name);
			assertThat(ex.getWaitTime()).isEqualTo(Duration.ofMillis(50));
		}).hasMessage("Could not acquire lock '" + name + "' within 50ms: another holder kept it");
	}

	@Test
	void badNamesAndDurationsAreRejectedWithMessagesNamingThem() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.client.getLock(null)).withMessageContaining("null");
		assertThatIllegalArgumentException().isThrownBy(() -> this.client.getLock("  ")).withMessageContaining("blank");
		// any other name is a lock (LockNameTests): its keys carry a hash of it
		assertThat(this.client.getLock("a{b}").getName()).isEqualTo("a{b}");
		assertThat(this.client.getLock("x".repeat(2000)).getName()).hasSize(2000);
		RedisLock lock = this.client.getLock(LockTestClients.uniqueName());
		assertThatIllegalArgumentException().isThrownBy(() -> lock.lock(Duration.ZERO))
			.withMessageContaining("leaseTime of lock '" + lock.getName() + "'");
		assertThatIllegalArgumentException().isThrownBy(() -> lock.tryLock(Duration.ofSeconds(-1), null))
			.withMessageContaining("waitTime")
			.withMessageContaining("negative");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> lock.tryLock(Duration.ofSeconds(1), Duration.ofMillis(-5)))
			.withMessageContaining("leaseTime");
		assertThat(lock.isLocked()).isFalse();
	}

	// the client reuses the keys of names it locked last, by the name's hash: names
	// whose hashes collide, and the other kinds of lock of a name, get their own keys
	@Test
	void namesWhoseHashesCollideAndOtherKindsOfTheSameNameLockTheirOwnKeys() throws Exception {
		String prefix = LockTestClients.uniqueName();
		assertThat((prefix + "Aa").hashCode()).isEqualTo((prefix + "BB").hashCode());
		for (int round = 0; round < 2; round++) {
			RedisLock first = this.client.getLock(prefix + "Aa");
			RedisLock second = this.client.getLock(prefix + "BB");
			first.lock();
			second.lock();
			RedisFairLock fair = this.client.getFairLock(prefix + "Aa");
			fair.lock();
			RedisReadWriteLock readWrite = this.client.getReadWriteLock(prefix + "Aa");
			readWrite.readLock().lock();
			assertThat(this.redisTemplate.hasKey("lock:{" + prefix + "Aa}")).isTrue();
			assertThat(this.redisTemplate.hasKey("lock:{" + prefix + "BB}")).isTrue();
			assertThat(this.redisTemplate.hasKey("lock:{" + prefix + "Aa}:fair")).isTrue();
			assertThat(this.redisTemplate.hasKey("lock:{" + prefix + "Aa}:rw")).isTrue();
			assertThat(LockTestClients.inspector(this.client).heldCount()).isEqualTo(4);
			readWrite.readLock().unlock();
			fair.unlock();
			second.unlock();
			assertThat(this.redisTemplate.hasKey("lock:{" + prefix + "BB}")).isFalse();
			assertThat(first.isLocked()).isTrue();
			first.unlock();
			assertThat(this.redisTemplate.keys("lock:{" + prefix + "*")).isEmpty();
		}
		// a name with a brace has a hashed tag of its own, whatever its String hash
		RedisLock braced = this.client.getLock(prefix + "A{a");
		braced.lock();
		assertThat(this.redisTemplate.hasKey("lock:{" + LockNames.hashTag(prefix + "A{a") + "}")).isTrue();
		braced.unlock();
	}

	@Test
	void aKeyOfAnotherTypeUnderTheLockNameGivesAClearErrorAndHarmsNoOtherLock() {
		String name = LockTestClients.uniqueName();
		this.redisTemplate.opsForValue().set("lock:{" + name + "}", "not a lock");
		RedisLock lock = this.client.getLock(name);
		assertThatThrownBy(lock::tryLock).isInstanceOf(RedisLockException.class)
			.hasMessageContaining("Could not acquire lock '" + name + "' (key 'lock:{" + name + "}')")
			.hasMessageContaining("WRONGTYPE");
		assertThat(this.redisTemplate.opsForValue().get("lock:{" + name + "}")).isEqualTo("not a lock");
		RedisLock other = this.client.getLock(LockTestClients.uniqueName());
		assertThat(other.tryLock()).isTrue();
		other.unlock();
		assertThat(LockTestClients.inspector(this.client).heldCount()).isZero();
	}

	@Test
	void aHoldWhoseReplyNeverArrivedIsTakenOverByItsOwnerAndFreedByItsUnlock() {
		RedisLock lock = this.client.getLock(LockTestClients.uniqueName());
		String key = "lock:{" + lock.getName() + "}";
		lock.lock();
		String owner = this.redisTemplate.<String, String>opsForHash()
			.keys(key)
			.stream()
			.filter((field) -> !field.equals("token"))
			.findFirst()
			.orElseThrow();
		long earlier = lock.fencingToken();
		lock.unlock();
		// as if an acquire had run in Redis but its reply had been lost on the way back
		// (or a release had never arrived)
		this.redisTemplate.opsForHash().putAll(key, java.util.Map.of(owner, "1", "token", Long.toString(earlier)));
		this.redisTemplate.expire(key, Duration.ofSeconds(30));
		assertThat(lock.tryLock()).isTrue();
		assertThat(lock.getHoldCount()).isEqualTo(1);
		// taken over with a new token: its client may have passed the lock on, with
		// tokens above the stored one, since that hold was taken
		assertThat(lock.fencingToken()).isGreaterThan(earlier);
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void newConditionIsUnsupportedAndSaysWhy() {
		RedisLock lock = this.client.getLock(LockTestClients.uniqueName());
		assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class)
			.hasMessageContaining("does not support conditions");
	}

	@Test
	void unlockTrustsTheOwnersCountSoALostNestedAcquireReplyCannotLeaveTheLockHeld() {
		RedisLock lock = this.client.getLock(LockTestClients.uniqueName());
		lock.lock();
		String key = "lock:{" + lock.getName() + "}";
		String owner = this.redisTemplate.<String, String>opsForHash()
			.keys(key)
			.stream()
			.filter((field) -> !field.equals("token"))
			.findFirst()
			.orElseThrow();
		// a nested acquire that ran in Redis but whose reply was lost
		this.redisTemplate.opsForHash().increment(key, owner, 1);
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
		assertThat(LockTestClients.inspector(this.client).heldCount()).isZero();
	}

	@Test
	void timedTryLockFollowsTheLockContractForZeroNegativeAndHugeWaits() throws Exception {
		RedisLock lock = this.client.getLock(LockTestClients.uniqueName());
		assertThat(lock.tryLock(-1, TimeUnit.SECONDS)).isTrue();
		lock.unlock();
		assertThat(lock.tryLock(Long.MAX_VALUE, TimeUnit.DAYS)).isTrue();
		lock.unlock();
		assertThat(lock.tryLock(Duration.ofSeconds(Long.MAX_VALUE), null)).isTrue();
		lock.unlock();
		RedisLock held = this.clients.newClient().getLock(lock.getName());
		held.lock();
		long start = System.nanoTime();
		assertThat(lock.tryLock(-1, TimeUnit.SECONDS)).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
	}

	@Test
	void aClosedClientRefusesToAcquireInsteadOfTakingALockNothingRenews() {
		RedisLockClient closed = this.clients.newClient();
		closed.close();
		assertThatThrownBy(() -> closed.getLock("after-close").lock()).isInstanceOf(IllegalStateException.class)
			.hasMessage("The lock client is closed; cannot acquire lock 'after-close'");
		assertThat(this.client.getLock("after-close").isLocked()).isFalse();
	}

	/**
	 * A client closed while its first waiter's pub/sub connection is being opened: the
	 * close fails the opening while the opener thread, stopped by the close, fails it
	 * too, and both run the waiter's continuations. Once, in CI, the close held the
	 * pub/sub transport's monitor while a continuation waited for a channel's, and the
	 * opener held that channel's while it waited for the transport's: the close never
	 * returned. Closed at a range of moments after the waiter started, every close ends
	 * and every waiter is told.
	 */
	@Test
	void closingAClientWhileItsFirstWaiterSubscribesEndsAndTellsTheWaiter() throws Exception {
		RedisLock held = this.client.getLock(LockTestClients.uniqueName());
		held.lock();
		for (int round = 0; round < 60; round++) {
			// not closed again after the test: a close that never ended would hang it
			RedisLockClient closing = RedisLockClient.builder(this.clients.newTemplate()).build();
			CompletableFuture<LockHandle> waiter = closing.acquireAsync(held.getName(), Duration.ofSeconds(30), null);
			LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100L * (round % 20)));
			CompletableFuture<Void> closed = CompletableFuture.runAsync(closing::close, TestThreads.perTask());
			assertThat(closed).as("round %d: the close", round).succeedsWithin(Duration.ofSeconds(20));
			// told, not left waiting: failsWithin would also pass on a timeout
			assertThatThrownBy(() -> waiter.get(20, TimeUnit.SECONDS)).as("round %d: the waiter", round)
				.isInstanceOf(ExecutionException.class)
				.hasRootCauseMessage("The lock client is closed");
		}
		held.unlock();
	}

	@Test
	void extendSetsTheThreadsLeaseExactlyShorterOrLongerForAllItsHoldsAndEndsWatchdogRenewal() {
		String name = LockTestClients.uniqueName();
		RedisLock lock = this.client.getLock(name);
		lock.lock();
		assertThat(lock.extend(Duration.ofSeconds(30))).isTrue();
		assertThat(lock.remainingLease()).isGreaterThan(Duration.ofSeconds(29));
		assertThat(LockTestClients.inspector(this.client).watchdogCount()).isZero();
		lock.lock();
		assertThat(lock.extend(Duration.ofSeconds(10))).isTrue();
		assertThat(lock.remainingLease()).isBetween(Duration.ofSeconds(9), Duration.ofSeconds(10));
		LockTestClients.inspector(this.client).renewNow();
		assertThat(lock.remainingLease()).isLessThanOrEqualTo(Duration.ofSeconds(10));
		assertThatIllegalArgumentException().isThrownBy(() -> lock.extend(Duration.ZERO))
			.withMessageContaining("leaseTime of lock '" + name + "' must be at least 1ms");
		lock.unlock();
		assertThat(lock.remainingLease()).as("one hold left, same lease")
			.isBetween(Duration.ofSeconds(8), Duration.ofSeconds(10));
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void extendIsRefusedToAThreadThatDoesNotHoldTheLock() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock lock = this.client.getLock(name);
		assertThat(lock.extend(Duration.ofSeconds(10))).as("never taken").isFalse();
		assertThat(this.redisTemplate.hasKey("lock:{" + name + "}")).as("extend created no lock").isFalse();
		lock.lock();
		assertThat(CompletableFuture.supplyAsync(() -> lock.extend(Duration.ofSeconds(10)), TestThreads.perTask())
			.get(10, TimeUnit.SECONDS)).as("another thread").isFalse();
		assertThat(lock.forceUnlock()).isTrue();
		assertThat(lock.extend(Duration.ofSeconds(10))).as("force-unlocked").isFalse();
		assertThat(this.redisTemplate.hasKey("lock:{" + name + "}")).as("extend created no lock").isFalse();
		assertThatExceptionOfType(LeaseExpiredException.class).isThrownBy(lock::unlock);
	}

}
