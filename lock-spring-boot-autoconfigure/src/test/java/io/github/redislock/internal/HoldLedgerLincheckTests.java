package io.github.redislock.internal;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.observation.ObservationRegistry;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.jetbrains.lincheck.datastructures.Validate;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import io.github.redislock.LeaseExpiredException;

import static io.github.redislock.internal.LincheckRuns.call;

/**
 * Every interleaving of owners acquiring and releasing through the client's hold ledger
 * ({@link HoldLedger}, {@link Holds}, {@link Hold}, releases by {@link LockReleases})
 * with the watchdog's renewal round ({@link LeaseWatchdog#renewAll}) and a lease running
 * out in Redis ({@link InMemoryRedis}): a lost lease is reported once, whether the
 * watchdog, the unlock or both find it; a lock released while the renewal is under way is
 * no loss; re-entries count; and the ledger holds exactly the holds whose owners did not
 * release them (an owner whose lease ran out holds on until it finds out). Each Lincheck
 * thread is one owner (a thread owns its holds); the watchdog and Redis act from any
 * thread.
 */
class HoldLedgerLincheckTests {

	// the watchdog warns of every loss it finds, in every one of the runs
	private static final Logger watchdogLog = (Logger) LoggerFactory.getLogger(LeaseWatchdog.class);

	private static Level watchdogLogLevel;

	@BeforeAll
	static void quietWatchdog() {
		watchdogLogLevel = watchdogLog.getLevel();
		watchdogLog.setLevel(Level.ERROR);
	}

	@AfterAll
	static void watchdogLogsAgain() {
		watchdogLog.setLevel(watchdogLogLevel);
	}

	@Test
	void aLostLeaseIsReportedOnceAndAReleaseIsNoLoss() {
		LincheckRuns.modelChecking(watchdogAgainstUnlock(true), watchdogAgainstUnlock(false)).check(Ledger.class);
		LincheckRuns.modelChecking().threads(2).actorsPerThread(2).check(Ledger.class);
	}

	@Test
	void underStress() {
		LincheckRuns.stress().threads(2).actorsPerThread(3).check(Ledger.class);
	}

	// owner 1 holds the lock; the watchdog renews as the owner unlocks, with the lease
	// run out in Redis or not
	private static ExecutionScenario watchdogAgainstUnlock(boolean expired) {
		Class<Ledger> type = Ledger.class;
		List<org.jetbrains.kotlinx.lincheck.Actor> before = expired
				? List.of(call(type, "acquire", 1), call(type, "leaseRunsOut")) : List.of(call(type, "acquire", 1));
		return LincheckRuns.scenario(type, before,
				List.of(List.of(call(type, "unlock", 1)), List.of(call(type, "watchdogRenews"))), List.of());
	}

	static final int OWNERS = 4;

	static final LockKeys KEYS = ExclusiveLock.INSTANCE.keys("lincheck:", "lock");

	/** One client's ledger of one lock, its watchdog, and Redis. */
	public static class Ledger {

		private final InMemoryRedis redis = new InMemoryRedis();

		private final Holds holds = new Holds(new WaitQueues("lincheck"));

		private final AtomicInteger lostReports = new AtomicInteger();

		private final HoldLedger ledger;

		private final LockReleases releases;

		private final LeaseWatchdog watchdog;

		private final Owner[] owners = new Owner[OWNERS];

		// what each owner was told: how many holds it has
		private final int[] counts = new int[OWNERS];

		private final int[] grants = new int[OWNERS];

		public Ledger() {
			LockObservations observations = new LockObservations(ObservationRegistry.NOOP);
			LeaseLostNotifier notifier = new LeaseLostNotifier(List.of((event) -> this.lostReports.incrementAndGet()));
			this.ledger = new HoldLedger(this.holds, observations, notifier);
			Settlements settlements = new Settlements(this.redis.commands(), new ManualExecutor());
			this.releases = new LockReleases(this.redis.commands(), this.holds, this.ledger, settlements, observations,
					new AsyncThread(new ManualExecutor()), 0);
			this.watchdog = new LeaseWatchdog(this.redis.commands(), this.holds, 30_000, false, notifier,
					new ManualExecutor());
			for (int i = 0; i < OWNERS; i++) {
				this.owners[i] = Owner.handle("lincheck", i);
			}
		}

		/** The owner of this thread acquires the lock (again). */
		@Operation
		public String acquire(@Param(gen = ThreadIdGen.class) int owner) {
			long start = System.nanoTime();
			LockReply reply = this.redis.commands()
				.acquire(KEYS, this.owners[owner], Lease.watchdog(30_000), this.counts[owner], 1, false, 0);
			if (!(reply instanceof LockReply.Granted granted)) {
				return "busy";
			}
			Hold hold = this.ledger.granted(KEYS, this.owners[owner], granted, Lease.watchdog(30_000), start);
			this.counts[owner] = hold.count();
			this.grants[owner]++;
			return "holds " + hold.count();
		}

		/** The owner of this thread releases one hold. */
		@Operation
		public String unlock(@Param(gen = ThreadIdGen.class) int owner) {
			if (this.counts[owner] == 0) {
				return "holds nothing";
			}
			this.counts[owner]--;
			try {
				this.releases.release(KEYS, this.owners[owner], 0);
				return "released";
			}
			catch (LeaseExpiredException ex) {
				this.counts[owner] = 0;
				return "expired";
			}
		}

		@Operation
		public void watchdogRenews() {
			this.watchdog.renewAll();
		}

		@Operation
		public void leaseRunsOut() {
			this.redis.expired(KEYS);
		}

		@Validate
		public void accountsForEveryHold() {
			for (int i = 0; i < OWNERS; i++) {
				Hold hold = this.holds.get(KEYS, this.owners[i]);
				if (this.counts[i] > 0) {
					if (hold == null || hold.count() != this.counts[i]) {
						throw new AssertionError("Owner " + i + " was told it holds " + this.counts[i]
								+ " time(s), but the ledger has " + ((hold != null) ? hold.count() : "no hold"));
					}
				}
				else if (hold != null) {
					throw new AssertionError("Owner " + i + " released its hold, but the ledger still has it");
				}
			}
			int holdsMade = 0;
			for (int grants : this.grants) {
				holdsMade += Math.min(grants, 1);
			}
			if (this.lostReports.get() > holdsMade) {
				throw new AssertionError(this.lostReports.get() + " losses reported for " + holdsMade + " hold(s)");
			}
		}

	}

}
