package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redislock.testsupport.FaultProxy;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.RedisServers;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandSucceededEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * How long a lock call takes when Redis dies or freezes under it is set by the lock's own
 * terms (its wait time plus {@code redis-lock.command-timeout}, 2 s by default), not by
 * the connection factory's command timeout. Every factory here keeps Lettuce's default of
 * 60 s, as an application without {@code spring.data.redis.timeout} has it: a call that
 * waited for Lettuce to give up would take a minute and fail these bounds. Each measured
 * time is logged with its bound.
 */
class CommandTimeoutTests {

	private static final Log logger = LogFactory.getLog(CommandTimeoutTests.class);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	/**
	 * What a Lettuce connection factory waits for a command when nobody configures it.
	 */
	private static final Duration LETTUCE_DEFAULT_TIMEOUT = LettuceClientConfiguration.defaultConfiguration()
		.getCommandTimeout();

	/** {@code RedisLockClient.Builder#commandTimeout} when not set. */
	private static final Duration DEFAULT_LOCK_COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private static final Duration WAIT = Duration.ofSeconds(2);

	private static final Duration SLACK = Duration.ofMillis(500);

	/** Lettuce's default with a margin: how long a test waits for a call that hangs. */
	private static final long NO_HANG_SECONDS = LETTUCE_DEFAULT_TIMEOUT.toSeconds() + 10;

	@RegisterExtension
	final LockTestClients clients = LockTestClients.on(
			() -> new RedisStandaloneConfiguration(redis.server().host(), redis.server().port()),
			LETTUCE_DEFAULT_TIMEOUT);

	@Test
	void theConnectionFactoriesHereKeepLettucesOneMinuteDefault() {
		assertThat(LETTUCE_DEFAULT_TIMEOUT).isEqualTo(Duration.ofSeconds(60));
		assertThat(this.clients.newConnectionFactory().getClientConfiguration().getCommandTimeout())
			.isEqualTo(LETTUCE_DEFAULT_TIMEOUT);
	}

	@ParameterizedTest
	@EnumSource(Fault.class)
	void anAcquireOnADeadOrFrozenRedisFailsWithinItsWaitPlusTheLockCommandTimeout(Fault fault) {
		String name = LockTestClients.uniqueName();
		this.clients.newClient().getLock(name).lock();
		RedisLock lock = this.clients.newClient().getLock(name);
		// a client that has talked to Redis before, as a running application's has
		assertThat(lock.isLocked()).isTrue();
		fault.inject(redis.server());
		try {
			long start = System.nanoTime();
			Throwable thrown = catchThrowable(() -> lock.tryLock(WAIT, null));
			assertWithin(since(start), WAIT.plus(DEFAULT_LOCK_COMMAND_TIMEOUT).plus(SLACK),
					"tryLock(2s) of a held lock, Redis " + fault);
			assertThat(thrown).isInstanceOf(RedisLockException.class)
				.hasMessageContaining("'" + name + "'")
				.hasMessageContaining("redis-lock.command-timeout");
		}
		finally {
			fault.repair(redis.server());
		}
	}

