package io.github.redislock.fencing;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What every {@link FencingGuard} promises, run against a real store by each
 * implementation: a subclass gives the guard and, if the store has one, the unit of work
 * (a transaction) that the guard's check runs in. Tokens are the size the lock issues
 * (about 1.8e15), and every test uses a resource of its own.
 */
abstract class FencingGuardContract {

	static final long BASE = 1_800_000_000_000_000L;

	private final ExecutorService holders = Executors.newFixedThreadPool(2);

	/** The guard under test, on a store the subclass started. */
	protected abstract FencingGuard guard();

	/**
	 * Runs the work in one unit of work of the store (a transaction that commits when the
	 * work returns and rolls back when it throws); directly for a store whose guard is
	 * atomic on its own.
	 */
	protected void inUnitOfWork(Runnable work) {
		work.run();
	}

	@AfterEach
	void stopHolders() {
		this.holders.shutdownNow();
	}

	@Test
	void theFirstTokenOfAResourceIsAccepted() {
		accept(resource(), BASE);
	}

	@Test
	void aHigherOrEqualTokenIsAccepted() {
		String resource = resource();
		accept(resource, BASE + 5);
		accept(resource, BASE + 5);
		accept(resource, BASE + 7);
		assertRefused(resource, BASE + 6, BASE + 7);
	}

	@Test
	void aLowerTokenIsRefusedNamingTheResourceTheTokenAndTheHigherOne() {
		String resource = resource();
		accept(resource, BASE + 7);
		StaleFencingTokenException refused = assertRefused(resource, BASE + 5, BASE + 7);
		assertThat(refused).hasMessageContaining("'" + resource + "'")
			.hasMessageContaining(Long.toString(BASE + 5))
			.hasMessageContaining(Long.toString(BASE + 7))
			.hasMessageContaining("do not retry it with the same token");
	}

	@Test
	void aRefusalLeavesTheHighestTokenAsItWas() {
		String resource = resource();
		accept(resource, BASE + 7);
		assertRefused(resource, BASE + 5, BASE + 7);
		assertRefused(resource, BASE + 6, BASE + 7);
	}

	@Test
	void tokensOneApartAtTheLocksScaleAreToldApart() {
		String resource = resource();
		accept(resource, BASE + 1);
		assertRefused(resource, BASE, BASE + 1);
	}

	@Test
	void resourcesAreFencedApart() {
		String first = resource();
		String second = resource();
		accept(first, BASE + 7);
		accept(second, BASE + 5);
		assertRefused(second, BASE + 4, BASE + 5);
	}

	/**
	 * Two holders, with tokens 5 and 7, write the same resource at once, each in its own
	 * unit of work: in whatever order they run, 7 is accepted and 5 is accepted only
	 * before it, so the resource ends at 7. Half the rounds start on a resource the store
	 * has never seen (the first write of a row), half on one it has.
	 */
	@Test
	void concurrentHoldersNeverHaveTheOlderTokenAcceptedAfterTheNewer(TestReporter reporter) throws Exception {
		int rounds = 40;
		int fiveAccepted = 0;
		int fiveRefused = 0;
		for (int round = 0; round < rounds; round++) {
			String resource = resource();
			if (round % 2 == 1) {
				accept(resource, BASE + 1);
			}
			CyclicBarrier start = new CyclicBarrier(2);
			List<Future<Long>> outcomes = new ArrayList<>();
			for (long token : new long[] { BASE + 5, BASE + 7 }) {
				outcomes.add(this.holders.submit(() -> {
					start.await(10, TimeUnit.SECONDS);
					try {
						accept(resource, token);
						return -1L;
					}
					catch (StaleFencingTokenException ex) {
						assertThat(ex.getToken()).isEqualTo(token);
						return ex.getHighestSeen();
					}
				}));
			}
			long five = outcomes.get(0).get(30, TimeUnit.SECONDS);
			long seven = outcomes.get(1).get(30, TimeUnit.SECONDS);
			assertThat(seven).as("token 7 refused in round %d", round).isEqualTo(-1L);
			if (five == -1L) {
				fiveAccepted++;
			}
			else {
				assertThat(five).isEqualTo(BASE + 7);
				fiveRefused++;
			}
			assertRefused(resource, BASE + 6, BASE + 7);
		}
		assertThat(fiveAccepted + fiveRefused).isEqualTo(rounds);
		reporter.publishEntry("token 5 of " + rounds + " rounds", fiveAccepted + " accepted, " + fiveRefused
				+ " refused; token 7 accepted in every round, and the resource left at 7");
	}

	final void accept(String resource, long token) {
		inUnitOfWork(() -> guard().accept(resource, token));
	}

	final StaleFencingTokenException assertRefused(String resource, long token, long highest) {
		StaleFencingTokenException refused = catchRefusal(resource, token);
		assertThat(refused.getResource()).isEqualTo(resource);
		assertThat(refused.getToken()).isEqualTo(token);
		assertThat(refused.getHighestSeen()).isEqualTo(highest);
		return refused;
	}

	private StaleFencingTokenException catchRefusal(String resource, long token) {
		List<StaleFencingTokenException> refused = new ArrayList<>();
		assertThatExceptionOfType(StaleFencingTokenException.class).isThrownBy(() -> accept(resource, token))
			.satisfies(refused::add);
		return refused.get(0);
	}

	static String resource() {
		return "fence-" + UUID.randomUUID();
	}

}
