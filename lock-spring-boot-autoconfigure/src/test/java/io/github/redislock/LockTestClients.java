package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.github.redislock.internal.LockInspector;
import io.github.redislock.testsupport.FaultProxy;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.RedisServers;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Creates lock clients against a test's own Redis, as separate processes would have them
 * (each its own connection factory and client id), and closes them all at the end of the
 * test, or earlier with {@link #close()} (a test that stops its Redis topology in
 * {@code @AfterEach} closes the clients first).
 */
public final class LockTestClients implements AfterEachCallback, AutoCloseable {

	/**
	 * The watchdog lease of test clients: short, so that tests of expiry are quick, yet
	 * renewed every 500 ms it survives a stall of a second (a GC, a JVM starved of CPU on
	 * a machine whose cores are all busy). At 600 ms, renewals 200 ms apart were missed
	 * under such load and a lock was reported lost by the watchdog.
	 */
	static final Duration TEST_WATCHDOG_TIMEOUT = Duration.ofMillis(1500);

	private final Supplier<LettuceConnectionFactory> connectionFactories;

	/** Whether the test's Redis answers now (false: a new client is not waited for). */
	private final BooleanSupplier serverRunning;

	private final List<AutoCloseable> resources = new ArrayList<>();

	public LockTestClients(RedisServerExtension redis) {
		this.connectionFactories = redis::newConnectionFactory;
		this.serverRunning = () -> redis.server().isRunning();
	}

	private LockTestClients(Supplier<LettuceConnectionFactory> connectionFactories) {
		this.connectionFactories = connectionFactories;
		// the test made its topology to be used: it answers when a client is made
		this.serverRunning = () -> true;
	}

	/**
	 * Clients of a topology the test starts itself (a Cluster, Sentinel, a Redis with an
	 * ACL user), read when the first client is made, and running then: each client is
	 * handed out once a call of it has got through.
	 * @param configuration where the topology is
	 * @param commandTimeout how long a command may take before it fails
	 */
	public static LockTestClients on(Supplier<RedisConfiguration> configuration, Duration commandTimeout) {
		return new LockTestClients(() -> RedisServers.connectionFactory(configuration.get(), commandTimeout));
	}

	public RedisLockClient newClient() {
		return newClient(Duration.ofSeconds(30));
	}

	RedisLockClient newClient(Duration watchdogTimeout) {
		RedisLockClient client = RedisLockClient.builder(newTemplate()).watchdogTimeout(watchdogTimeout).build();
		this.resources.add(0, client);
		return connected(client);
	}

	public RedisLockClient newClient(Consumer<RedisLockClient.Builder> customizer) {
		RedisLockClient.Builder builder = RedisLockClient.builder(newTemplate()).watchdogTimeout(TEST_WATCHDOG_TIMEOUT);
		customizer.accept(builder);
		RedisLockClient client = builder.build();
		this.resources.add(0, client);
		return connected(client);
	}

	/**
	 * A client whose every connection goes through the proxy, so that the test can cut,
	 * stall or black-hole them; closed with the others. Handed out once a call has got
	 * through the proxy. Its watchdog keeps the builder's default unless customized.
	 * @param proxy the proxy, passing traffic when this is called
	 * @param commandTimeout the client's lock command timeout and its factory's
	 * @param customizer adds to the builder's settings
	 */
	public RedisLockClient through(FaultProxy proxy, Duration commandTimeout,
			Consumer<RedisLockClient.Builder> customizer) {
		LettuceConnectionFactory factory = RedisServers
			.connectionFactory(new RedisStandaloneConfiguration(proxy.host(), proxy.port()), commandTimeout);
		this.resources.add(0, factory::destroy);
		RedisLockClient.Builder builder = RedisLockClient.builder(factory).commandTimeout(commandTimeout);
		customizer.accept(builder);
		RedisLockClient client = builder.build();
		this.resources.add(0, client);
		return awaitConnected(client);
	}

	// A client starts connecting when it is built, and a call that finds it still
	// connecting waits no longer than the lock command timeout. A cold JVM on a busy
	// machine can take longer than that to connect, and no test made with these clients
	// is about a client's first connection (CommandTimeoutTests builds its own): so,
	// when the test's Redis runs, a client is handed out once a call has got through.
	private RedisLockClient connected(RedisLockClient client) {
		return this.serverRunning.getAsBoolean() ? awaitConnected(client) : client;
	}

