package io.github.redislock.benchmark;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * A separate JVM of {@link TwoJvmScenario}: contends for the lock on several threads
 * until the given end time and prints what it measured on one line.
 */
public final class ContentionWorker {

	private ContentionWorker() {
	}

	public static void main(String[] args) {
		Library library = Library.valueOf(args[0]);
		String host = args[1];
		int port = Integer.parseInt(args[2]);
		int threads = Integer.parseInt(args[3]);
		Path counterFile = Path.of(args[4]);
		int names = Integer.parseInt(args[5]);
		try (LockLibrary locks = library.connect(host, port);
				SharedCounter shared = new SharedCounter(counterFile);
				CriticalSection section = new CriticalSection(host, port)) {
			List<String> lockNames = TwoJvmScenario.lockNames(library, names);
			// connected: let the parent pick the window once every worker is
			System.out.println("READY");
			System.out.flush();
			while (shared.measureFrom() == 0) {
				Thread.onSpinWait();
				LockSupport.parkNanos(1_000_000);
			}
			long measureFrom = shared.measureFrom();
			long end = shared.end();
			// this JVM's CPU time in the window, read by a thread of its own at both ends
			double[] cpuSeconds = new double[2];
			Thread cpuReader = new Thread(() -> {
				CycleScenario.sleepUntil(measureFrom);
				cpuSeconds[0] = CpuUse.processCpuSeconds();
				CycleScenario.sleepUntil(end);
				cpuSeconds[1] = CpuUse.processCpuSeconds();
			});
			cpuReader.start();
			TimedLoop.Result result = TimedLoop.run(threads, measureFrom, end,
					(thread) -> new ContentionStep(locks, shared, section, lockNames.get(thread % names), names == 1));
			ByteBuffer histogram = ByteBuffer.allocate(result.latency().getNeededByteBufferCapacity());
			int length = result.latency().encodeIntoCompressedByteBuffer(histogram);
			byte[] encoded = new byte[length];
			histogram.flip();
			histogram.get(encoded);
			CycleScenario.join(cpuReader);
			System.out.println("RESULT " + result.measured() + " " + result.total() + " "
					+ Base64.getEncoder().encodeToString(encoded) + " " + (cpuSeconds[1] - cpuSeconds[0]));
		}
		System.exit(0);
	}

}