	// A cold JVM connecting (over TLS, on a throttled CPU) can take longer than the lock
	// command timeout, which would fail a first call although Redis is fine: a client
	// connects when it is built, so that its first call finds the connection made.
	@Test
	void aNewClientConnectsBeforeItsFirstCall() {
		LettuceConnectionFactory factory = RedisServers.connectionFactory(
				new RedisStandaloneConfiguration(redis.server().host(), redis.server().port()), LETTUCE_DEFAULT_TIMEOUT,
				"connect-ahead");
		try (RedisLockClient client = RedisLockClient.builder(factory).build()) {
			await().atMost(Duration.ofSeconds(10))
				.until(() -> redis.command("CLIENT", "LIST").contains(" name=connect-ahead "));
			RedisLock lock = client.getLock(LockTestClients.uniqueName());
			assertThat(lock.tryLock()).isTrue();
			lock.unlock();
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void aClientWhoseFirstCommandMeetsAFrozenRedisFailsWithinItsWaitPlusTheLockCommandTimeout() {
		String name = LockTestClients.uniqueName();
		// built directly, not through LockTestClients (which waits for the connection):
		// its first call may find it still connecting
		RedisLockClient client = RedisLockClient.builder(this.clients.newTemplate()).build();
		RedisLock lock = client.getLock(name);
		redis.server().pause();
		try {
			long start = System.nanoTime();
			Throwable thrown = catchThrowable(() -> lock.tryLock(WAIT, null));
			assertWithin(since(start), WAIT.plus(DEFAULT_LOCK_COMMAND_TIMEOUT).plus(SLACK),
					"tryLock(2s) as a client's first command, Redis FROZEN");
			assertThat(thrown).isInstanceOf(RedisLockException.class)
				.hasMessageContaining("'" + name + "'")
				.hasMessageContaining("redis-lock.command-timeout");
		}
		finally {
			redis.server().resume();
			client.close();
		}
	}

	@ParameterizedTest
	@EnumSource(Fault.class)
	void aWaiterWhoseRedisDiesOrFreezesReturnsWithinItsWaitPlusTheLockCommandTimeout(Fault fault) throws Exception {
		String name = LockTestClients.uniqueName();
		this.clients.newClient().getLock(name).lock();
		RedisLockClient waiting = this.clients.newClient();
		CompletableFuture<Timed> call = tryLockOnItsOwnThread(waiting.getLock(name));
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(waiting).waitingCount() == 1);
		fault.inject(redis.server());
		try {
			// the waiter sleeps until its wait ends, then tries once more: no answer
			Timed result = call.get(NO_HANG_SECONDS, TimeUnit.SECONDS);
			assertWithin(result.took(), WAIT.plus(DEFAULT_LOCK_COMMAND_TIMEOUT).plus(SLACK),
					"tryLock(2s) waiting when Redis was " + fault);
			assertThat(result.outcome()).as("what tryLock(%s) returned or threw", WAIT)
				.satisfiesAnyOf((value) -> assertThat(value).isEqualTo(false),
						(value) -> assertThat(value).isInstanceOf(RedisLockException.class));
			assertThat(LockTestClients.inspector(waiting).waitingCount()).isZero();
			assertThat(LockTestClients.inspector(waiting).heldCount()).isZero();
		}
		finally {
			fault.repair(redis.server());
		}
	}

	@Test
	void aWaiterWhoseRedisFreezesAsItSubscribesReturnsWithinItsWaitPlusTheLockCommandTimeout() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLockClient holder = this.clients.newClient();
		holder.getLock(name).lock();
		try (FaultProxy proxy = FaultProxy.start(redis.server().host(), redis.server().port())) {
			LettuceConnectionFactory factory = RedisServers.connectionFactory(
					new RedisStandaloneConfiguration(proxy.host(), proxy.port()), LETTUCE_DEFAULT_TIMEOUT);
			// Once armed, the proxy holds all traffic as soon as the acquire script has
			// answered: the SUBSCRIBE to the lock's channel that follows gets no answer.
			// Lettuce tells only listeners added before it connects.
			AtomicBoolean armed = new AtomicBoolean(false);
			factory.getNativeClient().addListener(new CommandListener() {
				@Override
				public void commandSucceeded(CommandSucceededEvent event) {
					if (event.getCommand().getType().toString().equals("EVALSHA") && armed.getAndSet(false)) {
						proxy.blackHole();
					}
				}
			});
			RedisLockClient waiting = RedisLockClient.builder(factory).build();
			try {
				// the client's pub/sub connection is open already (opening it is bounded
				// by the connection's own timeout only)
				String other = LockTestClients.uniqueName();
				holder.getLock(other).lock();
				assertThat(waiting.getLock(other).tryLock(Duration.ofMillis(100), null)).isFalse();
				armed.set(true);
				Timed result = tryLockOnItsOwnThread(waiting.getLock(name)).get(NO_HANG_SECONDS, TimeUnit.SECONDS);
				assertThat(armed).as("armed until the acquire script answered").isFalse();
				assertWithin(result.took(), WAIT.plus(DEFAULT_LOCK_COMMAND_TIMEOUT).plus(SLACK),
						"tryLock(2s) whose SUBSCRIBE got no answer");
				assertThat(result.outcome()).as("what tryLock(%s) returned or threw", WAIT)
					.satisfiesAnyOf((value) -> assertThat(value).isEqualTo(false),
							(value) -> assertThat(value).isInstanceOf(RedisLockException.class));
				assertThat(LockTestClients.inspector(waiting).waitingCount()).isZero();
				assertThat(LockTestClients.inspector(waiting).heldCount()).isZero();
			}
			finally {
				proxy.heal();
				waiting.close();
				factory.destroy();
			}
		}
	}

