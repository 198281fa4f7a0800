package io.github.redislock.torture;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.redislock.torture.TortureFaults.Kind;
import org.jspecify.annotations.Nullable;

/**
 * The report of a {@link TortureTests} run: one block of text, one figure a line, then
 * the faults in order and any violations.
 */
final class TortureReport {

	private TortureReport() {
	}

	/**
	 * The report; {@code holders} is null for exclusive locks, else the semaphore's
	 * figures replace the overlaps, lost updates and token order of a lock.
	 */
	static String of(TortureShape shape, Path records, TortureFaults faults, TortureHistory history,
			@Nullable TortureHolders holders, TortureTimings timings, List<TortureWorkerJvm> workers,
			TortureLeftovers atClose, TortureLeftovers atEnd) {
		Map<Kind, Integer> counts = faults.counts();
		Set<Kind> missing = EnumSet.copyOf(shape.faults());
		missing.removeAll(counts.keySet());
		StringBuilder out = new StringBuilder();
		out.append(String.format(Locale.ROOT, "TORTURE %s%n", shape));
		out.append(String.format(Locale.ROOT, "  (records, kept if the test fails: %s)%n", records));
		line(out, "acquisitions",
				"%d (%d %s calls: %d timed out, %d failed; unlocks: %d ok, %d lease expired, %d failed)",
				history.acquisitions(), history.calls.size(), (holders != null) ? "acquire" : "tryLock",
				history.count('T'), history.count('E') + history.count('X'), history.countUnlocked('O'),
				history.countUnlocked('L'),
				history.countUnlocked('E') + history.countUnlocked('M') + history.countUnlocked('X'));
		line(out, "faults by kind", "%d: %s%s; worker pauses that froze a holder: %d", faults.windows().size(),
				counts.entrySet()
					.stream()
					.map((count) -> count.getKey().label() + " " + count.getValue())
					.collect(Collectors.joining(", ")),
				missing.isEmpty() ? "" : " (not injected: " + missing + ")", faults.holdersFrozen());
		line(out, "epochs (Redis kept its data)", "%d", history.epochs());
		line(out, "replica promotions that lost grants", "%d of %d", faults.promotionsThatLostGrants(),
				counts.getOrDefault(Kind.REPLICA_PROMOTION, 0));
		if (holders != null) {
			semaphore(out, history, holders);
		}
		else {
			line(out, "overlapping holds while Redis kept its data",
					"%d (legitimate, apart: %d holds frozen past their lease overlapped %d later holds, %d pairs; "
							+ "%d pairs across a data loss)",
					history.overlaps, history.staleHolds, history.holdsOverlappingStaleOnes,
					history.pausedHolderOverlaps, history.dataLossOverlaps);
			line(out, "lost counter updates",
					"%d unexplained, %d in all (store writes: %d accepted, %d rejected as stale)",
					history.unexplainedLostUpdates, history.lostUpdates, history.written, history.rejected);
			line(out, "stale writes (begun after a higher token's write was accepted)",
					"%d accepted, %d refused; holds frozen past their lease: %d writes accepted, %d refused",
					history.staleWritesAccepted, history.staleWritesRefused, history.frozenHoldersWritesAccepted,
					history.frozenHoldersWritesRefused);
			line(out, "tokens strictly increasing per name over the whole run", "%s across %d data losses",
					(history.tokenViolations == 0) ? "yes" : "NO, " + history.tokenViolations + " violations",
					history.epochs() - 1);
		}
		line(out, "failed calls by reason", "%s", failures(workers));
		line(out, "longest call beyond wait + command timeout", "%d ms: %s", timings.maxOverrunMillis,
				timings.maxOverrunCall);
		line(out, "longest free lock with a waiter, outside faults", "%d ms over %d releases (%d over 1 s): %s",
				timings.maxGapMillis, timings.gapsMeasured, timings.gapsOverOneSecond, timings.maxGapRelease);
		line(out, "every name acquired again after a fault within", "%s",
				timings.recoveryMillis.entrySet()
					.stream()
					.map((recovery) -> recovery.getKey().label() + " "
							+ ((recovery.getValue() < 0) ? "never" : recovery.getValue() + " ms"))
					.collect(Collectors.joining(", ")));
		line(out, "left in the workers", "lock threads %s, other threads after closing %s",
				workers.stream().map((worker) -> worker.line("LOCK_THREADS_LEFT ")).toList(),
				workers.stream().map((worker) -> worker.line("THREADS_LEFT ")).toList());
		line(out, "left in Redis once the lock clients closed", "%s", atClose);
		line(out, "left once the workers exited and leases ran out", "%s", atEnd);
		timings.faults.forEach((fault) -> out.append("    ").append(fault).append('\n'));
		history.violations.forEach((violation) -> out.append("  VIOLATION ").append(violation).append('\n'));
		if (holders != null) {
			holders.violations.forEach((violation) -> out.append("  VIOLATION ").append(violation).append('\n'));
		}
		return out.toString();
	}

	private static void semaphore(StringBuilder out, TortureHistory history, TortureHolders holders) {
		line(out, "calls taken (acquired/calls) and released, by way", "%s", holders.ways());
		line(out, "most holders of each name at once, legitimate overlaps apart",
				"%s of %d permits (%d holds began " + "beyond them; with legitimate overlaps: %s)",
				Arrays.toString(holders.mostHolders), holders.permits, holders.excessHolds,
				Arrays.toString(holders.mostOverlapping));
		line(out, "most holders of each name inside at once, counted live", "%s", Arrays.toString(holders.mostInside));
		line(out, "legitimate overlaps", "%d holds frozen past their lease, %d pairs; %d pairs across a data loss",
				holders.staleHolds, holders.pausedHolderPairs, holders.dataLossPairs);
		line(out, "lost counter updates", "not checked (a semaphore's holders update at once by design)");
		line(out, "tokens above those of holds begun before the call, never twice", "%s across %d data losses",
				(holders.tokenViolations == 0) ? "yes" : "NO, " + holders.tokenViolations + " violations",
				history.epochs() - 1);
	}

	// the most frequent first, with names and numbers left out
	private static String failures(List<TortureWorkerJvm> workers) {
		Map<String, Long> reasons = workers.stream()
			.flatMap((worker) -> worker.lines().stream())
			.filter((line) -> line.startsWith("FAILURE "))
			.map((line) -> line.substring("FAILURE ".length())
				.replaceAll("torture-\\d+", "torture-N")
				.replaceAll("\\d+", "#"))
			.collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
		return reasons.isEmpty() ? "none"
				: reasons.entrySet()
					.stream()
					.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
					.limit(6)
					.map((reason) -> reason.getValue() + " x " + reason.getKey())
					.collect(Collectors.joining("; "));
	}

	private static void line(StringBuilder out, String what, String format, Object... args) {
		out.append(String.format(Locale.ROOT, "  %-62s " + format + "%n", prepend(what + ":", args)));
	}

	private static Object[] prepend(Object first, Object[] rest) {
		Object[] all = new Object[rest.length + 1];
		all[0] = first;
		System.arraycopy(rest, 0, all, 1, rest.length);
		return all;
	}

}
