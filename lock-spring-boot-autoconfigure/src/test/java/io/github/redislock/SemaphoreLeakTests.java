package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Thousands of random semaphore operations on a few names with small limits, on one real
 * Redis: blocking acquisitions whose short waits time out, {@code tryAcquire}, permits
 * released from other threads or kept for nobody a moment, asynchronous acquisitions
 * cancelled at random moments, blocking ones interrupted at random moments. Afterwards
 * nothing is left: no key of the library but the fencing counters (a {@code SCAN} of the
 * test's server), no waiter, hold, settlement or renewal in the clients (through
 * {@code LockInspector}), no subscription in Redis ({@code PUBSUB}), and every name has
 * all its permits free.
 */
class SemaphoreLeakTests {

	private static final org.apache.commons.logging.Log logger = org.apache.commons.logging.LogFactory
		.getLog(SemaphoreLeakTests.class);

	/**
	 * 12.5 to 16 s of operations on a busy 2-core machine; more with
	 * {@code -Dredislock.test.semaphoreOperations}.
	 */
	private static final int OPERATIONS = Integer.getInteger("redislock.test.semaphoreOperations", 10_000);

	/** The names' limits: small, so that waits time out and cancellations meet grants. */
	private static final int[] LIMITS = { 1, 2, 3 };

	/** Threads that call; asynchronous acquisitions add their own. */
	private static final int CALLERS = 6;

	/** Asynchronous acquisitions in flight at most, as many callers spread out would. */
	private static final int ASYNC_IN_FLIGHT = 50;

	/**
	 * The fixed lease: far longer than the run, so that a permit leaked by the library
	 * shows at the end instead of expiring unseen.
	 */
	private static final Duration LEASE = Duration.ofMinutes(2);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	private final ExecutorService releasers = Executors.newFixedThreadPool(2);

	private final ScheduledExecutorService timers = Executors.newScheduledThreadPool(1);

	private final Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();

	@AfterEach
	void stopThreads() {
		this.releasers.shutdownNow();
		this.timers.shutdownNow();
	}

