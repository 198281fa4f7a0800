package io.github.redislock.integration;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.RedisLockClient;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.WorkerJvm;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.LeaderEventPublisher;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Spring Integration's leader election ({@link LockRegistryLeaderInitiator}) on two
 * registries of two clients, as two applications run it: one leader at a time, and the
 * other takes over when the leader stops (at once: the leader releases the lock) or when
 * its process is killed (within the lease the leader's watchdog last renewed).
 */
class LeaderElectionTests {

	private static final Log logger = LogFactory.getLog(LeaderElectionTests.class);

	// the lease of a leader that no longer renews it
	private static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(2);

	// what scheduling on a busy machine may add to a takeover; not what is tested
	private static final Duration SLACK = Duration.ofSeconds(2);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final List<String> events = new ArrayList<>();

	private final List<LockRegistryLeaderInitiator> initiators = new ArrayList<>();

	private final List<RedisLockClient> clients = new ArrayList<>();

	private LettuceConnectionFactory connection;

	@BeforeEach
	void connect() {
		this.connection = redis.newConnectionFactory(Duration.ofSeconds(10));
	}

	@AfterEach
	void disconnect() {
		this.initiators.forEach(LockRegistryLeaderInitiator::stop);
		this.clients.forEach(RedisLockClient::close);
		this.connection.destroy();
	}

	@Test
	void oneOfTwoLeadsAndTheOtherTakesOverWhenTheLeaderStops() {
		Candidate first = new Candidate("first", "stop");
		Candidate second = new Candidate("second", "stop");
		LockRegistryLeaderInitiator firstInitiator = start(first);
		await().atMost(Duration.ofSeconds(20)).until(() -> first.leader);
		LockRegistryLeaderInitiator secondInitiator = start(second);
		// the second keeps trying and never leads while the first does
		await().atMost(Duration.ofSeconds(20)).until(() -> second.failedAttempts.get() >= 3);
		await().during(Duration.ofSeconds(1))
			.atMost(Duration.ofSeconds(10))
			.until(() -> first.leader && !second.leader && firstInitiator.getContext().isLeader()
					&& !secondInitiator.getContext().isLeader());

		long stopped = System.nanoTime();
		firstInitiator.stop();
		await().atMost(Duration.ofSeconds(20)).until(() -> second.leader);
		Duration takeover = Duration.ofNanos(second.grantedNanos - stopped);
		logger.info("Leader stopped: the other took over in " + takeover.toMillis() + " ms; events " + events());
		assertThat(takeover).isLessThan(SLACK.plusSeconds(1));
		await().atMost(Duration.ofSeconds(10)).until(() -> !first.leader);
		assertThat(events()).containsExactlyInAnyOrder("first granted", "first revoked", "second granted");
		assertThat(events().indexOf("first granted")).isLessThan(events().indexOf("second granted"));
		assertThat(first.grants.get()).isOne();
		assertThat(second.grants.get()).isOne();
	}

	// as with RedisLockRegistry: the leader's initiator re-enters the lock on every
	// heartbeat, and each re-entry lengthens the fixed lease again
	@Test
	void withAFixedDefaultTtlTheLeadersHeartbeatKeepsItsLease() {
		Duration ttl = Duration.ofSeconds(3);
		Candidate first = new Candidate("first", "ttl");
		Candidate second = new Candidate("second", "ttl");
		start(first, ttl);
		await().atMost(Duration.ofSeconds(20)).until(() -> first.leader);
		start(second, ttl);
		await().atMost(Duration.ofSeconds(20)).until(() -> second.failedAttempts.get() >= 3);
		// longer than the lease
		await().during(ttl.plusSeconds(1))
			.atMost(ttl.plusSeconds(10))
			.until(() -> first.leader && !second.leader && first.grants.get() == 1 && second.grants.get() == 0);
	}

	@Test
	void theOtherTakesOverWithinTheLeaseWhenTheLeadersProcessIsKilled() throws Exception {
		Process leader = startLeaderProcess("kill");
		try {
			Candidate survivor = new Candidate("survivor", "kill");
			start(survivor);
			await().atMost(Duration.ofSeconds(20)).until(() -> survivor.failedAttempts.get() >= 3);
			assertThat(survivor.grants.get()).isZero();

			long killed = System.nanoTime();
			leader.destroyForcibly();
			assertThat(leader.waitFor(20, TimeUnit.SECONDS)).isTrue();
			await().atMost(Duration.ofSeconds(30)).until(() -> survivor.leader);
			Duration takeover = Duration.ofNanos(survivor.grantedNanos - killed);
			logger.info("Leader's process killed: the other took over in " + takeover.toMillis() + " ms (lease "
					+ WATCHDOG_TIMEOUT.toMillis() + " ms)");
			assertThat(takeover).isLessThan(WATCHDOG_TIMEOUT.plus(SLACK));
			assertThat(survivor.grants.get()).isOne();
		}
		finally {
			leader.destroyForcibly();
		}
	}

	// the leader in a JVM of its own, started from this test's class path; returns once
	// it leads
	private Process startLeaderProcess(String role) throws IOException, InterruptedException {
		File log = new File("target/leader-process.log");
		Process process = new ProcessBuilder(WorkerJvm.command(LeaderProcess.class, redis.server().host(),
				String.valueOf(redis.server().port()), role, String.valueOf(WATCHDOG_TIMEOUT.toMillis())))
			.redirectError(ProcessBuilder.Redirect.to(log))
			.start();
		CountDownLatch granted = new CountDownLatch(1);
		Thread reader = new Thread(() -> {
			try (BufferedReader lines = new BufferedReader(
					new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
				for (String line = lines.readLine(); line != null; line = lines.readLine()) {
					if (line.equals(LeaderProcess.GRANTED)) {
						granted.countDown();
					}
				}
			}
			catch (IOException ex) {
				// the process was killed
			}
		}, "leader-process-output");
		reader.setDaemon(true);
		reader.start();
		if (!granted.await(60, TimeUnit.SECONDS)) {
			process.destroyForcibly();
			throw new AssertionError("The leader process did not lead within 60 s; see " + log.getAbsolutePath());
		}
		return process;
	}

	private LockRegistryLeaderInitiator start(Candidate candidate) {
		return start(candidate, null);
	}

	private LockRegistryLeaderInitiator start(Candidate candidate, @Nullable Duration defaultTtl) {
		RedisLockClient client = RedisLockClient.builder(this.connection)
			.watchdogTimeout(WATCHDOG_TIMEOUT)
			.commandTimeout(Duration.ofSeconds(10))
			.build();
		this.clients.add(client);
		RedisLockClientLockRegistry registry = new RedisLockClientLockRegistry(client);
		registry.setDefaultTtl(defaultTtl);
		LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
		initiator.setLeaderEventPublisher(candidate);
		initiator.setPublishFailedEvents(true);
		this.initiators.add(initiator);
		initiator.start();
		return initiator;
	}

	private List<String> events() {
		synchronized (this.events) {
			return new ArrayList<>(this.events);
		}
	}

	private void record(String event) {
		synchronized (this.events) {
			this.events.add(event);
		}
	}

	/** Publishes nothing: the tests read the candidates. */
	static class NoEvents implements LeaderEventPublisher {

		@Override
		public void publishOnGranted(Object source, Context context, String role) {
		}

		@Override
		public void publishOnRevoked(Object source, Context context, String role) {
		}

		@Override
		public void publishOnFailedToAcquire(Object source, Context context, String role) {
		}

	}

	private final class Candidate extends DefaultCandidate implements LeaderEventPublisher {

		volatile boolean leader;

		volatile long grantedNanos;

		final AtomicInteger grants = new AtomicInteger();

		final AtomicInteger failedAttempts = new AtomicInteger();

		Candidate(String id, String role) {
			super(id, role);
		}

		@Override
		public void onGranted(Context ctx) {
			this.grantedNanos = System.nanoTime();
			this.grants.incrementAndGet();
			this.leader = true;
			record(getId() + " granted");
		}

		@Override
		public void onRevoked(Context ctx) {
			this.leader = false;
			record(getId() + " revoked");
		}

		@Override
		public void publishOnGranted(Object source, Context context, String role) {
		}

		@Override
		public void publishOnRevoked(Object source, Context context, String role) {
		}

		@Override
		public void publishOnFailedToAcquire(Object source, Context context, String role) {
			this.failedAttempts.incrementAndGet();
		}

	}

}
