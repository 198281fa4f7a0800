package io.github.redislock.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisLockClient;
import io.github.redislock.RedisSemaphore;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedisServers;
import org.redisson.Redisson;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.format.datetime.standard.DurationFormatterUtils;

/**
 * The semaphore scenario: threads of one JVM share a semaphore of 4 permits; each holder
 * runs one round trip to Redis (a GET) as its work. Compares this library's
 * {@link RedisSemaphore} (watchdog lease) with Redisson's
 * {@code RPermitExpirableSemaphore} (a 30 s lease per permit, as the watchdog's) and
 * {@code RSemaphore} (no lease), each with its defaults, against one Redis this run
 * starts, in forward then reverse order. Prints acquisitions per second, the wait for a
 * permit, Redis commands and CPU per acquisition, and the most holders seen at once (a
 * non-atomic count, never above 4).
 * <p>
 * With {@code --jvms=2} the threads are split between two worker JVMs
 * ({@link SemaphoreWorker}), as two instances of a service would share a limit; the
 * workers warm up for at least {@link TwoJvmScenario#MINIMUM_WARMUP}, and "most holders
 * at once" is then the most seen within one JVM (the tests check the limit across JVMs).
 * <p>
 * Arguments: {@code --run=3s --warmup=2s --rounds=1 --threads=16 --jvms=1}. Not part of
 * {@link BenchmarkMain}: its report's baselines are the locks'.
 */
public final class SemaphoreBenchmark {

	static final int PERMITS = 4;

	static final String NAME = "bench:sem";

	private SemaphoreBenchmark() {
	}

	public static void main(String[] args) {
		Map<String, String> options = new LinkedHashMap<>();
		for (String arg : args) {
			options.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
		}
		Duration run = DurationFormatterUtils.detectAndParse(options.getOrDefault("run", "3s"));
		Duration warmup = DurationFormatterUtils.detectAndParse(options.getOrDefault("warmup", "2s"));
		int rounds = Integer.parseInt(options.getOrDefault("rounds", "1"));
		int threads = Integer.parseInt(options.getOrDefault("threads", "16"));
		int jvms = Integer.parseInt(options.getOrDefault("jvms", "1"));
		if (jvms != 1 && jvms != 2) {
			throw new IllegalArgumentException("--jvms must be 1 or 2, was " + jvms);
		}
		Map<Contestant, List<RunResult>> results = new LinkedHashMap<>();
		Map<Contestant, Integer> most = new LinkedHashMap<>();
		try (RedisServer redis = RedisServers.start()) {
			List<Contestant> order = new ArrayList<>(List.of(Contestant.values()));
			for (Contestant contestant : (jvms == 1) ? order : List.<Contestant>of()) {
				// unmeasured, so that whichever runs first does not pay for the JIT (the
				// worker JVMs warm up on their own)
				redis.command("FLUSHALL");
				run(contestant, redis, threads, Duration.ZERO, warmup, new AtomicInteger());
			}
			for (int round = 0; round < rounds; round++) {
				List<Contestant> both = new ArrayList<>(order);
				List<Contestant> reverse = new ArrayList<>(order);
				Collections.reverse(reverse);
				both.addAll(reverse);
				for (Contestant contestant : both) {
					redis.command("FLUSHALL");
					AtomicInteger seen = new AtomicInteger();
					RunResult result = (jvms == 1) ? run(contestant, redis, threads, warmup, run, seen)
							: SemaphoreWorker.runInTwoJvms(contestant, redis, threads, warmup, run, seen);
					results.computeIfAbsent(contestant, (c) -> new ArrayList<>()).add(result);
					most.merge(contestant, seen.get(), Math::max);
					System.out.printf(Locale.ROOT, "  %-38s %9.0f acquisitions/s  %5.2f cmds/op%n", contestant.title,
							result.perSecond(), result.commandsPerOperation());
				}
			}
		}
		double expirable = median(results.get(Contestant.REDISSON_EXPIRABLE), RunResult::perSecond);
		StringBuilder md = new StringBuilder();
		md.append((jvms == 1)
				? String.format(Locale.ROOT, "## semaphore, %d permits, 1 JVM x %d threads%n%n", PERMITS, threads)
				: String.format(Locale.ROOT, "## semaphore, %d permits, 2 JVMs x %d threads%n%n", PERMITS,
						threads / 2));
		md.append("| Library | acquisitions/s | vs Redisson RPermitExpirableSemaphore | p50 µs | p99 µs "
				+ "| Redis cmds/op | CPU µs/op (Redis) | most holders at once" + ((jvms == 1) ? "" : " in one JVM")
				+ " |\n");
		md.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
		results.forEach((contestant, runs) -> {
			double rate = median(runs, RunResult::perSecond);
			md.append(String.format(Locale.ROOT, "| %s | %,.0f | %.2f | %,.1f | %,.1f | %.2f | %,.0f (%,.0f) | %d |%n",
					contestant.title, rate, rate / expirable, median(runs, RunResult::p50Micros),
					median(runs, RunResult::p99Micros), median(runs, RunResult::commandsPerOperation),
					median(runs, RunResult::cpuMicrosPerOperation), median(runs, RunResult::redisCpuMicrosPerOperation),
					most.get(contestant)));
		});
		md.append("\nLatency: wait for a permit, from asking to holding. Work while holding: one GET.\n");
		System.out.println();
		System.out.println(md);
		System.exit(0);
	}

