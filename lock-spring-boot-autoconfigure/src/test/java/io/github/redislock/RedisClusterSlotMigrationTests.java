package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redislock.testsupport.RedisClusterExtension;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.SlotMigration;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The slot of a lock migrates to another master ({@code CLUSTER SETSLOT
 * IMPORTING/MIGRATING}, {@code MIGRATE} key by key, {@code SETSLOT NODE}) while clients
 * use the lock: no hold overlaps another, the lock's keys arrive on the new master with
 * their leases, tokens keep increasing, a watchdog hold survives the move, and waiters
 * are still woken. While the slot's keys are split between the two nodes Redis refuses
 * the acquire script ({@code TRYAGAIN}); a caller whose wait outlasts the migration never
 * sees it.
 */
class RedisClusterSlotMigrationTests {

	/**
	 * How long the slot stays open before each key moves and before the hand-over, so
	 * that clients run into ASK redirects and TRYAGAIN for a while.
	 */
	private static final Duration STEP_PAUSE = Duration.ofMillis(400);

	private static final Duration WATCHDOG_TIMEOUT = Duration.ofMillis(900);

	private static final String[] PHASES = { "before", "open", "after" };

	@RegisterExtension
	@Order(1)
	final RedisClusterExtension redis = new RedisClusterExtension(3);

	// closed before the Cluster stops: extensions end in the reverse of their order
	@RegisterExtension
	@Order(2)
	final LockTestClients clients = LockTestClients.on(this.redis::configuration, Duration.ofSeconds(2));

	private final List<LeaseLostEvent> leaseLost = new CopyOnWriteArrayList<>();

