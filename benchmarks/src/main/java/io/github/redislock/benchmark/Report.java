package io.github.redislock.benchmark;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import javax.imageio.ImageIO;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jspecify.annotations.Nullable;

/**
 * Medians of the runs, as Markdown (with the targets checked) and as a chart.
 */
final class Report {

	private final Map<Scenario, Map<Library, List<RunResult>>> results;

	private final String redisVersion;

	private final Duration run;

	private final Duration warmup;

	private final int rounds;

	Report(Map<Scenario, Map<Library, List<RunResult>>> results, String redisVersion, Duration run, Duration warmup,
			int rounds) {
		this.results = results;
		this.redisVersion = redisVersion;
		this.run = run;
		this.warmup = warmup;
		this.rounds = rounds;
	}

	String markdown() {
		StringBuilder md = new StringBuilder("# Benchmark results\n\n");
		md.append(String.format(Locale.ROOT,
				"One local Redis (%s), %s per run after %s of warm-up, %d round(s); every library ran %d time(s) "
						+ "per scenario, in forward then reverse order. Figures are medians of the runs. "
						+ "\"Redis cmds/op\" counts every command Redis executed (INFO commandstats), including those "
						+ "run inside Lua scripts. \"CPU µs/op\" is the CPU time this JVM (harness, JIT and GC included; "
						+ "the worker JVMs in the two-JVM scenarios) and Redis used per operation in the measured window, Redis' part in brackets: steadier than "
						+ "throughput on a machine whose other load varies. \"counter\" is a non-atomic counter the holders increment: it must "
						+ "end equal to the acquisitions. Before measuring, every library ran each in-process scenario "
						+ "once unmeasured; the two worker JVMs of the last scenario, new for every run, warm up for "
						+ "at least " + TwoJvmScenario.MINIMUM_WARMUP.toSeconds() + " s.%n%n",
				this.redisVersion, this.run, this.warmup, this.rounds, 2 * this.rounds));
		md.append(String.format(Locale.ROOT, "Machine: %d cores, Java %s, %s.%n%n",
				Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
				System.getProperty("os.name")));
		for (Map.Entry<Scenario, Map<Library, List<RunResult>>> entry : this.results.entrySet()) {
			Scenario scenario = entry.getKey();
			Library baseline = scenario.comparesToFloor() ? Library.FLOOR : Library.REDISSON;
			double baselineRate = median(entry.getValue().get(baseline), RunResult::perSecond);
			md.append("## ").append(scenario.title()).append("\n\n");
			md.append("| Library | ")
				.append(scenario.unit())
				.append(" | vs ")
				.append(baseline.title())
				.append(" | p50 µs | p99 µs | Redis cmds/op | scripts/op | CPU µs/op (Redis) | smallest JVM's share "
						+ "| counter |\n");
			md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
			for (Map.Entry<Library, List<RunResult>> library : entry.getValue().entrySet()) {
				List<RunResult> runs = library.getValue();
				double rate = median(runs, RunResult::perSecond);
				double share = median(runs, RunResult::smallestShare);
				double cpu = median(runs, RunResult::cpuMicrosPerOperation);
				md.append(String.format(Locale.ROOT,
						"| %s | %,.0f | %.2f | %,.1f | %,.1f | %.2f | %.2f | %s | %s | %s |%n",
						library.getKey().title(), rate, rate / baselineRate, median(runs, RunResult::p50Micros),
						median(runs, RunResult::p99Micros), median(runs, RunResult::commandsPerOperation),
						median(runs, RunResult::scriptsPerOperation),
						Double.isNaN(cpu) ? ""
								: String.format(Locale.ROOT, "%.0f (%.0f)", cpu,
										median(runs, RunResult::redisCpuMicrosPerOperation)),
						Double.isNaN(share) ? "" : String.format(Locale.ROOT, "%.0f %%", 100 * share),
						runs.stream().allMatch(RunResult::counterOk) ? "ok" : "MISMATCH"));
			}
			md.append("\nLatency: ").append(scenario.latencyMeaning()).append(".\n\n");
		}
		md.append(targets());
		md.append(monitoringCost());
		return md.toString();
	}

