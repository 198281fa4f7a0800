package io.github.redislock.torture;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import io.github.redislock.torture.TortureHistory.Call;
import io.github.redislock.torture.TortureHistory.Overlap;

/**
 * The checks of {@link TortureTests} when each name is a semaphore of {@code permits}
 * permits, made on the holds of a {@link TortureHistory} and the live counts of the
 * {@link TortureStore}.
 *
 * <p>
 * <b>Holders at once.</b> The holds of a name are taken in the order they began; each
 * one, when it begins, counts the earlier holds still inside, leaving out those it
 * overlaps legitimately as an exclusive lock's holds may (Redis lost its data between
 * them or while one was acquired; one was frozen past its lease and the other began a
 * lease or more after its call). Those counted overlap it and each other (a hold that
 * overlaps another legitimately overlaps every later one so too), so the most any hold
 * counts, itself included, is the most holders the semaphore let in at once: it must not
 * exceed the permits. It must reach them for some name, or the run proved nothing.
 *
 * <p>
 * <b>Live count.</b> Every holder counts itself in the store's count of its name after
 * its entry time and out before its exit time, so the holders counted at one moment all
 * overlap at that moment in the records, and the most the count saw is never above the
 * most holds that overlapped at all (legitimately or not); above the permits only where
 * legitimate overlaps took the holds there too. Every count is back at 0 at the end.
 *
 * <p>
 * <b>Tokens.</b> A grant takes its token from the slot's clock, as a lock does, so the
 * tokens of a name increase in the order Redis granted them, across data losses too (the
 * clock follows the server's time). But holders of one semaphore may learn of their
 * grants in another order than Redis made them, so the order the holds began in the
 * records is not the grant order, as it is for a lock. What the records do show: a hold
 * whose call began after another hold's began was granted after it. So a hold's token is
 * above that of every hold that began before its call did, with no hold left out (a hold
 * frozen past its lease or acquired during a data loss still got its token before it
 * began), and no two holds of a name share a token.
 *
 * <p>
 * <b>Not checked:</b> lost counter updates. Holders of a semaphore are meant to update
 * what it guards at once, so a non-atomic counter loses updates by design, and a store
 * fenced by the token alone rejects the writes of every holder granted before the last
 * writer; it would need one fenced store per permit, and a permit of this semaphore has
 * no identity a holder could name it by.
 */
final class TortureHolders {

	final int permits;

	/** Per name: the most holds at once, legitimate overlaps left out. */
	final int[] mostHolders;

	/** Per name: the most holds at once, legitimate overlaps included. */
	final int[] mostOverlapping;

	/** Per name: the most holders the live count saw inside at once. */
	final long[] mostInside;

	/** Holds that began while as many holders as there are permits held the name. */
	int excessHolds;

	/** Overlapping pairs of holds with one frozen past its lease. */
	int pausedHolderPairs;

	/** Holds frozen past their lease that overlapped later ones. */
	int staleHolds;

	/** Overlapping pairs of holds across a data loss. */
	int dataLossPairs;

	int tokenViolations;

	final List<String> violations = new ArrayList<>();

	private final TortureHistory history;

	private TortureHolders(TortureHistory history, int permits, TortureStore store) {
		this.history = history;
		this.permits = permits;
		int names = history.holdsByName.size();
		this.mostHolders = new int[names];
		this.mostOverlapping = new int[names];
		this.mostInside = new long[names];
		for (int name = 0; name < names; name++) {
			List<Call> holds = history.holdsByName.get(name);
			countHolders(name, holds);
			checkTokens(holds);
			this.mostInside[name] = store.mostInside(name);
			if (this.mostInside[name] > Math.max(permits, this.mostOverlapping[name])) {
				violation("torture-" + name + ": " + this.mostInside[name] + " holders inside at once, the records "
						+ "show at most " + this.mostOverlapping[name] + " overlapping");
			}
			if (store.inside(name) != 0) {
				violation("torture-" + name + ": the live count ended at " + store.inside(name));
			}
		}
	}

	static TortureHolders check(TortureHistory history, int permits, TortureStore store) {
		return new TortureHolders(history, permits, store);
	}

	int mostHoldersOfAnyName() {
		return max(this.mostHolders);
	}

	long mostInsideOfAnyName() {
		return LongStream.of(this.mostInside).max().orElse(0);
	}

	/**
	 * How many calls each way took, how many acquired, and how the permits were released.
	 */
	String ways() {
		String taken = "tafr".chars().mapToObj((way) -> {
			List<Call> calls = this.history.calls.stream().filter((call) -> call.way() == way).toList();
			return (char) way + " " + calls.stream().filter(Call::acquired).count() + "/" + calls.size();
		}).collect(Collectors.joining(", "));
		String released = "hco".chars()
			.mapToObj((by) -> (char) by + " "
					+ this.history.calls.stream().filter((call) -> call.releasedBy() == by).count())
			.collect(Collectors.joining(", "));
		return taken + "; released " + released;
	}

	private void countHolders(int name, List<Call> holds) {
		Set<Call> staleHolds = new HashSet<>();
		List<Call> inside = new ArrayList<>();
		for (Call hold : holds) {
			inside.removeIf((earlier) -> earlier.exit() <= hold.enter());
			List<Call> counted = new ArrayList<>();
			for (Call earlier : inside) {
				Overlap overlap = this.history.overlap(earlier, hold);
				switch (overlap) {
					case ACROSS_DATA_LOSS -> this.dataLossPairs++;
					case EARLIER_STALE, LATER_STALE -> {
						this.pausedHolderPairs++;
						staleHolds.add((overlap == Overlap.EARLIER_STALE) ? earlier : hold);
					}
					case NOT_ALLOWED -> counted.add(earlier);
				}
			}
			inside.add(hold);
			this.mostOverlapping[name] = Math.max(this.mostOverlapping[name], inside.size());
			this.mostHolders[name] = Math.max(this.mostHolders[name], counted.size() + 1);
			if (counted.size() >= this.permits) {
				this.excessHolds++;
				violation("torture-" + name + ": " + (counted.size() + 1) + " holders at once: " + hold
						+ " began while " + counted + " held it");
			}
		}
		this.staleHolds += staleHolds.size();
	}

	private void checkTokens(List<Call> holdsByEnter) {
		List<Call> holdsByStart = holdsByEnter.stream().sorted(Comparator.comparingLong(Call::start)).toList();
		Set<Long> tokens = new HashSet<>();
		Call highestBefore = null;
		int entered = 0;
		for (Call hold : holdsByStart) {
			while (entered < holdsByEnter.size() && holdsByEnter.get(entered).enter() < hold.start()) {
				Call earlier = holdsByEnter.get(entered++);
				if (highestBefore == null || earlier.token() > highestBefore.token()) {
					highestBefore = earlier;
				}
			}
			if (highestBefore != null && hold.token() <= highestBefore.token()) {
				this.tokenViolations++;
				violation("token not above that of a hold that began before the call: " + highestBefore + " then "
						+ hold);
			}
			if (!tokens.add(hold.token())) {
				this.tokenViolations++;
				violation("token granted twice: " + hold);
			}
		}
	}

	private static int max(int[] values) {
		int max = 0;
		for (int value : values) {
			max = Math.max(max, value);
		}
		return max;
	}

	private void violation(String description) {
		if (this.violations.size() < 20) {
			this.violations.add(description);
		}
	}

}
