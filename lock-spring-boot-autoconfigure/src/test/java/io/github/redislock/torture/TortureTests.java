package io.github.redislock.torture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import io.github.redislock.fencing.RedisFencedValues;
import io.github.redislock.testsupport.FaultProxy;
import io.github.redislock.testsupport.RedisReplicaPair;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedisServers;
import io.github.redislock.testsupport.WorkerJvm;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Several client JVMs with several threads lock random names from a small set, with
 * random waits and leases, through a {@link FaultProxy}, while faults of every kind in
 * {@link TortureFaults.Kind} are injected one at a time in random order: Redis frozen
 * past the command timeout, pub/sub and command connections killed, connections cut,
 * latency, a partition past the command timeout, the script cache flushed, Redis killed
 * and restarted with its data (AOF, {@code appendfsync always}) and without it, its
 * replica promoted after the primary granted locks the replica never got and was killed,
 * and a worker JVM frozen while one of its threads is inside a critical section, for a
 * second longer than that thread's lease. Redis is a primary and its replica
 * ({@link RedisReplicaPair}); the proxy follows the primary. Inside each hold a thread
 * updates a counter non-atomically, a {@link RedisFencedValues} key written with its
 * token in a Redis of its own that no fault touches.
 *
 * <p>
 * Two kinds of overlap are legitimate, and counted apart:
 * <ul>
 * <li>The history is split into epochs at each loss of Redis' data, a restart without it
 * or a promotion of a replica that missed the latest grants: the lost locks are free
 * then, so holds of different epochs may overlap (and so may holds acquired while the
 * data was lost). Fencing tokens do not go back (they follow the server's clock), so the
 * store orders writes by token alone and rejects a stale holder's write across a data
 * loss too.</li>
 * <li>A hold of a worker frozen past its lease (frozen during its call or critical
 * section, which together lasted at least its lease, and whose unlock did not find the
 * lock still its own) may overlap holds that began a lease or more after its call did:
 * Redis gave the lock away, which is what fencing tokens are for. The counter refuses its
 * late write.</li>
 * </ul>
 * Asserted: no other overlap; no lost counter update other than by a legitimate overlap
 * in which the counter accepted both writes; no write accepted that began after the
 * counter had accepted one with a higher token (the report counts the writes refused, and
 * those of holders frozen past their lease); over the whole run, across every data loss,
 * the tokens of each name increase strictly in the order the holds began (leaving out
 * holds frozen past their lease and holds acquired while the data was lost; a hold a
 * failed unlock left in Redis, taken over by its owner, gets a new token too); and
 * nothing left: no lock thread in the workers once their clients closed, no pub/sub
 * connection or channel, no key but the fencing counters once the last leases ran out, no
 * connection once the workers exited.
 *
 * <p>
 * With {@code redislock.torture.permits} above 1 (run by hand; the default 1 is the run
 * above) each name is instead a semaphore of that many permits, taken with
 * {@code tryAcquire}, {@code acquire}, {@code acquireAsync} and the reactive client's
 * {@code acquire}, released by the thread that took it, by the client or by another
 * thread ({@link TorturePermits}). Holders of a semaphore overlap by design, so the
 * overlap, lost-update and token checks above give way to {@link TortureHolders}': no
 * more holders of a name at once than the permits, legitimate overlaps apart (the same
 * two kinds as above), and all of them held at once for some name; a live count of the
 * holders inside, shared by the JVMs in the store, that never saw more than the records
 * show nor more than the permits but where legitimate overlaps took the records there,
 * and that ends at 0; and tokens above those of every hold that began before the call (a
 * semaphore's holders may learn of their grants out of order, so the order the holds
 * began is not the grant order), none twice. The fenced counter is not checked: the
 * holders of a semaphore update what it guards at once, so a non-atomic counter loses
 * updates by design. Nothing may be left, as above.
 *
 * <p>
 * Reported and not asserted (timings on a shared machine): the longest any call took
 * beyond its wait plus the command timeout, the longest a released lock stayed free while
 * someone waited for it outside faults (a lost wake-up), how soon every name was acquired
 * again after each fault, and why calls failed. The report is one block on stdout.
 *
 * <p>
 * The shape comes from system properties: {@code redislock.torture.duration} (default
 * {@code 23s}; also {@code 10m}, {@code 1500ms}, ISO-8601), {@code .jvms} (2),
 * {@code .threads} (4 per JVM), {@code .names} (4), {@code .faultEvery} (1s; a fault
 * lasting longer is followed by the next 300 ms after it healed, and faults come sooner
 * when the rest of the first round would not fit the time left otherwise),
 * {@code .faults} (comma-separated kinds such as {@code worker-pause,restart-with-data};
 * default all), {@code .permits} (1: exclusive locks; more: semaphores, see above) and
 * {@code .seed} (of the fault order and the workers' choices; printed). The default has
 * room for one fault of each kind; no fault begins in the last 2 s.
 */
class TortureTests {

	private static final Duration WARM_UP = Duration.ofSeconds(1);

	/** The end of the run without faults, so that every fault has healed. */
	private static final Duration TAIL = Duration.ofSeconds(2);

	@Test
	void noOverlapNoLostUpdateAndIncreasingTokensUnderFaults(@TempDir(cleanup = CleanupMode.ON_SUCCESS) Path directory)
			throws Exception {
		TortureShape shape = TortureShape.fromSystemProperties();
		Path records = Files.createDirectories(directory.resolve("records"));
		Random random = new Random(shape.seed());
		List<TortureWorkerJvm> workers = new ArrayList<>();
		try (RedisReplicaPair redis = RedisReplicaPair.start("--appendonly", "yes", "--appendfsync", "always");
				RedisServer counters = RedisServers.start();
				TortureStore store = TortureStore.open(directory.resolve("store"), shape.names());
				FaultProxy proxy = FaultProxy.start(redis.primary().host(), redis.primary().port())) {
			for (int i = 0; i < shape.jvms(); i++) {
				workers.add(TortureWorkerJvm.start(i, proxy, shape, directory.resolve("store"), records, counters));
			}
			await().atMost(Duration.ofMinutes(1))
				.until(() -> workers.stream().allMatch((worker) -> worker.lines().contains("READY")));
			long runStart = System.nanoTime();
			long endMillis = System.currentTimeMillis() + WARM_UP.plus(shape.duration()).toMillis();
			for (TortureWorkerJvm worker : workers) {
				worker.send("GO " + endMillis);
			}
			TortureFaults faults = new TortureFaults(redis, proxy, store,
					workers.stream().map(TortureWorkerJvm::process).toList(), shape.faults(), random);
			Thread.sleep(WARM_UP.toMillis());
			faults.injectUntil(runStart + WARM_UP.plus(shape.duration()).minus(TAIL).toNanos(), shape.faultEvery());
			await().atMost(Duration.ofMinutes(2))
				.until(() -> workers.stream().allMatch(TortureWorkerJvm::closedOrGone));
			TortureLeftovers atClose = TortureLeftovers.of(redis.primary());
			for (TortureWorkerJvm worker : workers) {
				worker.exit();
			}
			TortureHistory history = TortureHistory.read(records, faults.windows(), counterValues(counters, shape),
					TortureWorker.WATCHDOG_TIMEOUT.toMillis(), shape.exclusive());
			TortureHolders holders = shape.exclusive() ? null : TortureHolders.check(history, shape.permits(), store);
			TortureTimings timings = new TortureTimings(history, TortureWorker.COMMAND_TIMEOUT.toMillis(), runStart);
			TortureLeftovers atEnd = leftoversOnceLeasesRanOut(redis.primary());
			System.out
				.print(TortureReport.of(shape, records, faults, history, holders, timings, workers, atClose, atEnd));
			for (TortureWorkerJvm worker : workers) {
				assertThat(worker.process().exitValue()).as(worker.output()).isZero();
				assertThat(worker.output()).doesNotContain("UNEXPECTED");
				assertThat(worker.line("LOCK_THREADS_LEFT ")).as("lock threads left in worker %d", worker.index())
					.isEqualTo("[]");
			}
			if (holders == null) {
				assertThat(history.violations).isEmpty();
				assertThat(history.overlaps).isZero();
				assertThat(history.unexplainedLostUpdates).isZero();
				assertThat(history.staleWritesAccepted).isZero();
				assertThat(history.tokenViolations).isZero();
			}
			else {
				assertThat(holders.violations).isEmpty();
				assertThat(holders.excessHolds).isZero();
				assertThat(holders.tokenViolations).isZero();
				assertThat(holders.mostHoldersOfAnyName()).as("most holders of a name at once")
					.isEqualTo(shape.permits());
				assertThat(holders.mostInsideOfAnyName()).as("most holders inside at once, as counted live")
					.isGreaterThanOrEqualTo(shape.permits());
			}
			assertThat(atClose.pubsub()).as("pub/sub connections once the lock clients closed").isEmpty();
			assertThat(atClose.channels()).as("channels once the lock clients closed").isEmpty();
			assertThat(atEnd.isEmpty()).as("nothing but fencing counters left: %s", atEnd).isTrue();
			assertThat(history.acquisitions()).isGreaterThan(100);
			assertThat(faults.windows()).isNotEmpty();
		}
		finally {
			for (TortureWorkerJvm worker : workers) {
				worker.process().destroyForcibly();
			}
		}
	}

	private static long[] counterValues(RedisServer counters, TortureShape shape) {
		LettuceConnectionFactory factory = RedisServers.connectionFactory(
				new RedisStandaloneConfiguration(counters.host(), counters.port()), TortureWorker.COMMAND_TIMEOUT);
		try {
			RedisFencedValues values = new RedisFencedValues(new StringRedisTemplate(factory));
			long[] read = new long[shape.names()];
			Arrays.setAll(read, (name) -> TortureWorker.counter(values, name));
			return read;
		}
		finally {
			factory.destroy();
		}
	}

	/**
	 * What Redis has once the workers exited and every lease they may have left behind
	 * ran out: nothing but the fencing counters, unless something leaked.
	 */
	private static TortureLeftovers leftoversOnceLeasesRanOut(RedisServer redis) {
		try {
			return await().atMost(TortureWorker.MAX_LEASE.plusSeconds(2))
				.until(() -> TortureLeftovers.of(redis), TortureLeftovers::isEmpty);
		}
		catch (ConditionTimeoutException ex) {
			return TortureLeftovers.of(redis);
		}
	}

}
