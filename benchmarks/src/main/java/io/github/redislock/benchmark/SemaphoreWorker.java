package io.github.redislock.benchmark;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.DataFormatException;

import io.github.redislock.testsupport.RedisServer;
import org.HdrHistogram.Histogram;

/**
 * A worker JVM of {@link SemaphoreBenchmark}'s two-JVM mode: connects its contestant,
 * says {@code READY}, reads the measuring window (two epoch milliseconds) from its
 * standard input, takes permits on its threads until the window ends, and prints what it
 * measured on one {@code RESULT} line.
 */
public final class SemaphoreWorker {

	private SemaphoreWorker() {
	}

	public static void main(String[] args) throws IOException {
		SemaphoreBenchmark.Contestant contestant = SemaphoreBenchmark.Contestant.valueOf(args[0]);
		String host = args[1];
		int port = Integer.parseInt(args[2]);
		int threads = Integer.parseInt(args[3]);
		try (SemaphoreBenchmark.Semaphores semaphores = contestant.connect(host, port);
				CriticalSection section = new CriticalSection(host, port)) {
			System.out.println("READY");
			System.out.flush();
			String[] window = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine()
				.split(" ");
			long measureFrom = Long.parseLong(window[0]);
			long end = Long.parseLong(window[1]);
			// this JVM's CPU time in the window, read by a thread of its own at both ends
			double[] cpuSeconds = new double[2];
			Thread cpuReader = new Thread(() -> {
				CycleScenario.sleepUntil(measureFrom);
				cpuSeconds[0] = CpuUse.processCpuSeconds();
				CycleScenario.sleepUntil(end);
				cpuSeconds[1] = CpuUse.processCpuSeconds();
			});
			cpuReader.start();
			AtomicInteger inside = new AtomicInteger();
			AtomicInteger most = new AtomicInteger();
			TimedLoop.Result result = TimedLoop.run(threads, measureFrom, end,
					(thread) -> SemaphoreBenchmark.step(semaphores, section, inside, most));
			ByteBuffer histogram = ByteBuffer.allocate(result.latency().getNeededByteBufferCapacity());
			int length = result.latency().encodeIntoCompressedByteBuffer(histogram);
			byte[] encoded = new byte[length];
			histogram.flip();
			histogram.get(encoded);
			CycleScenario.join(cpuReader);
			System.out.println("RESULT " + result.measured() + " " + Base64.getEncoder().encodeToString(encoded) + " "
					+ (cpuSeconds[1] - cpuSeconds[0]) + " " + most.get());
		}
		System.exit(0);
	}

	/**
	 * Runs the contestant on two worker JVMs of {@code threads / 2} threads each, against
	 * the given Redis; records the most holders either JVM saw at once in {@code most}.
	 */
	static RunResult runInTwoJvms(SemaphoreBenchmark.Contestant contestant, RedisServer redis, int threads,
			Duration warmup, Duration run, AtomicInteger most) {
		List<Process> workers = new ArrayList<>();
		try {
			List<BufferedReader> outputs = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				Process worker = start(contestant, redis, threads / 2);
				workers.add(worker);
				outputs.add(new BufferedReader(new InputStreamReader(worker.getInputStream(), StandardCharsets.UTF_8)));
			}
			for (BufferedReader output : outputs) {
				awaitLine(output, "READY");
			}
			long measureFrom = System.currentTimeMillis()
					+ Math.max(warmup.toMillis(), TwoJvmScenario.MINIMUM_WARMUP.toMillis());
			long end = measureFrom + run.toMillis();
			for (Process worker : workers) {
				Writer input = new OutputStreamWriter(worker.getOutputStream(), StandardCharsets.UTF_8);
				input.write(measureFrom + " " + end + "\n");
				input.flush();
			}
			CycleScenario.sleepUntil(measureFrom);
			CommandStats.reset(redis);
			CpuUse atStart = CpuUse.read(redis);
			CycleScenario.sleepUntil(end);
			CpuUse atEnd = CpuUse.read(redis);
			long measured = 0;
			long fewest = Long.MAX_VALUE;
			double workersCpuSeconds = 0;
			Histogram latency = TimedLoop.newHistogram();
			for (int i = 0; i < workers.size(); i++) {
				String[] result = awaitLine(outputs.get(i), "RESULT ").split(" ");
				long here = Long.parseLong(result[1]);
				measured += here;
				fewest = Math.min(fewest, here);
				latency.add(decode(result[2]));
				workersCpuSeconds += Double.parseDouble(result[3]);
				most.accumulateAndGet(Integer.parseInt(result[4]), Math::max);
				if (!workers.get(i).waitFor(60, TimeUnit.SECONDS)) {
					throw new IllegalStateException("A worker JVM did not end");
				}
			}
			Map<String, Long> commands = CommandStats.read(redis);
			return new RunResult(measured, run.toMillis() / 1000.0, latency, most.get() <= SemaphoreBenchmark.PERMITS,
					commands, (measured > 0) ? (double) fewest / measured : Double.NaN,
					new CpuUse(workersCpuSeconds, atEnd.since(atStart).redisSeconds()));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		finally {
			workers.forEach(Process::destroyForcibly);
		}
	}

	private static Process start(SemaphoreBenchmark.Contestant contestant, RedisServer redis, int threads)
			throws IOException {
		String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		return new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
				SemaphoreWorker.class.getName(), contestant.name(), redis.host(), Integer.toString(redis.port()),
				Integer.toString(threads))
			.redirectErrorStream(true)
			.start();
	}

	// the first line starting with the prefix; what came before is kept for the error
	private static String awaitLine(BufferedReader output, String prefix) throws IOException {
		StringBuilder before = new StringBuilder();
		for (String line = output.readLine(); line != null; line = output.readLine()) {
			if (line.startsWith(prefix)) {
				return line;
			}
			before.append(line).append('\n');
		}
		throw new IllegalStateException("Worker JVM ended without '" + prefix.trim() + "':\n" + before);
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
