package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.testsupport.RedisServers;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Holders of a semaphore's permits in their own JVM, for a test that loads it from two
 * JVMs. Arguments: host, port, semaphore name, permits, threads, watchdog timeout in ms,
 * and optionally how many threads keep their first permit (1 unless given) and the port
 * the lock client connects to (a {@code FaultProxy}'s; the counters always go to
 * {@code port}, so that a cut connection cannot skew them). Each thread takes permits in
 * a loop (blocking and asynchronous by turns), and while holding one adds itself to the
 * shared count {@code <name>:inside} (INCR, then DECR before releasing); a count above
 * the limit adds one to {@code <name>:violations}; every run adds one to
 * {@code <name>:worker-runs}, every call that Redis did not answer (a cut) one to
 * {@code <name>:worker-failures}, every permit lost while held (its lease ran out) one to
 * {@code <name>:worker-lost-leases}. A keeping thread keeps its first permit (counted
 * inside) until the process is killed.
 */
public final class SemaphoreLoadWorker {

	private SemaphoreLoadWorker() {
	}

	public static void main(String[] args) throws Exception {
		String host = args[0];
		int port = Integer.parseInt(args[1]);
		LettuceConnectionFactory factory = RedisServers.connectionFactory(new RedisStandaloneConfiguration(host, port),
				Duration.ofSeconds(5));
		StringRedisTemplate redis = new StringRedisTemplate(factory);
		String name = args[2];
		int permits = Integer.parseInt(args[3]);
		int keepers = (args.length > 6) ? Integer.parseInt(args[6]) : 1;
		int lockPort = (args.length > 7) ? Integer.parseInt(args[7]) : port;
		redis.hasKey(name);
		StringRedisTemplate lockRedis = (lockPort != port)
				? new StringRedisTemplate(RedisServers
					.connectionFactory(new RedisStandaloneConfiguration(host, lockPort), TestTimeouts.COMMAND_TIMEOUT))
				: redis;
		RedisLockClient client = RedisLockClient.builder(lockRedis)
			.commandTimeout(TestTimeouts.COMMAND_TIMEOUT)
			.watchdogTimeout(Duration.ofMillis(Long.parseLong(args[5])))
			.build();
		RedisSemaphore semaphore = client.getSemaphore(name, permits);
		for (int t = 0; t < Integer.parseInt(args[4]); t++) {
			boolean async = t % 2 == 1;
			boolean keeps = t < keepers;
			Thread holder = new Thread(() -> {
				while (true) {
					try {
						LockHandle permit = async ? semaphore.acquireAsync(Duration.ofSeconds(30), null).join()
								: semaphore.acquire(Duration.ofSeconds(30), null);
						Long inside = redis.opsForValue().increment(name + ":inside");
						if (inside != null && inside > permits) {
							redis.opsForValue().increment(name + ":violations");
						}
						if (keeps) {
							// this one keeps its permit until the process is killed
							LockSupport.park();
						}
						LockSupport.parkNanos(2_000_000);
						redis.opsForValue().decrement(name + ":inside");
						permit.release();
						redis.opsForValue().increment(name + ":worker-runs");
					}
					catch (RedisLockException | LockNotAcquiredException | CompletionException ex) {
						// Redis did not answer (a cut), or no permit came: nobody is
						// inside;
						// try again
						redis.opsForValue().increment(name + ":worker-failures");
					}
					catch (LeaseExpiredException ex) {
						// the permit was lost while held: others may have been inside
						// with it
						redis.opsForValue().increment(name + ":worker-lost-leases");
					}
				}
			});
			holder.start();
		}
		Thread.sleep(Long.MAX_VALUE);
	}

}
