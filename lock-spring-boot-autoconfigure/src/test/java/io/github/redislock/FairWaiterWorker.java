package io.github.redislock;

import java.time.Duration;

import io.github.redislock.testsupport.RedisServers;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Waiters for a fair lock in their own JVM, so that the test can kill the process with
 * them queued, as a crash would. Arguments: host, port, lock name, number of waiters, and
 * optionally {@code handles} to wait with asynchronous handles instead of one thread each
 * (for many waiters). Each waits as long as it takes; none is meant to get the lock.
 */
public final class FairWaiterWorker {

	private FairWaiterWorker() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory factory = RedisServers.connectionFactory(
				new RedisStandaloneConfiguration(args[0], Integer.parseInt(args[1])), Duration.ofSeconds(5));
		StringRedisTemplate redis = new StringRedisTemplate(factory);
		// connect before the first lock call, and a generous command timeout: a cold JVM
		// on a busy machine can take longer than the 2 s default to connect (its
		// pub/sub connection too), and this test is about dead waiters
		redis.hasKey(args[2]);
		RedisLockClient client = RedisLockClient.builder(redis).commandTimeout(TestTimeouts.COMMAND_TIMEOUT).build();
		RedisFairLock lock = client.getFairLock(args[2]);
		int waiters = Integer.parseInt(args[3]);
		if (args.length > 4 && args[4].equals("handles")) {
			for (int i = 0; i < waiters; i++) {
				lock.acquireAsync(Duration.ofHours(1), null);
				if (i % 2_000 == 1_999) {
					// as many processes would: all at once, the first attempts would
					// queue
					// in the connection past the command timeout
					Thread.sleep(100);
				}
			}
			System.out.println("WAITING");
			Thread.sleep(Long.MAX_VALUE);
		}
		for (int i = 0; i < waiters; i++) {
			Thread waiter = new Thread(() -> {
				lock.lock();
				System.out.println("ACQUIRED");
			});
			waiter.start();
		}
		System.out.println("WAITING");
		Thread.sleep(Long.MAX_VALUE);
	}

}
