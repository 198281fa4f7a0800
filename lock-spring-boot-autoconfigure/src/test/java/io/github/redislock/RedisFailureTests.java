package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.FaultProxy;
import io.github.redislock.testsupport.RedisServerExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * What callers see when Redis forgets its scripts, restarts, stops or stalls. The
 * connection factories here time commands out after 2 s.
 */
class RedisFailureTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	// a fixed lease: no renewal on its way to open a new connection while a release waits
	// for the old one to come back
	private static final Duration LEASE = Duration.ofMinutes(1);

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	private RedisLockClient client;

	private final List<FaultProxy> proxies = new ArrayList<>();

	@BeforeEach
	void createClient() {
		this.client = this.clients.newClient();
	}

	@Test
	void scriptsKeepWorkingAfterScriptFlush() {
		RedisLock lock = this.client.getLock(LockTestClients.uniqueName());
		lock.lock();
		redis.command("SCRIPT", "FLUSH");
		lock.unlock();
		redis.command("SCRIPT", "FLUSH");
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void locksWorkAgainAfterARedisRestartAndTheLostHoldIsReported() {
		RedisLock lock = this.client.getLock(LockTestClients.uniqueName());
		lock.lock();
		redis.server().restart();
		// the restarted server has neither the lock nor the scripts
		assertThatThrownBy(lock::unlock).isInstanceOf(LeaseExpiredException.class);
		assertThat(lock.tryLock()).isTrue();
		assertThat(lock.getHoldCount()).isEqualTo(1);
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void aReleaseSentAgainToARestartedRedisReportsTheLostHold() throws Exception {
		FaultProxy proxy = startProxy();
		List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
		RedisLockClient client = this.clients.through(proxy, TestTimeouts.COMMAND_TIMEOUT,
				(builder) -> builder.watchdogTimeout(Duration.ofSeconds(30)).leaseLostListener(lost::add));
		LockHandle handle = client.acquire(LockTestClients.uniqueName(), Duration.ZERO, LEASE);
		// the release is held by the network while Redis restarts and forgets the lock;
		// the cut makes Lettuce reconnect and send it again, to the new server
		proxy.blackHole();
		CompletableFuture<Throwable> release = CompletableFuture.supplyAsync(() -> catchThrowable(handle::release),
				TestThreads.perTask());
		redis.server().restart();
		proxy.cut();
		proxy.heal();
		assertThat(release.get(30, TimeUnit.SECONDS)).isInstanceOf(LeaseExpiredException.class);
	}

	// Asynchronous too: no thread waits then, and the check of the server that answered
	// the second time is bounded by the client's own deadline (its connection has no
	// timeout of Lettuce's)
	@ParameterizedTest(name = "asynchronous: {0}")
	@ValueSource(booleans = { false, true })
	void aReleaseThatRanAndWasSentAgainAfterACutIsARelease(boolean asynchronous) throws Exception {
		FaultProxy proxy = startProxy();
		List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
		RedisLockClient client = this.clients.through(proxy, TestTimeouts.COMMAND_TIMEOUT,
				(builder) -> builder.watchdogTimeout(Duration.ofSeconds(30)).leaseLostListener(lost::add));
		String name = LockTestClients.uniqueName();
		LockHandle handle = client.acquire(name, Duration.ZERO, LEASE);
		// Redis runs the release; its reply is held up on the way back and lost with the
		// connection: Lettuce reconnects and sends the release again, to the same server
		proxy.latency(Duration.ofMillis(500));
		CompletableFuture<Void> release = asynchronous ? handle.releaseAsync()
				: CompletableFuture.runAsync(handle::release, TestThreads.perTask());
		await().pollInterval(Duration.ofMillis(5))
			.atMost(Duration.ofSeconds(10))
			.until(() -> redis.command("EXISTS", "lock:{" + name + "}").equals("0"));
		proxy.cut();
		proxy.heal();
		assertThat(release).succeedsWithin(Duration.ofSeconds(30));
		assertThat(lost).as("leases reported lost").isEmpty();
		assertThat(handle.isHeld()).isFalse();
	}

	private FaultProxy startProxy() {
		FaultProxy proxy = FaultProxy.start(redis.server().host(), redis.server().port());
		this.proxies.add(proxy);
		return proxy;
	}

	@AfterEach
	void closeProxies() {
		this.clients.close();
		this.proxies.forEach(FaultProxy::close);
	}

	@Test
	void acquireFailsWithinTheCommandTimeoutWithAClearExceptionWhenRedisIsDown() throws Exception {
		RedisLock lock = this.client.getLock(LockTestClients.uniqueName());
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
		redis.server().stop();
		long start = System.nanoTime();
		assertThatThrownBy(() -> lock.tryLock(Duration.ofMillis(500), null)).isInstanceOf(RedisLockException.class)
			.hasMessageContaining("Could not acquire lock '" + lock.getName() + "'")
			.hasMessageContaining("(key 'lock:{" + lock.getName() + "}')");
		assertThat(Duration.ofNanos(System.nanoTime() - start))
			.isLessThan(Duration.ofMillis(500).plus(COMMAND_TIMEOUT).plusSeconds(1));
		assertThat(LockTestClients.inspector(this.client).heldCount()).isZero();
	}

	@Test
	void aFreshClientFailsAtOnceWhenNothingListens() {
		redis.server().stop();
		RedisLockClient fresh = this.clients.newClient();
		long start = System.nanoTime();
		assertThatThrownBy(() -> fresh.getLock("orders").lock()).isInstanceOf(RedisLockException.class)
			.hasMessageContaining("'orders'")
			.hasMessageContaining(redis.server().host() + ":" + redis.server().port());
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(COMMAND_TIMEOUT.plusSeconds(1));
	}

	@Test
	void locksFollowTheConnectionFactoryThroughAResetAndAStop() {
		LettuceConnectionFactory factory = this.clients.newConnectionFactory();
		RedisLockClient client = RedisLockClient.builder(new StringRedisTemplate(factory)).build();
		RedisLock lock = client.getLock(LockTestClients.uniqueName());
		lock.lock();
		// a new shared connection: the client must not keep using the closed one
		factory.resetConnection();
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
		factory.stop();
		assertThatThrownBy(lock::tryLock).isInstanceOf(RedisLockException.class)
			.hasMessageContaining("Could not acquire lock '" + lock.getName() + "'");
		factory.start();
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
		client.close();
	}

	@Test
	void aConnectionFactoryThatDoesNotShareItsConnectionServesEveryCall() throws Exception {
		LettuceConnectionFactory factory = this.clients.newConnectionFactory();
		factory.setShareNativeConnection(false);
		RedisLockClient client = RedisLockClient.builder(new StringRedisTemplate(factory)).build();
		RedisLock lock = client.getLock(LockTestClients.uniqueName());
		lock.lock();
		assertThat(LockTestClients.handOffTime(lock, this.clients.newClient())).isLessThan(Duration.ofSeconds(5));
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
		client.close();
	}

	@Test
	void waiterFailsWithinItsBoundWhenRedisStallsAndLeavesNothingBehind() throws Exception {
		// long enough that Redis is paused before the wait ends, also on a loaded machine
		// (a wait over before the pause ends with false, not with Redis' silence)
		Duration wait = Duration.ofSeconds(3);
		String name = LockTestClients.uniqueName();
		this.client.getLock(name).lock();
		RedisLockClient other = this.clients.newClient();
		CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
			try {
				return other.getLock(name).tryLock(wait, null);
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.perTask());
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(other).waitingCount() == 1);
		redis.server().pause();
		try {
			long start = System.nanoTime();
			// the waiter's next attempt, at the latest when its wait ends, gets no answer
			assertThatThrownBy(() -> waiter.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
				.cause()
				.isInstanceOf(RedisLockException.class)
				.hasMessageContaining(name);
			assertThat(Duration.ofNanos(System.nanoTime() - start))
				.isLessThan(wait.plus(COMMAND_TIMEOUT).plusSeconds(1));
			assertThat(LockTestClients.inspector(other).waitingCount()).isZero();
			assertThat(LockTestClients.inspector(other).heldCount()).isZero();
		}
		finally {
			redis.server().resume();
		}
	}

}
