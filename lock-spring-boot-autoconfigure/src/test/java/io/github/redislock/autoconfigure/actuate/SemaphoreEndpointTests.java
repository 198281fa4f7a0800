package io.github.redislock.autoconfigure.actuate;

import java.time.Duration;
import java.util.Map;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisLockClient;
import io.github.redislock.RedisSemaphore;
import io.github.redislock.autoconfigure.RedisLockTestContexts;
import io.github.redislock.autoconfigure.actuate.LocksEndpoint.HeldLockDescriptor;
import io.github.redislock.autoconfigure.actuate.LocksEndpoint.LockDescriptor;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code locks} endpoint shows a semaphore as one more kind of its name: every live
 * holder with what is left of its lease, this instance's permits among those held here
 * (each with its own fencing token and remaining lease), and its permits kept for nobody,
 * with nothing for the semaphore once its permits are back.
 */
class SemaphoreEndpointTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(RedisLockTestContexts.redisLockAndObservability())
		.withPropertyValues(RedisLockTestContexts.redisProperties(redis))
		.withPropertyValues("management.endpoints.web.exposure.include=locks");

	@Test
	void showsEachPermitHeldHereWithItsOwnTokenAndRemainingLease() {
		this.runner.run((context) -> {
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			RedisSemaphore semaphore = context.getBean(RedisLockClient.class).getSemaphore("exports:us", 3);
			// the watchdog's 30 s lease, and a shorter fixed one
			LockHandle renewed = semaphore.acquire(Duration.ZERO, null);
			LockHandle fixed = semaphore.acquire(Duration.ZERO, Duration.ofSeconds(10));
			LockDescriptor view = endpoint.lock(new String[] { "exports:us" });
			assertThat(view.heldHere()).hasSize(2);
			HeldLockDescriptor renewedView = heldBy(view, renewed.fencingToken());
			HeldLockDescriptor fixedView = heldBy(view, fixed.fencingToken());
			assertThat(renewedView.watchdog()).isTrue();
			assertThat(renewedView.remainingLeaseMs()).isBetween(10_001L, 30_000L);
			assertThat(fixedView.watchdog()).isFalse();
			assertThat(fixedView.remainingLeaseMs()).isBetween(1L, 10_000L);
			// the same figures as every holder's in the semaphore's own view
			assertThat(view.kinds()).singleElement()
				.satisfies((kind) -> assertThat(
						((Map<?, ?>) kind.details().get("leases")).keySet().stream().map(String::valueOf).toList())
					.containsExactlyInAnyOrder(renewedView.owner(), fixedView.owner()));
			renewed.release();
			fixed.release();
		});
	}

	private static HeldLockDescriptor heldBy(LockDescriptor view, long fencingToken) {
		return view.heldHere()
			.stream()
			.filter((held) -> held.fencingToken() == fencingToken)
			.findFirst()
			.orElseThrow(() -> new AssertionError("No permit with token " + fencingToken + " in " + view.heldHere()));
	}

	@Test
	void showsTheSemaphoresHoldersAndItsPermitsHeldHere() {
		this.runner.run((context) -> {
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			RedisSemaphore semaphore = context.getBean(RedisLockClient.class).getSemaphore("exports:eu", 3);
			LockHandle first = semaphore.acquire(Duration.ZERO, null);
			LockHandle second = semaphore.acquire(Duration.ZERO, Duration.ofSeconds(20));
			LockDescriptor view = endpoint.lock(new String[] { "exports:eu" });
			assertThat(view.locked()).isTrue();
			// the top shows the taken kind's key and lease, not the free exclusive lock's
			assertThat(view.key()).isEqualTo("lock:{exports:eu}:sem");
			assertThat(view.remainingLeaseMs()).isBetween(1L, 30_000L);
			assertThat(view.heldHere()).hasSize(2).allSatisfy((held) -> assertThat(held.mode()).isEqualTo("semaphore"));
			assertThat(view.kinds()).singleElement().satisfies((kind) -> {
				assertThat(kind.mode()).isEqualTo("semaphore");
				assertThat(kind.key()).isEqualTo("lock:{exports:eu}:sem");
				assertThat(kind.holders()).hasSize(2)
					.allSatisfy((holder) -> assertThat(holder.thisInstance()).isTrue());
				assertThat(kind.remainingLeaseMs()).isBetween(1L, 30_000L);
				assertThat(kind.details()).containsEntry("taken", 2);
				assertThat((Map<?, ?>) kind.details().get("leases")).hasSize(2);
			});
			first.release();
			// kept for nobody: taken, without a holder
			second.release(Duration.ofSeconds(20));
			assertThat(endpoint.lock(new String[] { "exports:eu" }).kinds()).singleElement().satisfies((kind) -> {
				assertThat(kind.holders()).isEmpty();
				assertThat(kind.keptForNobody()).isTrue();
			});
			assertThat(semaphore.availablePermits()).isEqualTo(2);
		});
	}

}