	private String monitoringCost() {
		StringBuilder md = new StringBuilder("\n## Cost of monitoring\n\nredis-lock with the Micrometer registries "
				+ "Actuator gives it (acquire and hold observations turned into timers, gauges, lease-lost counter) "
				+ "against redis-lock without them.\n\n| Scenario | throughput | p50 |\n|---|---:|---:|\n");
		boolean any = false;
		for (Map.Entry<Scenario, Map<Library, List<RunResult>>> entry : this.results.entrySet()) {
			List<RunResult> plain = entry.getValue().get(Library.REDIS_LOCK);
			List<RunResult> observed = entry.getValue().get(Library.REDIS_LOCK_OBSERVED);
			if (plain == null || observed == null) {
				continue;
			}
			any = true;
			md.append(String.format(Locale.ROOT, "| %s | %.2f x (%,.0f vs %,.0f /s) | %+.1f µs |%n",
					entry.getKey().title(),
					median(observed, RunResult::perSecond) / median(plain, RunResult::perSecond),
					median(observed, RunResult::perSecond), median(plain, RunResult::perSecond),
					median(observed, RunResult::p50Micros) - median(plain, RunResult::p50Micros)));
		}
		return any ? md.toString() : "";
	}

	private String targets() {
		StringBuilder md = new StringBuilder("## Targets\n\n| Target | Measured | Met |\n|---|---|---|\n");
		for (Map.Entry<Scenario, Map<Library, List<RunResult>>> entry : this.results.entrySet()) {
			Scenario scenario = entry.getKey();
			Map<Library, List<RunResult>> byLibrary = entry.getValue();
			List<RunResult> ours = byLibrary.get(Library.REDIS_LOCK);
			List<RunResult> redisson = byLibrary.get(Library.REDISSON);
			if (ours == null || redisson == null) {
				continue;
			}
			double rate = median(ours, RunResult::perSecond);
			if (scenario.comparesToFloor()) {
				double floor = median(byLibrary.get(Library.FLOOR), RunResult::perSecond);
				row(md, scenario.title() + ": pairs/s >= 0.9 x floor",
						String.format(Locale.ROOT, "%.2f x floor (%,.0f vs %,.0f)", rate / floor, rate, floor),
						rate >= 0.9 * floor);
				double theirs = median(redisson, RunResult::perSecond);
				row(md, scenario.title() + ": pairs/s >= Redisson",
						String.format(Locale.ROOT, "%.2f x Redisson (%,.0f vs %,.0f)", rate / theirs, rate, theirs),
						rate >= theirs);
			}
			else if (scenario instanceof FairContendedScenario) {
				double theirs = median(redisson, RunResult::perSecond);
				row(md, scenario.title() + ": acquisitions/s > Redisson's RFairLock; waits p99 and max",
						String.format(Locale.ROOT,
								"%.2f x (%,.0f vs %,.0f); p99 %,.0f vs %,.0f µs; max %,.0f vs %,.0f ms", rate / theirs,
								rate, theirs, median(ours, RunResult::p99Micros),
								median(redisson, RunResult::p99Micros), median(ours, RunResult::maxMillis),
								median(redisson, RunResult::maxMillis)),
						rate > theirs);
			}
			else if (scenario instanceof ReadMostlyScenario) {
				double theirs = median(redisson, RunResult::perSecond);
				row(md, scenario.title() + ": operations/s > Redisson's RReadWriteLock",
						String.format(Locale.ROOT, "%.2f x (%,.0f vs %,.0f)", rate / theirs, rate, theirs),
						rate > theirs);
			}
			else if (scenario instanceof ContentionScenario) {
				double commands = median(ours, RunResult::commandsPerOperation);
				double theirCommands = median(redisson, RunResult::commandsPerOperation);
				row(md, scenario.title() + ": Redis cmds/acquisition <= Redisson",
						String.format(Locale.ROOT, "%.2f vs %.2f", commands, theirCommands), commands <= theirCommands);
				double theirRate = median(redisson, RunResult::perSecond);
				double scripts = median(ours, RunResult::scriptsPerOperation);
				if (scenario instanceof ContendedScenario) {
					row(md, scenario.title() + ": acquisitions/s >= 2.2 x Redisson",
							String.format(Locale.ROOT, "%.2f x (%,.0f vs %,.0f)", rate / theirRate, rate, theirRate),
							rate >= 2.2 * theirRate);
					List<RunResult> ceiling = byLibrary.get(Library.CEILING);
					if (ceiling != null) {
						double ceilingRate = median(ceiling, RunResult::perSecond);
						row(md, scenario.title() + ": acquisitions/s >= 0.8 x the critical section's ceiling", String
							.format(Locale.ROOT, "%.2f x (%,.0f vs %,.0f)", rate / ceilingRate, rate, ceilingRate),
								rate >= 0.8 * ceilingRate);
					}
					row(md, scenario.title() + ": scripts/acquisition <= 1.3",
							String.format(Locale.ROOT, "%.2f", scripts), scripts <= 1.3);
				}
				if (scenario instanceof TwoJvmScenario) {
					double share = median(ours, RunResult::smallestShare);
					row(md, scenario.title() + ": each JVM >= 35 % of acquisitions",
							String.format(Locale.ROOT, "smallest share %.0f %%", 100 * share), share >= 0.35);
					double bestFair = 0;
					String bestName = "none";
					for (Map.Entry<Library, List<RunResult>> peer : byLibrary.entrySet()) {
						if (peer.getKey() == Library.REDIS_LOCK || peer.getKey() == Library.CEILING) {
							continue;
						}
						double peerRate = median(peer.getValue(), RunResult::perSecond);
						if (median(peer.getValue(), RunResult::smallestShare) >= 0.35 && peerRate > bestFair) {
							bestFair = peerRate;
							bestName = peer.getKey().title();
						}
					}
					row(md, scenario.title() + ": acquisitions/s >= 1.5 x the best peer sharing fairly", String
						.format(Locale.ROOT, "%.2f x %s (%,.0f vs %,.0f)", rate / bestFair, bestName, rate, bestFair),
							rate >= 1.5 * bestFair);
				}
				double p99 = median(ours, RunResult::p99Micros);
				double theirP99 = median(redisson, RunResult::p99Micros);
				if (!Double.isNaN(p99) && p99 > 0) {
					row(md, scenario.title() + ": p99 hand-off gap <= 0.5 x Redisson",
							String.format(Locale.ROOT, "%,.0f µs vs %,.0f µs", p99, theirP99), p99 <= 0.5 * theirP99);
				}
				List<RunResult> spin = byLibrary.get(Library.INTEGRATION_SPIN);
				if (spin != null && p99 > 0) {
					double spinP99 = median(spin, RunResult::p99Micros);
					row(md, scenario.title() + ": p99 hand-off gap far below a spinning lock (<= 0.5 x)",
							String.format(Locale.ROOT, "%,.0f µs vs %,.0f µs (SPIN)", p99, spinP99),
							p99 <= 0.5 * spinP99);
				}
			}
		}
		boolean countersOk = this.results.values()
			.stream()
			.flatMap((byLibrary) -> byLibrary.values().stream())
			.flatMap(List::stream)
			.allMatch(RunResult::counterOk);
		row(md, "never a counter mismatch", countersOk ? "no mismatch" : "MISMATCH", countersOk);
		return md.append('\n').toString();
	}

