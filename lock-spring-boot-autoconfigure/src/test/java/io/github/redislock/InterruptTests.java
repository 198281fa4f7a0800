package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import io.github.redislock.internal.LockInspector;
import io.github.redislock.testsupport.FaultProxy;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.RedisServers;
import io.lettuce.core.event.command.CommandFailedEvent;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import io.lettuce.core.event.command.CommandSucceededEvent;
import io.lettuce.core.protocol.RedisCommand;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An interrupt is never reported as a Redis failure and never breaks a status check:
 * status reads answer with the interrupt status set and keep it, {@code lock()} waits
 * through it, and {@code lockInterruptibly()} and timed {@code tryLock} interrupted at
 * any moment throw {@link InterruptedException} (or, interrupted while the acquire script
 * is in flight, may return holding the lock with the status set) and leave nothing held,
 * queued or subscribed. Found by running the JSR-166 TCK's {@code ReentrantLock} tests
 * against {@link RedisLock}.
 *
 * <p>
 * The aimed cases go through a {@link FaultProxy} that delays every chunk by
 * {@value #LATENCY_MILLIS} ms each way, so that each round trip is in flight long enough
 * to be hit, and watch the client's commands to know when to interrupt. Each runs
 * {@link #ATTEMPTS} times (8; {@code -Dredislock.test.interruptAttempts=20} aims finer)
 * with the interrupt landing at evenly spaced, increasing delays, on a fresh client each
 * time, so that its first wait opens the pub/sub connection; the outcomes are counted and
 * logged.
 */
class InterruptTests {

	private static final Log logger = LogFactory.getLog(InterruptTests.class);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final long LATENCY_MILLIS = 25;

	/** What the proxy adds to each chunk, each way: a round trip is twice this. */
	private static final Duration LATENCY = Duration.ofMillis(LATENCY_MILLIS);

	/**
	 * How many delays each aimed case tries, spread evenly over its window: every build
	 * hits the start, the end and six points between; more points cost about 0.6 s each
	 * per case.
	 */
	private static final int ATTEMPTS = Math.max(2, Integer.getInteger("redislock.test.interruptAttempts", 8));

	private static final String INTERRUPTED = "InterruptedException";

	private static final String ACQUIRED = "acquired and held, interrupt status set";

	private static final String RELEASED = "released, interrupt status set";

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	private final CommandWatch commands = new CommandWatch();

	private final List<RedisLockClient> proxiedClients = new ArrayList<>();

	private FaultProxy proxy;

	private LettuceConnectionFactory proxiedConnectionFactory;

	private RedisLockClient holder;

	@BeforeEach
	void startProxy() {
		this.proxy = FaultProxy.start(redis.server().host(), redis.server().port());
		this.proxiedConnectionFactory = RedisServers.connectionFactory(
				new RedisStandaloneConfiguration(this.proxy.host(), this.proxy.port()), Duration.ofSeconds(10));
		this.proxiedConnectionFactory.getNativeClient().addListener(this.commands);
		this.holder = this.clients.newClient();
		// Redis has the scripts before the first aimed call: no NOSCRIPT retry in flight
		RedisLock warmUp = this.holder.getLock(LockTestClients.uniqueName());
		warmUp.lock();
		warmUp.unlock();
		// and the proxied factory has its shared connection open
		assertThat(newProxiedClient().getLock(warmUp.getName()).isLocked()).isFalse();
		this.proxy.latency(LATENCY);
	}

	@AfterEach
	void stopProxy() {
		Thread.interrupted();
		this.proxiedClients.forEach(RedisLockClient::close);
		this.proxiedConnectionFactory.destroy();
		this.proxy.close();
	}

	@Test
	void statusReadsAnswerWithTheInterruptStatusSetAndKeepIt() {
		RedisLock lock = this.clients.newClient().getLock(LockTestClients.uniqueName());
		RedisLock heldElsewhere = this.holder.getLock(LockTestClients.uniqueName());
		try {
			assertThat(keepingTheInterruptStatus(lock::isLocked)).isFalse();
			assertThat(keepingTheInterruptStatus(lock::isHeldByCurrentThread)).isFalse();
			assertThat(keepingTheInterruptStatus(lock::getHoldCount)).isZero();
			assertThat(keepingTheInterruptStatus(lock::remainingLease)).isZero();
			lock.lock();
			lock.lock();
			assertThat(keepingTheInterruptStatus(lock::isLocked)).isTrue();
			assertThat(keepingTheInterruptStatus(lock::isHeldByCurrentThread)).isTrue();
			assertThat(keepingTheInterruptStatus(lock::getHoldCount)).isEqualTo(2);
			assertThat(keepingTheInterruptStatus(lock::remainingLease)).isPositive()
				.isLessThanOrEqualTo(Duration.ofSeconds(30));
			heldElsewhere.lock();
			RedisLock sameLockHere = this.clients.newClient().getLock(heldElsewhere.getName());
			assertThat(keepingTheInterruptStatus(sameLockHere::isLocked)).isTrue();
			assertThat(keepingTheInterruptStatus(sameLockHere::isHeldByCurrentThread)).isFalse();
			assertThat(keepingTheInterruptStatus(sameLockHere::getHoldCount)).isZero();
			assertThat(keepingTheInterruptStatus(sameLockHere::remainingLease)).isPositive();
		}
		finally {
			Thread.interrupted();
		}
		lock.unlock();
		lock.unlock();
		heldElsewhere.unlock();
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void aTaskCancelledWhileHoldingTheLockReleasesItInFinallyAndTheWatchdogLetsGo() throws Exception {
		RedisLockClient client = this.clients.newClient(LockTestClients.TEST_WATCHDOG_TIMEOUT);
		RedisLock lock = client.getLock(LockTestClients.uniqueName());
		RedisLock seenElsewhere = this.holder.getLock(lock.getName());
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			CountDownLatch inside = new CountDownLatch(1);
			CompletableFuture<Boolean> releasedInFinally = new CompletableFuture<>();
			Future<?> task = executor.submit(() -> {
				lock.lock();
				try {
					inside.countDown();
					// the task's work, until it is cancelled
					new CountDownLatch(1).await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				finally {
					try {
						if (lock.isHeldByCurrentThread()) {
							lock.unlock();
						}
						releasedInFinally.complete(Thread.currentThread().isInterrupted());
					}
					catch (RuntimeException ex) {
						releasedInFinally.completeExceptionally(ex);
					}
				}
			});
			assertThat(inside.await(5, TimeUnit.SECONDS)).as("the task holds the lock").isTrue();
			assertThat(task.cancel(true)).isTrue();
			assertThat(releasedInFinally).as("the task's finally block, and its interrupt status after it")
				.succeedsWithin(Duration.ofSeconds(5))
				.isEqualTo(true);
			assertThat(seenElsewhere.isLocked()).isFalse();
			assertThat(LockTestClients.inspector(client).heldCount()).isZero();
			assertThat(LockTestClients.inspector(client).watchdogCount()).isZero();
			// the pool's thread lives on: a watchdog still renewing would keep it locked
			await().during(LockTestClients.TEST_WATCHDOG_TIMEOUT.multipliedBy(3))
				.atMost(LockTestClients.TEST_WATCHDOG_TIMEOUT.multipliedBy(5))
				.until(() -> !seenElsewhere.isLocked());
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void lockWithTheInterruptStatusSetWaitsForTheLockAndReturnsWithTheStatusStillSet() throws Exception {
		RedisLock held = this.holder.getLock(LockTestClients.uniqueName());
		held.lock();
		RedisLockClient client = this.clients.newClient();
		RedisLock lock = client.getLock(held.getName());
		Caller<String> caller = Caller.start(() -> {
			Thread.currentThread().interrupt();
			lock.lock();
			String outcome = (Thread.currentThread().isInterrupted() ? "interrupt status set" : "status cleared")
					+ ", held: " + lock.isHeldByCurrentThread();
			Thread.interrupted();
			lock.unlock();
			return outcome;
		});
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(client).waitingCount() == 1);
		// one more interrupt while it waits does not end the wait either
		caller.thread().interrupt();
		await().during(Duration.ofMillis(300))
			.atMost(Duration.ofSeconds(2))
			.until(() -> LockTestClients.inspector(client).waitingCount() == 1 && caller.thread().isAlive());
		held.unlock();
		assertThat(caller.result()).isEqualTo("interrupt status set, held: true");
		assertThat(lock.isLocked()).isFalse();
	}

	@ParameterizedTest
	@EnumSource(Acquisition.class)
	void anInterruptBeforeTheCallThrowsAtOnceAndSendsNothing(Acquisition acquisition) throws Exception {
		RedisLock held = this.holder.getLock(LockTestClients.uniqueName());
		held.lock();
		RedisLockClient client = newProxiedClient();
		Caller<String> caller = Caller.prepare(() -> {
			Thread.currentThread().interrupt();
			return attemptOnce(acquisition, client.getLock(held.getName()), () -> true);
		});
		this.commands.watch(caller.thread());
		caller.thread().start();
		assertThat(caller.result()).isEqualTo(INTERRUPTED);
		assertThat(this.commands.events()).as("commands sent").isEmpty();
		assertThat(LockTestClients.inspector(client).subscribedCount()).isZero();
		assertLeftNothing(client, held.getName());
		held.unlock();
	}

	@ParameterizedTest
	@EnumSource(Acquisition.class)
	void anInterruptDuringTheAcquireScriptOfAFreeLockAcquiresWithTheStatusSetOrThrows(Acquisition acquisition)
			throws Exception {
		Map<String, Integer> outcomes = aim(acquisition, false, Aim.ACQUIRE_SCRIPT);
		assertThat(outcomes.keySet()).as("outcomes %s", outcomes).isSubsetOf(ACQUIRED, INTERRUPTED);
	}

	@ParameterizedTest
	@EnumSource(Acquisition.class)
	void anInterruptDuringTheAcquireScriptOfATakenLockThrowsInterruptedException(Acquisition acquisition)
			throws Exception {
		Map<String, Integer> outcomes = aim(acquisition, true, Aim.ACQUIRE_SCRIPT);
		assertThat(outcomes).as("outcomes").containsOnlyKeys(INTERRUPTED);
	}

	@ParameterizedTest
	@EnumSource(Acquisition.class)
	void anInterruptWhileTheFirstWaitSubscribesThrowsInterruptedException(Acquisition acquisition) throws Exception {
		Map<String, Integer> outcomes = aim(acquisition, true, Aim.FIRST_SUBSCRIPTION);
		assertThat(outcomes).as("outcomes").containsOnlyKeys(INTERRUPTED);
	}

	@ParameterizedTest
	@EnumSource(Acquisition.class)
	void anInterruptWhileParkedThrowsInterruptedException(Acquisition acquisition) throws Exception {
		Map<String, Integer> outcomes = aim(acquisition, true, Aim.PARKED);
		assertThat(outcomes).as("outcomes").containsOnlyKeys(INTERRUPTED);
	}

	/**
	 * The other kinds wait through the same engine, and two of them with a mark in Redis
	 * (a waiting writer keeps new readers out, a fair waiter has its place in the queue):
	 * an interrupt while waiting ends the wait with InterruptedException and takes the
	 * mark back, so others get the lock long before the mark would have expired (3 s for
	 * a writer's, 6 s for a fair waiter's place).
	 */
	@ParameterizedTest
	@EnumSource(Kind.class)
	void anInterruptWhileWaitingForALockOfAnotherKindThrowsAndLeavesNoMark(Kind kind) throws Exception {
		for (int attempt = 0; attempt < 5; attempt++) {
			String name = LockTestClients.uniqueName();
			RedisLock held = kind.blocker(this.holder, name);
			held.lock();
			RedisLockClient client = newProxiedClient();
			Caller<String> caller = Caller
				.prepare(() -> attemptOnce(Acquisition.TRY_LOCK, kind.waiter(client, name), () -> true));
			caller.thread().start();
			awaitWaiting(client);
			new Interrupter().interruptAfter(caller.thread(), LATENCY.multipliedBy(attempt), () -> "waiting");
			assertThat(caller.result()).as("%s waiter, attempt %d", kind, attempt).isEqualTo(INTERRUPTED);
			assertThat(LockTestClients.inspector(client).waitingCount()).as("threads waiting").isZero();
			assertThat(LockTestClients.inspector(client).heldCount()).as("locks held").isZero();
			RedisLockClient other = this.clients.newClient();
			if (kind != Kind.WRITE) {
				held.unlock();
			}
			long start = System.nanoTime();
			RedisLock newcomer = kind.newcomer(other, name);
			assertThat(newcomer.tryLock(Duration.ofSeconds(10), null)).isTrue();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).as("%s: others kept out", kind)
				.isLessThan(Duration.ofMillis(1500));
			newcomer.unlock();
			if (kind == Kind.WRITE) {
				held.unlock();
			}
		}
	}

	/** A kind of lock whose waiter is interrupted, and what makes it wait. */
	enum Kind {

		/** A reader waits for a writer. */
		READ,

		/** A writer waits for a reader, and keeps new readers out while it waits. */
		WRITE,

		/** A fair lock's waiter waits in the queue. */
		FAIR;

		RedisLock blocker(RedisLockClient client, String name) {
			return switch (this) {
				case READ -> client.getReadWriteLock(name).writeLock();
				case WRITE -> client.getReadWriteLock(name).readLock();
				case FAIR -> client.getFairLock(name);
			};
		}

		RedisLock waiter(RedisLockClient client, String name) {
			return switch (this) {
				case READ -> client.getReadWriteLock(name).readLock();
				case WRITE -> client.getReadWriteLock(name).writeLock();
				case FAIR -> client.getFairLock(name);
			};
		}

		/**
		 * Who would be kept out by a mark left behind: a new reader while the reader
		 * still holds (WRITE), else whoever comes next once the holder released.
		 */
		RedisLock newcomer(RedisLockClient client, String name) {
			return (this == WRITE) ? client.getReadWriteLock(name).readLock() : waiter(client, name);
		}

	}

	@Test
	void anInterruptDuringTheReleaseScriptStillReleasesAndKeepsTheStatus() throws Exception {
		Map<String, Integer> outcomes = new TreeMap<>();
		Map<String, Map<String, Integer>> byPhase = new TreeMap<>();
		for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
			RedisLockClient client = newProxiedClient();
			RedisLock lock = client.getLock(LockTestClients.uniqueName());
			CountDownLatch acquired = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			Interrupter interrupter = new Interrupter();
			Caller<String> caller = Caller.prepare(() -> {
				lock.lock();
				acquired.countDown();
				release.await();
				try {
					lock.unlock();
				}
				catch (RuntimeException ex) {
					return describe(ex, lock);
				}
				interrupter.awaitSent();
				return Thread.currentThread().isInterrupted() ? RELEASED : "released, interrupt status cleared";
			});
			caller.thread().start();
			assertThat(acquired.await(5, TimeUnit.SECONDS)).as("acquired").isTrue();
			CountDownLatch releaseSent = this.commands.watchFor(caller.thread(), "EVALSHA sent");
			release.countDown();
			assertThat(releaseSent.await(5, TimeUnit.SECONDS)).as("release script sent").isTrue();
			String phase = interrupter.interruptAfter(caller.thread(), delay(attempt, LATENCY.multipliedBy(2)),
					this.commands::lastEvent);
			String outcome = caller.result();
			count(outcomes, byPhase, phase, outcome);
			assertThat(redis.command("EXISTS", "lock:{" + lock.getName() + "}")).as("lock key after %s", outcome)
				.isEqualTo("0");
			assertLeftNothing(client, lock.getName());
		}
		logger.info("unlock() interrupted during the release script: " + outcomes
				+ "; by the thread's last command event before the interrupt: " + byPhase);
		assertThat(outcomes).as("outcomes").containsOnlyKeys(RELEASED);
	}

	/**
	 * Runs {@link #ATTEMPTS} acquisitions, each by a fresh client through the proxy,
	 * interrupted at the aimed moment plus an increasing delay; returns how often each
	 * outcome came, having checked after each that nothing was left behind.
	 */
	private Map<String, Integer> aim(Acquisition acquisition, boolean lockTaken, Aim aim) throws Exception {
		Map<String, Integer> outcomes = new TreeMap<>();
		Map<String, Map<String, Integer>> byPhase = new TreeMap<>();
		List<RedisLockClient> attempted = new ArrayList<>();
		for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
			String name = LockTestClients.uniqueName();
			RedisLock held = this.holder.getLock(name);
			if (lockTaken) {
				held.lock();
			}
			RedisLockClient client = newProxiedClient();
			attempted.add(client);
			Interrupter interrupter = new Interrupter();
			Caller<String> caller = Caller
				.prepare(() -> attemptOnce(acquisition, client.getLock(name), interrupter::awaitSent));
			CountDownLatch aimedAt = (aim.event != null) ? this.commands.watchFor(caller.thread(), aim.event)
					: this.commands.watch(caller.thread());
			caller.thread().start();
			if (aim.event != null) {
				assertThat(aimedAt.await(5, TimeUnit.SECONDS)).as("'%s' seen", aim.event).isTrue();
			}
			else {
				awaitWaiting(client);
			}
			// the phase from the thread's commands only: the engine's counts wait for a
			// subscription under way
			String phase = interrupter.interruptAfter(caller.thread(), delay(attempt, aim.spread),
					this.commands::lastEvent);
			String outcome = caller.result().replace(name, "<name>");
			count(outcomes, byPhase, phase, outcome);
			assertLeftNothing(client, name);
			if (lockTaken) {
				held.unlock();
			}
		}
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(attempted)
				.allSatisfy((client) -> assertThat(LockTestClients.inspector(client).subscribedCount())
					.as("locks %s is still subscribed to", client)
					.isZero()));
		logger.info(acquisition + ", lock " + (lockTaken ? "taken" : "free") + ", interrupted " + aim.description + ": "
				+ outcomes + "; by the thread's last command event before the interrupt: " + byPhase);
		return outcomes;
	}

	/** Acquires, reports, and gives the lock back if it got it. */
	private static String attemptOnce(Acquisition acquisition, RedisLock lock, Supplier<Boolean> interruptSent) {
		boolean acquired;
		try {
			acquired = acquisition.acquire(lock);
		}
		catch (InterruptedException ex) {
			return INTERRUPTED;
		}
		catch (RuntimeException ex) {
			return describe(ex, lock);
		}
		if (!acquired) {
			return "returned false";
		}
		try {
			// an interrupt that came after the call returned sets the status too
			interruptSent.get();
			boolean status = Thread.currentThread().isInterrupted();
			boolean held = lock.isHeldByCurrentThread();
			lock.unlock();
			return "acquired" + (held ? " and held" : ", not held") + ", interrupt status "
					+ (status ? "set" : "cleared");
		}
		catch (RuntimeException ex) {
			return "acquired, then " + describe(ex, lock);
		}
	}

	private void assertLeftNothing(RedisLockClient client, String name) {
		assertThat(LockTestClients.inspector(client).waitingCount()).as("threads waiting").isZero();
		assertThat(LockTestClients.inspector(client).heldCount()).as("locks held").isZero();
		assertThat(LockTestClients.inspector(client).watchdogCount()).as("locks renewed").isZero();
		assertThat(LockTestClients.inspector(client).settlingCount()).as("acquisitions being settled").isZero();
		assertThat(fields(redis.command("HGETALL", "lock:{" + name + "}"))).as("owners of lock '%s' in Redis", name)
			.noneMatch(LockTestClients.inspector(client)::isOwnedHere);
	}

	private RedisLockClient newProxiedClient() {
		RedisLockClient client = RedisLockClient.builder(this.proxiedConnectionFactory).build();
		this.proxiedClients.add(client);
		return client;
	}

	private static void awaitWaiting(RedisLockClient client) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (LockTestClients.inspector(client).waitingCount() == 0) {
			assertThat(System.nanoTime()).as("a thread waits").isLessThan(deadline);
			LockSupport.parkNanos(100_000);
		}
	}

	private static Duration delay(int attempt, Duration spread) {
		return spread.multipliedBy(attempt).dividedBy(ATTEMPTS - 1);
	}

	private static void count(Map<String, Integer> outcomes, Map<String, Map<String, Integer>> byPhase, String phase,
			String outcome) {
		outcomes.merge(outcome, 1, Integer::sum);
		byPhase.computeIfAbsent(phase, (key) -> new TreeMap<>()).merge(outcome, 1, Integer::sum);
	}

	private static String describe(RuntimeException ex, RedisLock lock) {
		return ex.getClass().getSimpleName() + ": " + String.valueOf(ex.getMessage()).replace(lock.getName(), "<name>");
	}

	// HGETALL's reply, one element a line: field, value, field, value...
	private static List<String> fields(String hgetall) {
		List<String> fields = new ArrayList<>();
		String[] lines = hgetall.isBlank() ? new String[0] : hgetall.split("\n");
		for (int i = 0; i < lines.length; i += 2) {
			fields.add(lines[i].trim());
		}
		return fields;
	}

	/**
	 * Reads with the interrupt status set, checks that it is still set, and clears it.
	 */
	private static <T> T keepingTheInterruptStatus(Supplier<T> read) {
		Thread.currentThread().interrupt();
		T value = read.get();
		assertThat(Thread.interrupted()).as("interrupt status after the read").isTrue();
		return value;
	}

	/** The acquiring calls that give way to an interrupt. */
	enum Acquisition {

		LOCK_INTERRUPTIBLY {

			@Override
			boolean acquire(RedisLock lock) throws InterruptedException {
				lock.lockInterruptibly();
				return true;
			}

		},

		TRY_LOCK {

			@Override
			boolean acquire(RedisLock lock) throws InterruptedException {
				return lock.tryLock(10, TimeUnit.SECONDS);
			}

		};

		abstract boolean acquire(RedisLock lock) throws InterruptedException;

	}

	/**
	 * When the interrupt is aimed: after a command event of the acquiring thread (or once
	 * it is registered as waiting), plus a delay spread over the attempts.
	 */
	enum Aim {

		/** The acquire script is in flight: one round trip. */
		ACQUIRE_SCRIPT("EVALSHA sent", LATENCY.multipliedBy(2), "during the acquire script"),

		/**
		 * The first attempt has its answer (the lock is taken): the thread opens the
		 * client's pub/sub connection (about three round trips through the proxy),
		 * subscribes to the client's own channel and to the lock's (one each), and tries
		 * once more. The spread covers all of it.
		 */
		FIRST_SUBSCRIPTION("EVALSHA answered", LATENCY.multipliedBy(12), "while the first wait subscribes"),

		/**
		 * Registered as a waiter: the thread tries once more (one round trip) and parks.
		 */
		PARKED(null, LATENCY.multipliedBy(4), "once waiting (last attempt, then parked)");

		private final String event;

		private final Duration spread;

		private final String description;

		Aim(String event, Duration spread, String description) {
			this.event = event;
			this.spread = spread;
			this.description = description;
		}

	}

	/**
	 * Interrupts a thread after a delay and lets it know when the interrupt has been
	 * sent, so that it reads its status after that.
	 */
	private static final class Interrupter {

		private volatile boolean sent;

		/** Returns what the phase was just before the interrupt. */
		String interruptAfter(Thread thread, Duration delay, Supplier<String> phase) {
			LockSupport.parkNanos(delay.toNanos());
			String before = phase.get();
			thread.interrupt();
			this.sent = true;
			return before;
		}

		boolean awaitSent() {
			while (!this.sent) {
				Thread.onSpinWait();
			}
			return true;
		}

	}

	/**
	 * Records the commands one thread sends through the proxied connection factory (and
	 * their answers), and opens a latch at a given event.
	 */
	private static final class CommandWatch implements CommandListener {

		private final List<String> events = new CopyOnWriteArrayList<>();

		private final Set<RedisCommand<?, ?, ?>> sent = ConcurrentHashMap.newKeySet();

		private volatile Thread thread;

		private volatile String awaited;

		private volatile CountDownLatch latch = new CountDownLatch(0);

		CountDownLatch watch(Thread thread) {
			return watchFor(thread, null);
		}

		CountDownLatch watchFor(Thread thread, String event) {
			this.events.clear();
			this.sent.clear();
			this.latch = new CountDownLatch(1);
			this.awaited = event;
			this.thread = thread;
			return this.latch;
		}

		List<String> events() {
			return List.copyOf(this.events);
		}

		String lastEvent() {
			List<String> events = events();
			return events.isEmpty() ? "nothing sent yet" : events.get(events.size() - 1);
		}

		@Override
		public void commandStarted(CommandStartedEvent event) {
			if (Thread.currentThread() == this.thread) {
				this.sent.add(event.getCommand());
				record(event.getCommand(), "sent");
			}
		}

		@Override
		public void commandSucceeded(CommandSucceededEvent event) {
			if (this.sent.contains(event.getCommand())) {
				record(event.getCommand(), "answered");
			}
		}

		@Override
		public void commandFailed(CommandFailedEvent event) {
			if (this.sent.contains(event.getCommand())) {
				record(event.getCommand(), "failed");
			}
		}

		private void record(RedisCommand<?, ?, ?> command, String what) {
			String event = command.getType() + " " + what;
			this.events.add(event);
			if (event.equals(this.awaited)) {
				this.awaited = null;
				this.latch.countDown();
			}
		}

	}

	/** A call on a thread of its own, whose result the test waits for. */
	private record Caller<T>(Thread thread, CompletableFuture<T> future) {

		static <T> Caller<T> prepare(Callable<T> call) {
			CompletableFuture<T> future = new CompletableFuture<>();
			Thread thread = new Thread(() -> {
				try {
					future.complete(call.call());
				}
				catch (Throwable ex) {
					future.completeExceptionally(ex);
				}
			}, "interrupt-test-caller");
			thread.setDaemon(true);
			return new Caller<>(thread, future);
		}

		static <T> Caller<T> start(Callable<T> call) {
			Caller<T> caller = prepare(call);
			caller.thread().start();
			return caller;
		}

		T result() throws Exception {
			try {
				return this.future.get(15, TimeUnit.SECONDS);
			}
			catch (TimeoutException ex) {
				throw new AssertionError("The call did not return within 15s", ex);
			}
		}

	}

}