	@Test
	void randomAcquisitionsTimeoutsCancellationsAndInterruptsLeaveNoKeyWaiterSubscriptionOrTakenPermit()
			throws Exception {
		List<RedisLockClient> lockClients = List.of(newClient(), newClient());
		List<Name> names = new ArrayList<>();
		for (int limit : LIMITS) {
			names.add(new Name(LockTestClients.uniqueName(), limit));
		}
		AtomicInteger started = new AtomicInteger();
		Semaphore asyncInFlight = new Semaphore(ASYNC_IN_FLIGHT);
		ConcurrentLinkedQueue<CompletableFuture<?>> asyncDone = new ConcurrentLinkedQueue<>();
		long start = System.nanoTime();
		List<CompletableFuture<Void>> callers = new ArrayList<>();
		for (int c = 0; c < CALLERS; c++) {
			callers.add(CompletableFuture.runAsync(() -> {
				ThreadLocalRandom random = ThreadLocalRandom.current();
				while (started.getAndIncrement() < OPERATIONS) {
					Name name = names.get(random.nextInt(names.size()));
					RedisSemaphore semaphore = lockClients.get(random.nextInt(lockClients.size()))
						.getSemaphore(name.name(), name.limit());
					switch (random.nextInt(4)) {
						case 0 -> acquireWithShortWait(semaphore, name);
						case 1 -> tryAcquire(semaphore, name);
						case 2 -> acquireInterrupted(semaphore, name);
						default -> {
							asyncInFlight.acquireUninterruptibly();
							CompletableFuture<?> done = acquireAsyncCancelled(semaphore, name);
							asyncDone.add(done.whenComplete((ignored, failure) -> asyncInFlight.release()));
						}
					}
				}
			}, TestThreads.perTask()));
		}
		CompletableFuture.allOf(callers.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
		CompletableFuture.allOf(asyncDone.toArray(CompletableFuture[]::new)).get(1, TimeUnit.MINUTES);
		long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		logger.info("Semaphore leak check: " + OPERATIONS + " operations in " + tookMillis + " ms: " + this.outcomes
				+ "; most holders at once " + names);
		assertThat(this.outcomes.values().stream().mapToInt(AtomicInteger::get).sum()).isEqualTo(OPERATIONS);
		assertThat(this.outcomes).containsKeys("granted", "timed out", "cancelled", "interrupted");
		for (Name name : names) {
			assertThat(name.most().get()).as("most holders of %s", name).isLessThanOrEqualTo(name.limit());
		}
		for (RedisLockClient client : lockClients) {
			LockTestClients.assertNothingLeftBehind(client);
		}
		for (Name name : names) {
			// a permit kept for nobody a few ms is free once that has passed
			await().atMost(Duration.ofSeconds(10))
				.until(() -> lockClients.get(0).getSemaphore(name.name(), name.limit()).availablePermits() == name
					.limit());
		}
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			List<String> keys = keysButFencingCounters();
			assertThat(keys)
				.as("keys of the library (with their members, scores and TTL; Redis time %s): %s",
						redis.command("TIME").replace('\n', ' '), describe(keys))
				.isEmpty();
			assertThat(subscribers(names)).as("subscribers of the names' channels").isZero();
			assertThat(redis.command("PUBSUB", "CHANNELS", "lock:{*")).as("lock channels").isEmpty();
		});
	}

	private void acquireWithShortWait(RedisSemaphore semaphore, Name name) {
		try {
			hold(semaphore.acquire(shortWait(), lease()), name);
		}
		catch (LockNotAcquiredException ex) {
			count("timed out");
		}
	}

	private void tryAcquire(RedisSemaphore semaphore, Name name) {
		Duration wait = ThreadLocalRandom.current().nextBoolean() ? Duration.ZERO : shortWait();
		Optional<LockHandle> permit = semaphore.tryAcquire(wait, lease());
		if (permit.isPresent()) {
			hold(permit.get(), name);
		}
		else {
			count("timed out");
		}
	}

	// interrupted a few ms into a wait long enough to still be waiting, often; the
	// interrupt may also land while the acquire script runs or after a grant
	private void acquireInterrupted(RedisSemaphore semaphore, Name name) {
		Interrupt interrupt = new Interrupt(Thread.currentThread());
		this.timers.schedule(interrupt::fire, ThreadLocalRandom.current().nextInt(5), TimeUnit.MILLISECONDS);
		Optional<LockHandle> permit;
		try {
			permit = semaphore.tryAcquire(Duration.ofMillis(500), lease());
		}
		catch (LockNotAcquiredException ex) {
			permit = Optional.empty();
		}
		boolean interrupted = interrupt.disarm();
		if (permit.isPresent()) {
			hold(permit.get(), name);
		}
		else {
			count(interrupted ? "interrupted" : "timed out");
		}
	}

	private CompletableFuture<?> acquireAsyncCancelled(RedisSemaphore semaphore, Name name) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		CompletableFuture<LockHandle> acquiring = semaphore.acquireAsync(Duration.ofMillis(random.nextInt(50)),
				lease());
		CompletableFuture<?> done = acquiring.handle((permit, failure) -> {
			if (permit != null) {
				hold(permit, name);
			}
			else if (failure instanceof CancellationException
					|| failure instanceof CompletionException && failure.getCause() instanceof CancellationException) {
				count("cancelled");
			}
			else if (failure instanceof LockNotAcquiredException
					|| failure.getCause() instanceof LockNotAcquiredException) {
				count("timed out");
			}
			else {
				throw new AssertionError("Unexpected failure of an asynchronous acquisition", failure);
			}
			return null;
		});
		if (random.nextInt(3) > 0) {
			// at once, or 0 to 2 ms in: while subscribing, waiting, or as a permit is
			// granted
			int delay = random.nextInt(3);
			this.timers.schedule(() -> acquiring.cancel(false), delay, TimeUnit.MILLISECONDS);
		}
		return done;
	}

	// holds the permit a moment, then lets it go in one of the ways a caller may
	private void hold(LockHandle permit, Name name) {
		count("granted");
		ThreadLocalRandom random = ThreadLocalRandom.current();
		name.most().accumulateAndGet(name.inside().incrementAndGet(), Math::max);
		if (random.nextBoolean()) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(random.nextInt(1, 3)));
		}
		name.inside().decrementAndGet();
		switch (random.nextInt(4)) {
			case 0 -> this.releasers.execute(permit::release);
			case 1 -> permit.releaseAsync();
			case 2 -> {
				if (random.nextInt(8) == 0) {
					permit.release(Duration.ofMillis(3));
				}
				else {
					permit.release();
				}
			}
			default -> permit.release();
		}
	}

	private void count(String outcome) {
		this.outcomes.computeIfAbsent(outcome, (key) -> new AtomicInteger()).incrementAndGet();
	}

	private static Duration shortWait() {
		return Duration.ofMillis(ThreadLocalRandom.current().nextInt(1, 20));
	}

	private static Duration lease() {
		return ThreadLocalRandom.current().nextBoolean() ? LEASE : null;
	}

	private RedisLockClient newClient() {
		return this.clients.newClient((builder) -> builder.commandTimeout(TestTimeouts.COMMAND_TIMEOUT));
	}

	/** Every key on the test's server whose name the library could have written. */
	private static List<String> keysButFencingCounters() {
		List<String> keys = new ArrayList<>();
		String cursor = "0";
		do {
			List<String> reply = redis.command("SCAN", cursor, "MATCH", "lock:*", "COUNT", "1000").lines().toList();
			cursor = reply.get(0);
			reply.stream().skip(1).filter((key) -> !key.startsWith("lock:fence:")).forEach(keys::add);
		}
		while (!"0".equals(cursor));
		return keys;
	}

	// what a key left behind holds: which permit leaked, and until when
	private static String describe(List<String> keys) {
		StringBuilder description = new StringBuilder();
		for (String key : keys) {
			description.append(key)
				.append(" ")
				.append(redis.command("ZRANGE", key, "0", "-1", "WITHSCORES").replace('\n', ' '))
				.append(" pttl ")
				.append(redis.command("PTTL", key).trim())
				.append("; ");
		}
		return description.toString();
	}

	private static long subscribers(List<Name> names) {
		long subscribers = 0;
		for (Name name : names) {
			String channel = "lock:{" + name.name() + "}:sem:released";
			for (String command : List.of("NUMSUB", "SHARDNUMSUB")) {
				// [channel, count]
				subscribers += Long.parseLong(redis.command("PUBSUB", command, channel).lines().toList().get(1));
			}
		}
		return subscribers;
	}

	/**
	 * One name and its limit, with a non-atomic count of the holders inside this JVM and
	 * its maximum.
	 */
	private record Name(String name, int limit, AtomicInteger inside, AtomicInteger most) {

		Name(String name, int limit) {
			this(name, limit, new AtomicInteger(), new AtomicInteger());
		}

		@Override
		public String toString() {
			return this.limit + " permit(s): " + this.most.get();
		}

	}

	/**
	 * An interrupt of a caller aimed at one call: it fires only while armed, so that it
	 * cannot land in the caller's next operation.
	 */
	private static final class Interrupt {

		private final Thread target;

		private boolean armed = true;

		private boolean fired;

		Interrupt(Thread target) {
			this.target = target;
		}

		synchronized void fire() {
			if (this.armed) {
				this.fired = true;
				this.target.interrupt();
			}
		}

		/** Disarms it and clears the caller's interrupt status; whether it fired. */
		synchronized boolean disarm() {
			this.armed = false;
			Thread.interrupted();
			return this.fired;
		}

	}

}
