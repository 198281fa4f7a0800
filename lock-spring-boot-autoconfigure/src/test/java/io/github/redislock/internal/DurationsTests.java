package io.github.redislock.internal;

import java.time.Duration;
import java.util.List;

import io.github.redislock.LockNotAcquiredException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The API spells durations in its messages with a class of its own (it imports nothing
 * from the engine); both must spell them alike.
 */
class DurationsTests {

	@Test
	void theApiAndTheEngineSpellDurationsAlike() {
		for (Duration duration : List.of(Duration.ZERO, Duration.ofMillis(500), Duration.ofSeconds(3),
				Duration.ofMillis(1250), Duration.ofMinutes(2), Duration.ofMillis(61_500))) {
			assertThat(new LockNotAcquiredException("order:42", duration).getMessage())
				.isEqualTo("Could not acquire lock 'order:42' within " + Durations.format(duration)
						+ ": another holder kept it");
		}
	}

}
