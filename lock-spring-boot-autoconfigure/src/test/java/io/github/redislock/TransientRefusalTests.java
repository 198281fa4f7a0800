package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redislock.testsupport.RedisServerExtension;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * While Redis loads its data set after a restart with persistence it refuses commands
 * with {@code LOADING}: not now, the command did not run. An acquisition waits that out
 * within its wait time, or fails saying so; a final release refused that way is given
 * back once Redis has loaded, instead of keeping the lock from others for the rest of its
 * lease.
 *
 * <p>
 * The server here loads slowly: it pauses 200 µs per key and answers clients after every
 * KB it loads. Each test saves {@value #FILLER_KEYS} keys (and whatever lock it holds),
 * kills the server and starts it again without waiting for the load to end, so that Redis
 * loads for a few seconds while the test's calls arrive, and checks that it was still
 * loading when it needed it to be. The lock clients have the default command timeout of 2
 * s, and reconnect by themselves after the restart.
 */
class TransientRefusalTests {

	private static final Log logger = LogFactory.getLog(TransientRefusalTests.class);

	private static final int FILLER_KEYS = 12_000;

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private static final Duration LEASE = Duration.ofSeconds(30);

	/** Far longer than any load here. */
	private static final Duration LONG_WAIT = Duration.ofSeconds(30);

	/** Far shorter than any load here. */
	private static final Duration SHORT_WAIT = Duration.ofSeconds(1);

	/**
	 * How soon after Redis has loaded an acquisition waiting for it must have the lock.
	 */
	private static final Duration ACQUIRED_WITHIN = Duration.ofMillis(500);

	/**
	 * How soon after Redis has loaded another client must get a lock whose release it
	 * refused, where the lock's lease would keep it for 30 s: the holder's client tries
	 * to give the lock back every 50 ms while Redis answers "not now", then the release
	 * message wakes the other client.
	 */
	private static final Duration FREED_WITHIN = Duration.ofMillis(500);

	private static final Pattern LOADING_FLAG = Pattern.compile("(?m)^loading:1");

	private static final Pattern REJECTED_CALLS = Pattern.compile("(?m)^cmdstat_eval(?:sha)?:.*rejected_calls=(\\d+)");

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension("--key-load-delay", "200",
			"--loading-process-events-interval-bytes", "1024");

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@Nullable private Load load;

	@AfterEach
	void waitForTheLoadToEnd() {
		try {
			if (this.load != null) {
				this.load.end();
			}
		}
		finally {
			this.executor.shutdownNow();
		}
	}

	@Test
	void anAcquisitionMadeWhileRedisLoadsGetsTheLockOnceItHasLoaded() throws Exception {
		RedisLock lock = connectedClient().getLock(LockTestClients.uniqueName());
		Load load = restartLoading();
		long start = System.nanoTime();
		boolean acquired = lock.tryLock(LONG_WAIT, LEASE);
		long acquiredAt = System.nanoTime();
		assertAcquiredSoonAfterTheLoad("tryLock(30s)", acquired, start, acquiredAt, load);
		assertThat(lock.getHoldCount()).isEqualTo(1);
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void aLockWithoutTimeLimitMadeWhileRedisLoadsGetsTheLockOnceItHasLoaded() throws Exception {
		RedisLock lock = connectedClient().getLock(LockTestClients.uniqueName());
		Load load = restartLoading();
		long start = System.nanoTime();
		lock.lock();
		long acquiredAt = System.nanoTime();
		assertAcquiredSoonAfterTheLoad("lock()", true, start, acquiredAt, load);
		assertThat(lock.getHoldCount()).isEqualTo(1);
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void anAcquisitionWhoseWaitEndsWhileRedisStillLoadsFailsSayingRedisWasLoading() throws Exception {
		RedisLockClient client = connectedClient();
		RedisLock lock = client.getLock(LockTestClients.uniqueName());
		Load load = restartLoading();
		long start = System.nanoTime();
		Throwable failure = catchThrowable(() -> lock.tryLock(SHORT_WAIT, LEASE));
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		assertThat(load.isStillLoading()).as("Redis still loads after the acquisition failed").isTrue();
		logger.info("The acquisition with a wait of " + SHORT_WAIT.toMillis() + " ms failed after " + took.toMillis()
				+ " ms, Redis still loading; Redis refused " + load.refusedScriptCalls()
				+ " script calls with LOADING; it threw " + failure);
		assertThat(failure).isInstanceOf(RedisLockException.class)
			.hasMessageContaining("Could not acquire lock '" + lock.getName() + "' (key '" + key(lock) + "') within 1s")
			.hasMessageContaining("Redis was loading its data set all that time (LOADING)");
		assertThat(took).isGreaterThanOrEqualTo(SHORT_WAIT)
			.isLessThan(SHORT_WAIT.plus(COMMAND_TIMEOUT).plusMillis(500));
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		load.end();
		assertThat(load.refusedScriptCalls()).as("script calls Redis refused with LOADING").isGreaterThan(1);
		assertThat(lock.isLocked()).isFalse();
		assertThat(LockTestClients.inspector(client).heldCount()).isZero();
		assertThat(LockTestClients.inspector(client).settlingCount()).isZero();
	}

	// the asynchronous way of waiting shares the blocking one's decisions: same failure,
	// same message
	@Test
	void anAsyncAcquisitionWhoseWaitEndsWhileRedisStillLoadsFailsSayingRedisWasLoading() throws Exception {
		RedisLockClient client = connectedClient();
		String name = LockTestClients.uniqueName();
		Load load = restartLoading();
		long start = System.nanoTime();
		Throwable failure = catchThrowable(
				() -> client.acquireAsync(name, SHORT_WAIT, LEASE).get(30, TimeUnit.SECONDS));
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		assertThat(load.isStillLoading()).as("Redis still loads after the acquisition failed").isTrue();
		assertThat(failure).isInstanceOf(ExecutionException.class)
			.cause()
			.isInstanceOf(RedisLockException.class)
			.hasMessageContaining("Could not acquire lock '" + name + "'")
			.hasMessageContaining(" within 1s")
			.hasMessageContaining("Redis was loading its data set all that time (LOADING)");
		assertThat(took).isGreaterThanOrEqualTo(SHORT_WAIT);
		load.end();
		assertThat(client.getLock(name).isLocked()).isFalse();
		assertThat(LockTestClients.inspector(client).heldCount()).isZero();
	}

	@Test
	void aTryLockThatDoesNotWaitFailsAtOnceQuotingLoading() {
		RedisLockClient client = connectedClient();
		RedisLock lock = client.getLock(LockTestClients.uniqueName());
		Load load = restartLoading();
		long start = System.nanoTime();
		Throwable failure = catchThrowable(lock::tryLock);
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		assertThat(load.isStillLoading()).as("Redis still loads after the acquisition failed").isTrue();
		logger.info("The acquisition without a wait failed after " + took.toMillis() + " ms, Redis still loading; "
				+ "it threw " + failure);
		assertThat(failure).isInstanceOf(RedisLockException.class)
			.hasMessageContaining("Could not acquire lock '" + lock.getName() + "'")
			.hasMessageContaining("LOADING");
		assertThat(took).isLessThan(COMMAND_TIMEOUT);
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		load.end();
		assertThat(load.refusedScriptCalls()).as("script calls Redis refused with LOADING").isOne();
		assertThat(lock.isLocked()).isFalse();
		assertThat(LockTestClients.inspector(client).settlingCount()).isZero();
	}

	@Test
	void aWatchdogLeaseWhoseFinalUnlockRedisRefusedWhileLoadingIsGivenBackOnceItHasLoaded() throws Exception {
		finalUnlockRefusedWhileLoadingIsGivenBackOnceItHasLoaded(null);
	}

	@Test
	void anExplicitLeaseWhoseFinalUnlockRedisRefusedWhileLoadingIsGivenBackOnceItHasLoaded() throws Exception {
		finalUnlockRefusedWhileLoadingIsGivenBackOnceItHasLoaded(LEASE);
	}

	private void finalUnlockRefusedWhileLoadingIsGivenBackOnceItHasLoaded(@Nullable Duration lease) throws Exception {
		RedisLockClient holder = connectedClient();
		RedisLockClient other = connectedClient();
		RedisLock lock = holder.getLock(LockTestClients.uniqueName());
		assertThat(lock.tryLock(Duration.ZERO, lease)).isTrue();
		// the saved data set has the lock with (almost) all of its 30 s lease: only the
		// holder's client can free it before the test is over
		assertThat(Long.parseLong(redis.command("PTTL", key(lock)))).isGreaterThan(LEASE.minusSeconds(5).toMillis());
		Load load = restartLoading();
		Throwable refusal = catchThrowable(lock::unlock);
		assertThat(load.isStillLoading()).as("Redis still loads after it refused the release").isTrue();
		logger.info("The final unlock while Redis loaded threw " + refusal);
		assertThat(refusal).isInstanceOf(RedisLockException.class)
			.hasMessageContaining("Could not release lock '" + lock.getName() + "'")
			.hasMessageContaining("LOADING");
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(LockTestClients.inspector(holder).heldCount()).isZero();
		assertThat(LockTestClients.inspector(holder).watchdogCount()).isZero();
		assertThat(LockTestClients.inspector(holder).settlingCount()).isOne();
		// another client waits for the lock from now on
		Future<Long> otherAcquiredAt = this.executor.submit(() -> {
			RedisLock mine = other.getLock(lock.getName());
			assertThat(mine.tryLock(LONG_WAIT, Duration.ofSeconds(5))).as("the other client got the lock").isTrue();
			long at = System.nanoTime();
			mine.unlock();
			return at;
		});
		long loadedAt = load.end();
		long acquiredAt = otherAcquiredAt.get(LONG_WAIT.toSeconds() + 10, TimeUnit.SECONDS);
		Duration afterLoad = Duration.ofNanos(acquiredAt - loadedAt);
		logger.info("Another client got the lock whose release Redis refused while loading " + afterLoad.toMillis()
				+ " ms after Redis had loaded (" + load.describe() + ")");
		assertThat(afterLoad).isLessThan(FREED_WITHIN);
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(holder).settlingCount() == 0);
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void aTryLockRefusedWhileLoadingKeepsGivingBackTheLockWhoseUnlockWasRefused() throws Exception {
		RedisLockClient holder = connectedClient();
		RedisLockClient other = connectedClient();
		RedisLock lock = holder.getLock(LockTestClients.uniqueName());
		assertThat(lock.tryLock(Duration.ZERO, LEASE)).isTrue();
		Load load = restartLoading();
		assertThat(catchThrowable(lock::unlock)).isInstanceOf(RedisLockException.class)
			.hasMessageContaining("LOADING")
			.hasMessageContaining("releases the lock in the background");
		// the application tries again at once, and Redis refuses that too: the lock the
		// refused unlock left must still be given back
		assertThat(catchThrowable(lock::tryLock)).isInstanceOf(RedisLockException.class)
			.hasMessageContaining("LOADING");
		assertThat(load.isStillLoading()).as("Redis still loads after it refused both").isTrue();
		assertThat(LockTestClients.inspector(holder).settlingCount()).isOne();
		long loadedAt = load.end();
		RedisLock mine = other.getLock(lock.getName());
		assertThat(mine.tryLock(LONG_WAIT, Duration.ofSeconds(5))).isTrue();
		Duration afterLoad = Duration.ofNanos(System.nanoTime() - loadedAt);
		mine.unlock();
		logger.info("Another client got the lock " + afterLoad.toMillis() + " ms after Redis had loaded, although "
				+ "its holder's unlock and a retry were both refused while it loaded");
		assertThat(afterLoad).isLessThan(FREED_WITHIN);
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(holder).settlingCount() == 0);
	}

	private void assertAcquiredSoonAfterTheLoad(String call, boolean acquired, long start, long acquiredAt, Load load) {
		long loadedAt = load.end();
		Duration afterLoad = Duration.ofNanos(acquiredAt - loadedAt);
		logger.info("A " + call + " made while Redis loaded got the lock " + afterLoad.toMillis()
				+ " ms after Redis had loaded, " + Duration.ofNanos(acquiredAt - start).toMillis()
				+ " ms after it began; Redis refused " + load.refusedScriptCalls() + " script calls with LOADING ("
				+ load.describe() + ")");
		assertThat(acquired).isTrue();
		assertThat(load.lastSeenLoadingAt()).as("Redis still loaded after the acquisition began").isGreaterThan(start);
		assertThat(load.refusedScriptCalls()).as("script calls Redis refused with LOADING").isGreaterThan(1);
		assertThat(afterLoad).isLessThan(ACQUIRED_WITHIN);
	}

	/**
	 * A client whose connection is open and whose scripts Redis has: the restart is the
	 * only thing it has to get over.
	 */
	private RedisLockClient connectedClient() {
		RedisLockClient client = this.clients.newClient();
		RedisLock warmUp = client.getLock(LockTestClients.uniqueName());
		assertThat(warmUp.tryLock()).isTrue();
		warmUp.unlock();
		return client;
	}

	/**
	 * Saves the filler keys and whatever locks there are, kills Redis and starts it again
	 * without waiting for it to load them.
	 */
	private Load restartLoading() {
		redis.command("EVAL", "for i = 1, tonumber(ARGV[1]) do redis.call('SET', 'filler:' .. i, i) end", "0",
				String.valueOf(FILLER_KEYS));
		redis.command("SAVE");
		redis.server().stop();
		long restartedAt = System.nanoTime();
		redis.server().startWhileLoading();
		assertThat(loading()).as("Redis loads its data set after the restart (else the test proves nothing)").isTrue();
		this.load = new Load(restartedAt);
		return this.load;
	}

	private static boolean loading() {
		return LOADING_FLAG.matcher(redis.command("INFO", "persistence")).find();
	}

	private static String key(RedisLock lock) {
		return "lock:{" + lock.getName() + "}";
	}

	/**
	 * Watches Redis load its data set after a restart: when it was last seen loading, and
	 * when first seen done.
	 */
	private final class Load {

		private final long restartedAt;

		private final AtomicLong lastSeenLoadingAt = new AtomicLong();

		private final Future<Long> loadedAt;

		Load(long restartedAt) {
			this.restartedAt = restartedAt;
			this.lastSeenLoadingAt.set(System.nanoTime());
			this.loadedAt = TransientRefusalTests.this.executor.submit(() -> {
				await().pollDelay(Duration.ZERO)
					.pollInterval(Duration.ofMillis(5))
					.atMost(Duration.ofSeconds(60))
					.pollInSameThread()
					.until(() -> {
						long now = System.nanoTime();
						if (loading()) {
							this.lastSeenLoadingAt.set(now);
							return false;
						}
						return true;
					});
				return System.nanoTime();
			});
		}

		boolean isStillLoading() {
			return !this.loadedAt.isDone() && loading();
		}

		/** Waits for Redis to have loaded; returns when it was first seen done. */
		long end() {
			try {
				return this.loadedAt.get(70, TimeUnit.SECONDS);
			}
			catch (Exception ex) {
				throw new IllegalStateException("Redis did not finish loading its data set", ex);
			}
		}

		long lastSeenLoadingAt() {
			return this.lastSeenLoadingAt.get();
		}

		/** The script calls Redis refused with LOADING since the restart. */
		long refusedScriptCalls() {
			Matcher matcher = REJECTED_CALLS.matcher(redis.command("INFO", "commandstats"));
			long refused = 0;
			while (matcher.find()) {
				refused += Long.parseLong(matcher.group(1));
			}
			return refused;
		}

		String describe() {
			long loadedAt = end();
			return "Redis loaded for " + Duration.ofNanos(loadedAt - this.restartedAt).toMillis()
					+ " ms after the restart, last seen loading "
					+ Duration.ofNanos(loadedAt - this.lastSeenLoadingAt()).toMillis() + " ms before first seen done";
		}

	}

}