	void writeChart(Path file) throws IOException {
		DefaultCategoryDataset uncontended = new DefaultCategoryDataset();
		DefaultCategoryDataset contended = new DefaultCategoryDataset();
		DefaultCategoryDataset handOff = new DefaultCategoryDataset();
		for (Map.Entry<Scenario, Map<Library, List<RunResult>>> entry : this.results.entrySet()) {
			Scenario scenario = entry.getKey();
			for (Map.Entry<Library, List<RunResult>> library : entry.getValue().entrySet()) {
				double rate = median(library.getValue(), RunResult::perSecond);
				if (scenario instanceof CycleScenario) {
					uncontended.addValue(rate, library.getKey().title(), scenario.title());
				}
				else {
					contended.addValue(rate, library.getKey().title(), scenario.title());
					handOff.addValue(Math.max(1, median(library.getValue(), RunResult::p99Micros)),
							library.getKey().title(), scenario.title());
				}
			}
		}
		List<JFreeChart> charts = new ArrayList<>();
		charts.add(bars("Uncontended: lock/unlock cycles per second (higher is better)", "per second", uncontended,
				false));
		charts.add(bars("Contended: acquisitions per second (higher is better)", "per second", contended, false));
		charts.add(bars("Contended: p99 hand-off gap, release to next holder (lower is better)", "µs, log scale",
				handOff, true));
		int width = 1000;
		int height = 380;
		BufferedImage image = new BufferedImage(width, height * charts.size(), BufferedImage.TYPE_INT_RGB);
		Graphics2D graphics = image.createGraphics();
		for (int i = 0; i < charts.size(); i++) {
			charts.get(i).draw(graphics, new java.awt.geom.Rectangle2D.Double(0, i * height, width, height));
		}
		graphics.dispose();
		ImageIO.write(image, "png", file.toFile());
	}

