package io.github.redislock;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.testsupport.RedisServers;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One client JVM of {@link TortureTests}: threads lock random names with random waits and
 * leases until the end time; inside each hold they bump a non-atomic counter shared by
 * all JVMs through a memory-mapped file and note when they entered and left. At the end
 * the JVM prints one {@code HOLD} line per hold and a summary.
 */
public final class TortureWorker {

	private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

	private TortureWorker() {
	}

	public static void main(String[] args) throws Exception {
		String host = args[0];
		int port = Integer.parseInt(args[1]);
		int names = Integer.parseInt(args[2]);
		int threads = Integer.parseInt(args[3]);
		long endMillis = Long.parseLong(args[4]);
		Path counters = Path.of(args[5]);
		long seed = Long.parseLong(args[6]);
		LettuceConnectionFactory factory = RedisServers.connectionFactory(new RedisStandaloneConfiguration(host, port),
				Duration.ofSeconds(2));
		ConcurrentLinkedQueue<String> holds = new ConcurrentLinkedQueue<>();
		AtomicLong failures = new AtomicLong();
		try (FileChannel channel = FileChannel.open(counters, StandardOpenOption.READ, StandardOpenOption.WRITE);
				RedisLockClient client = RedisLockClient.builder(factory)
					.watchdogTimeout(Duration.ofSeconds(2))
					.build()) {
			MappedByteBuffer shared = channel.map(FileChannel.MapMode.READ_WRITE, 0, 8L * names);
			ExecutorService pool = Executors.newFixedThreadPool(threads);
			List<Future<?>> work = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				Random random = new Random(seed * 31 + t);
				work.add(pool.submit(() -> {
					while (System.currentTimeMillis() < endMillis) {
						int index = random.nextInt(names);
						RedisLock lock = client.getLock("torture-" + index);
						Duration wait = Duration.ofMillis(random.nextInt(2000));
						Duration lease = random.nextBoolean() ? null : Duration.ofMillis(3000 + random.nextInt(3000));
						try {
							if (!lock.tryLock(wait, lease)) {
								continue;
							}
						}
						catch (RedisLockException ex) {
							failures.incrementAndGet();
							LockSupport.parkNanos(20_000_000);
							continue;
						}
						long enter = System.nanoTime();
						long token = lock.fencingToken();
						long value = (long) LONGS.getVolatile(shared, index * 8);
						LockSupport.parkNanos(random.nextInt(500_000));
						LONGS.setVolatile(shared, index * 8, value + 1);
						long exit = System.nanoTime();
						holds.add("HOLD " + index + " " + token + " " + enter + " " + exit);
						try {
							lock.unlock();
						}
						catch (RedisLockException | IllegalMonitorStateException ex) {
							failures.incrementAndGet();
						}
					}
					return null;
				}));
			}
			for (Future<?> done : work) {
				done.get();
			}
			pool.shutdown();
		}
		finally {
			factory.destroy();
		}
		StringBuilder out = new StringBuilder();
		for (String hold : holds) {
			out.append(hold).append('\n');
		}
		out.append("FAILURES ").append(failures.get()).append('\n');
		System.out.print(out);
		System.out.flush();
		System.exit(0);
	}

}
