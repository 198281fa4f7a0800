package io.github.redislock.shedlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs of one fixed-rate job on two applications, counted per period.
 * <p>
 * Each application fires on its own 200 ms grid (a fixed rate counts from the
 * application's start), so the two grids are some phase apart. A period is the window
 * that holds one firing of each, centred between them: whatever the phase, both firings
 * are at least a quarter period from the window's edges. A run counts for the period of
 * the firing it ran for (when it was due, not when it started), so a late start does not
 * move it into the next period. Firing {@code i} of an application was due at
 * {@code start + i * period}, a fixed-rate executor's grid, where {@code start} is the
 * earliest firing less its index's share.
 */
final class JobPeriods {

	/** One firing of the job by an application's scheduler, before ShedLock is asked. */
	record Firing(String app, int index, long nanos) {
	}

	private final Duration period;

	private final Map<String, Long> starts = new TreeMap<>();

	private final Map<String, Integer> firingCounts = new TreeMap<>();

	private final long origin;

	JobPeriods(Duration period, Collection<Firing> firings) {
		this.period = period;
		long periodNanos = period.toNanos();
		for (Firing firing : firings) {
			this.starts.merge(firing.app(), firing.nanos() - firing.index() * periodNanos, Math::min);
			this.firingCounts.merge(firing.app(), 1, Integer::sum);
		}
		if (this.starts.size() != 2) {
			throw new IllegalStateException("Expected firings of two applications, got " + this.starts.keySet());
		}
		List<Long> grid = new ArrayList<>(this.starts.values());
		long first = grid.get(0);
		long phase = Math.floorMod(grid.get(1) - first, periodNanos);
		// the centre between the two grids, on the shorter side of the circle
		long centre = (phase <= periodNanos / 2) ? first + phase / 2 : first - (periodNanos - phase) / 2;
		this.origin = centre - periodNanos / 2;
	}

	/** How far apart the two applications' grids are, at most half a period. */
	Duration phase() {
		List<Long> grid = new ArrayList<>(this.starts.values());
		long phase = Math.floorMod(grid.get(1) - grid.get(0), this.period.toNanos());
		return Duration.ofNanos(Math.min(phase, this.period.toNanos() - phase));
	}

	/** When the firing was due on its application's grid. */
	long dueNanos(String app, int index) {
		return this.starts.get(app) + index * this.period.toNanos();
	}

	/** How late the firing started after it was due. */
	Duration lateness(Firing firing) {
		return Duration.ofNanos(firing.nanos() - dueNanos(firing.app(), firing.index()));
	}

	/** The period a firing of the application belongs to. */
	long periodOf(String app, int index) {
		return Math.floorDiv(dueNanos(app, index) - this.origin, this.period.toNanos());
	}

	/**
	 * How late the most timely firing of the period started, of any application;
	 * {@code null} when none fired for it.
	 */
	Duration leastLateness(long period, Collection<Firing> firings) {
		return firings.stream()
			.filter((firing) -> periodOf(firing.app(), firing.index()) == period)
			.map(this::lateness)
			.min(Duration::compareTo)
			.orElse(null);
	}

	/** The firings that ran, by the period they belong to. */
	Map<Long, List<Firing>> runsByPeriod(Collection<Firing> runs) {
		Map<Long, List<Firing>> byPeriod = new TreeMap<>();
		for (Firing run : runs) {
			byPeriod.computeIfAbsent(periodOf(run.app(), run.index()), (period) -> new ArrayList<>()).add(run);
		}
		return byPeriod;
	}

	/**
	 * How many runs each period had, for the periods in which both applications fired,
	 * less the last of them (an application stopping within), from the first that starts
	 * at {@code fromNanos}.
	 * @param runs the application and firing index of every run
	 * @param fromNanos the earliest start of a period to count
	 */
	Map<Long, Integer> runsPerFullPeriod(Collection<Firing> runs, long fromNanos) {
		long from = Math.floorDiv(fromNanos - this.origin, this.period.toNanos());
		long to = Long.MAX_VALUE;
		for (Map.Entry<String, Integer> app : this.firingCounts.entrySet()) {
			from = Math.max(from, periodOf(app.getKey(), 0));
			to = Math.min(to, periodOf(app.getKey(), app.getValue() - 1));
		}
		Map<Long, Integer> counts = new TreeMap<>();
		for (long period = from + 1; period < to; period++) {
			// from + 1: period "from" starts before fromNanos
			counts.put(period, 0);
		}
		for (Firing run : runs) {
			counts.computeIfPresent(periodOf(run.app(), run.index()), (period, count) -> count + 1);
		}
		return counts;
	}

}