	/**
	 * Waits until a call of the client has got through, so that a test's first timed call
	 * does not pay for opening its connection. The probe reads a lock's state and takes
	 * none: tests of observations and meters count every acquisition. An error reply
	 * counts as through: Redis answered (a test's ACL user may lack the probe's command).
	 * @return the client
	 */
	static RedisLockClient awaitConnected(RedisLockClient client) {
		RedisLock probe = client.getLock("test-connected-probe");
		Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
			try {
				probe.isLocked();
				return true;
			}
			catch (RedisLockException ex) {
				return answeredByRedis(ex);
			}
		});
		return client;
	}

	private static boolean answeredByRedis(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof RedisCommandExecutionException) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Waits until the client has its pub/sub connection, which its first waiter opens: on
	 * a machine whose cores are all busy, a cold client's first subscription can take
	 * longer than a short command timeout, and a test with such a timeout that is not
	 * about the first subscription would then see its waiter fail instead of wait. A
	 * thread of the client waits briefly for a lock another of its threads holds, until a
	 * wait ends without a failure: subscribed.
	 */
	public static RedisLockClient awaitPubSub(RedisLockClient client) {
		RedisLock held = client.getLock("test-pubsub-probe-" + UUID.randomUUID());
		held.lock();
		try {
			Awaitility.await()
				.atMost(Duration.ofSeconds(60))
				.ignoreExceptions()
				.until(() -> TestThreads
					.onOtherThread(() -> !client.getLock(held.getName()).tryLock(Duration.ofMillis(100), null)));
		}
		finally {
			held.unlock();
		}
		return client;
	}

	StringRedisTemplate newTemplate() {
		return new StringRedisTemplate(newConnectionFactory());
	}

	LettuceConnectionFactory newConnectionFactory() {
		LettuceConnectionFactory factory = this.connectionFactories.get();
		this.resources.add(factory::destroy);
		return factory;
	}

	/** Records the type of every command the factory's client sends, in order. */
	static List<String> recordCommands(LettuceConnectionFactory factory) {
		List<String> commands = new CopyOnWriteArrayList<>();
		factory.getNativeClient().addListener(new CommandListener() {
			@Override
			public void commandStarted(CommandStartedEvent event) {
				commands.add(event.getCommand().getType().toString());
			}
		});
		return commands;
	}

	static LockInspector inspector(RedisLockClient client) {
		return LockInspector.of(client).orElseThrow();
	}

	/**
	 * Starts a thread of {@code client} that waits up to {@code waitTime} for lock
	 * {@code name}, then releases it; returns once that thread waits. The future
	 * completes with when the thread got the lock ({@link System#nanoTime()}), or fails
	 * when it did not.
	 */
	static CompletableFuture<Long> acquiredAt(RedisLockClient client, String name, Duration waitTime) {
		int waitingBefore = inspector(client).waitingCount();
		CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
			RedisLock lock = client.getLock(name);
			try {
				if (!lock.tryLock(waitTime, Duration.ofSeconds(5))) {
					throw new AssertionError("The waiter did not get lock '" + name + "'");
				}
				long at = System.nanoTime();
				lock.unlock();
				return at;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}, TestThreads.perTask());
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> inspector(client).waitingCount() == waitingBefore + 1);
		return acquiredAt;
	}

	/**
	 * Releases {@code holder} (held by the calling thread) while a thread of
	 * {@code waiting} waits for the same lock, and returns how long after the release
	 * that thread had the lock.
	 */
	static Duration handOffTime(RedisLock holder, RedisLockClient waiting) throws Exception {
		CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
			RedisLock lock = waiting.getLock(holder.getName());
			try {
				if (!lock.tryLock(Duration.ofSeconds(20), Duration.ofSeconds(5))) {
					throw new AssertionError("The waiter did not get lock '" + holder.getName() + "' in 20s");
				}
				long at = System.nanoTime();
				lock.unlock();
				return at;
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.perTask());
		Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> inspector(waiting).waitingCount() == 1);
		long releasedAt = System.nanoTime();
		holder.unlock();
		return Duration.ofNanos(acquiredAt.get(10, TimeUnit.SECONDS) - releasedAt);
	}

	/**
	 * Waits until the client holds, waits for, settles, renews and subscribes to nothing
	 * any more.
	 */
	static void assertNothingLeftBehind(RedisLockClient client) {
		Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			assertThat(inspector(client).waitingCount()).as("waiting").isZero();
			assertThat(inspector(client).heldCount()).as("held").isZero();
			assertThat(inspector(client).settlingCount()).as("settling").isZero();
			assertThat(inspector(client).watchdogCount()).as("renewed").isZero();
			assertThat(inspector(client).subscribedCount()).as("subscribed").isZero();
		});
	}

	/**
	 * Waits until Redis holds no key of the name (every kind keeps its keys under
	 * {@code lock:{name}}, the test clients' prefix), asking at once and then every 20 ms
	 * for up to 10 s: what a kind leaves behind, a waiter's mark included, is gone once
	 * its holders have released and its waiters have returned.
	 */
	static void assertNoKeysOf(StringRedisTemplate redis, String name) {
		Awaitility.await()
			.pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofMillis(20))
			.atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(redis.keys("lock:{" + name + "}*")).as("keys of " + name).isEmpty());
	}

	public static String uniqueName() {
		return "test-" + UUID.randomUUID();
	}

	@Override
	public void afterEach(ExtensionContext context) {
		close();
	}

	@Override
	public void close() {
		try {
			for (AutoCloseable resource : this.resources) {
				resource.close();
			}
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not close a test client", ex);
		}
		finally {
			this.resources.clear();
		}
	}

}
