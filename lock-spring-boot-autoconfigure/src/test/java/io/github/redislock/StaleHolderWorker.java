package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.fencing.JdbcFencingGuard;
import io.github.redislock.fencing.RedisFencedValues;
import io.github.redislock.fencing.StaleFencingTokenException;
import io.github.redislock.testsupport.RedisServers;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The holder of {@link StaleHolderWritesRefusedTests}, in its own JVM so that the test
 * can freeze it whole. It takes the lock with a watchdog lease, has
 * {@link RedisLock#leaseLost()} interrupt its working thread (what
 * {@code ifLeaseLost = INTERRUPT} does for a method), and writes in a loop, each round to
 * both guarded stores with its token: a row of a table guarded by
 * {@link JdbcFencingGuard} in one transaction, and a {@link RedisFencedValues} key. It
 * stops once interrupted or once a store refused it, as an application should.
 *
 * <p>
 * It prints {@code HELD <token>}, then per write
 * {@code WRITE <store> <round> <start> <end> <outcome> <detail>} (times from
 * {@link System#nanoTime()}, which the JVMs of one Linux machine share; outcome
 * {@code ACCEPTED}, {@code REFUSED}, {@code INTERRUPTED} or {@code FAILED}),
 * {@code LOST <detectedBy> <time>} when it learns its lease is lost,
 * {@code STOPPED <interrupted|refused|timeout> <time>}, and {@code UNLOCK <outcome>}.
 * Arguments: Redis host and port, lock name, Redis key, JDBC URL, the guarded resource
 * (also the row's key), the watchdog timeout in milliseconds.
 */
public final class StaleHolderWorker {

	/** How long the holder writes at most without being stopped. */
	private static final Duration GIVE_UP = Duration.ofSeconds(90);

	private StaleHolderWorker() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory factory = RedisServers.connectionFactory(
				new RedisStandaloneConfiguration(args[0], Integer.parseInt(args[1])), Duration.ofSeconds(5));
		String name = args[2];
		String key = args[3];
		String resource = args[5];
		StringRedisTemplate redis = new StringRedisTemplate(factory);
		// connect before the first lock call: a cold JVM on a busy machine can take
		// longer
		// than the lock command timeout to connect
		redis.hasKey(key);
		RedisFencedValues values = new RedisFencedValues(redis);
		SingleConnectionDataSource dataSource = new SingleConnectionDataSource(args[4], "sa", "", true);
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		JdbcFencingGuard guard = new JdbcFencingGuard(jdbc);
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		jdbc.queryForObject("SELECT COUNT(*) FROM guarded", Integer.class);
		try (RedisLockClient client = RedisLockClient.builder(redis)
			.watchdogTimeout(Duration.ofMillis(Long.parseLong(args[6])))
			.build()) {
			RedisLock lock = client.getLock(name);
			lock.lock();
			long token = lock.fencingToken();
			Thread worker = Thread.currentThread();
			lock.leaseLost().thenAccept((event) -> {
				print("LOST " + event.detectedBy() + " " + System.nanoTime());
				worker.interrupt();
			});
			print("HELD " + token);
			String stoppedBy = "timeout";
			long giveUp = System.nanoTime() + GIVE_UP.toNanos();
			for (int round = 0; System.nanoTime() < giveUp; round++) {
				if (Thread.currentThread().isInterrupted()) {
					stoppedBy = "interrupted";
					break;
				}
				String value = "A-" + round;
				boolean refused = write("jdbc", round, () -> transactions.executeWithoutResult((status) -> {
					guard.accept(resource, token);
					jdbc.update("UPDATE guarded SET v = ? WHERE id = ?", value, resource);
				}));
				refused |= write("redis", round, () -> values.set(key, value, token));
				if (refused) {
					stoppedBy = "refused";
					break;
				}
				LockSupport.parkNanos(10_000_000);
			}
			print("STOPPED " + stoppedBy + " " + System.nanoTime());
			Thread.interrupted();
			try {
				lock.unlock();
				print("UNLOCK released");
			}
			catch (LeaseExpiredException ex) {
				print("UNLOCK expired");
			}
		}
		finally {
			dataSource.destroy();
			factory.destroy();
		}
		System.exit(0);
	}

	/** Makes one write and prints its outcome; returns whether the store refused it. */
	private static boolean write(String store, int round, Runnable write) {
		long start = System.nanoTime();
		String outcome;
		String detail = "-";
		try {
			write.run();
			outcome = "ACCEPTED";
		}
		catch (StaleFencingTokenException ex) {
			outcome = "REFUSED";
			detail = ex.getClass().getSimpleName();
		}
		catch (RuntimeException ex) {
			outcome = Thread.currentThread().isInterrupted() ? "INTERRUPTED" : "FAILED";
			detail = ex.getClass().getSimpleName();
		}
		print("WRITE " + store + " " + round + " " + start + " " + System.nanoTime() + " " + outcome + " " + detail);
		return outcome.equals("REFUSED");
	}

	private static void print(String line) {
		synchronized (System.out) {
			System.out.println(line);
			System.out.flush();
		}
	}

}
