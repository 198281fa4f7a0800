package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis user with the README's rule plus its additions for read/write and fair locks
 * can use semaphores: every semaphore script and read runs under exactly those commands.
 */
class SemaphoreAclTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void aUserWithTheReadWriteAdditionsCanUseSemaphores() throws Exception {
		List<String> rule = new ArrayList<>(List.of("ACL", "SETUSER", "sem-locker", "reset", "on", ">secret", "~lock:*",
				"&lock:*", "+hello", "+auth"));
		AclTests.COMMANDS.forEach((command) -> rule.add("+" + command));
		AclTests.READ_WRITE_COMMANDS.forEach((command) -> rule.add("+" + command));
		assertThat(redis.command(rule.toArray(String[]::new))).isEqualTo("OK");
		try (LockTestClients clients = LockTestClients.on(() -> {
			RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(redis.server().host(),
					redis.server().port());
			configuration.setUsername("sem-locker");
			configuration.setPassword("secret");
			return configuration;
		}, TestTimeouts.COMMAND_TIMEOUT)) {
			RedisLockClient holder = clients.newClient(Duration.ofMillis(600));
			RedisLockClient other = clients.newClient();
			String name = LockTestClients.uniqueName();
			RedisSemaphore semaphore = holder.getSemaphore(name, 1);
			LockHandle permit = semaphore.acquire(Duration.ZERO, null);
			// renewed past its lease by the watchdog, then extended
			LockTestClients.inspector(holder).renewNow();
			assertThat(permit.isHeld()).isTrue();
			assertThat(permit.extend(Duration.ofSeconds(30))).isTrue();
			assertThat(permit.remainingLease()).isPositive();
			assertThat(semaphore.availablePermits()).isZero();
			CompletableFuture<LockHandle> waiter = other.getSemaphore(name, 1)
				.acquireAsync(Duration.ofSeconds(20), null);
			permit.release();
			LockHandle next = waiter.get(20, TimeUnit.SECONDS);
			next.release(Duration.ofMillis(200));
			assertThat(LockTestClients.inspector(other).kindStates(name)).isNotEmpty();
			other.getSemaphore(name, 1).acquire(Duration.ofSeconds(10), null).release();
		}
	}

}
