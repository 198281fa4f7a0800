package io.github.redislock;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

import io.github.redislock.fencing.JdbcFencingGuard;
import io.github.redislock.fencing.RedisFencedValues;
import io.github.redislock.fencing.StaleFencingTokenException;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.WorkerJvm;
import org.h2.tools.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * End to end, across two JVMs: a holder frozen past its lease has none of its late writes
 * accepted by a guarded store once the next holder wrote.
 *
 * <p>
 * Holder A ({@link StaleHolderWorker}, a child JVM) holds the lock with a watchdog lease
 * of {@value #WATCHDOG_MILLIS} ms, has {@link RedisLock#leaseLost()} interrupt its
 * working thread, and writes in a loop to two guarded stores: a table in H2 (served over
 * TCP by this JVM) guarded by {@link JdbcFencingGuard} in each write's transaction, and a
 * {@link RedisFencedValues} key. The test freezes A's JVM (SIGSTOP), watchdog included,
 * as a long GC pause would; holder B, here, takes the lock once A's lease ran out and
 * writes to both stores with its newer token; then A is resumed (SIGCONT). If A was
 * frozen inside its transaction, B's database write waits for A's row lock until A is
 * resumed and commits: the database orders them, and A's write, accepted, comes before
 * B's.
 *
 * <p>
 * Asserted, per store: no write of A that began after B's first accepted write was
 * accepted; A stopped, either interrupted by its lease loss before writing again or
 * refused by a store (which one is reported); and the stores end with B's value and
 * token.
 */
class StaleHolderWritesRefusedTests {

	/** A's watchdog lease: short, so that the test is quick, and renewed every 667 ms. */
	private static final long WATCHDOG_MILLIS = 2000;

	/** Generous: child JVMs start slowly on a machine whose cores are all busy. */
	private static final Duration WAIT = Duration.ofSeconds(60);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	@Test
	void noLateWriteOfAHolderPausedPastItsLeaseIsAcceptedByEitherGuardedStore() throws Exception {
		String database = "stale-" + UUID.randomUUID();
		SingleConnectionDataSource dataSource = new SingleConnectionDataSource(
				"jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=500", "sa", "", true);
		Server h2 = Server.createTcpServer("-tcpPort", "0", "-tcpDaemon").start();
		String name = LockTestClients.uniqueName();
		String key = "fenced:" + name;
		String resource = "row:" + name;
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		JdbcFencingGuard guard = new JdbcFencingGuard(jdbc);
		jdbc.execute(guard.schemaSql());
		jdbc.execute("CREATE TABLE guarded (id VARCHAR(255) PRIMARY KEY, v VARCHAR(40) NOT NULL)");
		jdbc.update("INSERT INTO guarded (id, v) VALUES (?, 'initial')", resource);
		jdbc.update("INSERT INTO " + guard.getTable() + " (resource, token) VALUES (?, 0)", resource);
		String url = "jdbc:h2:tcp://127.0.0.1:" + h2.getPort() + "/mem:" + database + ";LOCK_TIMEOUT=10000";
		long began = System.nanoTime();
		Process holder = new ProcessBuilder(WorkerJvm.command(StaleHolderWorker.class, redis.server().host(),
				Integer.toString(redis.server().port()), name, key, url, resource, Long.toString(WATCHDOG_MILLIS)))
			.redirectErrorStream(true)
			.start();
		List<String> output = new CopyOnWriteArrayList<>();
		Thread reader = readLines(holder, output);
		AtomicBoolean bWriting = new AtomicBoolean(true);
		List<Write> bWrites = new CopyOnWriteArrayList<>();
		Thread bWriter = null;
		try {
			await("A holding and writing to both stores").atMost(WAIT)
				.until(() -> writes(output, "jdbc", Write::accepted) >= 3
						&& writes(output, "redis", Write::accepted) >= 3 || !holder.isAlive());
			assertThat(holder.isAlive()).as("A still running: %s", output).isTrue();
			long aToken = Long.parseLong(line(output, "HELD ").substring(5));
			assertThat(output).as("A stopped before it was frozen").noneMatch((l) -> l.startsWith("STOPPED "));
			signal(holder, "STOP");
			long frozenAt = System.nanoTime();
			RedisLock lock = this.clients.newClient().getLock(name);
			// A's watchdog cannot renew its lease: it runs out and B gets the lock
			assertThat(lock.tryLock(WAIT, null)).isTrue();
			long bToken = lock.fencingToken();
			assertThat(bToken).isGreaterThan(aToken);
			RedisFencedValues values = new RedisFencedValues(this.clients.newTemplate());
			TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
			bWriter = new Thread(() -> {
				for (int round = 0; bWriting.get(); round++) {
					String value = "B-" + round;
					bWrites.add(Write.make("redis", () -> values.set(key, value, bToken)));
					bWrites.add(Write.make("jdbc", () -> transactions.executeWithoutResult((status) -> {
						guard.accept(resource, bToken);
						jdbc.update("UPDATE guarded SET v = ? WHERE id = ?", value, resource);
					})));
					LockSupport.parkNanos(10_000_000);
				}
			}, "holder-b-writes");
			bWriter.start();
			// B wrote to Redis, and to the database unless A, frozen inside its
			// transaction, holds the row: then only A's resumption lets B write there
			await("B writing").atMost(WAIT)
				.until(() -> bWrites.stream().anyMatch((w) -> w.store().equals("redis") && w.accepted())
						&& bWrites.stream().anyMatch((w) -> w.store().equals("jdbc")));
			boolean aHeldTheRow = bWrites.stream().noneMatch((w) -> w.store().equals("jdbc") && w.accepted());
			long resumedAt = System.nanoTime();
			signal(holder, "CONT");
			await("A stopped").atMost(WAIT).until(() -> line(output, "STOPPED ") != null || !holder.isAlive());
			await("B's database write accepted").atMost(WAIT)
				.until(() -> bWrites.stream().anyMatch((w) -> w.store().equals("jdbc") && w.accepted()));
			assertThat(holder.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
			reader.join(WAIT.toMillis());
			bWriting.set(false);
			bWriter.join(WAIT.toMillis());
			lock.unlock();

			String[] stopped = line(output, "STOPPED ").split(" ");
			String lost = line(output, "LOST ");
			StringBuilder report = new StringBuilder(String.format(Locale.ROOT,
					"STALE HOLDER: A (token %d) frozen %d ms; A held the database row while frozen: %s; A stopped: %s"
							+ " %d ms after its resumption; lease loss learned %s; run %d ms%n",
					aToken, millis(resumedAt - frozenAt), aHeldTheRow, stopped[1],
					millis(Long.parseLong(stopped[2]) - resumedAt), (lost != null) ? lost.split(" ")[1] + " "
							+ millis(Long.parseLong(lost.split(" ")[2]) - resumedAt) + " ms after resumption" : "never",
					millis(System.nanoTime() - began)));
			int refused = 0;
			for (String store : List.of("jdbc", "redis")) {
				long bFirst = bWrites.stream()
					.filter((w) -> w.store().equals(store) && w.accepted())
					.mapToLong(Write::end)
					.min()
					.orElseThrow();
				List<Write> aWrites = output.stream()
					.filter((l) -> l.startsWith("WRITE " + store + " "))
					.map(Write::parse)
					.toList();
				long acceptedAfter = aWrites.stream().filter((w) -> w.start() > bFirst && w.accepted()).count();
				long refusedAfter = aWrites.stream().filter((w) -> w.start() > bFirst && w.refused()).count();
				refused += (int) aWrites.stream().filter(Write::refused).count();
				report.append(String.format(Locale.ROOT,
						"  %-5s A's writes: %d accepted in all; begun after B's first accepted write: %d accepted, %d "
								+ "refused, %d other (%s); B's writes: %d accepted%n",
						store, aWrites.stream().filter(Write::accepted).count(), acceptedAfter, refusedAfter,
						aWrites.stream().filter((w) -> w.start() > bFirst && !w.accepted() && !w.refused()).count(),
						aWrites.stream()
							.filter((w) -> w.start() > bFirst && !w.accepted())
							.map(Write::outcome)
							.distinct()
							.toList(),
						bWrites.stream().filter((w) -> w.store().equals(store) && w.accepted()).count()));
				assertThat(acceptedAfter).as("A's %s writes accepted after B's first accepted write: %s", store, output)
					.isZero();
			}
			System.out.print(report);
			assertThat(stopped[1]).as("what stopped A: %s", output).isIn("interrupted", "refused");
			if (stopped[1].equals("refused")) {
				assertThat(refused).isPositive();
			}
			assertThat(values.get(key)).startsWith("B-");
			assertThat(this.clients.newTemplate().opsForHash().get(key, "token")).isEqualTo(Long.toString(bToken));
			assertThat(jdbc.queryForObject("SELECT v FROM guarded WHERE id = ?", String.class, resource))
				.startsWith("B-");
			assertThat(jdbc.queryForObject("SELECT token FROM " + guard.getTable() + " WHERE resource = ?", Long.class,
					resource))
				.isEqualTo(bToken);
			assertThat(line(output, "UNLOCK ")).isEqualTo("UNLOCK expired");
		}
		finally {
			bWriting.set(false);
			holder.destroyForcibly();
			if (bWriter != null) {
				bWriter.join(WAIT.toMillis());
			}
			h2.stop();
			jdbc.execute("DROP ALL OBJECTS");
			dataSource.destroy();
		}
	}

	private static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

	private static Thread readLines(Process process, List<String> into) {
		Thread reader = new Thread(() -> {
			try (BufferedReader lines = new BufferedReader(
					new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
				lines.lines().forEach(into::add);
			}
			catch (Exception ex) {
				into.add("READ FAILED " + ex);
			}
		}, "holder-a-output");
		reader.setDaemon(true);
		reader.start();
		return reader;
	}

	private static String line(List<String> output, String prefix) {
		return output.stream().filter((l) -> l.startsWith(prefix)).findFirst().orElse(null);
	}

	private static long writes(List<String> output, String store, Predicate<Write> filter) {
		return output.stream()
			.filter((l) -> l.startsWith("WRITE " + store + " "))
			.map(Write::parse)
			.filter(filter)
			.count();
	}

	private static void signal(Process process, String signal) throws Exception {
		Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
		assertThat(kill.waitFor()).isZero();
	}

	/** One write to a store: when it began and ended, and what the store answered. */
	record Write(String store, long start, long end, String outcome) {

		boolean accepted() {
			return this.outcome.equals("ACCEPTED");
		}

		boolean refused() {
			return this.outcome.equals("REFUSED");
		}

		/** A line {@code WRITE <store> <round> <start> <end> <outcome> <detail>} of A. */
		static Write parse(String line) {
			String[] f = line.split(" ");
			return new Write(f[1], Long.parseLong(f[3]), Long.parseLong(f[4]), f[5]);
		}

		/** B's write, made here. */
		static Write make(String store, Runnable write) {
			long start = System.nanoTime();
			String outcome;
			try {
				write.run();
				outcome = "ACCEPTED";
			}
			catch (StaleFencingTokenException ex) {
				outcome = "REFUSED";
			}
			catch (RuntimeException ex) {
				// the database's lock timeout while A, frozen, holds the row
				outcome = "FAILED";
			}
			return new Write(store, start, System.nanoTime(), outcome);
		}

	}

}
