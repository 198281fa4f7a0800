package io.github.redislock.torture;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.LockHandle;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.RedisLockException;
import io.github.redislock.fencing.RedisFencedValues;
import io.github.redislock.fencing.StaleFencingTokenException;
import io.github.redislock.testsupport.RedisServers;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One client JVM of {@link TortureTests}: once its client is built it prints
 * {@code READY} and waits for {@code GO <end time>} on stdin; then threads lock random
 * names with random waits and leases until the end time. Inside each hold a thread reads
 * the name's counter, a {@link RedisFencedValues} key in a Redis of its own that no fault
 * touches, pauses briefly, and writes it back plus one with its token (the store refuses
 * the write if it accepted one with a higher token); it stays inside longer only when the
 * test asks to freeze this JVM. Every call is written to a file of the thread's own, one
 * line each: {@code thread name start end wait lease outcome} and, when acquired,
 * {@code epochBefore epochAt token enter exit read write unlockStart unlockEnd unlockOutcome writeStart}
 * (times from {@link System#nanoTime()}, which all JVMs of one Linux machine share). A
 * call that fails also prints {@code FAILURE} and its exception. When the names are
 * semaphores, {@link TorturePermits} makes the calls instead.
 *
 * <p>
 * At the end it closes the lock client, reports the lock threads still alive and
 * {@code CLOSED}, waits for {@code EXIT} on stdin (the test looks at Redis meanwhile),
 * closes its connections and reports the threads left.
 */
public final class TortureWorker {

	/** The connections' and the lock client's command timeout. */
	static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	/**
	 * The watchdog lease; like every lease here longer than the command timeout, so that
	 * an answer that comes in time comes with some lease left.
	 */
	static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(3);

	/**
	 * The command timeout of the counters' connection: longer than any freeze of this
	 * JVM, so that a thread frozen while it waits for the counter's reply is not timed
	 * out when the JVM resumes (the counters' Redis itself is never faulted).
	 */
	static final Duration COUNTER_TIMEOUT = Duration.ofSeconds(30);

	/** Explicit leases are drawn from 3 to 4 s. */
	static final Duration MAX_LEASE = Duration.ofSeconds(4);

	/** Waits are drawn from 0 to 2 s. */
	static final Duration MAX_WAIT = Duration.ofSeconds(2);

	private TortureWorker() {
	}

	public static void main(String[] args) throws Exception {
		String host = args[0];
		int port = Integer.parseInt(args[1]);
		int names = Integer.parseInt(args[2]);
		int threads = Integer.parseInt(args[3]);
		Path storeFile = Path.of(args[4]);
		long seed = Long.parseLong(args[5]);
		int worker = Integer.parseInt(args[6]);
		Path records = Path.of(args[7]);
		int permits = Integer.parseInt(args[8]);
		LettuceConnectionFactory counters = RedisServers.connectionFactory(
				new RedisStandaloneConfiguration(args[9], Integer.parseInt(args[10])), COUNTER_TIMEOUT,
				"torture-counters-" + worker);
		RedisFencedValues values = new RedisFencedValues(new StringRedisTemplate(counters));
		LettuceConnectionFactory factory = RedisServers.connectionFactory(new RedisStandaloneConfiguration(host, port),
				COMMAND_TIMEOUT, "torture-worker-" + worker);
		BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		try (TortureStore store = TortureStore.open(storeFile, names)) {
			RedisLockClient client = RedisLockClient.builder(factory)
				.watchdogTimeout(WATCHDOG_TIMEOUT)
				.commandTimeout(COMMAND_TIMEOUT)
				.build();
			TorturePermits semaphores = (permits > 1) ? new TorturePermits(client, store, worker, names, permits)
					: null;
			try {
				System.out.println("READY");
				String go = commands.readLine();
				long endMillis = Long.parseLong(go.substring("GO ".length()));
				run(threads, (thread) -> {
					Random random = new Random(seed * 31 + thread);
					try (Writer out = Files
						.newBufferedWriter(records.resolve("worker-" + worker + "-thread-" + thread + ".txt"))) {
						while (System.currentTimeMillis() < endMillis) {
							String call = (semaphores != null) ? semaphores.acquireOnce(random)
									: lockOnce(client, store, values, worker, names, random);
							out.write(thread + " " + call + "\n");
						}
					}
				});
			}
			finally {
				if (semaphores != null) {
					semaphores.close();
				}
				client.close();
			}
			System.out.println("LOCK_THREADS_LEFT " + threadsLeftAfter(TortureWorker::clientThread));
			System.out.println("CLOSED");
			for (String line = commands.readLine(); line != null && !line.equals("EXIT"); line = commands.readLine()) {
				// only EXIT is expected
			}
		}
		finally {
			factory.destroy();
			counters.destroy();
		}
		System.out.println("THREADS_LEFT " + threadsLeftAfter((thread) -> true));
		System.out.flush();
		System.exit(0);
	}

	private static void run(int threads, ThreadWork work) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> running = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int thread = t;
				running.add(pool.submit(() -> {
					work.run(thread);
					return null;
				}));
			}
			for (Future<?> done : running) {
				done.get();
			}
		}
		finally {
			pool.shutdown();
			pool.awaitTermination(1, TimeUnit.MINUTES);
		}
	}

	/** The key of the name's counter in the counters' Redis. */
	static String counterKey(int name) {
		return "torture-counter-" + name;
	}

	private static String lockOnce(RedisLockClient client, TortureStore store, RedisFencedValues values, int worker,
			int names, Random random) {
		int name = random.nextInt(names);
		RedisLock lock = client.getLock("torture-" + name);
		long wait = random.nextInt((int) MAX_WAIT.toMillis());
		long lease = leaseMillis(random);
		long epochBefore = store.epoch();
		long start = System.nanoTime();
		char outcome;
		try {
			outcome = lock.tryLock(Duration.ofMillis(wait), (lease > 0) ? Duration.ofMillis(lease) : null) ? 'A' : 'T';
		}
		catch (RedisLockException ex) {
			outcome = 'E';
			failed("tryLock", ex);
		}
		catch (InterruptedException | RuntimeException ex) {
			outcome = 'X';
			unexpected("tryLock", ex);
		}
		long end = System.nanoTime();
		String call = name + " " + start + " " + end + " " + wait + " " + lease + " " + outcome;
		if (outcome != 'A') {
			if (outcome != 'T') {
				LockSupport.parkNanos(20_000_000);
			}
			return call;
		}
		long epochAt = store.epoch();
		long enter = System.nanoTime();
		long token = lock.fencingToken();
		long read = counter(values, name);
		LockSupport.parkNanos(random.nextInt(500_000));
		store.holdIfPauseRequested(worker, lease);
		long writeStart = System.nanoTime();
		char write;
		try {
			values.set(counterKey(name), Long.toString(read + 1), token);
			write = TortureStore.WRITTEN;
		}
		catch (StaleFencingTokenException ex) {
			write = TortureStore.REJECTED;
		}
		catch (RuntimeException ex) {
			write = TortureStore.NOT_WRITTEN;
			unexpected("fenced write", ex);
		}
		long exit = System.nanoTime();
		char unlocked;
		try {
			lock.unlock();
			unlocked = 'O';
		}
		catch (LeaseExpiredException ex) {
			unlocked = 'L';
		}
		catch (RedisLockException ex) {
			unlocked = 'E';
			failed("unlock", ex);
		}
		catch (IllegalMonitorStateException ex) {
			unlocked = 'M';
			failed("unlock", ex);
		}
		catch (RuntimeException ex) {
			unlocked = 'X';
			unexpected("unlock", ex);
		}
		long unlockEnd = System.nanoTime();
		return call + " " + epochBefore + " " + epochAt + " " + token + " " + enter + " " + exit + " " + read + " "
				+ write + " " + exit + " " + unlockEnd + " " + unlocked + " " + writeStart;
	}

	/** The name's counter, 0 before its first write. */
	static long counter(RedisFencedValues values, int name) {
		String value = values.get(counterKey(name));
		return (value != null) ? Long.parseLong(value) : 0;
	}

	/** A watchdog lease (0) or a fixed one from 3 to 4 s, each half of the time. */
	static long leaseMillis(Random random) {
		return random.nextBoolean() ? 0 : WATCHDOG_TIMEOUT.toMillis()
				+ random.nextInt((int) (MAX_LEASE.toMillis() - WATCHDOG_TIMEOUT.toMillis()) + 1);
	}

	static void failed(String call, Throwable ex) {
		String message = String.valueOf(ex.getMessage()).lines().findFirst().orElse("");
		System.out.println("FAILURE " + call + " " + ex.getClass().getSimpleName() + ": " + message);
	}

	static void unexpected(String call, Throwable ex) {
		synchronized (System.out) {
			System.out.println("UNEXPECTED " + call + " threw " + ex);
			ex.printStackTrace(System.out);
		}
	}

	/**
	 * Whether the thread is a lock client's. Not the one thread, shared by every client
	 * of the JVM, that finds abandoned {@link LockHandle}s (a
	 * {@link java.lang.ref.Cleaner} daemon, started by the first handle, lives as long as
	 * the JVM): the semaphore mode makes handles, the lock mode none.
	 */
	private static boolean clientThread(Thread thread) {
		return thread.getName().startsWith("redis-lock") && !thread.getName().equals("redis-lock-abandoned-handles");
	}

	/**
	 * The threads of the application (not the JVM's own) matching the filter that are
	 * still alive after each was given up to 5 s in all to end.
	 */
	private static List<String> threadsLeftAfter(Predicate<Thread> filter) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		List<String> left = new ArrayList<>();
		for (Thread thread : Thread.getAllStackTraces().keySet()) {
			if (thread != Thread.currentThread() && thread.getThreadGroup() != null
					&& thread.getThreadGroup().getName().equals("main") && filter.test(thread)) {
				thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
				if (thread.isAlive()) {
					left.add(thread.getName());
				}
			}
		}
		left.sort(null);
		return left;
	}

	private interface ThreadWork {

		void run(int thread) throws Exception;

	}

}
