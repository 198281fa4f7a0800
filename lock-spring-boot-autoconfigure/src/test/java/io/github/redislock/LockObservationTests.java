package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.RedisServerExtension;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.StringRedisTemplate;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Acquisitions and holds as Micrometer observations: one per acquire, tagged with its
 * outcome, and one per hold from the first acquisition to the last release. Tags carry
 * the name up to its first ':', never the whole name.
 */
class LockObservationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	private final TestObservationRegistry observations = TestObservationRegistry.create();

	private RedisLockClient client;

	private String group;

	@BeforeEach
	void createClient() {
		this.client = this.clients.newClient((builder) -> builder.observationRegistry(this.observations));
		this.group = LockTestClients.uniqueName();
	}

	@Test
	void acquireAndHoldAreObservedOnceEachAndReentryAddsNoHold() {
		RedisLock lock = this.client.getLock(this.group + ":42");
		lock.lock();
		lock.lock();
		assertThat(this.observations).hasNumberOfObservationsWithNameEqualTo("redis.lock.acquire", 2)
			.hasNumberOfObservationsWithNameEqualTo("redis.lock.hold", 1)
			.forAllObservationsWithNameEqualTo("redis.lock.acquire",
					(observation) -> observation.hasLowCardinalityKeyValue("name", this.group)
						.hasLowCardinalityKeyValue("outcome", "acquired")
						.hasHighCardinalityKeyValue("key", "lock:{" + this.group + ":42}")
						.doesNotHaveError());
		assertThat(this.observations).hasObservationWithNameEqualTo("redis.lock.hold")
			.that()
			.hasBeenStarted()
			.isNotStopped()
			.hasLowCardinalityKeyValue("name", this.group)
			.hasLowCardinalityKeyValue("lease", "watchdog")
			.hasHighCardinalityKeyValue("token", Long.toString(lock.fencingToken()));
		lock.unlock();
		assertThat(this.observations).hasObservationWithNameEqualTo("redis.lock.hold").that().isNotStopped();
		lock.unlock();
		assertThat(this.observations).hasObservationWithNameEqualTo("redis.lock.hold")
			.that()
			.hasBeenStopped()
			.doesNotHaveError();
	}

	@Test
	void handlesAreObservedLikeThreadsAndTheirHoldEndsWhereverTheyAreReleased() throws Exception {
		LockHandle handle = this.client.acquireAsync(this.group + ":7", Duration.ZERO, Duration.ofMinutes(1))
			.get(10, TimeUnit.SECONDS);
		assertThat(this.observations).hasObservationWithNameEqualTo("redis.lock.acquire")
			.that()
			.hasLowCardinalityKeyValue("outcome", "acquired");
		assertThat(this.observations).hasObservationWithNameEqualTo("redis.lock.hold")
			.that()
			.isNotStopped()
			.hasLowCardinalityKeyValue("lease", "fixed")
			.hasHighCardinalityKeyValue("token", Long.toString(handle.fencingToken()));
		CompletableFuture.runAsync(handle::release, TestThreads.perTask()).get(10, TimeUnit.SECONDS);
		assertThat(this.observations).hasObservationWithNameEqualTo("redis.lock.hold")
			.that()
			.hasBeenStopped()
			.doesNotHaveError();
	}

	@Test
	void anAcquireThatGivesUpIsTimedOutAndHoldsNothing() throws Exception {
		RedisLock held = this.clients.newClient().getLock(this.group);
		held.lock();
		assertThat(this.client.getLock(this.group).tryLock(Duration.ofMillis(50), null)).isFalse();
		assertThat(this.client.getLock(this.group).tryLock()).isFalse();
		assertThat(this.observations).hasNumberOfObservationsWithNameEqualTo("redis.lock.acquire", 2)
			.forAllObservationsWithNameEqualTo("redis.lock.acquire",
					(observation) -> observation.hasLowCardinalityKeyValue("outcome", "timed-out"))
			.hasNumberOfObservationsWithNameEqualTo("redis.lock.hold", 0);
	}

	@Test
	void anInterruptedWaitIsObservedAsInterrupted() throws Exception {
		RedisLock held = this.clients.newClient().getLock(this.group);
		held.lock();
		Thread[] waiter = new Thread[1];
		CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
			waiter[0] = Thread.currentThread();
			try {
				this.client.getLock(this.group).lockInterruptibly();
				return null;
			}
			catch (InterruptedException ex) {
				return ex;
			}
		}, TestThreads.perTask());
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(this.client).waitingCount() == 1);
		waiter[0].interrupt();
		assertThat(outcome.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
		assertThat(this.observations).hasObservationWithNameEqualTo("redis.lock.acquire")
			.that()
			.hasLowCardinalityKeyValue("outcome", "interrupted")
			.hasBeenStopped();
	}

	@Test
	void anAcquireRedisRejectsIsAnErrorWithTheException() {
		StringRedisTemplate redisTemplate = this.clients.newTemplate();
		redisTemplate.opsForValue().set("lock:{" + this.group + "}", "not a lock");
		assertThatThrownBy(() -> this.client.getLock(this.group).lock()).isInstanceOf(RedisLockException.class);
		assertThat(this.observations).hasObservationWithNameEqualTo("redis.lock.acquire")
			.that()
			.hasLowCardinalityKeyValue("outcome", "error")
			.assertThatError()
			.isInstanceOf(RedisLockException.class);
	}

	@Test
	void aHoldWhoseLeaseRanOutEndsWithTheLeaseExpiredError() {
		RedisLock lock = this.client.getLock(this.group);
		lock.lock(Duration.ofMillis(100));
		await().atMost(Duration.ofSeconds(5)).until(() -> !lock.isLocked());
		assertThatThrownBy(lock::unlock).isInstanceOf(LeaseExpiredException.class);
		assertThat(this.observations).hasObservationWithNameEqualTo("redis.lock.hold")
			.that()
			.hasLowCardinalityKeyValue("lease", "fixed")
			.hasBeenStopped()
			.assertThatError()
			.isInstanceOf(LeaseExpiredException.class);
	}

	@Test
	void theHoldOfAThreadThatDiedWithoutUnlockingEndsWhenTheWatchdogFindsIt() throws Exception {
		Thread thread = new Thread(() -> this.client.getLock(this.group).lock());
		thread.start();
		thread.join();
		LockTestClients.inspector(this.client).renewNow();
		assertThat(this.observations).hasObservationWithNameEqualTo("redis.lock.hold")
			.that()
			.hasBeenStopped()
			.assertThatError()
			.hasMessageContaining("ended without unlocking lock '" + this.group + "'");
	}

	@Test
	void aFailingObservationHandlerCannotChangeTheLocksOutcome() throws Exception {
		ObservationRegistry failing = ObservationRegistry.create();
		failing.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public void onStart(Observation.Context context) {
				throw new IllegalStateException("broken handler");
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
		RedisLockClient client = this.clients.newClient((builder) -> builder.observationRegistry(failing));
		RedisLock lock = client.getLock(this.group);
		assertThat(lock.tryLock(Duration.ofSeconds(1), null)).isTrue();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
	}

}
