package io.github.redislock.benchmark;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.DataFormatException;

import io.github.redislock.testsupport.RedisServer;
import org.HdrHistogram.Histogram;

/**
 * Two JVMs with several threads each take turns on one lock name, as two instances of a
 * service would.
 */
final class TwoJvmScenario implements ContentionScenario {

	/**
	 * The worker JVMs are new for every run, so their JIT has not seen any of the code
	 * yet; the in-process scenarios get a warm-up pass of their own. Without this, the
	 * run measures mostly compilation. Two worker JVMs and Redis share the machine's
	 * cores, so compilation takes long: with 5 s, the C1/C2 compiler threads still took
	 * about 40 % of a worker's CPU in the window (read per thread from /proc).
	 */
	static final Duration MINIMUM_WARMUP = Duration.ofSeconds(10);

	private final int threadsPerJvm;

	private final int names;

	/**
	 * @param names how many lock names the threads share (thread {@code i} takes name
	 * {@code i % names}); with more than one the hand-off gap is not measured
	 */
	TwoJvmScenario(int threadsPerJvm, int names) {
		this.threadsPerJvm = threadsPerJvm;
		this.names = names;
	}

	@Override
	public String title() {
		return "contended, 2 JVMs x " + this.threadsPerJvm + " threads"
				+ ((this.names > 1) ? " x " + this.names + " names" : "");
	}

	@Override
	public String latencyMeaning() {
		return (this.names > 1) ? "not measured (several names)" : ContentionScenario.super.latencyMeaning();
	}

	static List<String> lockNames(Library library, int names) {
		String name = ContentionStep.LOCK_NAME + ":jvms:" + library.name();
		if (names == 1) {
			return List.of(name);
		}
		List<String> all = new ArrayList<>();
		for (int i = 0; i < names; i++) {
			all.add(name + ":" + i);
		}
		return all;
	}

	@Override
	public RunResult run(Library library, RedisServer redis, Duration warmup, Duration run, Path workDirectory) {
		Path counterFile = workDirectory.resolve("counter-jvms-" + library.name());
		List<String> lockNames = lockNames(library, this.names);
		try (SharedCounter shared = new SharedCounter(counterFile);
				CriticalSection section = new CriticalSection(redis.host(), redis.port())) {
			shared.reset();
			section.reset(lockNames);
			List<Process> workers = new ArrayList<>();
			List<BufferedReader> outputs = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				Process worker = startWorker(library, redis, counterFile);
				workers.add(worker);
				outputs.add(new BufferedReader(new InputStreamReader(worker.getInputStream(), StandardCharsets.UTF_8)));
			}
			List<String> earlyOutput = new ArrayList<>();
			for (BufferedReader output : outputs) {
				awaitReady(output, earlyOutput);
			}
			long measureFrom = System.currentTimeMillis() + Math.max(warmup.toMillis(), MINIMUM_WARMUP.toMillis());
			long end = measureFrom + run.toMillis();
			shared.window(measureFrom, end);
			CycleScenario.sleepUntil(measureFrom);
			CommandStats.reset(redis);
			CpuUse atStart = CpuUse.read(redis);
			CycleScenario.sleepUntil(end);
			CpuUse atEnd = CpuUse.read(redis);
			double workersCpuSeconds = 0;
			long measured = 0;
			long total = 0;
			long fewest = Long.MAX_VALUE;
			Histogram latency = TimedLoop.newHistogram();
			for (int i = 0; i < workers.size(); i++) {
				String[] result = awaitResult(workers.get(i), outputs.get(i));
				long measuredHere = Long.parseLong(result[1]);
				measured += measuredHere;
				fewest = Math.min(fewest, measuredHere);
				total += Long.parseLong(result[2]);
				latency.add(decode(result[3]));
				workersCpuSeconds += Double.parseDouble(result[4]);
			}
			// the workers did the work; this JVM only waited
			CpuUse cpu = new CpuUse(workersCpuSeconds, atEnd.since(atStart).redisSeconds());
			Map<String, Long> commands = CommandStats.read(redis);
			return new RunResult(measured, run.toMillis() / 1000.0, latency, section.total(lockNames) == total,
					commands, (measured > 0) ? (double) fewest / measured : Double.NaN, cpu);
		}
	}

	private Process startWorker(Library library, RedisServer redis, Path counterFile) {
		String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		try {
			return new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
					ContentionWorker.class.getName(), library.name(), redis.host(), Integer.toString(redis.port()),
					Integer.toString(this.threadsPerJvm), counterFile.toString(), Integer.toString(this.names))
				.redirectErrorStream(true)
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void awaitReady(BufferedReader output, List<String> lines) {
		try {
			for (String line = output.readLine(); line != null; line = output.readLine()) {
				if (line.equals("READY")) {
					return;
				}
				lines.add(line);
			}
			throw new IllegalStateException("Worker JVM ended before it was ready:\n" + String.join("\n", lines));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String[] awaitResult(Process worker, BufferedReader reader) {
		try {
			StringBuilder all = new StringBuilder();
			for (String line = reader.readLine(); line != null; line = reader.readLine()) {
				all.append(line).append('\n');
			}
			String output = all.toString();
			if (!worker.waitFor(60, TimeUnit.SECONDS) || worker.exitValue() != 0) {
				throw new IllegalStateException("Worker JVM failed:\n" + output);
			}
			return output.lines()
				.filter((line) -> line.startsWith("RESULT "))
				.findFirst()
				.orElseThrow(() -> new IllegalStateException("Worker JVM printed no result:\n" + output))
				.split(" ");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static Histogram decode(String base64) {
		try {
			return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(base64)), 0);
		}
		catch (DataFormatException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
