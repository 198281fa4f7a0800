package io.github.redislock;

import java.io.File;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.FaultProxy;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Several client JVMs with several threads lock random names from a small set, with
 * random waits and leases, while faults are injected on a schedule: connections cut,
 * Redis frozen (SIGSTOP), latency. Afterwards: no two holds of one name overlapped, the
 * non-atomic counters equal the acquisitions, and the fencing tokens of each name
 * increase strictly in the order the holds happened.
 *
 * <p>
 * Runs 20 s by default; {@code -Dredislock.torture.duration=10m} for a long run.
 */
class TortureTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final Duration DURATION = Duration
		.parse("PT" + System.getProperty("redislock.torture.duration", "20s").toUpperCase());

	private static final int JVMS = 2;

	private static final int THREADS = 4;

	private static final int NAMES = 4;

	@Test
	void noOverlapNoLostUpdateAndIncreasingTokensUnderFaults() throws Exception {
		Path counters = Files.createTempFile("torture-counters", ".bin");
		Files.write(counters, new byte[8 * NAMES]);
		try (FaultProxy proxy = FaultProxy.start(redis.server().host(), redis.server().port())) {
			long start = System.currentTimeMillis();
			long end = start + Duration.ofSeconds(3).plus(DURATION).toMillis();
			List<Process> workers = new ArrayList<>();
			List<CompletableFuture<String>> outputs = new ArrayList<>();
			for (int i = 0; i < JVMS; i++) {
				Process worker = new ProcessBuilder(
						System.getProperty("java.home") + File.separator + "bin" + File.separator + "java", "-Xmx256m",
						"-cp", System.getProperty("java.class.path"), TortureWorker.class.getName(), proxy.host(),
						Integer.toString(proxy.port()), Integer.toString(NAMES), Integer.toString(THREADS),
						Long.toString(end), counters.toString(), Long.toString(start + i))
					.redirectErrorStream(true)
					.start();
				workers.add(worker);
				outputs.add(CompletableFuture.supplyAsync(() -> {
					try {
						return new String(worker.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
					}
					catch (java.io.IOException ex) {
						throw new java.io.UncheckedIOException(ex);
					}
				}));
			}
			int faults = injectFaultsUntil(end, proxy);
			List<Hold> holds = new ArrayList<>();
			long failures = 0;
			for (int i = 0; i < JVMS; i++) {
				assertThat(workers.get(i).waitFor(60, TimeUnit.SECONDS)).isTrue();
				String output = outputs.get(i).get(10, TimeUnit.SECONDS);
				assertThat(workers.get(i).exitValue()).as(output).isZero();
				for (String line : output.lines().toList()) {
					if (line.startsWith("HOLD ")) {
						String[] parts = line.split(" ");
						holds.add(new Hold(Integer.parseInt(parts[1]), Long.parseLong(parts[2]),
								Long.parseLong(parts[3]), Long.parseLong(parts[4])));
					}
					else if (line.startsWith("FAILURES ")) {
						failures += Long.parseLong(line.substring(9));
					}
				}
			}
			int violations = 0;
			long[] counted = readCounters(counters);
			for (int name = 0; name < NAMES; name++) {
				int index = name;
				List<Hold> ofName = holds.stream()
					.filter((hold) -> hold.name() == index)
					.sorted(Comparator.comparingLong(Hold::enter))
					.toList();
				for (int i = 1; i < ofName.size(); i++) {
					Hold previous = ofName.get(i - 1);
					Hold next = ofName.get(i);
					if (next.enter() < previous.exit() || next.token() <= previous.token()) {
						if (violations < 5) {
							System.out.println("VIOLATION " + previous + " then " + next);
						}
						violations++;
					}
				}
				assertThat(counted[name]).as("counter of torture-%d", name).isEqualTo(ofName.size());
			}
			System.out.printf(
					"TORTURE %s: %d JVMs x %d threads, %d names: %d acquisitions, %d faults injected, "
							+ "%d failed calls reported to callers, %d violations%n",
					DURATION, JVMS, THREADS, NAMES, holds.size(), faults, failures, violations);
			assertThat(violations).isZero();
			assertThat(holds).hasSizeGreaterThan(100);
			assertThat(faults).isPositive();
		}
		finally {
			Files.deleteIfExists(counters);
		}
	}

	/**
	 * Every 1.5 s one fault, in turn: a cut, a frozen Redis, then latency; each lasts a
	 * few hundred ms.
	 */
	private static int injectFaultsUntil(long end, FaultProxy proxy) throws InterruptedException {
		int faults = 0;
		Thread.sleep(3000);
		while (System.currentTimeMillis() + 1500 < end) {
			switch (faults % 3) {
				case 0 -> {
					proxy.cut();
					Thread.sleep(200);
					proxy.heal();
				}
				case 1 -> {
					redis.server().pause();
					Thread.sleep(400);
					redis.server().resume();
				}
				default -> {
					proxy.latency(Duration.ofMillis(20));
					Thread.sleep(500);
					proxy.heal();
				}
			}
			faults++;
			Thread.sleep(1000);
		}
		return faults;
	}

	private static long[] readCounters(Path file) throws java.io.IOException {
		try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
			MappedByteBuffer buffer = channel.map(FileChannel.MapMode.READ_ONLY, 0, 8L * NAMES);
			buffer.order(ByteOrder.nativeOrder());
			long[] values = new long[NAMES];
			for (int i = 0; i < NAMES; i++) {
				values[i] = buffer.getLong(i * 8);
			}
			return values;
		}
	}

	record Hold(int name, long token, long enter, long exit) {
	}

}
