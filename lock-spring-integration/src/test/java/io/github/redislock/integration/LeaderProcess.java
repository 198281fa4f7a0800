package io.github.redislock.integration;

import java.io.IOException;
import java.time.Duration;

import io.github.redislock.RedisLockClient;
import io.github.redislock.testsupport.RedisServers;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * A leader-election candidate in a process of its own, for {@link LeaderElectionTests}:
 * it runs a {@link LockRegistryLeaderInitiator} on a {@link RedisLockClientLockRegistry},
 * prints {@value #GRANTED} on its standard output once it leads, and runs until it is
 * killed.
 * <p>
 * Arguments: the Redis host and port, the role, and the client's watchdog timeout in
 * milliseconds.
 */
public final class LeaderProcess {

	/** The line printed once leadership is granted. */
	public static final String GRANTED = "granted";

	private static final Duration MAX_LIFETIME = Duration.ofMinutes(2);

	private LeaderProcess() {
	}

	public static void main(String[] args) throws InterruptedException {
		LettuceConnectionFactory connection = RedisServers.connectionFactory(
				new RedisStandaloneConfiguration(args[0], Integer.parseInt(args[1])), Duration.ofSeconds(10));
		RedisLockClient client = RedisLockClient.builder(connection)
			.watchdogTimeout(Duration.ofMillis(Long.parseLong(args[3])))
			.commandTimeout(Duration.ofSeconds(10))
			.build();
		LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(new RedisLockClientLockRegistry(client),
				new DefaultCandidate("process", args[2]) {

					@Override
					public void onGranted(Context ctx) {
						System.out.println(GRANTED);
						System.out.flush();
					}

				});
		initiator.setLeaderEventPublisher(new LeaderElectionTests.NoEvents());
		initiator.start();
		// never outlives the test: its standard input ends when the test's JVM does
		Thread watch = new Thread(() -> {
			try {
				while (System.in.read() != -1) {
					// nothing is sent
				}
			}
			catch (IOException ex) {
				// the same: the test is gone
			}
			Runtime.getRuntime().halt(1);
		});
		watch.setDaemon(true);
		watch.start();
		Thread.sleep(MAX_LIFETIME.toMillis());
		Runtime.getRuntime().halt(2);
	}

}