	private static RunResult run(Contestant contestant, RedisServer redis, int threads, Duration warmup, Duration run,
			AtomicInteger most) {
		try (Semaphores semaphores = contestant.connect(redis);
				CriticalSection section = new CriticalSection(redis.host(), redis.port())) {
			AtomicInteger inside = new AtomicInteger();
			long measureFrom = System.currentTimeMillis() + warmup.toMillis();
			long end = measureFrom + run.toMillis();
			CommandStats.Window statsReset = CommandStats.resetAt(redis, measureFrom);
			TimedLoop.Result result = TimedLoop.run(threads, measureFrom, end,
					(thread) -> step(semaphores, section, inside, most));
			statsReset.join();
			return new RunResult(result.measured(), result.seconds(), result.latency(), most.get() <= PERMITS,
					CommandStats.read(redis), statsReset.cpu(redis));
		}
	}

	/**
	 * One acquisition: wait for a permit (the latency recorded), hold it for one GET,
	 * give it back; counts the holders inside, not atomically with the permit.
	 */
	static TimedLoop.Step step(Semaphores semaphores, CriticalSection section, AtomicInteger inside,
			AtomicInteger most) {
		return (measuring) -> {
			long start = System.nanoTime();
			Runnable release = semaphores.acquire();
			long waited = System.nanoTime() - start;
			most.accumulateAndGet(inside.incrementAndGet(), Math::max);
			section.read(NAME);
			inside.decrementAndGet();
			release.run();
			return waited;
		};
	}

	private static double median(List<RunResult> runs, java.util.function.ToDoubleFunction<RunResult> value) {
		double[] values = runs.stream().mapToDouble(value).sorted().toArray();
		return values[values.length / 2];
	}

	/** One contestant's semaphore; {@link #acquire()} answers how to release. */
	interface Semaphores extends AutoCloseable {

		Runnable acquire();

		@Override
		void close();

	}

	enum Contestant {

		REDIS_LOCK("redis-lock RedisSemaphore") {
			@Override
			Semaphores connect(String host, int port) {
				LettuceConnectionFactory factory = new LettuceConnectionFactory(
						new RedisStandaloneConfiguration(host, port));
				factory.afterPropertiesSet();
				factory.start();
				// no run measures a timeout; on a loaded machine a cold worker JVM's
				// first
				// pub/sub connection may take longer than the default 2 s
				RedisLockClient client = RedisLockClient.builder(factory)
					.commandTimeout(Duration.ofSeconds(10))
					.build();
				RedisSemaphore semaphore = client.getSemaphore(NAME, PERMITS);
				return new Semaphores() {
					@Override
					public Runnable acquire() {
						LockHandle permit = semaphore.acquire(Duration.ofMinutes(1), null);
						return permit::release;
					}

					@Override
					public void close() {
						client.close();
						factory.destroy();
					}
				};
			}
		},

		REDISSON_EXPIRABLE("Redisson RPermitExpirableSemaphore") {
			@Override
			Semaphores connect(String host, int port) {
				RedissonClient redisson = redisson(host, port);
				RPermitExpirableSemaphore semaphore = redisson.getPermitExpirableSemaphore(NAME);
				semaphore.trySetPermits(PERMITS);
				return new Semaphores() {
					@Override
					public Runnable acquire() {
						try {
							String permit = semaphore.acquire(30, TimeUnit.SECONDS);
							return () -> semaphore.release(permit);
						}
						catch (InterruptedException ex) {
							Thread.currentThread().interrupt();
							throw new IllegalStateException(ex);
						}
					}

					@Override
					public void close() {
						redisson.shutdown();
					}
				};
			}
		},

		REDISSON_PLAIN("Redisson RSemaphore (no lease)") {
			@Override
			Semaphores connect(String host, int port) {
				RedissonClient redisson = redisson(host, port);
				RSemaphore semaphore = redisson.getSemaphore(NAME);
				semaphore.trySetPermits(PERMITS);
				return new Semaphores() {
					@Override
					public Runnable acquire() {
						try {
							semaphore.acquire();
							return semaphore::release;
						}
						catch (InterruptedException ex) {
							Thread.currentThread().interrupt();
							throw new IllegalStateException(ex);
						}
					}

					@Override
					public void close() {
						redisson.shutdown();
					}
				};
			}
		};

		final String title;

		Contestant(String title) {
			this.title = title;
		}

		Semaphores connect(RedisServer redis) {
			return connect(redis.host(), redis.port());
		}

		abstract Semaphores connect(String host, int port);

		private static RedissonClient redisson(String host, int port) {
			Config config = new Config();
			config.useSingleServer().setAddress("redis://" + host + ":" + port);
			return Redisson.create(config);
		}

	}

}
