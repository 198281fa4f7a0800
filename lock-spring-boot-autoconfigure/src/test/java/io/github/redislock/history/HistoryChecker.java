package io.github.redislock.history;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

import io.github.redislock.history.HistoryEntry.Op;
import io.github.redislock.history.HistoryEntry.Side;

/**
 * Checks a recorded history of lock calls against the promises of the library, from the
 * calls' instants alone (no knowledge of how the lock works):
 * <ul>
 * <li><b>exclusion</b>: holds certainly held at once (from the grant's reply to the
 * release's call) never exceed the permits (1 for a lock; a read hold shares with read
 * holds only);</li>
 * <li><b>fencing</b>: a hold that began after another one ended has a greater token (a
 * read hold: at least a write's before it, and a read hold shares its phase's);</li>
 * <li><b>no false refusal</b>: a {@code tryLock()} refused overlaps holds that could have
 * kept it out (as many as the permits); a short wait that ended without the lock overlaps
 * a hold or another caller's wait;</li>
 * <li><b>quiescent probes</b>: every {@code tryLock()} made when no call is under way
 * succeeds;</li>
 * <li><b>liveness</b>: while a caller waited, the lock was never free for it longer than
 * the stated bound at a stretch (a missed wake-up shows as a long stretch);</li>
 * <li>no call failed (a run without faults).</li>
 * </ul>
 * A violation is reported with the slice of the history around it.
 */
final class HistoryChecker {

	private static final int SLICE_LINES = 40;

	private final List<HistoryEntry> history;

	private final int permits;

	private final long livenessBoundNanos;

	private final long origin;

	private final List<String> violations = new ArrayList<>();

	private List<HistoryFaults.Window> faults = List.of();

	private long graceNanos;

	/**
	 * @param history the calls, in any order
	 * @param permits how many holds may be held at once (1 for a lock)
	 * @param livenessBound the longest stretch a waiter may wait while the lock is free
	 * for it
	 */
	HistoryChecker(List<HistoryEntry> history, int permits, Duration livenessBound) {
		this.history = history.stream().sorted(Comparator.comparingLong(HistoryEntry::invoked)).toList();
		this.permits = permits;
		this.livenessBoundNanos = livenessBound.toNanos();
		this.origin = this.history.isEmpty() ? 0 : this.history.get(0).invoked();
	}

	/**
	 * Checks a history during which these faults happened: a call that overlaps one, or
	 * ends within the grace after it, may fail, be refused or wait while the lock is free
	 * (what the fault left is given back in the background); exclusion is checked among
	 * the holds of one data epoch only. Tokens must increase across faults too.
	 * @param grace how long after a fault healed its effects may last
	 */
	HistoryChecker withFaults(List<HistoryFaults.Window> faults, Duration grace) {
		this.faults = List.copyOf(faults);
		this.graceNanos = grace.toNanos();
		return this;
	}

	// whether a fault explains what happened to a call from..until
	private boolean excused(long from, long until) {
		return this.faults.stream()
			.anyMatch((fault) -> overlaps(fault.from(), fault.until() + this.graceNanos, from, until));
	}

	// whether Redis lost its data while a hold was held: the hold's epoch ended
	private boolean spansDataLoss(HistoryEntry hold) {
		return this.faults.stream()
			.anyMatch((fault) -> fault.dataLost()
					&& overlaps(fault.from(), fault.until(), hold.certainFrom(), hold.certainUntil()));
	}

	/**
	 * Only the fencing check: for a whole run made of rounds checked one by one with
	 * {@link #check()}, whose tokens must also increase from round to round.
	 */
	List<String> checkFencing() {
		checkTokens();
		return this.violations;
	}

	/** Every violation found, each with its slice of the history; empty when none. */
	List<String> check() {
		checkFailures();
		checkExclusion();
		checkTokens();
		checkRefusals();
		checkLiveness();
		return this.violations;
	}

	private List<HistoryEntry> holds() {
		return this.history.stream().filter(HistoryEntry::granted).toList();
	}

