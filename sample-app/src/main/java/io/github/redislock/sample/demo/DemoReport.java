package io.github.redislock.sample.demo;

import java.util.List;
import java.util.Locale;

/**
 * Both runs of the oversell demo.
 *
 * @param stock the units in stock at the start of each run
 * @param requests the reservation attempts per run
 * @param concurrency how many attempts ran at the same time
 * @param runs the run without the lock, then the run with it
 * @param fencing the paused-holder run with a plain write, then with a fenced one
 */
public record DemoReport(int stock, int requests, int concurrency, List<DemoRun> runs, List<FencingRun> fencing) {

	private static final String ROW = "%-13s %5s %9s %7s %9s %11s %8s%n";

	private static final String FENCING_ROW = "%-13s %5s %22s %9s %11s  %s%n";

	/** The report as a table for people. */
	public String table() {
		StringBuilder table = new StringBuilder();
		table.append(String.format(Locale.ROOT,
				"Oversell demo: %d units in stock, %d reservations of 1 unit from 2 instances, %d at a time%n",
				this.stock, this.requests, this.concurrency));
		table.append(row("run", "sold", "rejected", "failed", "oversold", "stock left", "time"));
		for (DemoRun run : this.runs) {
			table.append(row(run.run(), run.sold(), run.rejected(), run.failed(), run.oversold(), run.stockLeft(),
					run.millis() + " ms"));
		}
		table.append(String.format(Locale.ROOT, "%nA holder paused past its lease (a long GC pause) while the other "
				+ "instance took the lock and sold a unit;%nthen it wrote the level it had computed before:%n"));
		table.append(String.format(Locale.ROOT, FENCING_ROW, "write", "sold", "stale writes rejected", "oversold",
				"stock left", "tokens (paused, took over)"));
		for (FencingRun run : this.fencing) {
			table.append(String.format(Locale.ROOT, FENCING_ROW, run.write(), run.sold(), run.staleWritesRejected(),
					run.oversold(), run.stockLeft(), run.pausedToken() + ", " + run.takeOverToken()));
		}
		return table.toString();
	}

	private static String row(Object... cells) {
		return String.format(Locale.ROOT, ROW, cells);
	}

}
