package io.github.redislock.benchmark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedisServers;

import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.FileSystemUtils;

/**
 * Runs every scenario for every library against one Redis that this run starts,
 * alternating the order of the libraries (forward, then reverse) so that no library
 * always runs first or last, and writes the medians as a Markdown table and a chart.
 *
 * <p>
 * Arguments: {@code --run=3s --warmup=1s --rounds=1 --out=results}, and
 * {@code --only=<text>} to run only the scenarios whose title contains the text, and
 * {@code --libraries=REDIS_LOCK,REDISSON} to run only these libraries (for a quick look;
 * the report's ratios need the baselines).
 */
public final class BenchmarkMain {

	private BenchmarkMain() {
	}

	public static void main(String[] args) throws IOException {
		Map<String, String> options = options(args);
		Duration run = DurationFormatterUtils.detectAndParse(options.getOrDefault("run", "3s"));
		Duration warmup = DurationFormatterUtils.detectAndParse(options.getOrDefault("warmup", "1s"));
		int rounds = Integer.parseInt(options.getOrDefault("rounds", "1"));
		Path out = Path.of(options.getOrDefault("out", "results"));
		Files.createDirectories(out);
		Path work = Files.createTempDirectory("redis-lock-bench-");
		String only = options.getOrDefault("only", "");
		List<String> libraries = List.of(options.getOrDefault("libraries", "").split(","))
			.stream()
			.filter((library) -> !library.isEmpty())
			.toList();
		List<Scenario> scenarios = List
			.of(new CycleScenario(1, 1), new CycleScenario(8, 1), new CycleScenario(1, 3), new ContendedScenario(8),
					new TwoJvmScenario(4, 1), new TwoJvmScenario(8, 4), new ReactiveScenario(8, false),
					new ReactiveScenario(8, true), new ReadMostlyScenario(8, 90), new FairContendedScenario(8))
			.stream()
			.filter((scenario) -> scenario.title().contains(only))
			.toList();
		Map<Scenario, Map<Library, List<RunResult>>> results = new LinkedHashMap<>();
		try (RedisServer redis = RedisServers.start()) {
			String version = redis.command("INFO", "server")
				.lines()
				.filter((line) -> line.startsWith("redis_version:"))
				.findFirst()
				.orElse("redis_version:?")
				.trim();
			System.out.printf("Redis %s at %s:%d; %s per run after %s warm-up; %d round(s) of forward + reverse%n",
					version.substring(version.indexOf(':') + 1), redis.host(), redis.port(), run, warmup, rounds);
			// One unmeasured pass first: the libraries share this JVM, so whichever ran
			// first would otherwise pay for warming up the JIT, Netty and Lettuce for all
			// of them.
			for (Scenario scenario : scenarios) {
				if (!(scenario instanceof TwoJvmScenario)) {
					for (Library library : selected(scenario, libraries)) {
						redis.command("FLUSHALL");
						scenario.run(library, redis, Duration.ZERO, warmup, work);
					}
				}
			}
			for (int round = 1; round <= rounds; round++) {
				for (Scenario scenario : scenarios) {
					List<Library> order = new ArrayList<>(selected(scenario, libraries));
					List<Library> reverse = new ArrayList<>(order);
					Collections.reverse(reverse);
					order.addAll(reverse);
					for (Library library : order) {
						redis.command("FLUSHALL");
						RunResult result = scenario.run(library, redis, warmup, run, work);
						results.computeIfAbsent(scenario, (s) -> new LinkedHashMap<>())
							.computeIfAbsent(library, (l) -> new ArrayList<>())
							.add(result);
						System.out.printf("  %-34s %-28s %12.0f %s  p50 %9.1f us  p99 %9.1f us  %5.2f cmds/op%s%n",
								scenario.title(), library.title(), result.perSecond(), scenario.unit(),
								result.p50Micros(), result.p99Micros(), result.commandsPerOperation(),
								result.counterOk() ? "" : "  COUNTER MISMATCH");
					}
				}
			}
			Report report = new Report(results, version, run, warmup, rounds);
			Files.writeString(out.resolve("RESULTS.md"), report.markdown());
			report.writeChart(out.resolve("chart.png"));
			System.out.println();
			System.out.println(report.markdown());
			System.out.println("Wrote " + out.resolve("RESULTS.md") + " and " + out.resolve("chart.png"));
		}
		catch (UncheckedIOException ex) {
			throw ex.getCause();
		}
		finally {
			FileSystemUtils.deleteRecursively(work);
		}
		System.exit(0);
	}

	// the scenario's libraries that --libraries names (all when it names none); the
	// others
	// are not run at all, not even in the unmeasured pass, which would only lengthen the
	// run
	private static List<Library> selected(Scenario scenario, List<String> libraries) {
		return scenario.libraries()
			.stream()
			.filter((library) -> libraries.isEmpty() || libraries.contains(library.name()))
			.toList();
	}

	static Map<String, String> options(String[] args) {
		Map<String, String> options = new LinkedHashMap<>();
		for (String arg : args) {
			if (!arg.startsWith("--") || !arg.contains("=")) {
				throw new IllegalArgumentException(
						"Arguments look like --run=3s, --warmup=1s, --rounds=1, " + "--out=results; got '" + arg + "'");
			}
			options.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
		}
		return options;
	}

}
