package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.github.redislock.testsupport.RedisServers;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Holders of semaphore permits in their own JVM, so that the test can kill the process
 * while they hold, as a crash would. Arguments: host, port, semaphore name, permits,
 * holders, watchdog timeout in ms, and optionally {@code pass}. Each holder takes a
 * permit with the watchdog's lease and keeps it; the process prints {@code HELD} once all
 * hold. With {@code pass}, one more caller then waits and a holder releases, passing its
 * permit to that caller within this JVM; the process sets {@code <name>:passed} to the
 * new holder's fencing token once it holds.
 */
public final class SemaphoreHolderWorker {

	private SemaphoreHolderWorker() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory factory = RedisServers.connectionFactory(
				new RedisStandaloneConfiguration(args[0], Integer.parseInt(args[1])), Duration.ofSeconds(5));
		StringRedisTemplate redis = new StringRedisTemplate(factory);
		// connect before the first call: a cold JVM on a busy machine is slow to
		redis.hasKey(args[2]);
		RedisLockClient client = RedisLockClient.builder(redis)
			.commandTimeout(TestTimeouts.COMMAND_TIMEOUT)
			.watchdogTimeout(Duration.ofMillis(Long.parseLong(args[5])))
			.build();
		RedisSemaphore semaphore = client.getSemaphore(args[2], Integer.parseInt(args[3]));
		int holders = Integer.parseInt(args[4]);
		LockHandle last = null;
		for (int i = 0; i < holders; i++) {
			last = semaphore.acquire(Duration.ofSeconds(30), null);
		}
		System.out.println("HELD");
		if (args.length > 6 && "pass".equals(args[6]) && last != null) {
			CompletableFuture<LockHandle> waiter = semaphore.acquireAsync(Duration.ofSeconds(30), null);
			while (LockTestClients.inspector(client).waitingCount() == 0) {
				Thread.sleep(1);
			}
			last.release();
			redis.opsForValue().set(args[2] + ":passed", Long.toString(waiter.join().fencingToken()));
		}
		Thread.sleep(Long.MAX_VALUE);
	}

}
