package io.github.redislock;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.github.redislock.testsupport.RedisServers;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A lock holder in its own JVM, so that the test can freeze it whole (SIGSTOP), watchdog
 * included, as a long GC pause would. It takes the lock with a watchdog lease, prints
 * {@code HELD <token>}, and then obeys commands on stdin: {@code WRITE <value>} (to the
 * store, with its token), {@code CHECK}, {@code UNLOCK}.
 */
public final class PausedHolderWorker {

	private PausedHolderWorker() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory factory = RedisServers.connectionFactory(
				new RedisStandaloneConfiguration(args[0], Integer.parseInt(args[1])), Duration.ofSeconds(5));
		StringRedisTemplate redis = new StringRedisTemplate(factory);
		// connect before the first lock call: a cold JVM on a busy machine can take
		// longer
		// than the lock command timeout to connect, and this test is about a paused
		// holder
		redis.hasKey(args[2]);
		FencedStore store = new FencedStore(redis, args[3], Boolean.parseBoolean(args[4]));
		try (RedisLockClient client = RedisLockClient.builder(redis)
			.watchdogTimeout(LockTestClients.TEST_WATCHDOG_TIMEOUT)
			.leaseLostListener((event) -> System.out.println("LOST " + event.detectedBy()))
			.build()) {
			RedisLock lock = client.getLock(args[2]);
			lock.lock();
			long token = lock.fencingToken();
			System.out.println("HELD " + token);
			BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			for (String command = commands.readLine(); command != null; command = commands.readLine()) {
				if (command.startsWith("WRITE ")) {
					System.out.println("WRITTEN " + store.write(command.substring(6), token));
				}
				else if (command.equals("CHECK")) {
					System.out.println("HELD_BY_ME " + lock.isHeldByCurrentThread());
				}
				else if (command.equals("UNLOCK")) {
					try {
						lock.unlock();
						System.out.println("UNLOCKED");
					}
					catch (LeaseExpiredException ex) {
						System.out.println("EXPIRED " + ex.getMessage());
					}
					break;
				}
			}
		}
		finally {
			factory.destroy();
		}
		System.exit(0);
	}

}