	@Test
	void lockingGoesOnThroughAMigrationOfTheLocksSlot() throws Exception {
		String name = "migration-" + LockTestClients.uniqueName();
		String lockKey = "lock:{" + name + "}";
		String counter = "counter:{" + name + "}";
		AtomicBoolean running = new AtomicBoolean(true);
		// 0 before the migration, 1 while the slot is open, 2 once it is being handed
		// over
		AtomicInteger phase = new AtomicInteger();
		AtomicInteger acquisitions = new AtomicInteger();
		AtomicInteger attemptsWhileOpen = new AtomicInteger();
		AtomicLong firstAfterHandOver = new AtomicLong();
		// appended to while holding the lock, so in the order of the holds
		List<long[]> tokens = Collections.synchronizedList(new ArrayList<>());
		Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();
		ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
		List<CompletableFuture<Void>> contenders = new ArrayList<>();
		for (int c = 0; c < 2; c++) {
			RedisLockClient client = newClient(Duration.ofSeconds(30));
			StringRedisTemplate redis = this.clients.newTemplate();
			for (int t = 0; t < 2; t++) {
				contenders.add(CompletableFuture.runAsync(() -> {
					RedisLock lock = client.getLock(name);
					while (running.get()) {
						if (phase.get() == 1) {
							attemptsWhileOpen.incrementAndGet();
						}
						try {
							// a wait longer than the migration: Redis refuses the script
							// while the slot's keys are split (TRYAGAIN), and the
							// engine waits that out
							if (lock.tryLock(Duration.ofSeconds(5), Duration.ofSeconds(10))) {
								try {
									int phaseNow = phase.get();
									tokens.add(new long[] { lock.fencingToken(), phaseNow });
									String value = redis.opsForValue().get(counter);
									redis.opsForValue()
										.set(counter,
												Integer.toString((value != null) ? Integer.parseInt(value) + 1 : 1));
									acquisitions.incrementAndGet();
									if (phaseNow == 2) {
										firstAfterHandOver.compareAndSet(0, System.nanoTime());
									}
								}
								finally {
									lock.unlock();
								}
							}
						}
						catch (RedisLockException ex) {
							// the slot is moving: expected to be transient, counted by
							// kind
							failures
								.computeIfAbsent(PHASES[phase.get()] + " " + kindOf(ex), (kind) -> new AtomicInteger())
								.incrementAndGet();
						}
						catch (RuntimeException ex) {
							unexpected.add(ex);
						}
						catch (InterruptedException ex) {
							return;
						}
					}
				}, TestThreads.perTask()));
			}
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> acquisitions.get() > 20);
		long migrationStart = System.nanoTime();
		phase.set(1);
		SlotMigration migration = this.redis.cluster().beginSlotMigration(lockKey);
		int beforeMigration = acquisitions.get();
		int movedKeys = migration.moveKeysSlowly(STEP_PAUSE);
		// from the first SETSLOT NODE on, the destination may serve the slot
		long handingOver = System.nanoTime();
		int atHandOver = acquisitions.get();
		phase.set(2);
		migration.finish();
		long handedOver = System.nanoTime();
		await().atMost(Duration.ofSeconds(30)).until(() -> acquisitions.get() > atHandOver + 20);
		running.set(false);
		CompletableFuture.allOf(contenders.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

		// the contenders kept at it while the keys moved one by one
		assertThat(movedKeys).isGreaterThanOrEqualTo(2);
		assertThat(attemptsWhileOpen).hasPositiveValue();
		assertThat(unexpected).as("exceptions other than RedisLockException").isEmpty();
		assertThat(failures).as("failed lock calls, by phase and kind").isEmpty();
		StringRedisTemplate redis = this.clients.newTemplate();
		assertThat(redis.opsForValue().get(counter)).as("no lost update")
			.isEqualTo(Integer.toString(acquisitions.get()));
		List<long[]> holds = List.copyOf(tokens);
		for (int i = 1; i < holds.size(); i++) {
			assertThat(holds.get(i)[0]).as("token of hold %d", i).isGreaterThan(holds.get(i - 1)[0]);
		}
		long lastBefore = holds.stream().filter((hold) -> hold[1] < 2).mapToLong((hold) -> hold[0]).max().orElse(0);
		long firstAfter = holds.stream().filter((hold) -> hold[1] == 2).mapToLong((hold) -> hold[0]).min().orElse(0);
		assertThat(firstAfter).isGreaterThan(lastBefore);

		// the slot's keys are on the destination now, and only there
		RedisServer destination = migration.destination();
		String slot = Integer.toString(migration.slot());
		assertThat(migration.keysLeftOnSource()).isZero();
		List<String> keysThere = destination.command("CLUSTER", "GETKEYSINSLOT", slot, "10").lines().toList();
		assertThat(keysThere).contains(counter).anyMatch((key) -> key.startsWith("lock:fence:{"));
		String fenceKey = keysThere.stream().filter((key) -> key.startsWith("lock:fence:{")).findFirst().orElseThrow();
		assertThat(Long.parseLong(destination.command("GET", fenceKey)))
			.isGreaterThanOrEqualTo(holds.get(holds.size() - 1)[0]);
		RedisLock lock = LockTestClients.awaitConnected(this.clients.newClient(Duration.ofSeconds(30))).getLock(name);
		lock.lock(Duration.ofSeconds(10));
		try {
			assertThat(destination.command("EXISTS", lockKey)).isEqualTo("1");
			assertThat(Long.parseLong(destination.command("PTTL", lockKey))).isBetween(1L, 10_000L);
			assertThat(lock.fencingToken()).isGreaterThan(holds.get(holds.size() - 1)[0]);
		}
		finally {
			lock.unlock();
		}
		System.out.printf(
				"Slot migration: %d keys moved, slot open %d ms with %d lock calls meanwhile, hand-over %d ms; "
						+ "%d acquisitions (%d before, %d while open, %d after); failed calls: %s; "
						+ "first lock after the hand-over began %d ms after the migration began%n",
				movedKeys, TimeUnit.NANOSECONDS.toMillis(handingOver - migrationStart), attemptsWhileOpen.get(),
				TimeUnit.NANOSECONDS.toMillis(handedOver - handingOver), acquisitions.get(), beforeMigration,
				atHandOver - beforeMigration, acquisitions.get() - atHandOver, failures,
				TimeUnit.NANOSECONDS.toMillis(firstAfterHandOver.get() - migrationStart));
	}

	@Test
	void aHeldLockStaysHeldWhileItsSlotMigratesAndItsWaiterIsWoken() throws Exception {
		String name = "migration-" + LockTestClients.uniqueName();
		String lockKey = "lock:{" + name + "}";
		// a second lock in the same slot, with an explicit lease nothing renews: its key
		// has to keep its expiry through MIGRATE
		String leased = nameInSlotOf(lockKey);
		RedisLockClient holderClient = newClient(WATCHDOG_TIMEOUT);
		RedisLockClient waiterClient = newClient(Duration.ofSeconds(30));
		RedisLock lock = holderClient.getLock(name);
		RedisLock leasedLock = holderClient.getLock(leased);
		lock.lock();
		long holderToken = lock.fencingToken();
		leasedLock.lock(Duration.ofSeconds(20));
		long leasedAt = System.nanoTime();
		AtomicInteger waiterFailures = new AtomicInteger();
		CompletableFuture<long[]> waiter = CompletableFuture.supplyAsync(() -> {
			RedisLock waiting = waiterClient.getLock(name);
			for (;;) {
				try {
					if (waiting.tryLock(Duration.ofSeconds(30), Duration.ofSeconds(10))) {
						long at = System.nanoTime();
						long token = waiting.fencingToken();
						waiting.unlock();
						return new long[] { at, token };
					}
				}
				catch (RedisLockException ex) {
					// the slot is moving; wait again
					waiterFailures.incrementAndGet();
				}
				catch (InterruptedException ex) {
					throw new IllegalStateException(ex);
				}
			}
		}, TestThreads.perTask());
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(waiterClient).waitingCount() == 1);

		SlotMigration migration = this.redis.cluster().beginSlotMigration(lockKey);
		int movedKeys = migration.moveKeysSlowly(STEP_PAUSE);
		migration.finish();
		long handedOver = System.nanoTime();

		// both lock keys arrived on the destination with their expiry: the leased one
		// still counts down from 20 s, the watchdog's one is renewed there for several
		// periods
		RedisServer destination = migration.destination();
		assertThat(movedKeys).isGreaterThanOrEqualTo(3);
		assertThat(migration.keysLeftOnSource()).isZero();
		long leasedPttl = Long.parseLong(destination.command("PTTL", "lock:{" + leased + "}"));
		// (the lease began in Redis before leasedAt was read: by a round trip, and on a
		// busy machine by whatever kept the test's thread from running after it)
		assertThat(leasedPttl).isPositive()
			.isLessThanOrEqualTo(20_000 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - leasedAt) + 500);
		await().pollInSameThread()
			.during(WATCHDOG_TIMEOUT.multipliedBy(3))
			.atMost(WATCHDOG_TIMEOUT.multipliedBy(6))
			.until(() -> lock.isHeldByCurrentThread() && lock.getHoldCount() == 1
					&& isBetween(Long.parseLong(destination.command("PTTL", lockKey)), 1, WATCHDOG_TIMEOUT.toMillis()));
		assertThat(LockTestClients.inspector(holderClient).watchdogCount()).isEqualTo(1);
		assertThat(this.leaseLost).isEmpty();
		assertThat(waiter).isNotDone();
		assertThat(waiterFailures).as("waits that failed while the slot was open").hasValue(0);
		assertThat(leasedLock.isHeldByCurrentThread()).isTrue();
		leasedLock.unlock();

