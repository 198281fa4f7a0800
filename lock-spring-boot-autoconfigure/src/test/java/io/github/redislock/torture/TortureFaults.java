package io.github.redislock.torture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.FaultProxy;
import io.github.redislock.testsupport.RedisReplicaPair;
import io.github.redislock.testsupport.RedisServer;
import org.awaitility.core.ConditionTimeoutException;

import static org.awaitility.Awaitility.await;

/**
 * Injects the faults of {@link TortureTests}, one at a time, in random order (each round
 * a shuffle of every enabled kind, so that each kind occurs about as often as the others)
 * and remembers when each one began and healed.
 */
final class TortureFaults {

	/** The kinds of fault, by the name {@code -Dredislock.torture.faults} uses. */
	enum Kind {

		/** Redis frozen (SIGSTOP) for longer than the command timeout. */
		REDIS_FREEZE,
		/** {@code CLIENT KILL TYPE pubsub}: every pub/sub connection dropped. */
		KILL_PUBSUB,
		/** {@code CLIENT KILL TYPE normal}: every command connection dropped. */
		KILL_NORMAL,
		/** Every connection cut at the proxy, new ones refused for 300 ms. */
		PROXY_CUT,
		/** 30 ms more latency each way for 1 s. */
		PROXY_LATENCY,
		/**
		 * Nothing gets through for longer than the command timeout; what was sent arrives
		 * after the partition heals.
		 */
		PROXY_PARTITION,
		/** {@code SCRIPT FLUSH}: the engine's scripts must be loaded again. */
		SCRIPT_FLUSH,
		/** Redis killed and started again empty: locks and fencing counters lost. */
		RESTART_WITHOUT_DATA,
		/** Redis killed and started again from its AOF ({@code appendfsync always}). */
		RESTART_WITH_DATA,
		/**
		 * A worker JVM frozen (SIGSTOP) while one of its threads is inside a critical
		 * section, for one second longer than that thread's lease.
		 */
		WORKER_PAUSE,
		/**
		 * The replica frozen and cut off until the primary granted a lock it never
		 * replicated, then the primary killed and the replica promoted
		 * ({@code REPLICAOF NO ONE}): the locks and counter updates granted meanwhile are
		 * lost. The old primary comes back empty as the new one's replica.
		 */
		REPLICA_PROMOTION;

		String label() {
			return name().toLowerCase(Locale.ROOT).replace('_', '-');
		}

		static Kind of(String label) {
			return valueOf(label.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
		}

	}

	/**
	 * When a fault began and healed ({@link System#nanoTime()}), and which worker it
	 * froze (-1 if none).
	 */
	record Window(Kind kind, long start, long end, int worker) {

		boolean overlaps(long from, long to) {
			return this.start <= to && this.end >= from;
		}

	}

	private static final Duration GAP = Duration.ofMillis(300);

	/**
	 * How long a promotion waits for the primary to grant a lock its detached replica
	 * misses; with every worker locking, a grant takes milliseconds.
	 */
	private static final Duration MISSED_GRANT_WAIT = Duration.ofSeconds(1);

	private final RedisReplicaPair redis;

	private final FaultProxy proxy;

	private final TortureStore store;

	private final List<Process> workers;

	private final List<Kind> kinds;

	private final Random random;

	private final List<Window> windows = new ArrayList<>();

	private final List<Kind> bag = new ArrayList<>();

	private int rounds;

	private int holdersFrozen;

	private int promotionsThatLostGrants;

	TortureFaults(RedisReplicaPair redis, FaultProxy proxy, TortureStore store, List<Process> workers, Set<Kind> kinds,
			Random random) {
		this.redis = redis;
		this.proxy = proxy;
		this.store = store;
		this.workers = workers;
		this.kinds = List.copyOf(kinds);
		this.random = random;
	}

