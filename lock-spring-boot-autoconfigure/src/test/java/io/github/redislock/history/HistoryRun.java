package io.github.redislock.history;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.history.HistoryEntry.Op;
import io.github.redislock.history.HistoryEntry.Side;
import io.github.redislock.history.HistoryKind.Acquired;
import io.github.redislock.history.HistoryKind.Caller;
import org.jspecify.annotations.Nullable;

/**
 * Runs rounds of random lock calls from several clients and records them for the
 * {@link HistoryChecker}: in each round, every client's workers call for a burst of time
 * ({@code tryLock()}, waits of 1-30 ms that often give up, waits of 10 s), holding 0-3
 * ms; once every call has returned, each client probes with {@code tryLock()}.
 */
final class HistoryRun {

	/** A wait that ends with the lock in any run that keeps the promises. */
	static final Duration LONG_WAIT = Duration.ofSeconds(10);

	private final HistoryKind kind;

	private final List<Caller> clients;

	private final int workersPerClient;

	private final Duration burst;

	private final String name;

	private final Random seeds;

	private final List<HistoryEntry> history = Collections.synchronizedList(new ArrayList<>());

	private final List<HistoryFaults.Window> faultWindows = Collections.synchronizedList(new ArrayList<>());

	HistoryRun(HistoryKind kind, List<Caller> clients, int workersPerClient, Duration burst, String name, long seed) {
		this.kind = kind;
		this.clients = clients;
		this.workersPerClient = workersPerClient;
		this.burst = burst;
		this.name = name;
		this.seeds = new Random(seed);
	}

	/**
	 * Runs one round without faults; see
	 * {@link #round(HistoryFaults, HistoryFaults.Kind)}.
	 */
	List<HistoryEntry> round() throws InterruptedException {
		return round(null, null);
	}

	/**
	 * Runs one round and returns its calls (the run keeps them too, see
	 * {@link #history()}). With a fault, it is injected at a random moment of the burst
	 * and healed before the probes, which then try until the lock is taken (at most
	 * {@link #RECOVERY}): what a fault left behind (a grant whose reply was lost, a
	 * release that failed) is given back by the clients on their own.
	 * @param faults injects the fault, or {@code null} for none
	 * @param fault which fault
	 */
	List<HistoryEntry> round(@Nullable HistoryFaults faults, HistoryFaults.@Nullable Kind fault)
			throws InterruptedException {
		List<HistoryEntry> round = Collections.synchronizedList(new ArrayList<>());
		long deadline = System.nanoTime() + this.burst.toNanos();
		Thread injector = null;
		if (faults != null && fault != null) {
			long delay = this.burst.toNanos() / 8 + (long) (this.seeds.nextDouble() * this.burst.toNanos() / 2);
			int client = this.seeds.nextInt(this.clients.size());
			injector = new Thread(() -> {
				LockSupport.parkNanos(delay);
				this.faultWindows.add(faults.inject(fault, client));
			}, "history-fault");
			injector.start();
		}
		List<Thread> workers = new ArrayList<>();
		for (int client = 0; client < this.clients.size(); client++) {
			for (int worker = 0; worker < this.workersPerClient; worker++) {
				int clientIndex = client;
				Random random = new Random(this.seeds.nextLong());
				Thread thread = new Thread(() -> work(clientIndex, random, deadline, round),
						"history-" + this.kind + "-" + client + "-" + worker);
				thread.start();
				workers.add(thread);
			}
		}
		for (Thread worker : workers) {
			worker.join();
		}
		if (injector != null) {
			injector.join();
		}
		// no call is under way now: the lock is free for whoever asks
		for (int client = 0; client < this.clients.size(); client++) {
			String caller = this.kind.callers().get(0);
			round.add((injector != null) ? probeUntilTaken(client, caller)
					: call(client, caller, Op.PROBE, this.kind.probeSide(), Duration.ZERO, 0));
		}
		this.history.addAll(round);
		return round;
	}

	/** Every call of every round so far. */
	List<HistoryEntry> history() {
		return List.copyOf(this.history);
	}

	/** Every fault injected so far, as it happened. */
	List<HistoryFaults.Window> faults() {
		return List.copyOf(this.faultWindows);
	}

	/**
	 * How long after a fault healed every client may take to find the lock free again.
	 */
	static final Duration RECOVERY = Duration.ofSeconds(10);

	// one entry from the first try to the grant, or to the last refusal
	private HistoryEntry probeUntilTaken(int client, String caller) {
		long invoked = System.nanoTime();
		long end = invoked + RECOVERY.toNanos();
		for (;;) {
			HistoryEntry entry = call(client, caller, Op.PROBE, this.kind.probeSide(), Duration.ZERO, 0);
			if (entry.granted() || System.nanoTime() > end) {
				return new HistoryEntry(client, caller, Op.PROBE, entry.side(), invoked, entry.returned(),
						entry.granted(), entry.token(), entry.released(), entry.releaseReturned(), entry.failure());
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
		}
	}

	private void work(int client, Random random, long deadline, List<HistoryEntry> round) {
		while (System.nanoTime() < deadline) {
			int dice = random.nextInt(10);
			Op op = (dice < 4) ? Op.TRY_NOW : (dice < 8) ? Op.TRY_BRIEFLY : Op.WAIT;
			Duration wait = switch (op) {
				case TRY_BRIEFLY -> Duration.ofMillis(1 + random.nextInt(30));
				case WAIT -> LONG_WAIT;
				default -> Duration.ZERO;
			};
			String caller = this.kind.callers().get(random.nextInt(this.kind.callers().size()));
			round.add(call(client, caller, op, this.kind.side(random), wait, random.nextInt(3_001)));
		}
	}

	private HistoryEntry call(int client, String caller, Op op, Side side, Duration wait, long holdMicros) {
		long invoked = System.nanoTime();
		Acquired acquired;
		try {
			acquired = this.kind.acquire(this.clients.get(client), caller, side, this.name, wait);
		}
		catch (Exception | AssertionError ex) {
			return new HistoryEntry(client, caller, op, side, invoked, System.nanoTime(), false, 0, 0, 0,
					ex.toString());
		}
		long returned = System.nanoTime();
		if (acquired == null) {
			return new HistoryEntry(client, caller, op, side, invoked, returned, false, 0, 0, 0, null);
		}
		if (holdMicros > 0) {
			// the work done under the lock
			LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(holdMicros));
		}
		long released = System.nanoTime();
		String failure = null;
		try {
			acquired.release().release();
		}
		catch (Exception ex) {
			failure = "release: " + ex;
		}
		return new HistoryEntry(client, caller, op, side, invoked, returned, true, acquired.token(), released,
				System.nanoTime(), failure);
	}

}