		// the waiter, waiting since before the migration, gets the lock when it is
		// released on the new master
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(waiterClient).waitingCount() == 1);
		long releasedAt = System.nanoTime();
		lock.unlock();
		long[] acquired = waiter.get(10, TimeUnit.SECONDS);
		Duration handOff = Duration.ofNanos(acquired[0] - releasedAt);
		assertThat(handOff).isLessThan(Duration.ofSeconds(1));
		assertThat(acquired[1]).isGreaterThan(holderToken);
		// a holder with a 20 s lease: only the release message can wake the waiter in
		// time, through the pub/sub connection it opened before the migration
		lock.lock(Duration.ofSeconds(20));
		Duration pubSubHandOff = LockTestClients.handOffTime(lock, waiterClient);
		assertThat(pubSubHandOff).isLessThan(Duration.ofSeconds(1));
		System.out.printf(
				"Slot migration of a held lock: %d keys moved; held and renewed on the new master for %d ms; "
						+ "leased key's PTTL there %d ms; waiter failures while the slot was open: %d; "
						+ "hand-off %d ms after the release (%d ms with a 20 s lease)%n",
				movedKeys, TimeUnit.NANOSECONDS.toMillis(releasedAt - handedOver), leasedPttl, waiterFailures.get(),
				handOff.toMillis(), pubSubHandOff.toMillis());
	}

	@Test
	void anAcquireWhoseWaitEndsBeforeTheMigrationFailsNamingIt() throws Exception {
		RedisLockClient client = newClient(Duration.ofSeconds(30));
		RedisLock lock = client.getLock("migration-" + LockTestClients.uniqueName());
		lock.lock();
		lock.unlock();
		SlotMigration migration = this.redis.cluster().beginSlotMigration("lock:{" + lock.getName() + "}");
		try {
			long start = System.nanoTime();
			assertThatThrownBy(() -> lock.tryLock(Duration.ofMillis(300), null)).isInstanceOf(RedisLockException.class)
				.hasMessage("Could not acquire lock '" + lock.getName() + "' (key 'lock:{" + lock.getName()
						+ "}') within 300ms: its Redis Cluster slot was being migrated to another node all that "
						+ "time (TRYAGAIN)");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(300),
					Duration.ofSeconds(2));
			assertThatThrownBy(lock::tryLock).as("no wait: Redis' answer as it is")
				.isInstanceOf(RedisLockException.class)
				.hasMessageContaining("TRYAGAIN");
		}
		finally {
			migration.finish();
		}
		assertThat(lock.tryLock(Duration.ofSeconds(5), null)).isTrue();
		lock.unlock();
		assertThat(LockTestClients.inspector(client).waitingCount()).isZero();
	}

	private static boolean isBetween(long value, long min, long max) {
		return value >= min && value <= max;
	}

	/** A lock name whose key is in the same slot as the given key. */
	private static String nameInSlotOf(String key) {
		int slot = ClusterSlotHashUtil.calculateSlot(key);
		for (int i = 0;; i++) {
			String name = "migration-leased-" + i;
			if (ClusterSlotHashUtil.calculateSlot("lock:{" + name + "}") == slot) {
				return name;
			}
		}
	}

	private static String kindOf(RedisLockException ex) {
		String message = String.valueOf(ex.getMessage());
		for (String kind : List.of("TRYAGAIN", "ASK", "MOVED", "NOSCRIPT", "CROSSSLOT")) {
			if (message.contains(kind)) {
				return kind;
			}
		}
		return message;
	}

	// connected before the test's first call: a cold client's first connection to a
	// Cluster (topology, node connections) can take longer than the command timeout on a
	// busy machine, and the tests are about the migration
	private RedisLockClient newClient(Duration watchdogTimeout) {
		return LockTestClients.awaitConnected(this.clients
			.newClient((builder) -> builder.watchdogTimeout(watchdogTimeout).leaseLostListener(this.leaseLost::add)));
	}

}
