package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.testsupport.RedisServers;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Holders of a semaphore's permits in their own JVM, for a test that loads it from two
 * JVMs and then kills this one. Arguments: host, port, semaphore name, permits, threads,
 * watchdog timeout in ms. Each thread takes permits in a loop (blocking and asynchronous
 * by turns), and while holding one adds itself to the shared count {@code <name>:inside}
 * (INCR, then DECR before releasing); a count above the limit adds one to
 * {@code <name>:violations}; every run adds one to {@code <name>:worker-runs}. The first
 * thread keeps its first permit (counted inside) until the process is killed.
 */
public final class SemaphoreLoadWorker {

	private SemaphoreLoadWorker() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory factory = RedisServers.connectionFactory(
				new RedisStandaloneConfiguration(args[0], Integer.parseInt(args[1])), Duration.ofSeconds(5));
		StringRedisTemplate redis = new StringRedisTemplate(factory);
		String name = args[2];
		int permits = Integer.parseInt(args[3]);
		redis.hasKey(name);
		RedisLockClient client = RedisLockClient.builder(redis)
			.commandTimeout(TestTimeouts.COMMAND_TIMEOUT)
			.watchdogTimeout(Duration.ofMillis(Long.parseLong(args[5])))
			.build();
		RedisSemaphore semaphore = client.getSemaphore(name, permits);
		for (int t = 0; t < Integer.parseInt(args[4]); t++) {
			boolean async = t % 2 == 1;
			boolean keeps = t == 0;
			Thread holder = new Thread(() -> {
				while (true) {
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
			});
			holder.start();
		}
		Thread.sleep(Long.MAX_VALUE);
	}

}
