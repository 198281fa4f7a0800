package io.github.redislock;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the tests of a lost lease share: a test's own Redis, a way to lose a holder's
 * lease behind its back (another process force-unlocks the lock, as an expired lease
 * would free it; or Redis stalls, SIGSTOP, so that no renewal is confirmed), and a pooled
 * thread that runs the calls and is checked, after each, for an interrupt that reached it
 * after it moved on.
 */
public final class LeaseLossHarness implements BeforeEachCallback, AfterEachCallback {

	/** How long any wait of these tests may take (the loss is found within a renewal). */
	public static final Duration TIMEOUT = Duration.ofSeconds(30);

	private final RedisServerExtension redis;

	private LettuceConnectionFactory connectionFactory;

	private RedisLockClient otherProcess;

	private ExecutorService pool;

	public LeaseLossHarness(RedisServerExtension redis) {
		this.redis = redis;
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		this.connectionFactory = this.redis.newConnectionFactory();
		this.otherProcess = RedisLockClient.builder(this.connectionFactory).build();
		// one thread, as a pool reuses it for the next task
		this.pool = Executors.newSingleThreadExecutor();
	}

	@Override
	public void afterEach(ExtensionContext context) {
		this.pool.shutdownNow();
		this.otherProcess.close();
		this.connectionFactory.destroy();
	}

	/** A lock name of its own for each test. */
	public static String uniqueName(String prefix) {
		return prefix + UUID.randomUUID();
	}

	/**
	 * Another process frees the lock whoever holds it: its holder's next renewal finds it
	 * gone.
	 */
	public void takeAway(String name) {
		assertThat(this.otherProcess.getLock(name).forceUnlock()).as("lock '%s' was held", name).isTrue();
	}

	/**
	 * Another process takes the lock, for the calling thread to release (it waits for it
	 * as long as it takes).
	 */
	public RedisLock holdAsAnotherProcess(String name) {
		RedisLock lock = this.otherProcess.getLock(name);
		lock.lock();
		return lock;
	}

	/** Whether anyone holds the lock in Redis. */
	public boolean isLocked(String name) {
		return this.otherProcess.getLock(name).isLocked();
	}

	/** Waits until someone holds the lock in Redis. */
	public void awaitLocked(String name) {
		await().atMost(TIMEOUT).until(() -> isLocked(name));
	}

	/** Stalls the test's Redis (SIGSTOP) until {@link #resumeRedis()}. */
	public void stallRedis() {
		this.redis.server().pause();
	}

	public void resumeRedis() {
		this.redis.server().resume();
	}

	/** Runs the action with the test's Redis stalled (SIGSTOP), and resumes it. */
	public <T> T withRedisStalled(Callable<T> action) throws Exception {
		this.redis.server().pause();
		try {
			return action.call();
		}
		finally {
			this.redis.server().resume();
		}
	}

	/**
	 * Runs the call on the pooled thread.
	 * @return how it ended, once it did
	 */
	public Outcome onPooledThread(Callable<?> call) throws Exception {
		Future<Outcome> outcome = this.pool.submit(() -> {
			Object value = null;
			Throwable thrown = null;
			try {
				value = call.call();
			}
			catch (Throwable ex) {
				thrown = ex;
			}
			return new Outcome(value, thrown, Thread.interrupted());
		});
		return outcome.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
	}

	/**
	 * Starts the call on the pooled thread, for the test to act while it runs.
	 * @return how it ended, once it did
	 */
	public Future<Outcome> startOnPooledThread(Callable<?> call) {
		CompletableFuture<Outcome> outcome = new CompletableFuture<>();
		this.pool.execute(() -> {
			Object value = null;
			Throwable thrown = null;
			try {
				value = call.call();
			}
			catch (Throwable ex) {
				thrown = ex;
			}
			outcome.complete(new Outcome(value, thrown, Thread.interrupted()));
		});
		return outcome;
	}

	/**
	 * Checks that nothing interrupts the pooled thread, now that its locked call is over,
	 * for so long: its next task blocks that long, and must not be interrupted.
	 */
	public void assertPooledThreadStaysUninterrupted(Duration during) throws Exception {
		CountDownLatch finish = new CountDownLatch(1);
		Future<Boolean> next = this.pool.submit(() -> {
			try {
				finish.await();
				return !Thread.interrupted();
			}
			catch (InterruptedException ex) {
				return false;
			}
		});
		await().during(during).atMost(during.plus(TIMEOUT)).until(() -> !next.isDone());
		finish.countDown();
		assertThat(next.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
			.as("the pooled thread's next task ran uninterrupted")
			.isTrue();
	}

	/**
	 * How a call on the pooled thread ended.
	 *
	 * @param value what it returned
	 * @param thrown what it threw, or {@code null}
	 * @param interruptedAfter whether the thread's interrupt status was set once it
	 * returned
	 */
	public record Outcome(Object value, Throwable thrown, boolean interruptedAfter) {

	}

}