	private static JFreeChart bars(String title, String axis, DefaultCategoryDataset data, boolean logarithmic) {
		JFreeChart chart = ChartFactory.createBarChart(title, null, axis, data, PlotOrientation.VERTICAL, true, false,
				false);
		chart.setBackgroundPaint(Color.WHITE);
		CategoryPlot plot = chart.getCategoryPlot();
		plot.setBackgroundPaint(Color.WHITE);
		plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
		BarRenderer renderer = (BarRenderer) plot.getRenderer();
		if (logarithmic) {
			LogAxis log = new LogAxis(axis);
			log.setSmallestValue(1);
			log.setBase(10);
			log.setNumberFormatOverride(new DecimalFormat("#,##0"));
			plot.setRangeAxis(log);
			renderer.setBase(1);
		}
		// one colour per library in every chart
		for (int row = 0; row < data.getRowCount(); row++) {
			renderer.setSeriesPaint(row, colour((String) data.getRowKey(row)));
		}
		renderer.setBarPainter(new StandardBarPainter());
		renderer.setShadowVisible(false);
		return chart;
	}

	private static Color colour(String libraryTitle) {
		for (Library library : Library.values()) {
			if (library.title().equals(libraryTitle)) {
				return switch (library) {
					case FLOOR -> new Color(0x9E9E9E);
					case CEILING -> new Color(0x424242);
					case REDIS_LOCK -> new Color(0xD32F2F);
					case REDIS_LOCK_OBSERVED -> new Color(0xEF9A9A);
					case REDISSON -> new Color(0x1976D2);
					case INTEGRATION_PUB_SUB -> new Color(0x388E3C);
					case INTEGRATION_SPIN -> new Color(0xF9A825);
				};
			}
		}
		return Color.BLACK;
	}

	private static void row(StringBuilder md, String target, String measured, boolean met) {
		md.append("| ")
			.append(target)
			.append(" | ")
			.append(measured)
			.append(" | ")
			.append(met ? "yes" : "**no**")
			.append(" |\n");
	}

	private static double median(@Nullable List<RunResult> runs, ToDoubleFunction<RunResult> metric) {
		if (runs == null) {
			// a library left out of this run (--libraries)
			return Double.NaN;
		}
		double[] values = runs.stream().mapToDouble(metric).sorted().toArray();
		int middle = values.length / 2;
		return (values.length % 2 == 1) ? values[middle] : (values[middle - 1] + values[middle]) / 2;
	}

}
