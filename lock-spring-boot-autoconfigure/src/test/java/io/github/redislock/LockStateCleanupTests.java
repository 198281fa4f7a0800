package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.redislock.internal.LockInspector;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Nothing is kept per lock name once no thread holds or waits for it: neither in the
 * client (holds, subscriptions, watchdog entries) nor in Redis (lock keys, channels), and
 * fencing counters stay bounded.
 */
class LockStateCleanupTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	/**
	 * Enough to show growth if anything were kept per name; the README gives a
	 * million-name run.
	 */
	private static final int DISTINCT_NAMES = Integer.getInteger("redislock.test.distinctNames", 20_000);

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	@Test
	void manyDistinctNamesLeaveNoStateBehind() throws Exception {
		RedisLockClient client = this.clients.newClient();
		ExecutorService threads = Executors.newFixedThreadPool(4);
		try {
			List<Future<?>> work = new ArrayList<>();
			int perThread = DISTINCT_NAMES / 4;
			for (int t = 0; t < 4; t++) {
				int first = t * perThread;
				work.add(threads.submit(() -> {
					for (int i = first; i < first + perThread; i++) {
						RedisLock lock = client.getLock("cleanup-" + i);
						if (i % 2 == 0) {
							lock.lock(Duration.ofSeconds(30));
						}
						else {
							lock.lock();
						}
						lock.unlock();
					}
				}));
			}
			for (Future<?> done : work) {
				done.get(5, TimeUnit.MINUTES);
			}
		}
		finally {
			threads.shutdownNow();
		}
		LockInspector inspector = LockTestClients.inspector(client);
		assertThat(inspector.heldCount()).isZero();
		assertThat(inspector.watchdogCount()).isZero();
		assertThat(inspector.subscribedCount()).isZero();
		assertThat(redis.command("EVAL", "return #redis.call('keys', ARGV[1])", "0", "lock:{cleanup-*")).isEqualTo("0");
		// one fencing counter per cluster slot at most, however many names
		assertThat(Long.parseLong(redis.command("DBSIZE"))).isLessThanOrEqualTo(16384);
	}

	@Test
	void contendedNamesDropTheirSubscriptionsOnceNobodyWaits() throws Exception {
		// no bound is the point here: a cold client's first subscriptions may be slow on
		// a busy machine
		Consumer<RedisLockClient.Builder> generous = (builder) -> builder.commandTimeout(TestTimeouts.COMMAND_TIMEOUT);
		List<RedisLockClient> lockClients = List.of(this.clients.newClient(generous), this.clients.newClient(generous));
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			List<Future<?>> work = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				RedisLockClient client = lockClients.get(t % 2);
				work.add(threads.submit(() -> {
					for (int i = 0; i < 200; i++) {
						RedisLock lock = client.getLock("contended-" + (i % 20));
						lock.lock();
						lock.unlock();
					}
				}));
			}
			for (Future<?> done : work) {
				done.get(2, TimeUnit.MINUTES);
			}
		}
		finally {
			threads.shutdownNow();
		}
		for (RedisLockClient client : lockClients) {
			await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(client).subscribedCount() == 0);
			assertThat(LockTestClients.inspector(client).heldCount()).isZero();
		}
		// only each client's own channel, which keeps its pub/sub connection open,
		// remains
		assertThat(redis.command("PUBSUB", "CHANNELS", "lock:{*")).isEmpty();
		assertThat(redis.command("PUBSUB", "CHANNELS", "lock:client:*").lines()).hasSizeLessThanOrEqualTo(2);
	}

}
