package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import io.github.redislock.ContractKind.Hold;
import io.github.redislock.autoconfigure.actuate.LocksEndpoint;
import io.github.redislock.autoconfigure.actuate.LocksEndpoint.LockDescriptor;
import io.github.redislock.internal.HeldLock;
import io.github.redislock.internal.KindState;
import io.github.redislock.internal.LockInspector;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.awaitility.core.ConditionFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * What every lock kind keeps, whatever it is and however it is reached: at most its limit
 * of holders (a side of a read/write lock also keeps the other side out), re-entry where
 * it re-enters and never for a handle, leases that end and watchdog holds that do not,
 * increasing fencing tokens, waiters woken by releases, callers that give up leaving
 * nothing behind, no-wait attempts granted whenever nobody holds it, and the endpoint and
 * meters seeing every hold. Each kind comes in through a {@link ContractKind} adapter; a
 * subclass gives the topology. One set of clients serves the whole class, each test its
 * own lock name.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LockKindContract {

	/**
	 * The watchdog lease of the contract's clients: short, so that a hold outliving it is
	 * quick to see; renewed every third of it, a stall of 700 ms (a JVM starved of CPU on
	 * a machine whose cores are all busy) does not lose it. At 600 ms, renewals 200 ms
	 * apart were missed under such load (see {@link LockTestClients}).
	 */
	static final Duration WATCHDOG_TIMEOUT = Duration.ofMillis(1200);

	/**
	 * A lease no test waits for: a waiter that got the lock well within it was woken by
	 * the release.
	 */
	static final Duration LONG_LEASE = Duration.ofSeconds(30);

	/** How soon a waiter woken by a release must have the lock: far below the lease. */
	static final Duration WOKEN_WITHIN = Duration.ofSeconds(5);

	/** A wait no test reaches when the contract holds. */
	static final Duration LONG_WAIT = Duration.ofSeconds(20);

	private final MeterRegistry meters = new SimpleMeterRegistry();

	private LockTestClients clients;

	/** The client that holds first; it has the meters and the endpoint. */
	private RedisLockClient holding;

	/** The client that waits. */
	private RedisLockClient waiting;

	/** A client that comes afterwards. */
	private RedisLockClient newcomer;

	private StringRedisTemplate redis;

	private LocksEndpoint endpoint;

	/** Starts the topology and answers clients of it. */
	abstract LockTestClients startTopology();

	/** Stops the topology, once its clients are closed. */
	abstract void stopTopology();

	@BeforeAll
	void createClients() {
		this.clients = startTopology();
		this.holding = LockTestClients
			.awaitConnected(this.clients.newClient((builder) -> builder.watchdogTimeout(WATCHDOG_TIMEOUT)
				.commandTimeout(TestTimeouts.COMMAND_TIMEOUT)
				.meterRegistry(this.meters)));
		this.waiting = LockTestClients.awaitConnected(this.clients.newClient(
				(builder) -> builder.watchdogTimeout(WATCHDOG_TIMEOUT).commandTimeout(TestTimeouts.COMMAND_TIMEOUT)));
		this.newcomer = LockTestClients.awaitConnected(this.clients.newClient(
				(builder) -> builder.watchdogTimeout(WATCHDOG_TIMEOUT).commandTimeout(TestTimeouts.COMMAND_TIMEOUT)));
		this.redis = this.clients.newTemplate();
		this.endpoint = new LocksEndpoint(this.holding);
	}

	@AfterAll
	void closeClients() {
		try {
			this.clients.close();
		}
		finally {
			stopTopology();
		}
	}

	/**
	 * The kinds this topology runs the contract for: every kind and every way of reaching
	 * it, unless a subclass narrows it.
	 */
	Stream<ContractKind> kinds() {
		return ContractKind.all().stream();
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("kinds")
	void holdersNeverExceedTheLimitNorMeetTheRivalKindAcrossThreadsAndClients(ContractKind kind) throws Exception {
		String name = LockTestClients.uniqueName();
		ContractKind rival = kind.rival();
		boolean mixed = rival != kind;
		AtomicInteger inKind = new AtomicInteger();
		AtomicInteger inRival = new AtomicInteger();
		AtomicInteger mostInKind = new AtomicInteger();
		List<String> violations = new CopyOnWriteArrayList<>();
		int threads = Math.min(kind.limit(), 2) + 2;
		int rounds = 6;
		List<CompletableFuture<Void>> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			boolean ofRival = mixed && t % 2 == 1;
			ContractKind taking = ofRival ? rival : kind;
			RedisLockClient client = (t % 2 == 0) ? this.holding : this.waiting;
			AtomicInteger mine = ofRival ? inRival : inKind;
			AtomicInteger theirs = ofRival ? inKind : inRival;
			workers.add(CompletableFuture.runAsync(() -> {
				for (int round = 0; round < rounds; round++) {
					Hold hold = acquire(taking, client, name, LONG_WAIT, LONG_LEASE);
					int now = mine.incrementAndGet();
					if (!ofRival) {
						mostInKind.accumulateAndGet(now, Math::max);
					}
					if (now > taking.limit()) {
						violations.add(now + " holders of " + taking + ", limit " + taking.limit());
					}
					if (mixed && theirs.get() > 0) {
						violations.add(taking + " held together with " + (ofRival ? kind : rival));
					}
					spin(500);
					mine.decrementAndGet();
					hold.release();
				}
			}, TestThreads.perTask()));
		}
		CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
		assertThat(violations).isEmpty();
		assertThat(mostInKind.get()).isBetween(1, kind.limit());
		LockTestClients.assertNoKeysOf(this.redis, name);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("kinds")
	void theLimitIsReachedByOwnersOfTwoClientsAndOneMoreIsRefused(ContractKind kind) throws Exception {
		String name = LockTestClients.uniqueName();
		int holders = Math.min(kind.limit(), ContractKind.PERMITS);
		List<Owner> owners = new ArrayList<>();
		try {
			for (int i = 0; i < holders; i++) {
				Owner owner = new Owner();
				owners.add(owner);
				RedisLockClient client = (i % 2 == 0) ? this.holding : this.waiting;
				assertThat(owner.takes(kind, client, name, Duration.ZERO, null)).as("holder %d of %s", i + 1, kind)
					.isTrue();
			}
			if (kind.limit() != ContractKind.SHARED) {
				assertThat(triesOnOtherThread(kind, this.newcomer, name)).as("one more than the limit").isFalse();
			}
			if (kind.rival() != kind) {
				assertThat(triesOnOtherThread(kind.rival(), this.newcomer, name)).as("the rival kind").isFalse();
			}
		}
		finally {
			releaseAll(owners);
		}
		assertThat(triesOnOtherThread(kind, this.newcomer, name)).as("once they all released").isTrue();
		if (kind.rival() != kind) {
			assertThat(triesOnOtherThread(kind.rival(), this.newcomer, name)).as("the rival, once released").isTrue();
		}
		LockTestClients.assertNoKeysOf(this.redis, name);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("kinds")
	void anOwnerReentersWhereTheKindReentersAndAHandleOrPermitIsNeverReentered(ContractKind kind) throws Exception {
		String name = LockTestClients.uniqueName();
		Hold first = acquire(kind, this.holding, name, Duration.ZERO, null);
		Optional<Hold> again = kind.tryAcquire(this.holding, name, Duration.ZERO, null);
		if (kind.reentrant()) {
			Hold second = again.orElseThrow(() -> new AssertionError(kind + " did not re-enter"));
			assertThat(second.holdCount()).isEqualTo(2);
			assertThat(second.fencingToken()).as("a re-entry keeps the token").isEqualTo(first.fencingToken());
			assertThat(state(name).holders()).as("one owner").hasSize(1);
			second.release();
			assertThat(first.holdCount()).isOne();
			assertThat(first.isHeld()).isTrue();
			assertThat(state(name).locked()).isTrue();
		}
		else if (kind.limit() == 1) {
			again.ifPresent(Hold::release);
			assertThat(again).as("a second acquisition on the same thread waits").isEmpty();
		}
		else {
			Hold second = again.orElseThrow(() -> new AssertionError(kind + " refused a second permit"));
			assertThat(second.holdCount()).isOne();
			assertThat(second.fencingToken()).as("another permit, another token").isGreaterThan(first.fencingToken());
			assertThat(state(name).holders()).as("two owners").hasSize(2);
			second.release();
			assertThat(first.isHeld()).isTrue();
		}
		first.release();
		LockTestClients.assertNoKeysOf(this.redis, name);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("kinds")
	void aFixedLeaseEndsInRedisWhileTheWatchdogKeepsAHoldPastSeveralIntervals(ContractKind kind) throws Exception {
		String leased = LockTestClients.uniqueName();
		String watched = LockTestClients.uniqueName();
		Hold fixed = acquire(kind, this.holding, leased, Duration.ZERO, Duration.ofMillis(300));
		Hold renewed = acquire(kind, this.holding, watched, Duration.ZERO, null);
		long start = System.nanoTime();
		LockTestClients.assertNoKeysOf(this.redis, leased);
		assertThat(fixed.isHeld()).isFalse();
		assertThatExceptionOfType(LeaseExpiredException.class).isThrownBy(fixed::release);
		// renewed every third of the watchdog timeout: held past the timeout itself, so
		// after three renewals
		Duration past = WATCHDOG_TIMEOUT.plusMillis(200).minusNanos(System.nanoTime() - start);
		if (!past.isNegative()) {
			eventually().during(past).atMost(past.plusSeconds(5)).until(() -> state(watched).locked());
		}
		assertThat(renewed.isHeld()).isTrue();
		assertThat(state(watched).remainingLeaseMillis()).isPositive();
		renewed.release();
		LockTestClients.assertNoKeysOf(this.redis, watched);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("kinds")
	void extendSetsTheLeaseRedisHoldsAndEndsWatchdogRenewal(ContractKind kind) throws Exception {
		String name = LockTestClients.uniqueName();
		Hold hold = acquire(kind, this.holding, name, Duration.ZERO, null);
		assertThat(heldHere(name).watchdog()).isTrue();
		assertThat(state(name).remainingLeaseMillis()).isBetween(1L, WATCHDOG_TIMEOUT.toMillis());
		assertThat(hold.extend(LONG_LEASE)).isTrue();
		assertThat(heldHere(name).watchdog()).as("renewed by the watchdog").isFalse();
		assertThat(state(name).remainingLeaseMillis()).isGreaterThan(WATCHDOG_TIMEOUT.toMillis())
			.isLessThanOrEqualTo(LONG_LEASE.toMillis());
		hold.release();
		assertThat(hold.extend(LONG_LEASE)).as("once released").isFalse();
		LockTestClients.assertNoKeysOf(this.redis, name);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("kinds")
	void fencingTokensStrictlyIncreaseFromHoldToHold(ContractKind kind) throws Exception {
		String name = LockTestClients.uniqueName();
		long last = 0;
		for (int i = 0; i < 4; i++) {
			RedisLockClient client = (i % 2 == 0) ? this.holding : this.waiting;
			Hold hold = acquire(kind, client, name, Duration.ZERO, null);
			assertThat(hold.fencingToken()).as("hold %d", i + 1).isGreaterThan(last);
			last = hold.fencingToken();
			hold.release();
		}
		LockTestClients.assertNoKeysOf(this.redis, name);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("kinds")
	void aWaiterIsWokenByAReleaseLongBeforeTheHoldersLeaseEnds(ContractKind kind) throws Exception {
		String name = LockTestClients.uniqueName();
		List<Owner> blockers = block(kind, name);
		try {
			Waiter waiter = Waiter.start(kind, this.waiting, name, LONG_WAIT);
			awaitWaiting(this.waiting, name);
			long releasedAt = System.nanoTime();
			blockers.remove(0).releases();
			assertThat(waiter.acquired().get(WOKEN_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
			assertThat(Duration.ofNanos(waiter.acquiredAt() - releasedAt)).isLessThan(WOKEN_WITHIN);
		}
		finally {
			releaseAll(blockers);
		}
		LockTestClients.assertNoKeysOf(this.redis, name);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("kinds")
	void aCallerWhoseWaitEndsLeavesNothingInRedis(ContractKind kind) throws Exception {
		String name = LockTestClients.uniqueName();
		List<Owner> blockers = block(kind, name);
		try {
			assertThat(triesOnOtherThread(kind, this.waiting, name, Duration.ofMillis(150))).as("timed out").isFalse();
			assertNoWaiterLeft(name);
		}
		finally {
			releaseAll(blockers);
		}
		assertFreeForAnotherClientAndThenGone(kind, name);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("kinds")
	void anInterruptedCallerLeavesNothingInRedis(ContractKind kind) throws Exception {
		String name = LockTestClients.uniqueName();
		List<Owner> blockers = block(kind, name);
		try {
			// lockInterruptibly() for a thread-owned kind
			Waiter waiter = Waiter.start(kind, this.waiting, name, null);
			awaitWaiting(this.waiting, name);
			waiter.thread().interrupt();
			assertThat(waiter.acquired()).failsWithin(Duration.ofSeconds(10))
				.withThrowableThat()
				.havingRootCause()
				.isInstanceOf(InterruptedException.class);
			assertNoWaiterLeft(name);
		}
		finally {
			releaseAll(blockers);
		}
		assertFreeForAnotherClientAndThenGone(kind, name);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("kinds")
	void aNoWaitAttemptIsNeverRefusedWhileNobodyHoldsItWhoeverWaitedBefore(ContractKind kind) throws Exception {
		String name = LockTestClients.uniqueName();
		List<Owner> blockers = block(kind, name);
		try {
			// waiters of two clients, one that gave up and one still waiting when its
			// client's no-wait attempt comes
			assertThat(triesOnOtherThread(kind, this.newcomer, name, Duration.ofMillis(100))).as("timed out").isFalse();
			Waiter waiter = Waiter.start(kind, this.waiting, name, LONG_WAIT);
			awaitWaiting(this.waiting, name);
			waiter.thread().interrupt();
			assertThat(waiter.acquired()).failsWithin(Duration.ofSeconds(10));
			if (kind.givesUpInTheBackground()) {
				// A cancel returns at once and takes the waiter's mark back in the
				// background, after the attempt it may have had on its way (the one it
				// makes once subscribed, as this test sees it waiting). Released before
				// that attempt came to Redis, the lock went to the cancelled waiter
				// until the client gave it back, and a no-wait attempt meanwhile was
				// refused (one run in about 1,000 with both cores busy). Once its mark is
				// gone, no attempt of it comes any more.
				assertNoWaiterLeft(name);
			}
		}
		finally {
			releaseAll(blockers);
		}
		for (RedisLockClient client : List.of(this.newcomer, this.waiting, this.holding)) {
			assertThat(triesOnOtherThread(kind, client, name, Duration.ZERO)).as("no-wait attempt").isTrue();
		}
		LockTestClients.assertNoKeysOf(this.redis, name);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("kinds")
	void theEndpointShowsTheHolderWhileHeldAndTheMetersCountTheAcquisitionByMode(ContractKind kind) throws Exception {
		String name = LockTestClients.uniqueName();
		Hold hold = acquire(kind, this.holding, name, Duration.ZERO, null);
		LockDescriptor held = this.endpoint.lock(new String[] { name });
		assertThat(held).isNotNull();
		assertThat(held.locked()).isTrue();
		assertThat(held.kinds()).singleElement().satisfies((shown) -> {
			assertThat(shown.mode()).isEqualTo(kind.endpointMode());
			assertThat(shown.locked()).isTrue();
			assertThat(shown.holders()).singleElement().satisfies((holder) -> {
				assertThat(holder.thisInstance()).isTrue();
				assertThat(holder.holdCount()).isOne();
			});
		});
		assertThat(held.heldHere()).singleElement().satisfies((here) -> assertThat(here.mode()).isEqualTo(kind.mode()));
		hold.release();
		LockDescriptor released = this.endpoint.lock(new String[] { name });
		assertThat(released).isNotNull();
		assertThat(released.locked()).isFalse();
		assertThat(released.kinds()).isEmpty();
		assertThat(released.heldHere()).isEmpty();
		assertThat(this.meters.get("redis.lock.acquire")
			.tags("name", name, "mode", kind.mode(), "outcome", "acquired")
			.timer()
			.count()).isOne();
		eventually().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(
					this.meters.get("redis.lock.hold").tags("name", name, "mode", kind.mode()).timer().count())
				.isOne());
	}

	// --- helpers

	private static Hold acquire(ContractKind kind, RedisLockClient client, String name, Duration waitTime,
			@Nullable Duration leaseTime) {
		try {
			return kind.tryAcquire(client, name, waitTime, leaseTime)
				.orElseThrow(() -> new AssertionError(kind + " '" + name + "' not acquired within " + waitTime));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Holders of the holding client that keep {@code kind} out with long leases: its
	 * rival once, or as many of itself as its limit.
	 */
	private List<Owner> block(ContractKind kind, String name) throws Exception {
		ContractKind rival = kind.rival();
		int count = (rival != kind) ? 1 : kind.limit();
		List<Owner> blockers = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			Owner owner = new Owner();
			blockers.add(owner);
			assertThat(owner.takes(rival, this.holding, name, Duration.ZERO, LONG_LEASE)).isTrue();
		}
		return blockers;
	}

	private static void releaseAll(List<Owner> owners) throws Exception {
		for (Owner owner : owners) {
			owner.releases();
		}
		owners.clear();
	}

	private static boolean triesOnOtherThread(ContractKind kind, RedisLockClient client, String name) throws Exception {
		return triesOnOtherThread(kind, client, name, Duration.ofMillis(50));
	}

	// whether a new owner gets it at once (then releases it)
	private static boolean triesOnOtherThread(ContractKind kind, RedisLockClient client, String name, Duration waitTime)
			throws Exception {
		return TestThreads.onOtherThread(() -> {
			Optional<Hold> hold = kind.tryAcquire(client, name, waitTime, null);
			hold.ifPresent(Hold::release);
			return hold.isPresent();
		});
	}

	private void assertFreeForAnotherClientAndThenGone(ContractKind kind, String name) throws Exception {
		assertThat(triesOnOtherThread(kind, this.newcomer, name, Duration.ZERO)).as("a no-wait attempt").isTrue();
		assertThat(LockTestClients.inspector(this.waiting).heldLocks()).as("held by the client that waited")
			.noneMatch((held) -> held.name().equals(name));
		LockTestClients.assertNoKeysOf(this.redis, name);
	}

	// a caller of the client waits for the name (counted per name: a check that failed
	// for one kind leaves no count behind for the next)
	private static void awaitWaiting(RedisLockClient client, String name) {
		eventually().atMost(Duration.ofSeconds(10))
			.until(() -> LockTestClients.inspector(client).waitingByLock().getOrDefault(name, 0) == 1);
	}

	/** Nothing waits for the name, in this client or in Redis (a queue, a mark). */
	private void assertNoWaiterLeft(String name) {
		eventually().atMost(Duration.ofSeconds(2)).untilAsserted(() -> {
			assertThat(LockTestClients.inspector(this.waiting).waitingByLock()).as("waiting in the client")
				.doesNotContainKey(name);
			assertThat(LockTestClients.inspector(this.holding).kindStates(name)).as("waiters Redis knows of")
				.allSatisfy((state) -> assertThat(state.waiting()).isZero());
		});
	}

	/** The holding client's one hold of the name. */
	private HeldLock heldHere(String name) {
		return LockTestClients.inspector(this.holding)
			.heldLocks()
			.stream()
			.filter((held) -> held.name().equals(name))
			.findFirst()
			.orElseThrow(() -> new AssertionError("'" + name + "' is not held here"));
	}

	/** The name's one active kind as Redis holds it, or an empty one. */
	private KindState state(String name) {
		return LockTestClients.inspector(this.holding)
			.kindStates(name)
			.stream()
			.filter(KindState::active)
			.findFirst()
			.orElse(new KindState("none", name, Map.of(), null, LockInspector.NO_KEY, false, 0, Map.of()));
	}

	/**
	 * Awaits a condition, asking at once and then often: the contract runs every check
	 * for every kind, and Awaitility's default first poll after 100 ms would add up.
	 */
	private static ConditionFactory eventually() {
		return await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20));
	}

	// busy work standing for a critical section, in microseconds
	private static void spin(long micros) {
		long end = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(micros);
		while (System.nanoTime() < end) {
			Thread.onSpinWait();
		}
	}

	/**
	 * An owner of its own: a thread that takes a hold and releases it, as a thread-owned
	 * kind wants.
	 */
	static final class Owner {

		private final ExecutorService thread = Executors.newSingleThreadExecutor((task) -> {
			Thread created = new Thread(task, "contract-owner");
			created.setDaemon(true);
			return created;
		});

		private @Nullable Hold hold;

		boolean takes(ContractKind kind, RedisLockClient client, String name, Duration waitTime,
				@Nullable Duration leaseTime) throws Exception {
			Optional<Hold> taken = run(() -> kind.tryAcquire(client, name, waitTime, leaseTime));
			this.hold = taken.orElse(null);
			return taken.isPresent();
		}

		void releases() throws Exception {
			try {
				Hold held = this.hold;
				if (held != null) {
					this.hold = null;
					run(() -> {
						held.release();
						return null;
					});
				}
			}
			finally {
				this.thread.shutdown();
			}
		}

		private <T> T run(Callable<T> action) throws Exception {
			return this.thread.submit(action).get(30, TimeUnit.SECONDS);
		}

	}

	/**
	 * A caller waiting on a thread of its own, which releases what it got at once.
	 */
	record Waiter(Thread thread, CompletableFuture<Boolean> acquired, AtomicReference<Long> at) {

		/**
		 * Starts the waiter.
		 * @param waitTime how long it waits, or {@code null} to wait until it gets it or
		 * is interrupted
		 */
		static Waiter start(ContractKind kind, RedisLockClient client, String name, @Nullable Duration waitTime) {
			CompletableFuture<Boolean> acquired = new CompletableFuture<>();
			AtomicReference<Long> at = new AtomicReference<>();
			Thread thread = new Thread(() -> {
				try {
					Optional<Hold> hold = (waitTime != null)
							? kind.tryAcquire(client, name, waitTime, Duration.ofSeconds(10))
							: Optional.of(kind.acquireUntilInterrupted(client, name));
					at.set(System.nanoTime());
					hold.ifPresent(Hold::release);
					acquired.complete(hold.isPresent());
				}
				catch (Throwable ex) {
					acquired.completeExceptionally(ex);
				}
			}, "contract-waiter");
			thread.setDaemon(true);
			thread.start();
			return new Waiter(thread, acquired, at);
		}

		long acquiredAt() {
			return this.at.get();
		}

	}

}
