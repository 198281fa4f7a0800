package io.github.redislock.shedlock;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import io.github.redislock.shedlock.JobPeriods.Firing;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.WorkerJvm;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two Spring Boot applications, each in a JVM of its own ({@link ScheduledJobWorker}: the
 * same java and class path as this test), run one {@code @Scheduled @SchedulerLock} job
 * on a 200 ms fixed rate for 10 s against one Redis: every period runs the job exactly
 * once. What one learns of the other goes through Redis; nothing else is shared, not a
 * scheduler, a garbage collector or a class.
 * <p>
 * Each application's scheduler starts its fixed rate on the wall clock's 200 ms grid, as
 * a cron fires, so that both fire for the same ticks: a period is one tick.
 * {@code lockAtLeastFor} is half the period, counted from the acquisition: the other
 * application's firing of the same tick finds the lock taken unless it starts 100 ms late
 * (its firing's lateness and its acquisition together beyond the first's), and the next
 * tick finds it free unless the acquisition took more than 100 ms beyond the firing's own
 * lateness. The test reports both, and holds the lock to what it can see: a tick's second
 * run must begin 100 ms after the first run's firing or later. (Fixed rates that start
 * from each application's start fire some phase apart, up to half a period, which takes
 * that much off one of the two margins: see the scheduled-jobs guide.)
 * <p>
 * A period whose every firing starts 100 ms late or more cannot be run on time by anyone;
 * it may be missed (run at most once), and is reported. In separate processes, one
 * process's stall leaves the tick to the other (in one JVM, with both cores busy, both
 * schedulers were seen to stall 429 ms together).
 * <p>
 * An application's first lock connects to Redis and loads the scripts: 0.6 to 6.4 s with
 * both cores busy. Taken by the first firing, it kept that application's ticks waiting,
 * then fired them at once, and those late runs kept the lock from the next ticks; so each
 * application takes a lock before its scheduler starts. Periods are counted from one
 * period after both first firings ended. The applications report their times as
 * {@link System#nanoTime()}, the machine's monotonic clock on Linux, shared by both.
 */
class TwoApplicationsScheduledJobTests {

	private static final Log logger = LogFactory.getLog(TwoApplicationsScheduledJobTests.class);

	private static final Duration PERIOD = Duration.ofMillis(200);

	private static final Duration RUN_FOR = Duration.ofSeconds(10);

	private static final Duration LOCK_AT_LEAST_FOR = Duration.ofMillis(100);

	private static final Queue<Firing> firings = new ConcurrentLinkedQueue<>();

	private static final Queue<Run> runs = new ConcurrentLinkedQueue<>();

	private static final Map<String, Long> firstFiringsEnded = new ConcurrentHashMap<>();

	private static final Set<String> ready = ConcurrentHashMap.newKeySet();

	// firings by application and index, for the runs to name theirs
	private static final Map<String, Firing> firingsByIndex = new ConcurrentHashMap<>();

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final List<Process> applications = new ArrayList<>();

	@AfterEach
	void stopApplications() throws InterruptedException {
		// even when the test failed: no worker JVM is left running
		for (Process application : this.applications) {
			application.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
		}
	}

	@Test
	void eachPeriodRunsTheJobExactlyOnceAcrossTwoApplications() throws Exception {
		firings.clear();
		runs.clear();
		firstFiringsEnded.clear();
		ready.clear();
		firingsByIndex.clear();
		long periods = RUN_FOR.dividedBy(PERIOD);
		long started = System.nanoTime();
		List<Thread> readers = new ArrayList<>();
		for (String app : List.of("first", "second")) {
			Process application = start(app);
			this.applications.add(application);
			readers.add(read(app, application));
		}
		// two JVMs starting Spring Boot at once: seconds, over a minute on a machine
		// loaded 15 times over
		await().atMost(Duration.ofMinutes(3)).until(() -> ready.size() == 2);
		long readyAfter = System.nanoTime() - started;
		await().atMost(RUN_FOR.multipliedBy(3))
			.until(() -> firstFiringsEnded.size() == 2
					&& System.nanoTime() - countFromNanos() > RUN_FOR.plus(PERIOD.multipliedBy(2)).toNanos());
		stop(readers);
		logger.info("2 applications in 2 JVMs: both ready " + TimeUnit.NANOSECONDS.toMillis(readyAfter)
				+ " ms after their start, whole test " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
				+ " ms");

		JobPeriods jobPeriods = new JobPeriods(PERIOD, firings);
		List<Run> recorded = new ArrayList<>(runs);
		Map<Long, Integer> perPeriod = jobPeriods
			.runsPerFullPeriod(recorded.stream().map(Run::firing).collect(Collectors.toList()), countFromNanos());
		Duration maxLateness = firingsAfterWarmUp().map(jobPeriods::lateness).max(Duration::compareTo).orElseThrow();
		long countFrom = countFromNanos();
		Duration slowestAcquisition = recorded.stream()
			.filter((run) -> run.firing().nanos() > countFrom)
			.map((run) -> Duration.ofNanos(run.entered() - run.firing().nanos()))
			.max(Duration::compareTo)
			.orElseThrow();
		logger.info("2 applications, @SchedulerLock job every " + PERIOD.toMillis() + " ms, grids "
				+ jobPeriods.phase().toMillis() + " ms apart, first firings took " + firstFiringsTook() + ": "
				+ perPeriod.size() + " periods after warm-up, runs per period " + perPeriod.values()
				+ ", latest firing " + maxLateness.toMillis() + " ms late, slowest from firing to job "
				+ slowestAcquisition.toMillis() + " ms");
		assertThat(perPeriod).hasSizeGreaterThanOrEqualTo((int) periods - 2);
		// A period whose every firing started after the lock's time was up had no
		// instance to run it on time: both applications' schedulers (one JVM) stalled.
		List<Long> stalled = perPeriod.keySet()
			.stream()
			.filter((period) -> jobPeriods.leastLateness(period, firings).compareTo(LOCK_AT_LEAST_FOR) >= 0)
			.toList();
		logger
			.info("Periods whose firings all started " + LOCK_AT_LEAST_FOR.toMillis() + " ms late or more: " + stalled);
		// Nor had a period whose tick came before an earlier run's hold ended: that hold,
		// lockAtLeastFor from the run's start, covered this period's firings (a scheduler
		// late, or an acquisition slow, on a loaded machine). A run that started
		// lockAtLeastFor before the next tick or later holds that tick over; one that
		// started a period later still, the tick after it too.
		List<Long> heldOver = recorded.stream().flatMap((run) -> {
			long late = run.entered() - jobPeriods.dueNanos(run.firing().app(), run.firing().index());
			long period = jobPeriods.periodOf(run.firing().app(), run.firing().index());
			long ticksCovered = Math.max(0, (late + LOCK_AT_LEAST_FOR.toNanos()) / PERIOD.toNanos());
			return LongStream.rangeClosed(1, ticksCovered).mapToObj((next) -> period + next);
		}).toList();
		logger.info("Periods whose tick came before an earlier run's hold ended: " + heldOver);
		// And a period may run twice only when its second run began lockAtLeastFor after
		// the first run's firing or later: the first hold began no sooner than that
		// firing and the second no later than its run, so a second run any sooner is one
		// the first hold should have kept out. A later one may have come after the hold's
		// end (the second application's firing late, its acquisition slow, or both).
		List<Long> outlasted = jobPeriods.runsByPeriod(recorded.stream().map(Run::firing).toList())
			.entrySet()
			.stream()
			.filter((period) -> period.getValue().size() == 2 && secondRunAfterHold(period.getValue(), recorded))
			.map(Map.Entry::getKey)
			.toList();
		logger.info("Periods whose second run began " + LOCK_AT_LEAST_FOR.toMillis()
				+ " ms after the first run's firing or later: " + outlasted);
		assertThat(perPeriod)
			.as("runs per period (period -> runs); latest firing %d ms late, slowest from firing to job %d ms",
					maxLateness.toMillis(), slowestAcquisition.toMillis())
			.allSatisfy((period, count) -> assertThat(count).isBetween(
					(stalled.contains(period) || heldOver.contains(period)) ? 0 : 1,
					outlasted.contains(period) ? 2 : 1));
		assertThat(recorded).allSatisfy((run) -> assertThat(run.lockAsserted()).isTrue());
		// in the order they ran (the two applications' records are read apart)
		recorded.sort(Comparator.comparingLong(Run::entered));
		assertThat(recorded).extracting(Run::token).isSorted().doesNotHaveDuplicates();
	}

	// whether the later of a period's two runs began lockAtLeastFor after the earlier
	// run's firing or later
	private static boolean secondRunAfterHold(List<Firing> periodRuns, List<Run> recorded) {
		List<Run> both = recorded.stream()
			.filter((run) -> periodRuns.contains(run.firing()))
			.sorted(Comparator.comparingLong(Run::entered))
			.toList();
		return both.get(1).entered() - both.get(0).firing().nanos() >= LOCK_AT_LEAST_FOR.toNanos();
	}

	private static Process start(String app) throws IOException {
		return new ProcessBuilder(WorkerJvm.command(ScheduledJobWorker.class, redis.server().host(),
				Integer.toString(redis.server().port()), app))
			.redirectErrorStream(true)
			.start();
	}

	// reads the application's records as it writes them (see ScheduledJobWorker)
	private static Thread read(String app, Process application) {
		Thread reader = new Thread(() -> {
			try (BufferedReader lines = new BufferedReader(
					new InputStreamReader(application.getInputStream(), StandardCharsets.UTF_8))) {
				String line;
				while ((line = lines.readLine()) != null) {
					if (line.startsWith(ScheduledJobWorker.RECORD)) {
						record(app, line.substring(ScheduledJobWorker.RECORD.length()).split(" "));
					}
					else {
						logger.debug(app + ": " + line);
					}
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}, app + "-output");
		reader.setDaemon(true);
		reader.start();
		return reader;
	}

	private static void record(String app, String[] fields) {
		switch (fields[0]) {
			case ScheduledJobWorker.READY -> ready.add(app);
			case "firing" -> {
				Firing fired = new Firing(app, Integer.parseInt(fields[1]), Long.parseLong(fields[2]));
				firingsByIndex.put(app + ":" + fired.index(), fired);
				firings.add(fired);
			}
			case "run" -> runs.add(new Run(firingsByIndex.get(app + ":" + fields[1]), Long.parseLong(fields[2]),
					Boolean.parseBoolean(fields[3]), Long.parseLong(fields[4])));
			case "first-ended" -> firstFiringsEnded.put(app, Long.parseLong(fields[1]));
			default -> throw new IllegalStateException(app + " wrote an unknown record: " + String.join(" ", fields));
		}
	}

	// tells both applications to stop, and waits until they did and all they wrote is
	// read
	private void stop(List<Thread> readers) throws Exception {
		for (Process application : this.applications) {
			try (OutputStream input = application.getOutputStream()) {
				input.write("stop\n".getBytes(StandardCharsets.UTF_8));
			}
		}
		for (Process application : this.applications) {
			assertThat(application.waitFor(30, TimeUnit.SECONDS)).as("application stopped").isTrue();
		}
		for (Thread reader : readers) {
			reader.join(TimeUnit.SECONDS.toMillis(10));
		}
	}

	// A period after both applications' first firing has ended (see the class
	// description): the fixed rate fires the ticks a slow first firing missed at once.
	private static long countFromNanos() {
		return (firstFiringsEnded.size() < 2) ? Long.MAX_VALUE
				: firstFiringsEnded.values().stream().mapToLong(Long::longValue).max().orElseThrow() + PERIOD.toNanos();
	}

	private static Stream<Firing> firingsAfterWarmUp() {
		long from = countFromNanos();
		return firings.stream().filter((fired) -> fired.nanos() > from);
	}

	private static String firstFiringsTook() {
		return firings.stream()
			.filter((fired) -> fired.index() == 0)
			.map((fired) -> fired.app() + " "
					+ Duration.ofNanos(firstFiringsEnded.get(fired.app()) - fired.nanos()).toMillis() + " ms")
			.collect(Collectors.joining(", "));
	}

	/** A run of the job, for a firing, entered at {@code entered} (nanos). */
	record Run(Firing firing, long token, boolean lockAsserted, long entered) {
	}

}