	/**
	 * Injects faults, one starting every {@code interval} (or {@link #GAP} after the last
	 * healed, if later), as long as the next one can heal by {@code healedBy}. When the
	 * kinds left in the first round would not all fit the time left at that pace (a short
	 * run, a busy machine stretching faults), the next one starts sooner, {@link #GAP}
	 * after the last healed at the earliest, so that a short run still draws every kind.
	 */
	void injectUntil(long healedBy, Duration interval) throws InterruptedException {
		for (;;) {
			long now = System.nanoTime();
			Kind kind = next(healedBy - now);
			if (kind == null) {
				return;
			}
			inject(kind);
			long paced = Math.min(now + interval.toNanos(), healedBy - restOfRoundNanos());
			long next = Math.max(paced, System.nanoTime() + GAP.toNanos());
			TimeUnit.NANOSECONDS.sleep(Math.max(0, Math.min(next, healedBy) - System.nanoTime()));
		}
	}

	List<Window> windows() {
		return this.windows;
	}

	/** How many worker pauses froze a thread inside its critical section. */
	int holdersFrozen() {
		return this.holdersFrozen;
	}

	/**
	 * How many replica promotions lost a grant: the primary changed a fencing counter
	 * after the replica was cut off.
	 */
	int promotionsThatLostGrants() {
		return this.promotionsThatLostGrants;
	}

	Map<Kind, Integer> counts() {
		Map<Kind, Integer> counts = new EnumMap<>(Kind.class);
		for (Window window : this.windows) {
			counts.merge(window.kind(), 1, Integer::sum);
		}
		return counts;
	}

	// what the kinds left in the first round take at most, each followed by a gap;
	// later rounds keep their pace to the end
	private long restOfRoundNanos() {
		if (this.rounds > 1) {
			return 0;
		}
		return this.bag.stream().mapToLong((kind) -> longest(kind).plus(GAP).toNanos()).sum();
	}

	// the next kind from the shuffled bag that can heal within the time left
	private Kind next(long nanosLeft) {
		if (this.bag.isEmpty()) {
			this.rounds++;
			this.bag.addAll(this.kinds);
			Collections.shuffle(this.bag, this.random);
		}
		for (Iterator<Kind> candidates = this.bag.iterator(); candidates.hasNext();) {
			Kind kind = candidates.next();
			if (longest(kind).toNanos() <= nanosLeft) {
				candidates.remove();
				return kind;
			}
		}
		return null;
	}

	private static Duration longest(Kind kind) {
		return switch (kind) {
			case REDIS_FREEZE, PROXY_PARTITION -> TortureWorker.COMMAND_TIMEOUT.plusMillis(700);
			case WORKER_PAUSE -> TortureWorker.MAX_LEASE.plusSeconds(3);
			case PROXY_LATENCY -> Duration.ofMillis(1200);
			case PROXY_CUT -> Duration.ofMillis(500);
			// the replica's catching up after an earlier fault, the missed grant, the
			// kill and promotion
			case REPLICA_PROMOTION -> MISSED_GRANT_WAIT.plusMillis(500);
			default -> Duration.ofMillis(300);
		};
	}

