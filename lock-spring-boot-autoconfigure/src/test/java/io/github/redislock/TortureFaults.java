package io.github.redislock;

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
import io.github.redislock.testsupport.RedisServer;

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
		WORKER_PAUSE;

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

	private final RedisServer redis;

	private final FaultProxy proxy;

	private final TortureStore store;

	private final List<Process> workers;

	private final List<Kind> kinds;

	private final Random random;

	private final List<Window> windows = new ArrayList<>();

	private final List<Kind> bag = new ArrayList<>();

	private int holdersFrozen;

	TortureFaults(RedisServer redis, FaultProxy proxy, TortureStore store, List<Process> workers, Set<Kind> kinds,
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
	 * healed, if later), as long as the next one can heal by {@code healedBy}.
	 */
	void injectUntil(long healedBy, Duration interval) throws InterruptedException {
		for (;;) {
			long now = System.nanoTime();
			Kind kind = next(healedBy - now);
			if (kind == null) {
				return;
			}
			inject(kind);
			long next = Math.max(now + interval.toNanos(), System.nanoTime() + GAP.toNanos());
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

	Map<Kind, Integer> counts() {
		Map<Kind, Integer> counts = new EnumMap<>(Kind.class);
		for (Window window : this.windows) {
			counts.merge(window.kind(), 1, Integer::sum);
		}
		return counts;
	}

	// the next kind from the shuffled bag that can heal within the time left
	private Kind next(long nanosLeft) {
		if (this.bag.isEmpty()) {
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
			default -> Duration.ofMillis(300);
		};
	}

	private void inject(Kind kind) throws InterruptedException {
		long start = System.nanoTime();
		int worker = -1;
		switch (kind) {
			case REDIS_FREEZE -> {
				this.redis.pause();
				try {
					sleep(TortureWorker.COMMAND_TIMEOUT.plusMillis(500));
				}
				finally {
					this.redis.resume();
				}
			}
			case KILL_PUBSUB -> this.redis.command("CLIENT", "KILL", "TYPE", "pubsub");
			case KILL_NORMAL -> this.redis.command("CLIENT", "KILL", "TYPE", "normal");
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
			case SCRIPT_FLUSH -> this.redis.command("SCRIPT", "FLUSH");
			case RESTART_WITHOUT_DATA -> {
				// No client reaches either server while the epoch changes: every hold of
				// one epoch was granted by one server that kept its data (the overlap
				// checks rely on it; tokens increase across epochs too)
				this.proxy.cut();
				try {
					this.redis.restartWithoutData();
					this.store.nextEpoch();
				}
				finally {
					this.proxy.heal();
				}
			}
			case RESTART_WITH_DATA -> this.redis.restart();
			case WORKER_PAUSE -> {
				worker = this.random.nextInt(this.workers.size());
				start = pauseWorker(worker);
			}
		}
		this.windows.add(new Window(kind, start, System.nanoTime(), worker));
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
