package io.github.redislock.torture;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.redislock.torture.TortureHistory.Call;

/**
 * The timing figures of a {@link TortureHistory}: how far calls overran their bound, how
 * long a released lock stayed free while someone waited for it, and how long after each
 * fault healed every name was acquired again.
 */
final class TortureTimings {

	private final TortureHistory history;

	private final long commandTimeoutMillis;

	private final long runStart;

	/** The longest a call took beyond wait + command timeout, in ms. */
	long maxOverrunMillis = Long.MIN_VALUE;

	String maxOverrunCall = "none";

	long gapsMeasured;

	long gapsOverOneSecond;

	long maxGapMillis = -1;

	String maxGapRelease = "none";

	/** Each fault: when, how long, and how soon every name was acquired again. */
	final List<String> faults = new ArrayList<>();

	/** Per kind of fault: the longest until every name was acquired again, in ms. */
	final Map<TortureFaults.Kind, Long> recoveryMillis = new EnumMap<>(TortureFaults.Kind.class);

	TortureTimings(TortureHistory history, long commandTimeoutMillis, long runStart) {
		this.history = history;
		this.commandTimeoutMillis = commandTimeoutMillis;
		this.runStart = runStart;
		for (Call call : history.calls) {
			overrun(call, "tryLock", call.start(), call.end(), call.waitMillis());
			if (call.acquired()) {
				overrun(call, "unlock", call.exit(), call.unlockEnd(), 0);
			}
		}
		for (int name = 0; name < history.holdsByName.size(); name++) {
			int index = name;
			List<Call> attempts = history.calls.stream()
				.filter((call) -> call.name() == index)
				.sorted(Comparator.comparingLong(Call::start))
				.toList();
			wakeUpGaps(attempts, history.holdsByName.get(name));
		}
		long[][] entersByName = history.holdsByName.stream()
			.map((holds) -> holds.stream().mapToLong(Call::enter).toArray())
			.toArray(long[][]::new);
		for (TortureFaults.Window fault : history.faults) {
			recovery(fault, entersByName);
		}
	}

	/**
	 * Calls of a frozen worker that overlapped its pause do not count: the JVM did not
	 * run.
	 */
	private void overrun(Call call, String what, long start, long end, long waitMillis) {
		long overrun = TimeUnit.NANOSECONDS.toMillis(end - start) - waitMillis - this.commandTimeoutMillis;
		if (overrun > this.maxOverrunMillis && !this.history.frozen(call.worker(), start, end)) {
			this.maxOverrunMillis = overrun;
			this.maxOverrunCall = what + " of torture-" + call.name() + " at " + at(start) + " took "
					+ TimeUnit.NANOSECONDS.toMillis(end - start) + " ms with a " + waitMillis + " ms wait"
					+ during(start, end);
		}
	}

	/**
	 * For each release while some thread waited for the lock: the time until the next
	 * acquisition by anyone, or until the last of those waiters gave up, whichever came
	 * first. Releases whose gap overlaps a fault are left out.
	 */
	private void wakeUpGaps(List<Call> attempts, List<Call> holds) {
		long[] starts = attempts.stream().mapToLong(Call::start).toArray();
		long[] latestEnd = new long[starts.length];
		long latest = Long.MIN_VALUE;
		for (int i = 0; i < starts.length; i++) {
			latest = Math.max(latest, attempts.get(i).end());
			latestEnd[i] = latest;
		}
		long[] enters = holds.stream().mapToLong(Call::enter).toArray();
		for (Call hold : holds) {
			if (hold.unlocked() != 'O') {
				continue;
			}
			long released = hold.unlockEnd();
			int startedBefore = insertionPoint(starts, released);
			if (startedBefore == 0 || latestEnd[startedBefore - 1] <= released) {
				continue;
			}
			int next = insertionPoint(enters, hold.exit() + 1);
			long nextAcquired = (next < enters.length) ? enters[next] : Long.MAX_VALUE;
			long gapEnd = Math.min(nextAcquired, latestEnd[startedBefore - 1]);
			if (this.history.faults.stream().anyMatch((fault) -> fault.overlaps(released, gapEnd))) {
				continue;
			}
			this.gapsMeasured++;
			long gap = TimeUnit.NANOSECONDS.toMillis(Math.max(0, gapEnd - released));
			if (gap > 1000) {
				this.gapsOverOneSecond++;
			}
			if (gap > this.maxGapMillis) {
				this.maxGapMillis = gap;
				this.maxGapRelease = "torture-" + hold.name() + " released at " + at(released)
						+ ((nextAcquired == gapEnd) ? ", acquired again " : ", its waiters gave up ") + gap
						+ " ms later";
			}
		}
	}

	// -1 when some name was not acquired again at all
	private void recovery(TortureFaults.Window fault, long[][] entersByName) {
		long worst = 0;
		int slowest = 0;
		for (int name = 0; name < entersByName.length; name++) {
			long[] enters = entersByName[name];
			int next = insertionPoint(enters, fault.end());
			long recovery = (next < enters.length) ? enters[next] - fault.end() : Long.MAX_VALUE;
			if (recovery > worst) {
				worst = recovery;
				slowest = name;
			}
		}
		long millis = (worst == Long.MAX_VALUE) ? -1 : TimeUnit.NANOSECONDS.toMillis(worst);
		this.recoveryMillis.merge(fault.kind(), millis, (a, b) -> (a < 0 || b < 0) ? -1 : Math.max(a, b));
		this.faults.add(fault.kind().label() + " at " + at(fault.start()) + " for "
				+ TimeUnit.NANOSECONDS.toMillis(fault.end() - fault.start()) + " ms"
				+ ((fault.worker() >= 0) ? " (worker " + fault.worker() + ")" : "") + ": every name acquired again "
				+ ((millis < 0) ? "never" : "within " + millis + " ms (last torture-" + slowest + ")"));
	}

	// the index of the first element at or after the value
	private static int insertionPoint(long[] sorted, long value) {
		int index = Arrays.binarySearch(sorted, value);
		if (index < 0) {
			return -index - 1;
		}
		while (index > 0 && sorted[index - 1] == value) {
			index--;
		}
		return index;
	}

	private String at(long nanos) {
		return String.format("%.1f s", (nanos - this.runStart) / 1e9);
	}

	private String during(long start, long end) {
		return this.history.faults.stream()
			.filter((fault) -> fault.overlaps(start, end))
			.map((fault) -> fault.kind().label())
			.reduce((a, b) -> a + ", " + b)
			.map((kinds) -> " (during " + kinds + ")")
			.orElse(" (no fault)");
	}

}