	private void checkFailures() {
		for (HistoryEntry entry : this.history) {
			if (entry.failure() != null && !excused(entry.invoked(), entry.end())) {
				violation("a call failed: " + entry.failure(), entry.invoked(), entry.end());
			}
		}
	}

	private void checkExclusion() {
		List<HistoryEntry> holds = holds().stream().filter((hold) -> !spansDataLoss(hold)).toList();
		for (HistoryEntry hold : holds) {
			long from = hold.certainFrom();
			long until = hold.certainUntil();
			if (from >= until) {
				continue;
			}
			// the holds certainly held at the moment this one certainly began
			List<HistoryEntry> along = holds.stream()
				.filter((other) -> other != hold && other.certainFrom() <= from && other.certainUntil() > from
						&& other.certainFrom() < other.certainUntil())
				.toList();
			long conflicting = along.stream().filter((other) -> other.side().conflictsWith(hold.side())).count();
			boolean exceeded = (hold.side() == Side.PERMIT) ? along.size() + 1 > this.permits : conflicting > 0;
			if (exceeded) {
				violation("exclusion: " + (along.size() + 1) + " holds at once (" + describe(hold) + ")", from, until);
				return;
			}
		}
	}

	private void checkTokens() {
		List<HistoryEntry> holds = holds();
		List<HistoryEntry> byEnd = holds.stream()
			.sorted(Comparator.comparingLong(HistoryEntry::possibleUntil))
			.toList();
		List<HistoryEntry> byStart = holds.stream()
			.sorted(Comparator.comparingLong(HistoryEntry::possibleFrom))
			.toList();
		int ended = 0;
		HistoryEntry highestWrite = null;
		HistoryEntry highestRead = null;
		for (HistoryEntry hold : byStart) {
			while (ended < byEnd.size() && byEnd.get(ended).possibleUntil() < hold.possibleFrom()) {
				HistoryEntry before = byEnd.get(ended++);
				if (before.side() == Side.READ) {
					highestRead = higher(highestRead, before);
				}
				else {
					highestWrite = higher(highestWrite, before);
				}
			}
			boolean read = hold.side() == Side.READ;
			if (highestWrite != null
					&& (read ? hold.token() < highestWrite.token() : hold.token() <= highestWrite.token())) {
				tokenViolation(highestWrite, hold);
				return;
			}
			if (highestRead != null
					&& (read ? hold.token() < highestRead.token() : hold.token() <= highestRead.token())) {
				tokenViolation(highestRead, hold);
				return;
			}
		}
	}

	private static HistoryEntry higher(HistoryEntry highest, HistoryEntry candidate) {
		return (highest == null || candidate.token() > highest.token()) ? candidate : highest;
	}

	private void tokenViolation(HistoryEntry before, HistoryEntry after) {
		violation("fencing: token " + after.token() + " of a hold that began after a hold with token " + before.token()
				+ " had ended", before.invoked(), after.end());
	}

	private void checkRefusals() {
		List<HistoryEntry> holds = holds();
		for (HistoryEntry call : this.history) {
			if (call.granted() || call.failure() != null) {
				continue;
			}
			if (call.op() != Op.PROBE && excused(call.invoked(), call.returned())) {
				continue;
			}
			if (call.op() == Op.PROBE) {
				violation("quiescent probe refused: " + describe(call) + " when no call was under way", call.invoked(),
						call.returned());
				continue;
			}
			long keptOut = holds.stream()
				.filter((hold) -> hold.side().conflictsWith(call.side())
						&& overlaps(hold.possibleFrom(), hold.possibleUntil(), call.invoked(), call.returned()))
				.count();
			long needed = (call.side() == Side.PERMIT) ? this.permits : 1;
			if (keptOut >= needed) {
				continue;
			}
			if (call.op() == Op.TRY_NOW) {
				violation("false refusal: " + describe(call) + " refused a lock that no hold overlapping it kept out",
						call.invoked(), call.returned());
			}
			else if (this.history.stream()
				.noneMatch((other) -> other != call && other.op().waits()
						&& overlaps(other.invoked(), other.returned(), call.invoked(), call.returned()))) {
				violation("false refusal: " + describe(call) + " gave up on a lock that neither a hold nor another "
						+ "caller's wait overlapping it kept out", call.invoked(), call.returned());
			}
		}
	}