	private void inject(Kind kind) throws InterruptedException {
		long start = System.nanoTime();
		int worker = -1;
		RedisServer primary = this.redis.primary();
		switch (kind) {
			case REDIS_FREEZE -> {
				primary.pause();
				try {
					sleep(TortureWorker.COMMAND_TIMEOUT.plusMillis(500));
				}
				finally {
					primary.resume();
				}
			}
			case KILL_PUBSUB -> primary.command("CLIENT", "KILL", "TYPE", "pubsub");
			case KILL_NORMAL -> primary.command("CLIENT", "KILL", "TYPE", "normal");
			case PROXY_CUT -> {
				this.proxy.cut();
				sleep(Duration.ofMillis(300));
				this.proxy.heal();
			}
			case PROXY_LATENCY -> {
				this.proxy.latency(Duration.ofMillis(30));
				sleep(Duration.ofSeconds(1));
				this.proxy.heal();
			}
			case PROXY_PARTITION -> {
				this.proxy.blackHole();
				sleep(TortureWorker.COMMAND_TIMEOUT.plusMillis(500));
				this.proxy.heal();
			}
			case SCRIPT_FLUSH -> primary.command("SCRIPT", "FLUSH");
			case RESTART_WITHOUT_DATA -> {
				// No client reaches either server while the epoch changes: every hold of
				// one epoch was granted by one server that kept its data (the overlap
				// checks rely on it; tokens increase across epochs too)
				this.proxy.cut();
				try {
					primary.restartWithoutData();
					this.store.nextEpoch();
				}
				finally {
					this.proxy.heal();
				}
			}
			case RESTART_WITH_DATA -> primary.restart();
			case WORKER_PAUSE -> {
				worker = this.random.nextInt(this.workers.size());
				start = pauseWorker(worker);
			}
			case REPLICA_PROMOTION -> {
				start = promoteReplica();
			}
		}
		this.windows.add(new Window(kind, start, System.nanoTime(), worker));
		if (kind == Kind.REPLICA_PROMOTION) {
			// the clients are back once the proxy healed; the next promotion waits for
			// this replica to sync
			this.redis.startReplica();
		}
	}

	/**
	 * Cuts the replica off once it has caught up, waits for a grant it misses, then kills
	 * the primary and promotes the replica, as {@link Kind#RESTART_WITHOUT_DATA}
	 * restarts: with no client reaching either server while the epoch changes.
	 * @return when the replica was cut off
	 */
	private long promoteReplica() {
		this.redis.awaitReplicaInSync();
		RedisServer primary = this.redis.primary();
		long start = System.nanoTime();
		String replicated = fencingCounters(primary);
		this.redis.detachReplica();
		try {
			await().atMost(MISSED_GRANT_WAIT)
				.pollInterval(Duration.ofMillis(5))
				.until(() -> !fencingCounters(primary).equals(replicated));
			this.promotionsThatLostGrants++;
		}
		catch (ConditionTimeoutException ex) {
			// promoted all the same: nothing but renewals and releases lost
		}
		this.proxy.cut();
		try {
			this.redis.promoteReplica();
			this.store.nextEpoch();
			RedisServer promoted = this.redis.primary();
			this.proxy.retarget(promoted.host(), promoted.port());
		}
		finally {
			this.proxy.heal();
		}
		return start;
	}

	// every fencing counter and its value, the same as long as no lock was granted
	private static String fencingCounters(RedisServer redis) {
		List<String> keys = redis.command("KEYS", "lock:fence:*")
			.lines()
			.filter((key) -> !key.isBlank())
			.sorted()
			.toList();
		if (keys.isEmpty()) {
			return "";
		}
		List<String> mget = new ArrayList<>(keys);
		mget.add(0, "MGET");
		return keys + " " + redis.command(mget.toArray(String[]::new));
	}

	// returns when the worker was frozen
	private long pauseWorker(int worker) throws InterruptedException {
		Process process = this.workers.get(worker);
		long lease = this.store.awaitHolderOf(worker, Duration.ofSeconds(2));
		if (lease >= 0) {
			this.holdersFrozen++;
		}
		try {
			long start = System.nanoTime();
			signal(process, "STOP");
			try {
				sleep(Duration.ofMillis((lease > 0) ? lease : TortureWorker.WATCHDOG_TIMEOUT.toMillis())
					.plusSeconds(1));
			}
			finally {
				signal(process, "CONT");
			}
			return start;
		}
		finally {
			this.store.releaseHolderOf(worker);
		}
	}

	private static void sleep(Duration pace) throws InterruptedException {
		Thread.sleep(pace.toMillis());
	}

	private static void signal(Process process, String signal) throws InterruptedException {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
			if (kill.waitFor() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