	@ParameterizedTest
	@EnumSource(Fault.class)
	void unlockOnADeadOrFrozenRedisFailsWithinTheLockCommandTimeout(Fault fault) {
		RedisLockClient client = this.clients.newClient();
		RedisLock lock = client.getLock(LockTestClients.uniqueName());
		lock.lock();
		fault.inject(redis.server());
		try {
			long start = System.nanoTime();
			Throwable thrown = catchThrowable(lock::unlock);
			assertWithin(since(start), DEFAULT_LOCK_COMMAND_TIMEOUT.plus(SLACK), "unlock(), Redis " + fault);
			assertThat(thrown).isInstanceOf(RedisLockException.class)
				.hasMessageContaining("'" + lock.getName() + "'")
				.hasMessageContaining("redis-lock.command-timeout");
			// the thread holds nothing any more and the watchdog has let go of it
			assertThat(LockTestClients.inspector(client).heldCount()).isZero();
			assertThat(LockTestClients.inspector(client).watchdogCount()).isZero();
		}
		finally {
			fault.repair(redis.server());
		}
		// released in the background once Redis answers, not when its 30 s lease ends
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			assertThat(LockTestClients.inspector(client).settlingCount()).isZero();
			assertThat(redis.command("EXISTS", "lock:{" + lock.getName() + "}")).isEqualTo("0");
		});
	}

	@Test
	void aStatusReadOnAFrozenRedisFailsWithinTheLockCommandTimeout() {
		RedisLock lock = this.clients.newClient().getLock(LockTestClients.uniqueName());
		lock.lock();
		redis.server().pause();
		try {
			long start = System.nanoTime();
			Throwable thrown = catchThrowable(lock::isLocked);
			assertWithin(since(start), DEFAULT_LOCK_COMMAND_TIMEOUT.plus(SLACK), "isLocked(), Redis FROZEN");
			assertThat(thrown).isInstanceOf(RedisLockException.class)
				.hasMessageContaining("'" + lock.getName() + "'")
				.hasMessageContaining("redis-lock.command-timeout");
		}
		finally {
			redis.server().resume();
		}
	}

	@Test
	void aShorterLockCommandTimeoutShortensEveryBound() throws Exception {
		Duration commandTimeout = Duration.ofSeconds(1);
		String name = LockTestClients.uniqueName();
		RedisLock held = this.clients.newClient((builder) -> builder.commandTimeout(commandTimeout)).getLock(name);
		held.lock();
		RedisLockClient waiting = this.clients.newClient((builder) -> builder.commandTimeout(commandTimeout));
		CompletableFuture<Timed> call = tryLockOnItsOwnThread(waiting.getLock(name));
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(waiting).waitingCount() == 1);
		redis.server().pause();
		try {
			Timed result = call.get(NO_HANG_SECONDS, TimeUnit.SECONDS);
			assertWithin(result.took(), WAIT.plus(commandTimeout).plus(SLACK),
					"tryLock(2s) waiting when Redis froze, 1s command timeout");
			assertThat(result.outcome()).isInstanceOfSatisfying(RedisLockException.class,
					(ex) -> assertThat(ex).hasMessageContaining("within 1s (see redis-lock.command-timeout)"));
			long start = System.nanoTime();
			Throwable thrown = catchThrowable(held::unlock);
			assertWithin(since(start), commandTimeout.plus(SLACK), "unlock(), Redis FROZEN, 1s command timeout");
			assertThat(thrown).isInstanceOf(RedisLockException.class)
				.hasMessageContaining("within 1s (see redis-lock.command-timeout)");
		}
		finally {
			redis.server().resume();
		}
	}

	private static void assertWithin(Duration took, Duration bound, String what) {
		logger.info(what + ": " + took.toMillis() + " ms (bound " + bound.toMillis() + " ms)");
		assertThat(took).as(what).isLessThan(bound);
	}

	/**
	 * Calls {@code tryLock(WAIT, null)} on a thread of its own (not a shared pool, which
	 * a hanging call would block for the tests after it), timed there.
	 */
	private static CompletableFuture<Timed> tryLockOnItsOwnThread(RedisLock lock) {
		return CompletableFuture.supplyAsync(() -> {
			long start = System.nanoTime();
			Object outcome;
			try {
				outcome = lock.tryLock(WAIT, null);
			}
			catch (InterruptedException | RuntimeException ex) {
				outcome = ex;
			}
			return new Timed(outcome, since(start));
		}, (task) -> {
			Thread thread = new Thread(task, "lock-caller");
			thread.setDaemon(true);
			thread.start();
		});
	}

	private static Duration since(long start) {
		return Duration.ofNanos(System.nanoTime() - start);
	}

	/** What a call returned or threw, and how long it took. */
	private record Timed(Object outcome, Duration took) {
	}

	/** What happens to the Redis process during the call. */
	enum Fault {

		/**
		 * {@code SIGKILL}: connections are cut, reconnects refused until it is started.
		 */
		KILLED {

			@Override
			void inject(RedisServer server) {
				server.stop();
			}

			@Override
			void repair(RedisServer server) {
				server.start();
			}

		},

		/** {@code SIGSTOP}: connections stay open, nothing is answered. */
		FROZEN {

			@Override
			void inject(RedisServer server) {
				server.pause();
			}

			@Override
			void repair(RedisServer server) {
				server.resume();
			}

		};

		abstract void inject(RedisServer server);

		abstract void repair(RedisServer server);

	}

}