	private void checkLiveness() {
		List<HistoryEntry> holds = holds();
		for (HistoryEntry waiter : this.history) {
			if (!waiter.op().waits() || waiter.failure() != null || excused(waiter.invoked(), waiter.returned())) {
				continue;
			}
			Predicate<HistoryEntry> keepsOut = (other) -> other != waiter && other.side().conflictsWith(waiter.side());
			long stretch = longestFreeStretch(waiter, holds.stream().filter(keepsOut).toList());
			if (stretch > this.livenessBoundNanos) {
				violation(String.format(Locale.ROOT, "liveness: %s waited %.1f ms at a stretch while the lock was free",
						describe(waiter), stretch / 1e6), waiter.invoked(), waiter.returned());
			}
		}
	}

	/**
	 * The longest stretch of the waiter's wait during which fewer holds than the permits
	 * may have been held.
	 */
	private long longestFreeStretch(HistoryEntry waiter, List<HistoryEntry> holds) {
		long from = waiter.invoked();
		long until = waiter.returned();
		List<long[]> edges = new ArrayList<>();
		for (HistoryEntry hold : holds) {
			if (overlaps(hold.possibleFrom(), hold.possibleUntil(), from, until)) {
				edges.add(new long[] { Math.max(from, hold.possibleFrom()), 1 });
				edges.add(new long[] { Math.min(until, hold.possibleUntil()), -1 });
			}
		}
		edges.sort(Comparator.<long[]>comparingLong((edge) -> edge[0]).thenComparingLong((edge) -> -edge[1]));
		int needed = (waiter.side() == Side.PERMIT) ? this.permits : 1;
		long longest = 0;
		long freeSince = from;
		int held = 0;
		for (long[] edge : edges) {
			boolean wasFree = held < needed;
			held += (int) edge[1];
			boolean free = held < needed;
			if (wasFree && !free) {
				longest = Math.max(longest, edge[0] - freeSince);
			}
			else if (!wasFree && free) {
				freeSince = edge[0];
			}
		}
		if (held < needed) {
			longest = Math.max(longest, until - freeSince);
		}
		return longest;
	}

	private static boolean overlaps(long from, long until, long otherFrom, long otherUntil) {
		return from < otherUntil && otherFrom < until;
	}

	private void violation(String what, long from, long until) {
		StringBuilder report = new StringBuilder(what).append(String.format(Locale.ROOT,
				"%n  at %s..%s; the calls overlapping it (µs from the history's start):", micros(from), micros(until)));
		this.history.stream()
			.filter((entry) -> overlaps(entry.invoked(), Math.max(entry.end(), entry.invoked() + 1), from,
					Math.max(until, from + 1)))
			.limit(SLICE_LINES)
			.forEach((entry) -> report.append(System.lineSeparator()).append("  ").append(line(entry)));
		this.violations.add(report.toString());
	}

	private String line(HistoryEntry entry) {
		String result = entry.granted()
				? "granted token " + entry.token() + ", held " + micros(entry.returned()) + ".."
						+ micros(entry.released()) + ", released by " + micros(entry.releaseReturned())
				: (entry.failure() != null) ? "failed: " + entry.failure() : "refused";
		return String.format(Locale.ROOT, "%s called %s returned %s: %s", describe(entry), micros(entry.invoked()),
				micros(entry.returned()), result);
	}

	private static String describe(HistoryEntry entry) {
		return "client " + entry.client() + " " + entry.caller() + " " + entry.op().name().toLowerCase(Locale.ROOT)
				+ " " + entry.side().name().toLowerCase(Locale.ROOT);
	}

	private String micros(long nanos) {
		return Long.toString((nanos - this.origin) / 1000);
	}

}
