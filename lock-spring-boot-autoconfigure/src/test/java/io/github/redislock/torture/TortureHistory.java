package io.github.redislock.torture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * What the workers of {@link TortureTests} did, read from their files, and the checks
 * made on it: overlapping holds, lost counter updates and fencing-token order.
 *
 * <p>
 * Two kinds of overlap are legitimate and counted apart: a hold of a worker that was
 * frozen past its lease ({@link #pausedPastLease}), and holds from different epochs
 * (Redis lost its locks in between, or the hold was being acquired while it did). Every
 * other overlap is a violation. Lost updates must be explained by legitimate overlaps in
 * which both holds wrote; normally there are none, because the store rejects the stale
 * holder's write.
 *
 * <p>
 * When the names are semaphores these checks do not apply (their holders overlap and
 * write at once by design) and are left out; {@link TortureHolders} makes the
 * semaphore's.
 */
final class TortureHistory {

	/**
	 * One {@code tryLock} call, and, if it acquired ({@code outcome == 'A'}), what the
	 * hold did; see {@link TortureWorker} for the fields. For a semaphore's permit also
	 * how it was taken and released, and the live count of holders it found on entering
	 * (see {@link TorturePermits}); for a lock {@code way} is {@code l}, the others are
	 * blank.
	 */
	record Call(int worker, int thread, int name, long start, long end, long waitMillis, long leaseMillis, char outcome,
			long epochBefore, long epochAt, long token, long enter, long exit, long read, char write, long unlockEnd,
			char unlocked, char way, char releasedBy, long inside, long writeStart) {

		boolean acquired() {
			return this.outcome == 'A';
		}

		/** The hold's epoch, or -1 if Redis lost its data while the lock was acquired. */
		long epoch() {
			return (this.epochBefore == this.epochAt) ? this.epochAt : -1;
		}

		static Call parse(int worker, String line) {
			long[] f = new long[20];
			char[] c = new char[20];
			String[] fields = line.split(" ");
			for (int i = 0; i < fields.length; i++) {
				c[i] = fields[i].charAt(0);
				f[i] = Character.isDigit(c[i]) || c[i] == '-' ? Long.parseLong(fields[i]) : 0;
			}
			// a permit's line has its way after the outcome (not acquired) or after the
			// unlock outcome, then how it was released and the live count
			char way = switch (fields.length) {
				case 8 -> c[7];
				case 20 -> c[17];
				default -> 'l';
			};
			return new Call(worker, (int) f[0], (int) f[1], f[2], f[3], f[4], f[5], c[6], f[7], f[8], f[9], f[10],
					f[11], f[12], c[13], f[15], c[16], way, (fields.length == 20) ? c[18] : ' ',
					(fields.length == 20) ? f[19] : 0, (fields.length == 18) ? f[17] : 0);
		}

	}

	final List<Call> calls;

	/** The acquired calls of each name, in the order their holds began. */
	final List<List<Call>> holdsByName = new ArrayList<>();

	final List<TortureFaults.Window> faults;

	private final long watchdogMillis;

	int overlaps;

	/** Overlapping pairs of holds with one frozen past its lease. */
	int pausedHolderOverlaps;

	/** Holds frozen past their lease that overlapped later ones. */
	int staleHolds;

	/** Holds that overlapped a hold frozen past its lease. */
	int holdsOverlappingStaleOnes;

	int dataLossOverlaps;

	int tokenViolations;

	long written;

	long rejected;

	long lostUpdates;

	/**
	 * Writes begun once the counter had accepted a write with a higher token, accepted
	 * all the same: must be none.
	 */
	long staleWritesAccepted;

	/** Writes the counter refused, having accepted a higher token. */
	long staleWritesRefused;

	/** The writes of holds frozen past their lease that the counter accepted. */
	long frozenHoldersWritesAccepted;

	/** The writes of holds frozen past their lease that the counter refused. */
	long frozenHoldersWritesRefused;

	long unexplainedLostUpdates;

	final List<String> violations = new ArrayList<>();

	/**
	 * Reads the calls and, if the names are exclusive locks, checks overlaps, tokens and
	 * lost updates.
	 */
	TortureHistory(List<Call> calls, List<TortureFaults.Window> faults, long[] counters, long watchdogMillis,
			boolean exclusive) {
		this.calls = calls;
		this.faults = faults;
		this.watchdogMillis = watchdogMillis;
		for (int name = 0; name < counters.length; name++) {
			int index = name;
			List<Call> holds = calls.stream()
				.filter((call) -> call.acquired() && call.name() == index)
				.sorted(Comparator.comparingLong(Call::enter))
				.toList();
			this.holdsByName.add(holds);
			if (!exclusive) {
				continue;
			}
			int legitimateWriteOverlaps = checkOverlaps(holds);
			checkTokens(holds);
			checkStaleWrites(holds);
			long writes = holds.stream().filter((hold) -> hold.write() == TortureStore.WRITTEN).count();
			this.written += writes;
			this.rejected += holds.stream().filter((hold) -> hold.write() == TortureStore.REJECTED).count();
			long lost = writes - counters[name];
			this.lostUpdates += lost;
			long unexplained = (lost < 0) ? -lost : Math.max(0, lost - legitimateWriteOverlaps);
			if (unexplained > 0) {
				violation("torture-" + name + ": " + writes + " writes accepted, counter " + counters[name]);
			}
			this.unexplainedLostUpdates += unexplained;
		}
	}

	static TortureHistory read(Path records, List<TortureFaults.Window> faults, long[] counters, long watchdogMillis,
			boolean exclusive) {
		List<Call> calls = new ArrayList<>();
		try (Stream<Path> files = Files.list(records)) {
			for (Path file : files.sorted().toList()) {
				int worker = Integer.parseInt(file.getFileName().toString().split("-")[1]);
				try (Stream<String> lines = Files.lines(file)) {
					lines.filter((line) -> !line.isBlank()).forEach((line) -> calls.add(Call.parse(worker, line)));
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return new TortureHistory(calls, faults, counters, watchdogMillis, exclusive);
	}

	/**
	 * Whether the hold may have outlived its lock because its JVM was frozen: its call
	 * began at least a lease before it left the critical section, its worker was frozen
	 * meanwhile, and its unlock did not find the lock still its own (a successful unlock
	 * proves that nobody else held the lock since the grant). Redis may then have given
	 * the lock to someone else, which is what fencing tokens are for.
	 */
	boolean pausedPastLease(Call hold) {
		if (hold.unlocked() == 'O' || hold.exit() - hold.start() < leaseNanos(hold)) {
			return false;
		}
		return frozen(hold.worker(), hold.start(), hold.exit());
	}

	/**
	 * Whether the overlap of the other hold with a hold frozen past its lease is
	 * legitimate: the other began once the stale hold's lease could have run out (Redis
	 * granted the stale one after its call began, so its lock lived at least a lease from
	 * then).
	 */
	private boolean legitimatelyOverlaps(Call stale, Call other) {
		return pausedPastLease(stale) && other.enter() >= leaseFrom(stale) + leaseNanos(stale);
	}

	/**
	 * The earliest time the hold's lease in Redis may have been set: its call's start,
	 * unless a thread of the same client passed the lock to it (its call began before the
	 * client's previous holder released), which keeps the lease Redis gave or last
	 * renewed for that holder; then that holder's, and so on back.
	 */
	private long leaseFrom(Call hold) {
		long from = hold.start();
		Call current = hold;
		for (boolean passed = true; passed;) {
			passed = false;
			for (Call earlier : this.holdsByName.get(hold.name())) {
				if (earlier.worker() == current.worker() && earlier.enter() < current.enter()
						&& current.start() <= earlier.unlockEnd() && earlier.start() < from) {
					from = earlier.start();
					current = earlier;
					passed = true;
					break;
				}
			}
		}
		return from;
	}

	/**
	 * Why two holds of a name that were inside at once may be: Redis lost its data
	 * between their grants, or while the later one was being acquired (it may have
	 * forgotten the earlier one); or one of them was frozen past its lease (see
	 * {@link #legitimatelyOverlaps}), and which; or nothing allows it.
	 */
	enum Overlap {

		ACROSS_DATA_LOSS, EARLIER_STALE, LATER_STALE, NOT_ALLOWED

	}

	/** How the two holds, both inside at once, overlap; see {@link Overlap}. */
	Overlap overlap(Call earlier, Call later) {
		if (earlier.epoch() != later.epoch() || later.epoch() < 0) {
			return Overlap.ACROSS_DATA_LOSS;
		}
		if (legitimatelyOverlaps(earlier, later)) {
			return Overlap.EARLIER_STALE;
		}
		return legitimatelyOverlaps(later, earlier) ? Overlap.LATER_STALE : Overlap.NOT_ALLOWED;
	}

	private long leaseNanos(Call hold) {
		return ((hold.leaseMillis() > 0) ? hold.leaseMillis() : this.watchdogMillis) * 1_000_000;
	}

	/** Whether the worker was frozen at some time between the two. */
	boolean frozen(int worker, long from, long to) {
		return this.faults.stream().anyMatch((fault) -> fault.worker() == worker && fault.overlaps(from, to));
	}

	long acquisitions() {
		return this.holdsByName.stream().mapToLong(List::size).sum();
	}

	long count(char outcome) {
		return this.calls.stream().filter((call) -> call.outcome() == outcome).count();
	}

	long countUnlocked(char outcome) {
		return this.calls.stream().filter((call) -> call.acquired() && call.unlocked() == outcome).count();
	}

	long epochs() {
		return this.calls.stream().filter(Call::acquired).mapToLong(Call::epochAt).max().orElse(0) + 1;
	}

	private void violation(String description) {
		if (this.violations.size() < 20) {
			this.violations.add(description);
		}
	}

	// returns how many legitimate overlaps had both holds write
	private int checkOverlaps(List<Call> holds) {
		int legitimateWriteOverlaps = 0;
		Set<Call> staleHolds = new HashSet<>();
		Set<Call> freshHolds = new HashSet<>();
		List<Call> active = new ArrayList<>();
		for (Call hold : holds) {
			active.removeIf((earlier) -> earlier.exit() <= hold.enter());
			for (Call earlier : active) {
				boolean bothWrote = earlier.write() == TortureStore.WRITTEN && hold.write() == TortureStore.WRITTEN;
				Overlap overlap = overlap(earlier, hold);
				if (overlap == Overlap.ACROSS_DATA_LOSS) {
					this.dataLossOverlaps++;
					legitimateWriteOverlaps += bothWrote ? 1 : 0;
				}
				else if (overlap != Overlap.NOT_ALLOWED) {
					this.pausedHolderOverlaps++;
					boolean earlierIsStale = overlap == Overlap.EARLIER_STALE;
					(earlierIsStale ? staleHolds : freshHolds).add(earlier);
					(earlierIsStale ? freshHolds : staleHolds).add(hold);
					legitimateWriteOverlaps += bothWrote ? 1 : 0;
				}
				else {
					this.overlaps++;
					violation("overlap: " + earlier + " and " + hold);
				}
			}
			active.add(hold);
		}
		this.staleHolds += staleHolds.size();
		this.holdsOverlappingStaleOnes += freshHolds.size();
		return legitimateWriteOverlaps;
	}

	/**
	 * Every write begun after the counter accepted one with a higher token must have been
	 * refused. The counter's Redis loses no data and no fault touches it, so what it
	 * accepted stays accepted. Also counts the writes of holds frozen past their lease.
	 */
	private void checkStaleWrites(List<Call> holds) {
		List<Call> accepted = holds.stream()
			.filter((hold) -> hold.write() == TortureStore.WRITTEN)
			.sorted(Comparator.comparingLong(Call::exit))
			.toList();
		List<Call> byWriteStart = holds.stream()
			.filter((hold) -> hold.write() == TortureStore.WRITTEN || hold.write() == TortureStore.REJECTED)
			.sorted(Comparator.comparingLong(Call::writeStart))
			.toList();
		int next = 0;
		long highestAccepted = Long.MIN_VALUE;
		Call highest = null;
		for (Call hold : byWriteStart) {
			while (next < accepted.size() && accepted.get(next).exit() < hold.writeStart()) {
				if (accepted.get(next).token() > highestAccepted) {
					highest = accepted.get(next);
					highestAccepted = highest.token();
				}
				next++;
			}
			boolean written = hold.write() == TortureStore.WRITTEN;
			if (!written) {
				this.staleWritesRefused++;
			}
			else if (hold.token() < highestAccepted) {
				this.staleWritesAccepted++;
				violation("stale write accepted: " + hold + " after " + highest);
			}
			if (pausedPastLease(hold)) {
				if (written) {
					this.frozenHoldersWritesAccepted++;
				}
				else {
					this.frozenHoldersWritesRefused++;
				}
			}
		}
	}

	// over the whole run, across every data loss (a restart without data, a promotion of
	// a replica that missed grants): tokens never go backwards. Left out: holds frozen
	// past their lease, and holds acquired while Redis lost its data (their reply may
	// have
	// come from the server before the loss, and they may enter after a hold granted by
	// the one after it)
	private void checkTokens(List<Call> holds) {
		Call last = null;
		for (Call hold : holds) {
			if (hold.epoch() < 0 || pausedPastLease(hold)) {
				continue;
			}
			// A hold a failed unlock left in Redis, taken over by its owner's next
			// acquisition, gets a new token too: the lock may have passed between the
			// client's threads with higher ones meanwhile.
			if (last != null && hold.token() <= last.token()) {
				this.tokenViolations++;
				violation("token not increasing: " + last + " then " + hold);
			}
			last = hold;
		}
	}

}
