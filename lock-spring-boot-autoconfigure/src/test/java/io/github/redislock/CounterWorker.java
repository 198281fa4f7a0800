package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.github.redislock.testsupport.RedisServers;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A separate JVM for {@link MutualExclusionTests}: several threads increment a Redis
 * counter under one lock and the process prints how many times they acquired it. With
 * {@code mixed} as the last argument the owners differ by thread: a quarter each own the
 * lock as a handle taken with {@code acquire} and as one taken with {@code withLockAsync}
 * (the work and the release then run on other threads), the rest as a thread.
 */
public final class CounterWorker {

	private CounterWorker() {
	}

	public static void main(String[] args) throws Exception {
		String host = args[0];
		int port = Integer.parseInt(args[1]);
		String lockName = args[2];
		String counter = args[3];
		int threads = Integer.parseInt(args[4]);
		int iterations = Integer.parseInt(args[5]);
		boolean mixed = args.length > 6 && "mixed".equals(args[6]);
		LettuceConnectionFactory factory = RedisServers.connectionFactory(new RedisStandaloneConfiguration(host, port),
				Duration.ofSeconds(5));
		StringRedisTemplate redisTemplate = new StringRedisTemplate(factory);
		// connect before the clock starts: this test is about exclusion, and a cold JVM
		// on a busy machine can take longer than the lock command timeout to connect
		redisTemplate.hasKey(counter);
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		// a generous command timeout for the same reason: its pub/sub connection, opened
		// at the first wait, took over the 2 s default on such a machine
		try (RedisLockClient client = RedisLockClient.builder(redisTemplate)
			.commandTimeout(TestTimeouts.COMMAND_TIMEOUT)
			.build()) {
			List<Future<Integer>> results = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int owner = mixed ? t % 4 : 0;
				results.add(pool.submit(() -> switch (owner) {
					case 1 ->
						MutualExclusionTests.incrementUnderHandle(client, lockName, redisTemplate, counter, iterations);
					case 2 -> MutualExclusionTests.incrementUnderAsyncHandle(client, lockName, redisTemplate, counter,
							iterations);
					default -> MutualExclusionTests.incrementUnderLock(client.getLock(lockName), redisTemplate, counter,
							iterations);
				}));
			}
			int acquired = 0;
			for (Future<Integer> result : results) {
				acquired += result.get();
			}
			System.out.println("acquired=" + acquired);
		}
		finally {
			pool.shutdownNow();
			factory.destroy();
		}
	}

}
